package secrets_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"testing"

	"switchboard/secrets"
)

// MustBox returns a Box for key or fails the test.
func MustBox(tb testing.TB, key string) *secrets.Box {
	tb.Helper()
	b, err := secrets.NewBox(key)
	if err != nil {
		tb.Fatalf("NewBox(%q): %v", key, err)
	}
	return b
}

func TestNewBox(t *testing.T) {
	tests := []struct {
		name    string
		key     string
		wantErr error
	}{
		{name: "ErrEmptyKey", key: "", wantErr: secrets.ErrEmptyKey},
		{name: "OneByte", key: "x"},
		{name: "Passphrase", key: "correct horse battery staple"},
		{name: "Long", key: string(bytes.Repeat([]byte("k"), 4096))},
		{name: "Unicode", key: "ключ-🔑"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := secrets.NewBox(tt.key)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if (b == nil) != (tt.wantErr != nil) {
				t.Fatalf("box = %v with err %v", b, err)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	b := MustBox(t, "test-key")
	tests := []struct {
		name      string
		plaintext []byte
	}{
		{name: "Empty", plaintext: []byte{}},
		{name: "Nil", plaintext: nil},
		{name: "Short", plaintext: []byte("s")},
		{name: "AccessToken", plaintext: []byte("EAAGm0PX4ZCpsBA-long-platform-token")},
		{name: "Binary", plaintext: []byte{0, 1, 2, 0xff, 0xfe, 0}},
		{name: "Large", plaintext: bytes.Repeat([]byte("0123456789"), 10000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sealed := b.Seal(tt.plaintext)
			if got, want := len(sealed), 1+12+len(tt.plaintext)+16; got != want {
				t.Errorf("len(sealed) = %d, want %d", got, want)
			}
			if sealed[0] != 1 {
				t.Errorf("version byte = %d, want 1", sealed[0])
			}
			if len(tt.plaintext) >= 4 && bytes.Contains(sealed, tt.plaintext) {
				t.Error("sealed value contains the plaintext")
			}
			got, err := b.Open(sealed)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if got == nil {
				t.Fatal("Open returned nil slice")
			}
			if !bytes.Equal(got, tt.plaintext) {
				t.Fatalf("Open = %q, want %q", got, tt.plaintext)
			}
		})
	}
}

func TestRoundTripAcrossBoxes(t *testing.T) {
	// Two boxes from the same key string (as after a restart) read each
	// other's values.
	sealed := MustBox(t, "same-key").Seal([]byte("secret"))
	got, err := MustBox(t, "same-key").Open(sealed)
	if err != nil || string(got) != "secret" {
		t.Fatalf("Open = %q, %v; want %q, nil", got, err, "secret")
	}
}

// TestKnownAnswer pins the key derivation and format: a value sealed by an
// earlier build must stay readable. If this fails, stored secrets would be
// lost.
func TestKnownAnswer(t *testing.T) {
	const sealed = "AaKj83zISvYUaF9JH/jV6FFQXARBsvl28AO08yfkJdmzAK6ZhXj9YuQhnYZZwA=="
	got, err := MustBox(t, "correct horse battery staple").OpenString(sealed)
	if err != nil {
		t.Fatalf("OpenString: %v", err)
	}
	if got != "EAAG-access-token" {
		t.Fatalf("OpenString = %q, want %q", got, "EAAG-access-token")
	}
}

func TestSealNonceUnique(t *testing.T) {
	b := MustBox(t, "test-key")
	tests := []struct {
		name      string
		plaintext []byte
	}{
		{name: "Empty", plaintext: []byte{}},
		{name: "Text", plaintext: []byte("same plaintext")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const n = 200
			nonces := make(map[string]bool, n)
			outputs := make(map[string]bool, n)
			for range n {
				s := b.Seal(tt.plaintext)
				nonces[string(s[1:13])] = true
				outputs[string(s)] = true
			}
			if len(nonces) != n || len(outputs) != n {
				t.Fatalf("%d seals gave %d distinct nonces and %d distinct outputs", n, len(nonces), len(outputs))
			}
		})
	}
}

func TestOpenRejects(t *testing.T) {
	b := MustBox(t, "test-key")
	sealed := b.Seal([]byte("the account access token"))
	emptySealed := b.Seal(nil)

	flip := func(i int) []byte {
		c := bytes.Clone(sealed)
		c[i] ^= 0x01
		return c
	}
	tests := []struct {
		name  string
		box   *secrets.Box
		input []byte
	}{
		{name: "WrongKey", box: MustBox(t, "other-key"), input: sealed},
		{name: "WrongKeyEmptyPlaintext", box: MustBox(t, "other-key"), input: emptySealed},
		{name: "KeyDiffersByCase", box: MustBox(t, "Test-key"), input: sealed},
		{name: "FlippedVersion", box: b, input: flip(0)},
		{name: "VersionZero", box: b, input: append([]byte{0}, sealed[1:]...)},
		{name: "FlippedNonce", box: b, input: flip(5)},
		{name: "FlippedCiphertext", box: b, input: flip(14)},
		{name: "FlippedTag", box: b, input: flip(len(sealed) - 1)},
		{name: "Truncated", box: b, input: sealed[:len(sealed)-1]},
		{name: "TruncatedToOverhead", box: b, input: sealed[:29]},
		{name: "ShorterThanOverhead", box: b, input: sealed[:28]},
		{name: "Appended", box: b, input: append(bytes.Clone(sealed), 0)},
		{name: "OnlyVersion", box: b, input: []byte{1}},
		{name: "Empty", box: b, input: []byte{}},
		{name: "Nil", box: b, input: nil},
		{name: "Plaintext", box: b, input: []byte("the account access token")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.box.Open(tt.input)
			if !errors.Is(err, secrets.ErrOpen) {
				t.Fatalf("Open err = %v, want ErrOpen", err)
			}
			if got != nil {
				t.Fatalf("Open returned %q with an error", got)
			}
		})
	}
}

func TestStringRoundTrip(t *testing.T) {
	b := MustBox(t, "test-key")
	tests := []struct {
		name string
		in   string
	}{
		{name: "Empty", in: ""},
		{name: "ASCII", in: "webhook-secret-123"},
		{name: "Unicode", in: "sécret ✓ 秘密"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sealed := b.SealString(tt.in)
			if sealed == "" {
				t.Fatal("SealString returned empty string")
			}
			if _, err := base64.StdEncoding.DecodeString(sealed); err != nil {
				t.Fatalf("SealString output is not standard base64: %v", err)
			}
			got, err := b.OpenString(sealed)
			if err != nil {
				t.Fatalf("OpenString: %v", err)
			}
			if got != tt.in {
				t.Fatalf("OpenString = %q, want %q", got, tt.in)
			}
		})
	}
}

