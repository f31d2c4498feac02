package media

import (
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/pion/rtp"

	"switchboard/calling/media/internal/rtptrack"
)

// errStale tells a feed it no longer feeds the leg (replaced or stopped).
var errStale = errors.New("media: feed replaced")

// feed is one thing feeding a leg's outgoing audio: a playing Source or
// the forwarding half of a bridge.
type feed struct {
	done  chan struct{}
	once  sync.Once
	onEnd func()
	// Per-feed rewrite into the leg's stream, set by the first packet.
	mapped bool
	seqOff uint16
	tsOff  uint32
}

func newFeed(onEnd func()) *feed { return &feed{done: make(chan struct{}), onEnd: onEnd} }

// end marks the feed finished (idempotent) and closes done.
func (f *feed) end() {
	f.once.Do(func() {
		if f.onEnd != nil {
			f.onEnd()
		}
		close(f.done)
	})
}

// outStream is a leg's outgoing RTP stream. Whatever feeds it, sequence
// numbers and timestamps stay continuous: each new feed is rebased onto
// the last packet sent, timestamps advanced by the wall time in between.
type outStream struct {
	track *rtptrack.Track

	mu      sync.Mutex
	cur     *feed
	seq     uint16
	ts      uint32
	lastAt  time.Time
	lastDur uint32
}

func newOutStream(t *rtptrack.Track) *outStream {
	return &outStream{track: t, seq: uint16(rand.Uint32()), ts: rand.Uint32(), lastDur: samplesPerFrame}
}

// samplesPerFrame is 20 ms at Opus's 48 kHz RTP clock.
const samplesPerFrame = 960

// setFeed makes f (nil: silence) the current feed and returns the old one.
func (o *outStream) setFeed(f *feed) *feed {
	o.mu.Lock()
	defer o.mu.Unlock()
	old := o.cur
	o.cur = f
	return old
}

// clearFeed silences the stream if f still feeds it.
func (o *outStream) clearFeed(f *feed) {
	o.mu.Lock()
	if o.cur == f {
		o.cur = nil
	}
	o.mu.Unlock()
}

// write sends one Opus packet of feed f, whose header is in f's own
// sequence and timestamp space. errStale when f is no longer current.
func (o *outStream) write(f *feed, seq uint16, ts uint32, payload []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cur != f || f == nil {
		return errStale
	}
	marker := false
	if !f.mapped {
		f.mapped, marker = true, true
		f.seqOff = o.seq + 1 - seq
		f.tsOff = o.ts + o.gapSamples() - ts
	}
	h := rtp.Header{Version: 2, Marker: marker, SequenceNumber: seq + f.seqOff, Timestamp: ts + f.tsOff}
	// A late (reordered) packet goes out as it came; the stream's position
	// only moves forward, so the next feed starts after the newest packet.
	if marker || int16(h.SequenceNumber-o.seq) > 0 {
		o.seq, o.ts, o.lastAt = h.SequenceNumber, h.Timestamp, time.Now()
		if d := opusSamples(payload); d > 0 {
			o.lastDur = d
		}
	}
	return o.track.WriteAudio(&h, payload)
}

// gapSamples is how far the next feed's first timestamp lies after the last
// packet: the wall time since, at least the last packet's duration.
func (o *outStream) gapSamples() uint32 {
	if o.lastAt.IsZero() {
		return o.lastDur
	}
	elapsed := uint32(time.Since(o.lastAt).Microseconds() * 48 / 1000)
	return max(elapsed, o.lastDur)
}
