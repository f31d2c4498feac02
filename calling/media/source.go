package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/pion/webrtc/v4/pkg/media/oggreader"
)

// Source is audio a leg can play. A Source may be played on many legs at
// once; each Play streams it independently.
type Source interface {
	// Stream writes the source's Opus packets to w, paced in real time,
	// until the source ends (nil), ctx is done, or w fails.
	Stream(ctx context.Context, w FrameWriter) error
}

// FrameWriter takes a Source's Opus packets for a leg, which numbers and
// timestamps them in its continuous outgoing stream.
type FrameWriter interface {
	// WriteFrame sends one Opus packet lasting samples at 48 kHz. It fails
	// once the source no longer feeds the leg.
	WriteFrame(opus []byte, samples uint32) error
}

// Play feeds the leg's outgoing audio from src, replacing what fed it
// before (a player or a bridge). Playback starts once the leg is connected.
// The returned channel is closed when src ends, or is replaced, stopped,
// or the leg closes.
func (l *Leg) Play(src Source) <-chan struct{} {
	ctx, cancel := context.WithCancel(context.Background())
	f := newFeed(nil)
	f.onEnd = func() { cancel(); l.out.clearFeed(f) }
	l.replaceFeed(f)
	started := l.goSafe(func() {
		defer f.end()
		select {
		case <-l.connected:
		case <-ctx.Done():
			return
		}
		_ = src.Stream(ctx, &frameWriter{out: l.out, feed: f})
	})
	if !started {
		f.end()
	}
	return f.done
}

// Stop silences the leg: nothing is sent until the next Play or Bridge.
func (l *Leg) Stop() { l.replaceFeed(nil) }

// replaceFeed installs f and ends whatever fed the leg before.
func (l *Leg) replaceFeed(f *feed) {
	if old := l.out.setFeed(f); old != nil && old != f {
		old.end()
	}
}

// frameWriter numbers a Source's frames from zero; the leg rebases them.
type frameWriter struct {
	out  *outStream
	feed *feed
	seq  uint16
	ts   uint32
}

func (w *frameWriter) WriteFrame(opus []byte, samples uint32) error {
	err := w.out.write(w.feed, w.seq, w.ts, opus)
	w.seq++
	w.ts += samples
	return err
}

// maxOggSize bounds a file loaded by OggFile (an hour of 32 kb/s Opus is ~15 MB).
const maxOggSize = 64 << 20

// oggSource is an Ogg/Opus file held in memory, one Opus packet per page.
type oggSource struct {
	packets [][]byte
	samples []uint32
	loop    bool
}

// OggFile loads an Ogg/Opus file with one packet per page (what ffmpeg
// writes with -page_duration 20000) as a Source paced in real time; with
// loop it repeats until replaced.
func OggFile(path string, loop bool) (Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("media: open audio: %w", err)
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil {
		return nil, fmt.Errorf("media: audio: %w", err)
	} else if info.Size() > maxOggSize {
		return nil, fmt.Errorf("media: %s: larger than %d MiB", path, maxOggSize>>20)
	}
	src, err := readOgg(io.LimitReader(f, maxOggSize))
	if err != nil {
		return nil, fmt.Errorf("media: %s: %w", path, err)
	}
	src.loop = loop
	return src, nil
}

// ReadOggPackets returns the Opus packets of an Ogg/Opus file with one
// packet per page, in order.
func ReadOggPackets(path string) ([][]byte, error) {
	src, err := OggFile(path, false)
	if err != nil {
		return nil, err
	}
	return src.(*oggSource).packets, nil
}

func readOgg(r io.Reader) (*oggSource, error) {
	reader, _, err := oggreader.NewWith(r)
	if err != nil {
		return nil, fmt.Errorf("not Ogg/Opus: %w", err)
	}
	src := &oggSource{}
	var lastGranule uint64
	for {
		payload, page, err := reader.ParseNextPage()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading Ogg page: %w", err)
		}
		if kind, ok := page.HeaderType(payload); ok && kind == oggreader.HeaderOpusTags || len(payload) == 0 {
			continue
		}
		n := opusSamples(payload)
		if n == 0 {
			return nil, errors.New("invalid Opus packet")
		}
		// A page holding several packets would play as one: refuse it. (The
		// last page may advance by less: the encoder trims the end.)
		if len(src.packets) > 0 && page.GranulePosition-lastGranule > uint64(n) {
			return nil, errors.New("expected one Opus packet per Ogg page (ffmpeg -page_duration 20000)")
		}
		lastGranule = page.GranulePosition
		src.packets = append(src.packets, payload)
		src.samples = append(src.samples, n)
	}
	if len(src.packets) == 0 {
		return nil, errors.New("no audio packets")
	}
	return src, nil
}

func (s *oggSource) Stream(ctx context.Context, w FrameWriter) error {
	start := time.Now()
	var at time.Duration
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		for i, p := range s.packets {
			if err := sleepUntil(ctx, timer, start.Add(at)); err != nil {
				return err
			}
			if err := w.WriteFrame(p, s.samples[i]); err != nil {
				return err
			}
			at += time.Duration(s.samples[i]) * time.Second / 48000
		}
		if !s.loop {
			// Let the last packet play out before reporting the end.
			return sleepUntil(ctx, timer, start.Add(at))
		}
	}
}

// sleepUntil waits for t on a reused timer, or for ctx.
func sleepUntil(ctx context.Context, timer *time.Timer, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer.Reset(d)
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
