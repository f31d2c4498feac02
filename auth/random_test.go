package auth_test

import (
	"encoding/base64"
	"regexp"
	"testing"

	"switchboard/auth"
)

func TestRandomToken(t *testing.T) {
	urlSafe := regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	tests := []struct {
		name    string
		n       int
		wantLen int
	}{
		{name: "Min16", n: 16, wantLen: 22},
		{name: "Bytes24", n: 24, wantLen: 32},
		{name: "Bytes32", n: 32, wantLen: 43},
		{name: "Bytes64", n: 64, wantLen: 86},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen := map[string]bool{}
			for range 100 {
				tok := auth.RandomToken(tt.n)
				if len(tok) != tt.wantLen || !urlSafe.MatchString(tok) {
					t.Fatalf("token %q: want %d URL-safe characters", tok, tt.wantLen)
				}
				raw, err := base64.RawURLEncoding.DecodeString(tok)
				if err != nil || len(raw) != tt.n {
					t.Fatalf("token %q decodes to %d bytes, %v; want %d", tok, len(raw), err, tt.n)
				}
				if seen[tok] {
					t.Fatalf("token %q repeated", tok)
				}
				seen[tok] = true
			}
		})
	}
}

func TestRandomTokenPanicsBelowMinimum(t *testing.T) {
	tests := []struct {
		name string
		n    int
	}{
		{name: "Negative", n: -1},
		{name: "Zero", n: 0},
		{name: "Fifteen", n: 15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatalf("RandomToken(%d) did not panic", tt.n)
				}
			}()
			auth.RandomToken(tt.n)
		})
	}
}

func TestCSRFMatch(t *testing.T) {
	tok := auth.RandomToken(32)
	tests := []struct {
		name           string
		cookie, header string
		want           bool
	}{
		{name: "Match", cookie: tok, header: tok, want: true},
		{name: "BothEmpty", cookie: "", header: ""},
		{name: "CookieEmpty", cookie: "", header: tok},
		{name: "HeaderEmpty", cookie: tok, header: ""},
		{name: "Differ", cookie: tok, header: auth.RandomToken(32)},
		{name: "HeaderPrefix", cookie: tok, header: tok[:len(tok)-1]},
		{name: "HeaderLonger", cookie: tok, header: tok + "x"},
		{name: "CaseDiffers", cookie: "abcdefghijklmnop", header: "ABCDEFGHIJKLMNOP"},
		{name: "TrailingSpace", cookie: tok, header: tok + " "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := auth.CSRFMatch(tt.cookie, tt.header); got != tt.want {
				t.Fatalf("CSRFMatch = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestConstantTimeEqual(t *testing.T) {
	type hash []byte
	strTests := []struct {
		name string
		a, b string
		want bool
	}{
		{name: "Equal", a: "verify-token", b: "verify-token", want: true},
		{name: "BothEmpty", a: "", b: "", want: true},
		{name: "OneEmpty", a: "x", b: ""},
		{name: "SameLengthDiffer", a: "abc", b: "abd"},
		{name: "Prefix", a: "abc", b: "ab"},
	}
	for _, tt := range strTests {
		t.Run("String/"+tt.name, func(t *testing.T) {
			if got := auth.ConstantTimeEqual(tt.a, tt.b); got != tt.want {
				t.Fatalf("ConstantTimeEqual(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
	byteTests := []struct {
		name string
		a, b []byte
		want bool
	}{
		{name: "Equal", a: []byte{1, 2, 3}, b: []byte{1, 2, 3}, want: true},
		{name: "NilAndEmpty", a: nil, b: []byte{}, want: true},
		{name: "Differ", a: []byte{1, 2, 3}, b: []byte{1, 2, 4}},
		{name: "Longer", a: []byte{1, 2, 3}, b: []byte{1, 2, 3, 0}},
	}
	for _, tt := range byteTests {
		t.Run("Bytes/"+tt.name, func(t *testing.T) {
			if got := auth.ConstantTimeEqual(tt.a, tt.b); got != tt.want {
				t.Fatalf("ConstantTimeEqual(%x, %x) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
	t.Run("NamedByteType", func(t *testing.T) {
		if !auth.ConstantTimeEqual(hash("k"), hash("k")) {
			t.Fatal("equal named byte slices compare unequal")
		}
	})
}