func TestOpenStringRejects(t *testing.T) {
	b := MustBox(t, "test-key")
	sealed := b.SealString("secret")
	raw, _ := base64.StdEncoding.DecodeString(sealed)
	raw[len(raw)-1] ^= 0x80

	tests := []struct {
		name  string
		box   *secrets.Box
		input string
	}{
		{name: "Empty", box: b, input: ""},
		{name: "NotBase64", box: b, input: "not base64!"},
		{name: "URLBase64", box: b, input: base64.RawURLEncoding.EncodeToString(b.Seal([]byte("secret")))},
		{name: "Tampered", box: b, input: base64.StdEncoding.EncodeToString(raw)},
		{name: "WrongKey", box: MustBox(t, "other-key"), input: sealed},
		{name: "Plaintext", box: b, input: "secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.box.OpenString(tt.input)
			if !errors.Is(err, secrets.ErrOpen) {
				t.Fatalf("OpenString err = %v, want ErrOpen", err)
			}
			if got != "" {
				t.Fatalf("OpenString returned %q with an error", got)
			}
		})
	}
}

func TestConcurrentUse(t *testing.T) {
	b := MustBox(t, "test-key")
	done := make(chan error)
	for i := range 8 {
		go func() {
			in := []byte{byte(i)}
			out, err := b.Open(b.Seal(in))
			if err == nil && !bytes.Equal(out, in) {
				err = errors.New("round trip mismatch")
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
