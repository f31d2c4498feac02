package media

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4/pkg/media/oggwriter"
)

// Recording writes a leg's received audio to an Ogg/Opus file as packets
// arrive, without transcoding.
type Recording struct {
	leg *Leg

	mu      sync.Mutex
	w       *oggwriter.OggWriter
	samples uint64
	stopped bool
	err     error
	// next is the RTP timestamp where the last packet ended, to spot gaps.
	next    uint32
	started bool
}

// opusSilence is a 20 ms Opus frame of silence (CELT fullband, one frame,
// an all-zero range-coded body), written where the sender sent nothing.
var opusSilence = []byte{0xf8, 0xff, 0xfe}

// maxGapFill bounds the silence inserted for one gap (10 s): beyond it the
// sender's timestamps are not trusted.
const maxGapFill = 10 * 48000

// Record starts writing the leg's received audio to path (mono Ogg/Opus).
// Errors: ErrClosed, or the file cannot be created.
func (l *Leg) Record(path string) (*Recording, error) {
	w, err := oggwriter.New(path, 48000, 1)
	if err != nil {
		return nil, fmt.Errorf("media: create recording: %w", err)
	}
	r := &Recording{leg: l, w: w}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		_ = w.Close()
		return nil, ErrClosed
	}
	var list []*Recording
	if cur := l.recordings.Load(); cur != nil {
		list = slices.Clone(*cur)
	}
	list = append(list, r)
	l.recordings.Store(&list)
	return r, nil
}

// Stop finishes the file and returns the audio duration it holds. Gaps in
// the sender's timestamps (silence suppression, lost packets) are filled
// with silence, so the file follows the call's time from its first packet:
// start the recordings of a call's legs together to mix them aligned.
// Idempotent; the leg's Close stops its recordings too.
func (r *Recording) Stop() (time.Duration, error) {
	r.leg.removeRecording(r)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.stopped {
		r.stopped = true
		if err := r.w.Close(); err != nil {
			r.err = fmt.Errorf("media: finish recording: %w", err)
		}
	}
	return time.Duration(r.samples) * time.Second / 48000, r.err
}

func (r *Recording) write(p *rtp.Packet) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped || r.err != nil {
		return
	}
	n := opusSamples(p.Payload)
	if n == 0 {
		return
	}
	if r.started {
		gap := p.Timestamp - r.next
		if int32(gap) < 0 {
			return // late or duplicate: its time is already written
		}
		if gap >= samplesPerFrame && gap <= maxGapFill {
			r.fillSilence(gap / samplesPerFrame)
		}
	}
	r.started, r.next = true, p.Timestamp+n
	r.writeOpus(p.Payload, n)
}

func (r *Recording) fillSilence(frames uint32) {
	for range frames {
		r.writeOpus(opusSilence, samplesPerFrame)
	}
}

func (r *Recording) writeOpus(payload []byte, samples uint32) {
	if r.err != nil {
		return
	}
	if err := r.w.WriteRTP(&rtp.Packet{Payload: payload}); err != nil {
		r.err = fmt.Errorf("media: write recording: %w", err)
		return
	}
	r.samples += uint64(samples)
}

func (l *Leg) record(p *rtp.Packet) {
	if list := l.recordings.Load(); list != nil {
		for _, r := range *list {
			r.write(p)
		}
	}
}

func (l *Leg) removeRecording(r *Recording) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := l.recordings.Load()
	if cur == nil {
		return
	}
	list := slices.DeleteFunc(slices.Clone(*cur), func(x *Recording) bool { return x == r })
	l.recordings.Store(&list)
}

// stopRecordings detaches every recording and returns them.
func (l *Leg) stopRecordings() []*Recording {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := l.recordings.Swap(nil)
	if cur == nil {
		return nil
	}
	return *cur
}
