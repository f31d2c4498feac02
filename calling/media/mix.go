package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/pion/webrtc/v4/pkg/media/oggreader"
)

// ErrNoAudio: none of the recordings to mix holds any audio (no side of
// the call sent a packet while it was recorded).
var ErrNoAudio = errors.New("media: mix: the recordings hold no audio")

// MixRecordings mixes Ogg/Opus recordings (the two legs of a call) into
// one mono Ogg/Opus file at out with ffmpeg's amix, and returns its
// duration. A recording without audio (a side that never sent a packet:
// its file has only the Ogg/Opus headers, which ffmpeg cannot read) is
// left out; ErrNoAudio when none has any. ffmpeg must be on PATH.
func MixRecordings(ctx context.Context, out string, recordings ...string) (time.Duration, error) {
	if len(recordings) == 0 {
		return 0, errors.New("media: mix: no recordings")
	}
	inputs, err := withAudio(recordings)
	if err != nil {
		return 0, err
	}
	bin, err := exec.LookPath("ffmpeg")
	if err != nil {
		return 0, fmt.Errorf("media: mix: %w", err)
	}
	args := []string{"-hide_banner", "-nostdin", "-loglevel", "error"}
	for _, in := range inputs {
		args = append(args, "-i", in)
	}
	filter := fmt.Sprintf("amix=inputs=%d:duration=longest:dropout_transition=0:normalize=0", len(inputs))
	args = append(args, "-filter_complex", filter,
		"-c:a", "libopus", "-ar", "48000", "-ac", "1", "-page_duration", "20000", "-f", "ogg", "-y", out)
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := stderr.String()
		if len(msg) > 2048 {
			msg = msg[:2048]
		}
		return 0, fmt.Errorf("media: mix: ffmpeg: %w: %s", err, strings.TrimSpace(msg))
	}
	return OggDuration(out)
}

// withAudio is the recordings that hold audio.
func withAudio(recordings []string) ([]string, error) {
	var out []string
	for _, r := range recordings {
		d, err := OggDuration(r)
		if err != nil {
			return nil, fmt.Errorf("media: mix: %w", err)
		}
		if d > 0 {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, ErrNoAudio
	}
	return out, nil
}

// OggDuration is an Ogg/Opus file's playing time: its last granule
// position less the pre-skip, at 48 kHz.
func OggDuration(path string) (time.Duration, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("media: %w", err)
	}
	defer f.Close()
	reader, head, err := oggreader.NewWith(f)
	if err != nil {
		return 0, fmt.Errorf("media: %s: not Ogg/Opus: %w", path, err)
	}
	var last uint64
	for {
		_, page, err := reader.ParseNextPage()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("media: %s: %w", path, err)
		}
		if page.GranulePosition != ^uint64(0) { // -1: no packet ends on this page
			last = max(last, page.GranulePosition)
		}
	}
	samples := int64(last) - int64(head.PreSkip)
	if samples < 0 {
		samples = 0
	}
	return time.Duration(samples) * time.Second / 48000, nil
}
