package audio_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/calling/audio"
)

// probeDuration is the file's duration in seconds as ffprobe reads it
// (-1 when ffprobe is not installed).
func probeDuration(t *testing.T, path string) float64 {
	t.Helper()
	if _, err := exec.LookPath("ffprobe"); err != nil {
		return -1
	}
	out, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	d, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		t.Fatalf("ffprobe duration %q: %v", out, err)
	}
	return d
}

func TestSpeechFile(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	s := audio.New(dir, audio.Converter{})
	org := uuid.New()
	ctx := context.Background()

	// Characters that mean something on an ffmpeg filter graph are only
	// text here.
	text := "Welcome to Switchboard: press 1, or '2'; [hash] \\ done.\nThank you."
	path, err := s.SpeechFile(ctx, org, text)
	if err != nil {
		t.Fatalf("SpeechFile: %v", err)
	}
	if want := filepath.Join(dir, "audio", org.String(), "speech"); filepath.Dir(path) != want {
		t.Errorf("path %s; want in %s", path, want)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checkOpusHead(t, "speech", b)
	if d := probeDuration(t, path); d == 0 || d > 30 {
		t.Errorf("duration %v s; want a few seconds", d)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("%d files in the speech folder; want only the result (no text or temporary file left)", len(entries))
	}

	t.Run("Cached", func(t *testing.T) {
		// A store whose ffmpeg is missing still answers from the cache.
		broken := audio.New(dir, audio.Converter{FFmpeg: "no-such-ffmpeg-binary"})
		again, err := broken.SpeechFile(ctx, org, "  "+text+"\n")
		if err != nil || again != path {
			t.Fatalf("SpeechFile again = %q, %v; want %q from the cache", again, err, path)
		}
	})
	t.Run("OtherTextOtherFile", func(t *testing.T) {
		other, err := s.SpeechFile(ctx, org, "Goodbye")
		if err != nil || other == path {
			t.Fatalf("SpeechFile(Goodbye) = %q, %v", other, err)
		}
	})
	t.Run("ServiceDelegates", func(t *testing.T) {
		svc := &audio.Service{Store: s}
		got, err := svc.SpeechFile(ctx, org, text)
		if err != nil || got != path {
			t.Fatalf("Service.SpeechFile = %q, %v; want %q", got, err, path)
		}
	})
}

func TestSpeechFileRefuses(t *testing.T) {
	s := audio.New(t.TempDir(), audio.Converter{})
	cases := []struct {
		name, text string
	}{
		{"Empty", ""},
		{"Blank", " \n\t "},
		{"TooLong", strings.Repeat("a", audio.MaxSpeechLength+1)},
		{"NotUTF8", "caf\xe9"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := s.SpeechFile(context.Background(), uuid.New(), c.text); apperr.CodeOf(err) != apperr.Invalid {
				t.Fatalf("SpeechFile: %v; want invalid", err)
			}
		})
	}
}

func TestSpeechFileWithoutFFmpeg(t *testing.T) {
	s := audio.New(t.TempDir(), audio.Converter{FFmpeg: "no-such-ffmpeg-binary"})
	if _, err := s.SpeechFile(context.Background(), uuid.New(), "Hello"); apperr.CodeOf(err) != apperr.Unavailable {
		t.Fatalf("SpeechFile without ffmpeg: %v; want unavailable", err)
	}
}
