package auth_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"regexp"
	"strings"
	"testing"

	"switchboard/auth"
)

var apiKeyPattern = regexp.MustCompile(`^whm_[0-9a-f]{32}$`)

func TestGenerateAPIKey(t *testing.T) {
	t.Run("Format", func(t *testing.T) {
		full, prefix, hash := auth.GenerateAPIKey()
		if !apiKeyPattern.MatchString(full) {
			t.Fatalf("key %q does not match %v", full, apiKeyPattern)
		}
		if prefix != full[4:12] {
			t.Errorf("prefix = %q, want %q", prefix, full[4:12])
		}
		if sum := sha256.Sum256([]byte(full)); !bytes.Equal(hash, sum[:]) {
			t.Errorf("hash = %x, want SHA-256 of the key %x", hash, sum)
		}
		gotHash, gotPrefix, err := auth.ParseAPIKey(full)
		if err != nil || gotPrefix != prefix || !bytes.Equal(gotHash, hash) {
			t.Errorf("ParseAPIKey = %x, %q, %v; want %x, %q, nil", gotHash, gotPrefix, err, hash, prefix)
		}
	})
	t.Run("Unique", func(t *testing.T) {
		seen := map[string]bool{}
		for range 200 {
			full, _, _ := auth.GenerateAPIKey()
			if seen[full] {
				t.Fatalf("key %s generated twice", full)
			}
			seen[full] = true
		}
	})
}

func TestParseAPIKey(t *testing.T) {
	const valid = "whm_0123456789abcdef0123456789abcdef"
	tests := []struct {
		name       string
		in         string
		wantPrefix string
		wantErr    bool
	}{
		{name: "OK", in: valid, wantPrefix: "01234567"},
		{name: "AllZero", in: "whm_" + strings.Repeat("0", 32), wantPrefix: "00000000"},
		{name: "AllF", in: "whm_" + strings.Repeat("f", 32), wantPrefix: "ffffffff"},
		{name: "Empty", in: "", wantErr: true},
		{name: "OnlyPrefix", in: "whm_", wantErr: true},
		{name: "BodyOnly", in: valid[4:], wantErr: true},
		{name: "UpperCaseHex", in: "whm_0123456789ABCDEF0123456789abcdef", wantErr: true},
		{name: "UpperCasePrefix", in: "WHM_0123456789abcdef0123456789abcdef", wantErr: true},
		{name: "OtherPrefix", in: "whk_0123456789abcdef0123456789abcdef", wantErr: true},
		{name: "DashSeparator", in: "whm-0123456789abcdef0123456789abcdef", wantErr: true},
		{name: "ShortBody", in: valid[:len(valid)-1], wantErr: true},
		{name: "LongBody", in: valid + "0", wantErr: true},
		{name: "NonHexG", in: "whm_0123456789abcdeg0123456789abcdef", wantErr: true},
		{name: "NonHexLastChar", in: "whm_0123456789abcdef0123456789abcdez", wantErr: true},
		{name: "LeadingSpace", in: " " + valid[:len(valid)-1], wantErr: true},
		{name: "TrailingSpace", in: valid + " ", wantErr: true},
		{name: "TrailingNewline", in: valid + "\n", wantErr: true},
		{name: "NULInBody", in: "whm_0123456789abcdef0123456789abcde\x00", wantErr: true},
		{name: "MultibyteSameLength", in: "whm_0123456789abcdef0123456789abcd\u00e9", wantErr: true},
		{name: "FullwidthDigit", in: "whm_0123456789abcdef0123456789ab\uff10", wantErr: true},
		{name: "Bearer", in: "Bearer " + valid, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hash, prefix, err := auth.ParseAPIKey(tt.in)
			if tt.wantErr {
				if !errors.Is(err, auth.ErrAPIKeyMalformed) {
					t.Fatalf("err = %v, want ErrAPIKeyMalformed", err)
				}
				if hash != nil || prefix != "" {
					t.Fatalf("returned %x, %q with an error", hash, prefix)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseAPIKey: %v", err)
			}
			if prefix != tt.wantPrefix {
				t.Errorf("prefix = %q, want %q", prefix, tt.wantPrefix)
			}
			if !bytes.Equal(hash, auth.HashAPIKey(tt.in)) {
				t.Errorf("hash = %x, want HashAPIKey of the input", hash)
			}
		})
	}
}

func TestHashAPIKey(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // hex SHA-256, computed independently
	}{
		{name: "Empty", in: "", want: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{name: "Key", in: "whm_0123456789abcdef0123456789abcdef", want: hexSHA256("whm_0123456789abcdef0123456789abcdef")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := auth.HashAPIKey(tt.in)
			if hex.EncodeToString(got) != tt.want {
				t.Fatalf("HashAPIKey = %x, want %s", got, tt.want)
			}
		})
	}
	t.Run("DiffersByOneChar", func(t *testing.T) {
		a := auth.HashAPIKey("whm_0123456789abcdef0123456789abcdef")
		b := auth.HashAPIKey("whm_0123456789abcdef0123456789abcdee")
		if auth.ConstantTimeEqual(a, b) {
			t.Fatal("different keys hash equal")
		}
	})
}

func hexSHA256(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
