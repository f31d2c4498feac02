package calling_test

import (
	"errors"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/calling"
)

func TestValidKey(t *testing.T) {
	org, id := uuid.New(), uuid.New()
	for key, want := range map[string]bool{
		calling.RecordingKey(org, id): true,
		"a/b.ogg":                     true,
		"../secret":                   false,
		"a/../b.ogg":                  false,
		"/etc/passwd":                 false,
		"a//b.ogg":                    false,
		".hidden":                     false,
		"a/.b":                        false,
		"a\\b.ogg":                    false,
		"":                            false,
		"a/b.ogg/":                    false,
		"a/b c.ogg":                   false,
	} {
		if got := calling.ValidKey(key); got != want {
			t.Errorf("ValidKey(%q) = %v, want %v", key, got, want)
		}
	}
}

func TestLocalRecordings(t *testing.T) {
	dir := t.TempDir()
	store := calling.LocalRecordings{Dir: dir}
	key := calling.RecordingKey(uuid.New(), uuid.New())
	if err := store.Put(key, strings.NewReader("OggS recording")); err != nil {
		t.Fatal(err)
	}
	f, err := store.Open(key)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "OggS recording" {
		t.Fatalf("read %q", b)
	}
	// A file beside the store must stay out of reach.
	if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "outside.ogg"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"../outside.ogg", "missing/x.ogg", "", filepath.Dir(key)} {
		if _, err := store.Open(bad); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%q) = %v, want not exist", bad, err)
		}
	}
	if err := store.Put("../x.ogg", strings.NewReader("x")); err == nil {
		t.Error("Put outside the store")
	}
}

func TestURLSigner(t *testing.T) {
	signer, err := calling.NewURLSigner("https://sb.example.com/", "test-key")
	if err != nil {
		t.Fatal(err)
	}
	key := calling.RecordingKey(uuid.New(), uuid.New())
	now := time.Unix(1700000000, 0)
	link := signer.Sign(key, now.Add(calling.RecordingURLTTL))
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	if u.Host != "sb.example.com" || u.Path != calling.RecordingPathPrefix+key {
		t.Fatalf("link %s", link)
	}
	exp, sig := u.Query().Get("expires"), u.Query().Get("signature")
	other, _ := calling.NewURLSigner("https://sb.example.com", "another-key")
	otherKey := calling.RecordingKey(uuid.New(), uuid.New())
	tamperedSig := []byte(sig)
	tamperedSig[0] ^= 1
	tests := []struct {
		name               string
		path, expires, sig string
		at                 time.Time
		want               apperr.Code
	}{
		{"OK", u.Path, exp, sig, now, ""},
		{"OKLastSecond", u.Path, exp, sig, now.Add(calling.RecordingURLTTL), ""},
		{"ErrExpired", u.Path, exp, sig, now.Add(calling.RecordingURLTTL + time.Second), apperr.Forbidden},
		{"ErrExpiryChanged", u.Path, "1900000000", sig, now, apperr.Forbidden},
		{"ErrOtherRecording", calling.RecordingPathPrefix + otherKey, exp, sig, now, apperr.Forbidden},
		{"ErrTamperedSignature", u.Path, exp, string(tamperedSig), now, apperr.Forbidden},
		{"ErrNoSignature", u.Path, exp, "", now, apperr.Forbidden},
		{"ErrTraversal", calling.RecordingPathPrefix + "../../jwt_secret", exp, sig, now, apperr.NotFound},
		{"ErrOutsidePrefix", "/api/media/x", exp, sig, now, apperr.NotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := signer.Verify(tt.path, tt.expires, tt.sig, tt.at)
			if tt.want == "" {
				if err != nil || got != key {
					t.Fatalf("Verify = %q, %v; want %q", got, err, key)
				}
				return
			}
			if apperr.CodeOf(err) != tt.want {
				t.Fatalf("Verify = %q, %v; want %s", got, err, tt.want)
			}
		})
	}
	t.Run("ErrOtherSecret", func(t *testing.T) {
		if _, err := other.Verify(u.Path, exp, sig, now); apperr.CodeOf(err) != apperr.Forbidden {
			t.Fatalf("another secret's signer accepted the link: %v", err)
		}
	})
}
