// Package media keeps message media on local disk under DATA_DIR, so that
// a message's media_url keeps working after the platform's link expires.
// Files are addressed by a key "<organization id>/<random name><ext>" and
// served to members of that organization at /api/media/<key>.
package media

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
)

// URLPrefix is the path under which stored media are served.
const URLPrefix = "/api/media/"

// ErrNotFound is returned for a key that names no stored file of the
// organization.
var ErrNotFound = errors.New("media: not found")

// Store saves and opens media files under Dir/media.
type Store struct {
	Dir string
}

// New returns a store rooted at dataDir.
func New(dataDir string) *Store { return &Store{Dir: filepath.Join(dataDir, "media")} }

// Save writes r to a new file of org and returns its key and size. The
// extension comes from mimeType. The file is written to a temporary name
// and renamed, so a reader never sees a partial file.
func (s *Store) Save(org uuid.UUID, r io.Reader, mimeType string) (key string, size int64, err error) {
	dir := filepath.Join(s.Dir, org.String())
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", 0, fmt.Errorf("media: %w", err)
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", 0, err
	}
	name := hex.EncodeToString(b[:]) + extension(mimeType)
	tmp, err := os.CreateTemp(dir, ".upload-*")
	if err != nil {
		return "", 0, fmt.Errorf("media: %w", err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	size, err = io.Copy(tmp, r)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", 0, fmt.Errorf("media: writing: %w", err)
	}
	if err = os.Rename(tmp.Name(), filepath.Join(dir, name)); err != nil {
		return "", 0, fmt.Errorf("media: %w", err)
	}
	return org.String() + "/" + name, size, nil
}

// Open returns the file of key when it belongs to org. Errors: ErrNotFound.
func (s *Store) Open(org uuid.UUID, key string) (*os.File, error) {
	owner, name, ok := strings.Cut(key, "/")
	if !ok || owner != org.String() || !validName(name) {
		return nil, ErrNotFound
	}
	f, err := os.Open(filepath.Join(s.Dir, owner, name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNotFound
	}
	return f, err
}

// URL is the path a client fetches key from (relative to PUBLIC_URL).
func URL(key string) string { return URLPrefix + key }

// KeyFromURL returns the key of a URL made by URL, or false.
func KeyFromURL(u string) (string, bool) {
	return strings.CutPrefix(u, URLPrefix)
}

// validName accepts the names Save makes: hex, then an optional extension
// of letters and digits; nothing that could leave the directory.
func validName(name string) bool {
	base, ext, _ := strings.Cut(name, ".")
	if len(base) != 32 {
		return false
	}
	for _, r := range base + ext {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// extension picks a file extension for mimeType, preferring the usual one.
func extension(mimeType string) string {
	base, _, _ := strings.Cut(mimeType, ";")
	switch strings.TrimSpace(strings.ToLower(base)) {
	case "image/jpeg":
		return ".jpg"
	case "audio/mpeg":
		return ".mp3"
	case "audio/ogg":
		return ".ogg"
	case "video/mp4":
		return ".mp4"
	case "application/pdf":
		return ".pdf"
	}
	if exts, _ := mime.ExtensionsByType(base); len(exts) > 0 {
		return exts[0]
	}
	return ""
}
