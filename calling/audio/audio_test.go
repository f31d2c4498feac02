package audio_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/calling/audio"
	"switchboard/internal/testenv"
)

func sample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDetect(t *testing.T) {
	tests := []struct {
		file string
		want audio.Format
	}{
		{"tone.wav", audio.WAV}, {"tone.mp3", audio.MP3}, {"tone-notag.mp3", audio.MP3},
		{"tone.flac", audio.FLAC}, {"tone.aac", audio.AAC}, {"tone.m4a", audio.M4A},
		{"tone.ogg", audio.Ogg}, {"tone.opus", audio.Ogg},
	}
	for _, tt := range tests {
		got, ok := audio.Detect(sample(t, tt.file))
		if !ok || got != tt.want {
			t.Errorf("Detect(%s) = %q, %v; want %q", tt.file, got, ok, tt.want)
		}
	}
	for _, b := range [][]byte{nil, []byte("hello"), []byte("\x89PNG\r\n\x1a\n0000"), []byte("RIFF0000AVI "), {0xFF}} {
		if f, ok := audio.Detect(b); ok {
			t.Errorf("Detect(%q) = %q; want none", b, f)
		}
	}
}

// needFFmpeg: the test converts audio (testenv.RequireTool).
func needFFmpeg(t *testing.T) {
	t.Helper()
	testenv.RequireTool(t, "ffmpeg")
}

func TestSaveConvertsToOpus(t *testing.T) {
	needFFmpeg(t)
	s := audio.New(t.TempDir(), audio.Converter{})
	org := uuid.New()
	for _, name := range []string{"tone.wav", "tone.mp3", "tone-notag.mp3", "tone.aac", "tone.m4a", "tone.ogg", "tone.opus"} {
		f, err := s.Save(context.Background(), org, sample(t, name), audio.OrgFormats)
		if err != nil {
			t.Fatalf("Save(%s): %v", name, err)
		}
		if f.MimeType != "audio/ogg" || f.Size <= 0 {
			t.Errorf("Save(%s) = %+v", name, f)
		}
		rc, err := s.Open(org, f.Name)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(rc)
		rc.Close()
		checkOpusHead(t, name, buf.Bytes())
	}
	// Another organization does not reach the file.
	f, err := s.Save(context.Background(), org, sample(t, "tone.flac"), audio.IVRFormats)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(uuid.New(), f.Name); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("Open from another organization: %v; want not_found", err)
	}
}

// checkOpusHead asserts an Ogg stream whose first packet is an OpusHead
// of one channel at 48 kHz.
func checkOpusHead(t *testing.T, name string, b []byte) {
	t.Helper()
	i := bytes.Index(b, []byte("OpusHead"))
	if !bytes.HasPrefix(b, []byte("OggS")) || i < 0 || len(b) < i+16 {
		t.Fatalf("%s: converted file is not Ogg/Opus", name)
	}
	if ch := b[i+9]; ch != 1 {
		t.Errorf("%s: %d channels; want 1", name, ch)
	}
	if rate := binary.LittleEndian.Uint32(b[i+12 : i+16]); rate != 48000 {
		t.Errorf("%s: input rate %d; want 48000", name, rate)
	}
}

func TestSaveRefuses(t *testing.T) {
	needFFmpeg(t)
	s := audio.New(t.TempDir(), audio.Converter{})
	big := append([]byte("ID3"), make([]byte, audio.MaxBytes)...)
	// Looks like MP3 by its first bytes, but is not decodable audio.
	fakeMP3 := append([]byte{0xFF, 0xFB, 0x90, 0x00}, bytes.Repeat([]byte("not audio "), 200)...)
	tests := []struct {
		name     string
		data     []byte
		accepted []audio.Format
	}{
		{"empty", nil, audio.OrgFormats},
		{"too large", big, audio.OrgFormats},
		{"text", []byte("just some text, named song.mp3"), audio.OrgFormats},
		{"FLAC is not organization audio", sample(t, "tone.flac"), audio.OrgFormats},
		{"undecodable", fakeMP3, audio.OrgFormats},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Save(context.Background(), uuid.New(), tt.data, tt.accepted)
			if apperr.CodeOf(err) != apperr.Invalid {
				t.Fatalf("Save: %v; want invalid", err)
			}
		})
	}
}

func TestOpenRefusesOtherNames(t *testing.T) {
	s := audio.New(t.TempDir(), audio.Converter{})
	org := uuid.New()
	for _, name := range []string{"", "../x.ogg", "..%2Fx.ogg", "/etc/passwd", "0123456789abcdef0123456789ABCDEF.ogg", "0123456789abcdef0123456789abcdef.mp3", ".convert-0123456789abcdef0123456789abcdef.ogg"} {
		if _, err := s.Open(org, name); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("Open(%q): %v; want not_found", name, err)
		}
	}
}

func TestMissingFFmpegIsUnavailable(t *testing.T) {
	s := audio.New(t.TempDir(), audio.Converter{FFmpeg: "no-such-ffmpeg-binary"})
	_, err := s.Save(context.Background(), uuid.New(), sample(t, "tone.wav"), audio.OrgFormats)
	if apperr.CodeOf(err) != apperr.Unavailable {
		t.Fatalf("Save without ffmpeg: %v; want unavailable", err)
	}
}

func FuzzDetect(f *testing.F) {
	for _, n := range []string{"tone.wav", "tone.mp3", "tone.aac", "tone.m4a", "tone.ogg", "tone.flac"} {
		b := sample(f, n)
		f.Add(b[:min(len(b), 64)])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if fm, ok := audio.Detect(b); ok && fm == "" {
			t.Fatal("detected an empty format")
		}
	})
}
