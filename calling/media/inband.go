package media

import (
	"math"

	"github.com/pion/opus"
)

// In-band DTMF: when a caller's keys arrive as tones inside the audio
// instead of RFC 4733 events, the leg decodes its Opus packets to 8 kHz
// PCM and looks for the two DTMF frequencies of a key with the Goertzel
// algorithm over a sliding 40 ms window, advanced every 20 ms.
const (
	inbandRate   = 8000
	inbandStep   = inbandRate / 50 // 20 ms of samples
	inbandWindow = 2 * inbandStep  // 40 ms: 25 Hz resolution, enough for DTMF's 73 Hz spacing
	// A key's tone must hold this many windows in a row to count.
	inbandHold = 2
	// Each of the two tones must carry this share of the window's energy
	// (a pure key carries about half each), and the runner-up of its
	// group at most a quarter of the winner.
	inbandMinShare = 0.15
	inbandMaxOther = 0.25
	// Windows quieter than this mean square (16-bit samples) are silence.
	inbandMinPower = 2000.0
)

var (
	dtmfRows = [4]float64{697, 770, 852, 941}
	dtmfCols = [4]float64{1209, 1336, 1477, 1633}
	dtmfKeys = [4][4]rune{{'1', '2', '3', 'A'}, {'4', '5', '6', 'B'}, {'7', '8', '9', 'C'}, {'*', '0', '#', 'D'}}
)

// inbandDetector finds DTMF keys in decoded audio.
type inbandDetector struct {
	onDigit func(rune)
	dec     opus.Decoder
	ready   bool
	pcm     []int16 // decode buffer
	window  []float64
	last    rune // the key of the previous windows (0: none)
	run     int  // how many windows in a row held last
	told    bool // last was reported
}

func newInbandDetector(onDigit func(rune)) *inbandDetector {
	d := &inbandDetector{onDigit: onDigit, pcm: make([]int16, inbandRate*120/1000)}
	dec, err := opus.NewDecoderWithOutput(inbandRate, 1)
	if err == nil {
		d.dec, d.ready = dec, true
	}
	return d
}

// packet decodes one Opus payload and runs the detector on every full
// step of new samples. Undecodable packets are skipped.
func (d *inbandDetector) packet(payload []byte) {
	if !d.ready || len(payload) == 0 {
		return
	}
	// The decoder reads what the remote sends; should it ever panic on
	// some packet, this leg stops listening for tones rather than the
	// process dying (FuzzInbandPacket found no such packet).
	defer func() {
		if recover() != nil {
			d.ready = false
		}
	}()
	n, err := d.dec.DecodeToInt16(payload, d.pcm)
	if err != nil || n <= 0 {
		return
	}
	d.samples(d.pcm[:n])
}

// samples adds PCM samples and examines each complete window.
func (d *inbandDetector) samples(pcm []int16) {
	for _, s := range pcm {
		d.window = append(d.window, float64(s))
		if len(d.window) == inbandWindow {
			d.examine(d.window)
			d.window = append(d.window[:0], d.window[inbandStep:]...)
		}
	}
}

// examine reports a key once it held inbandHold windows, once per press.
func (d *inbandDetector) examine(w []float64) {
	key := detectKey(w)
	if key != d.last {
		d.last, d.run, d.told = key, 0, false
	}
	d.run++
	if key != 0 && d.run >= inbandHold && !d.told {
		d.told = true
		if d.onDigit != nil {
			d.onDigit(key)
		}
	}
}

// detectKey returns the DTMF key whose two tones dominate w (0: none).
func detectKey(w []float64) rune {
	var energy float64
	for _, s := range w {
		energy += s * s
	}
	if energy/float64(len(w)) < inbandMinPower {
		return 0
	}
	// A pure tone of the window's energy has Goertzel power N·energy/2.
	full := float64(len(w)) * energy / 2
	row, rowShare, rowNext := strongest(w, dtmfRows, full)
	col, colShare, colNext := strongest(w, dtmfCols, full)
	if rowShare < inbandMinShare || colShare < inbandMinShare ||
		rowNext > inbandMaxOther*rowShare || colNext > inbandMaxOther*colShare {
		return 0
	}
	return dtmfKeys[row][col]
}

// strongest returns the index of the frequency of group with the largest
// share of the window's power, its share and the runner-up's.
func strongest(w []float64, group [4]float64, full float64) (int, float64, float64) {
	best, bestShare, next := 0, 0.0, 0.0
	for i, f := range group {
		share := goertzel(w, f) / full
		switch {
		case share > bestShare:
			best, next, bestShare = i, bestShare, share
		case share > next:
			next = share
		}
	}
	return best, bestShare, next
}

// goertzel is the power of frequency f in w (sampled at inbandRate).
func goertzel(w []float64, f float64) float64 {
	coeff := 2 * math.Cos(2*math.Pi*f/inbandRate)
	var s1, s2 float64
	for _, x := range w {
		s1, s2 = x+coeff*s1-s2, s1
	}
	return s1*s1 + s2*s2 - coeff*s1*s2
}
