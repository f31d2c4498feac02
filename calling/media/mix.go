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

// MixRecordings mixes Ogg/Opus recordings (the two legs of a call) into
// one mono Ogg/Opus file at out with ffmpeg's amix, and returns its
// duration. ffmpeg must be on PATH.
func MixRecordings(ctx context.Context, out string, inputs ...string) (time.Duration, error) {
	if len(inputs) == 0 {
		return 0, errors.New("media: mix: no recordings")
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
