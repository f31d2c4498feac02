package calling

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"golang.org/x/crypto/hkdf"

	"switchboard/apperr"
)

// RecordingPathPrefix is the path of the public route that serves
// recordings to signed links: PUBLIC_URL + RecordingPathPrefix + key.
const RecordingPathPrefix = "/api/call-recordings/"

// RecordingURLTTL is how long a recording link stays valid.
const RecordingURLTTL = 15 * time.Minute

// RecordingStore keeps call recordings by key ("<org id>/<call log id>.ogg",
// the call log's recording_storage_key). The local directory is the one
// implementation; object storage can stand behind the same interface.
type RecordingStore interface {
	// Open returns the recording stored under key; fs.ErrNotExist when
	// there is none.
	Open(key string) (RecordingFile, error)
	// Put stores the content of r under key, replacing any earlier one.
	Put(key string, r io.Reader) error
}

// RecordingFile is an open recording: readable at any offset (Range
// requests), with its size and modification time.
type RecordingFile interface {
	io.ReadSeekCloser
	Stat() (fs.FileInfo, error)
}

// RecordingKey is the storage key of a call's recording.
func RecordingKey(orgID, callLogID uuid.UUID) string {
	return orgID.String() + "/" + callLogID.String() + ".ogg"
}

// keyPattern is what a storage key may look like: slash-separated
// segments of letters, digits, dot, dash and underscore, never starting
// with a dot (no "..", no hidden files, no absolute path).
var keyPattern = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$`)

// ValidKey reports whether key is a storage key that stays inside the
// store.
func ValidKey(key string) bool {
	return len(key) <= 512 && keyPattern.MatchString(key) && path.Clean(key) == key
}

// LocalRecordings stores recordings under a directory
// (DATA_DIR/recordings).
type LocalRecordings struct {
	Dir string
}

// Open opens the recording under key. Errors: fs.ErrNotExist (also for a
// key that is not valid).
func (l LocalRecordings) Open(key string) (RecordingFile, error) {
	if !ValidKey(key) {
		return nil, fs.ErrNotExist
	}
	f, err := os.Open(filepath.Join(l.Dir, filepath.FromSlash(key)))
	if err != nil {
		return nil, err
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, fs.ErrNotExist
	}
	return f, nil
}

// Put writes r under key through a temporary file, so a reader never sees
// half a recording.
func (l LocalRecordings) Put(key string, r io.Reader) error {
	if !ValidKey(key) {
		return errors.New("calling: invalid recording key " + strconv.Quote(key))
	}
	dst := filepath.Join(l.Dir, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".rec-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, r); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

// URLSigner signs and checks recording links: HMAC-SHA256 over the path
// and the expiry, with a key derived from ENCRYPTION_KEY (HKDF-SHA256, its
// own info string, so the link key is useless for anything else).
type URLSigner struct {
	base string
	key  []byte
}

// NewURLSigner returns a signer for links under publicURL, keyed from
// secret.
func NewURLSigner(publicURL, secret string) (*URLSigner, error) {
	if secret == "" {
		return nil, errors.New("calling: no secret for recording links")
	}
	key := make([]byte, 32)
	r := hkdf.New(sha256.New, []byte(secret), []byte("switchboard/calling/v1"), []byte("switchboard/calling/v1 recording links"))
	if _, err := io.ReadFull(r, key); err != nil {
		return nil, err
	}
	return &URLSigner{base: strings.TrimRight(publicURL, "/"), key: key}, nil
}

// Sign returns the link to the recording under key, valid until expiry.
func (u *URLSigner) Sign(key string, expiry time.Time) string {
	p := RecordingPathPrefix + key
	exp := strconv.FormatInt(expiry.Unix(), 10)
	q := url.Values{"expires": {exp}, "signature": {u.mac(p, exp)}}
	return u.base + p + "?" + q.Encode()
}

// Verify checks a link's path, expires and signature at now and returns
// the storage key. Errors: forbidden (a bad or expired signature),
// not_found (a path outside the recordings).
func (u *URLSigner) Verify(urlPath, expires, signature string, now time.Time) (string, error) {
	key, ok := strings.CutPrefix(urlPath, RecordingPathPrefix)
	if !ok || !ValidKey(key) {
		return "", apperr.NotFoundf("recording not found")
	}
	want := u.mac(urlPath, expires)
	if !hmac.Equal([]byte(want), []byte(signature)) {
		return "", apperr.Forbiddenf("the recording link's signature is not valid")
	}
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil || now.Unix() > exp {
		return "", apperr.Forbiddenf("the recording link has expired")
	}
	return key, nil
}

func (u *URLSigner) mac(urlPath, expires string) string {
	m := hmac.New(sha256.New, u.key)
	m.Write([]byte(urlPath))
	m.Write([]byte{'\n'})
	m.Write([]byte(expires))
	return hex.EncodeToString(m.Sum(nil))
}

// Recording is a call's recording link.
type Recording struct {
	URL string
	// Duration is the recording's length in seconds.
	Duration int
}

// RecordingLink returns a signed, expiring link to a call log's
// recording, for a log the viewer may see (as CallLog decides). Errors:
// not_found (log, or a log without recording).
func (s *Service) RecordingLink(ctx context.Context, id uuid.UUID) (*Recording, error) {
	l, err := s.visibleLog(ctx, id)
	if err != nil {
		return nil, err
	}
	if l.RecordingStorageKey == "" || !ValidKey(l.RecordingStorageKey) {
		return nil, apperr.NotFoundf("this call has no recording")
	}
	return &Recording{URL: s.RecordingURLs.Sign(l.RecordingStorageKey, s.now().Add(RecordingURLTTL)), Duration: l.RecordingDuration}, nil
}

// OpenRecording checks a signed link and opens its recording. Errors:
// forbidden (bad or expired signature), not_found (no such recording).
func (s *Service) OpenRecording(urlPath, expires, signature string) (RecordingFile, error) {
	key, err := s.RecordingURLs.Verify(urlPath, expires, signature, s.now())
	if err != nil {
		return nil, err
	}
	f, err := s.Recordings.Open(key)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, apperr.NotFoundf("recording not found")
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}
