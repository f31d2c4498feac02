package media_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/media"
)

func TestStoreSaveOpen(t *testing.T) {
	s := media.New(t.TempDir())
	org, other := uuid.New(), uuid.New()
	key, size, err := s.Save(org, strings.NewReader("%PDF-1.4 hello"), "application/pdf")
	if err != nil {
		t.Fatal(err)
	}
	if size != 14 || !strings.HasPrefix(key, org.String()+"/") || !strings.HasSuffix(key, ".pdf") {
		t.Fatalf("key %q size %d", key, size)
	}
	f, err := s.Open(org, key)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	_ = f.Close()
	if string(b) != "%PDF-1.4 hello" {
		t.Fatalf("read back %q", b)
	}
	if got, ok := media.KeyFromURL(media.URL(key)); !ok || got != key {
		t.Fatalf("KeyFromURL(URL(%q)) = %q, %v", key, got, ok)
	}

	name := strings.TrimPrefix(key, org.String()+"/")
	for _, tc := range []struct{ name, key string }{
		{"other organization", other.String() + "/" + name},
		{"traversal", org.String() + "/../" + other.String() + "/" + name},
		{"no owner", name},
		{"unknown", org.String() + "/0123456789abcdef0123456789abcdef.pdf"},
		{"dot dot", org.String() + "/.."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.Open(org, tc.key); !errors.Is(err, media.ErrNotFound) {
				t.Fatalf("Open(%q) = %v, want ErrNotFound", tc.key, err)
			}
		})
	}
}
