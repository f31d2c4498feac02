package audio

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"switchboard/apperr"
)

// MaxSpeechLength bounds a text to speak, in characters (an IVR prompt's
// limit).
const MaxSpeechLength = 1000

// SpeechVoice is the flite voice texts are spoken with.
const SpeechVoice = "slt"

// speechDir is the folder, in an organization's audio folder, of spoken
// texts; apart from uploads so they never pass for one.
const speechDir = "speech"

// SpeechFile returns the path of text spoken as Ogg/Opus (like every call
// audio file) for org, rendering it with ffmpeg's flite source on first
// use. Files are cached by the SHA-256 of voice and text, so a prompt is
// rendered once. Errors: invalid (empty, too long or not UTF-8 text),
// unavailable (no ffmpeg, or an ffmpeg without flite).
func (s *Store) SpeechFile(ctx context.Context, org uuid.UUID, text string) (string, error) {
	text = strings.TrimSpace(text)
	switch {
	case text == "":
		return "", apperr.Invalidf("the text to speak is empty")
	case !utf8.ValidString(text):
		return "", apperr.Invalidf("the text to speak is not valid UTF-8")
	case utf8.RuneCountInString(text) > MaxSpeechLength:
		return "", apperr.Invalidf("the text to speak is longer than %d characters", MaxSpeechLength)
	}
	dir := filepath.Join(s.Dir, org.String(), speechDir)
	sum := sha256.Sum256([]byte(SpeechVoice + "\x00" + text))
	path := filepath.Join(dir, hex.EncodeToString(sum[:])+".ogg")
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", fmt.Errorf("audio: %w", err)
	}
	if err := s.renderSpeech(ctx, dir, text, path); err != nil {
		return "", err
	}
	return path, nil
}

// renderSpeech speaks text into dst. The text reaches flite through a file
// (textfile=), never on the filter graph, and the file's name is ours
// (hex digits), so nothing on the graph needs escaping; ffmpeg runs in dir
// so the name is relative.
func (s *Store) renderSpeech(ctx context.Context, dir, text, dst string) error {
	base, err := randomName() // <32 hex>.ogg
	if err != nil {
		return err
	}
	base = ".speak-" + strings.TrimSuffix(base, ".ogg")
	textFile, tmp := base+".txt", filepath.Join(dir, base+".ogg")
	defer os.Remove(filepath.Join(dir, textFile))
	defer os.Remove(tmp)
	if err := os.WriteFile(filepath.Join(dir, textFile), []byte(text), 0o600); err != nil {
		return fmt.Errorf("audio: %w", err)
	}
	input := []string{"-f", "lavfi", "-i", "flite=textfile=" + textFile + ":voice=" + SpeechVoice}
	err = s.Conv.run(ctx, dir, nil, input, tmp)
	var failed *ffmpegError
	if errors.As(err, &failed) {
		// The text is ours to speak, whatever it holds: a failure is the
		// server's (an ffmpeg built without libflite, a timeout).
		return &apperr.Error{Code: apperr.Unavailable, Message: "speech synthesis is not available on this server", Err: err}
	}
	if err != nil {
		return err
	}
	// Rename is atomic: a concurrent render of the same text leaves one
	// complete file either way.
	if err := os.Rename(tmp, dst); err != nil {
		return fmt.Errorf("audio: %w", err)
	}
	return nil
}

// SpeechFile is Store.SpeechFile for the organization org (calls run
// without a viewer, so the organization is explicit).
func (s *Service) SpeechFile(ctx context.Context, org uuid.UUID, text string) (string, error) {
	return s.Store.SpeechFile(ctx, org, text)
}
