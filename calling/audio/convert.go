package audio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"switchboard/apperr"
)

// Converter runs ffmpeg to turn an audio file into Ogg/Opus.
type Converter struct {
	// FFmpeg is the program's path or name (default "ffmpeg").
	FFmpeg string
	// Timeout bounds one conversion (default 60 s).
	Timeout time.Duration
}

// maxStderr bounds what is kept of ffmpeg's error output for the log.
const maxStderr = 4 << 10

// opusOutput are the output options of every stored file: Ogg/Opus,
// 48 kHz mono, 20 ms pages.
var opusOutput = []string{"-c:a", "libopus", "-ar", "48000", "-ac", "1", "-page_duration", "20000", "-f", "ogg", "-y"}

// ToOpus converts data (any format ffmpeg reads) to Ogg/Opus, 48 kHz mono
// in 20 ms pages, at dst. The input goes through a pipe, so no upload is
// written to disk unconverted; metadata and video (cover art) are dropped.
// Errors: invalid when ffmpeg cannot decode the input, unavailable when
// ffmpeg is missing, internal otherwise.
func (c Converter) ToOpus(ctx context.Context, data []byte, dst string) error {
	err := c.run(ctx, "", bytes.NewReader(data), []string{"-i", "pipe:0", "-vn", "-map_metadata", "-1"}, dst)
	var failed *ffmpegError
	switch {
	case errors.As(err, &failed) && failed.timedOut:
		return &apperr.Error{Code: apperr.Invalid, Message: "the audio file took too long to convert", Err: err}
	case errors.As(err, &failed):
		// ffmpeg refused the input: the file is not decodable audio.
		return &apperr.Error{Code: apperr.Invalid, Message: "the file could not be read as audio", Err: err}
	}
	return err
}

// ffmpegError is a run of ffmpeg that failed or took too long.
type ffmpegError struct {
	err      error
	stderr   string
	timedOut bool
}

func (e *ffmpegError) Error() string { return fmt.Sprintf("ffmpeg: %v: %s", e.err, e.stderr) }

func (e *ffmpegError) Unwrap() error { return e.err }

// run runs ffmpeg in dir (the current directory when empty) with input
// options, writing Ogg/Opus to dst. Errors: unavailable when ffmpeg is
// missing, *ffmpegError when it failed or timed out, internal otherwise.
func (c Converter) run(ctx context.Context, dir string, stdin io.Reader, input []string, dst string) error {
	bin := c.FFmpeg
	if bin == "" {
		bin = "ffmpeg"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return &apperr.Error{Code: apperr.Unavailable, Message: "audio conversion is not available on this server (ffmpeg is not installed)", Err: err}
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	args := append([]string{"-hide_banner", "-nostdin", "-loglevel", "error"}, input...)
	args = append(append(args, opusOutput...), dst)
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return &ffmpegError{err: ctx.Err(), timedOut: true}
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return &ffmpegError{err: err, stderr: strings.TrimSpace(stderr.String())}
	}
	return fmt.Errorf("audio: running ffmpeg: %w", err)
}

// limitedBuffer keeps the first maxStderr bytes written to it.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := maxStderr - b.Len(); room > 0 {
		if len(p) > room {
			b.Buffer.Write(p[:room])
		} else {
			b.Buffer.Write(p)
		}
	}
	return len(p), nil
}
