package outbound_test

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"switchboard/outbound"
)

func TestNewSecret(t *testing.T) {
	a, b := outbound.NewSecret(), outbound.NewSecret()
	if a == b {
		t.Fatalf("two secrets are equal: %q", a)
	}
	for _, s := range []string{a, b} {
		rest, ok := strings.CutPrefix(s, "whsec_")
		if !ok {
			t.Fatalf("%q lacks the whsec_ prefix", s)
		}
		key, err := base64.StdEncoding.DecodeString(rest)
		if err != nil {
			t.Fatalf("%q is not standard base64: %v", rest, err)
		}
		if len(key) != 24 {
			t.Errorf("key is %d bytes, want 24", len(key))
		}
		if !bytes.Equal(outbound.SecretBytes(s), key) {
			t.Errorf("SecretBytes(%q) is not the decoded key", s)
		}
	}
}

func TestSecretBytes(t *testing.T) {
	tests := []struct {
		name   string
		secret string
		want   []byte
	}{
		{name: "Whsec", secret: "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYX", want: []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}},
		{name: "RawString", secret: "my-shared-secret", want: []byte("my-shared-secret")},
		{name: "HexString", secret: "3f1a9c", want: []byte("3f1a9c")},
		{name: "WhsecNotBase64", secret: "whsec_not*base64", want: []byte("whsec_not*base64")},
		{name: "WhsecEmpty", secret: "whsec_", want: []byte("whsec_")},
		{name: "Empty", secret: "", want: []byte{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := outbound.SecretBytes(tc.secret); !bytes.Equal(got, tc.want) {
				t.Errorf("SecretBytes(%q) = %v, want %v", tc.secret, got, tc.want)
			}
		})
	}
}
