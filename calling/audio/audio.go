// Package audio keeps the organizations' call audio (hold music, ringback,
// IVR prompts): an upload is recognised by its content, converted with
// ffmpeg to Ogg/Opus at 48 kHz mono in 20 ms pages (what the calling legs
// play without transcoding), and stored under DATA_DIR/audio/<org>/.
package audio

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"

	"switchboard/apperr"
)

// MaxBytes bounds an uploaded audio file (the spec's 5 MB).
const MaxBytes = 5 << 20

// MimeType is the type of every stored file.
const MimeType = "audio/ogg"

// Format is an audio container recognised by its content.
type Format string

// The formats uploads may have.
const (
	Ogg  Format = "ogg" // Vorbis or Opus in Ogg
	MP3  Format = "mp3"
	WAV  Format = "wav"
	AAC  Format = "aac" // ADTS
	M4A  Format = "m4a" // AAC in MPEG-4
	FLAC Format = "flac"
)

// Accepted formats per upload: organization audio (hold music, ringback)
// and IVR prompts, as the spec lists them (Opus arrives in Ogg).
var (
	OrgFormats = []Format{Ogg, MP3, WAV, AAC, M4A}
	IVRFormats = []Format{MP3, Ogg, WAV, AAC, M4A, FLAC}
)

// Detect tells the format of an audio file from its first bytes.
func Detect(b []byte) (Format, bool) {
	switch {
	case bytes.HasPrefix(b, []byte("OggS")):
		return Ogg, true
	case bytes.HasPrefix(b, []byte("fLaC")):
		return FLAC, true
	case len(b) >= 12 && bytes.HasPrefix(b, []byte("RIFF")) && string(b[8:12]) == "WAVE":
		return WAV, true
	case len(b) >= 12 && string(b[4:8]) == "ftyp" && m4aBrand(string(b[8:12])):
		return M4A, true
	case bytes.HasPrefix(b, []byte("ID3")):
		return MP3, true
	case len(b) >= 2 && b[0] == 0xFF && b[1]&0xF6 == 0xF0:
		// ADTS sync word with layer 0: AAC.
		return AAC, true
	case len(b) >= 2 && b[0] == 0xFF && b[1]&0xE0 == 0xE0 && b[1]&0x06 != 0:
		// MPEG audio frame sync with a layer set: MP3 without a tag.
		return MP3, true
	}
	return "", false
}

// m4aBrand tells whether an MPEG-4 major brand is one audio files carry.
func m4aBrand(brand string) bool {
	switch strings.TrimSpace(brand) {
	case "M4A", "M4B", "mp42", "mp41", "isom", "iso2", "dash":
		return true
	}
	return false
}

// File is a stored audio file.
type File struct {
	// Name is the file's name in its organization's folder.
	Name     string
	MimeType string
	Size     int64
}

// Store saves converted audio under Dir/<organization id>/.
type Store struct {
	Dir  string
	Conv Converter
}

// New returns a store under dataDir/audio.
func New(dataDir string, conv Converter) *Store {
	return &Store{Dir: filepath.Join(dataDir, "audio"), Conv: conv}
}

// ErrNotFound is returned for a name that is no stored file of the
// organization.
var ErrNotFound = apperr.NotFoundf("audio file not found")

// Save checks that data is audio of one of the accepted formats and at
// most MaxBytes, converts it and stores the result for org. Errors:
// invalid (too large, not an accepted format, not decodable), unavailable
// (no ffmpeg).
func (s *Store) Save(ctx context.Context, org uuid.UUID, data []byte, accepted []Format) (File, error) {
	if len(data) == 0 {
		return File{}, apperr.Invalidf("file is empty")
	}
	if len(data) > MaxBytes {
		return File{}, apperr.Invalidf("file is too large (max %d MB)", MaxBytes>>20)
	}
	f, ok := Detect(data)
	if !ok || !accepts(accepted, f) {
		return File{}, apperr.Invalidf("file is not audio of an accepted format (%s)", formatList(accepted))
	}
	dir := filepath.Join(s.Dir, org.String())
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return File{}, fmt.Errorf("audio: %w", err)
	}
	name, err := randomName()
	if err != nil {
		return File{}, err
	}
	tmp := filepath.Join(dir, ".convert-"+name)
	defer os.Remove(tmp)
	if err := s.Conv.ToOpus(ctx, data, tmp); err != nil {
		return File{}, err
	}
	st, err := os.Stat(tmp)
	if err != nil {
		return File{}, fmt.Errorf("audio: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		return File{}, fmt.Errorf("audio: %w", err)
	}
	return File{Name: name, MimeType: MimeType, Size: st.Size()}, nil
}

// Open returns the stored file name of org. Errors: not_found (also for a
// name that is not one Save makes, so no path leaves the folder).
func (s *Store) Open(org uuid.UUID, name string) (*os.File, error) {
	if !validName(name) {
		return nil, ErrNotFound
	}
	f, err := os.Open(filepath.Join(s.Dir, org.String(), name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNotFound
	}
	return f, err
}

// Remove deletes the stored file name of org; a missing file is no error.
func (s *Store) Remove(org uuid.UUID, name string) error {
	if !validName(name) {
		return nil
	}
	err := os.Remove(filepath.Join(s.Dir, org.String(), name))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// randomName is 32 hex digits and the Ogg extension.
func randomName() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]) + ".ogg", nil
}

// validName accepts only names randomName makes.
func validName(name string) bool {
	hexPart, ok := strings.CutSuffix(name, ".ogg")
	if !ok || len(hexPart) != 32 {
		return false
	}
	_, err := hex.DecodeString(hexPart)
	return err == nil && strings.ToLower(hexPart) == hexPart
}

func accepts(list []Format, f Format) bool {
	for _, a := range list {
		if a == f {
			return true
		}
	}
	return false
}

func formatList(list []Format) string {
	names := make([]string, len(list))
	for i, f := range list {
		names[i] = strings.ToUpper(string(f))
	}
	return strings.Join(names, ", ")
}
