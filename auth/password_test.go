package auth_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/crypto/argon2"

	"switchboard/auth"
)

func TestValidatePassword(t *testing.T) {
	tests := []struct {
		name string
		pw   string
		want error
	}{
		{name: "Empty", pw: "", want: auth.ErrPasswordTooShort},
		{name: "ElevenChars", pw: "abcdefghijk", want: auth.ErrPasswordTooShort},
		{name: "TwelveChars", pw: "abcdefghijkl"},
		{name: "ElevenRunesTwentyTwoBytes", pw: strings.Repeat("é", 11), want: auth.ErrPasswordTooShort},
		{name: "TwelveTwoByteRunes", pw: strings.Repeat("é", 12)},
		{name: "TwelveFourByteRunes", pw: strings.Repeat("🔑", 12)},
		{name: "ElevenFourByteRunes", pw: strings.Repeat("🔑", 11), want: auth.ErrPasswordTooShort},
		{name: "Spaces", pw: strings.Repeat(" ", 12)},
		{name: "MaxBytes", pw: strings.Repeat("a", 256)},
		{name: "MaxBytesPlusOne", pw: strings.Repeat("a", 257), want: auth.ErrPasswordTooLong},
		{name: "MultibyteOverMax", pw: strings.Repeat("🔑", 65), want: auth.ErrPasswordTooLong},
		{name: "MultibyteAtMax", pw: strings.Repeat("🔑", 64)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := auth.ValidatePassword(tt.pw); !errors.Is(err, tt.want) {
				t.Fatalf("ValidatePassword = %v, want %v", err, tt.want)
			}
		})
	}
}

var phcPattern = regexp.MustCompile(`^\$argon2id\$v=19\$m=19456,t=2,p=1\$([A-Za-z0-9+/]{22})\$([A-Za-z0-9+/]{43})$`)

func TestHashPassword(t *testing.T) {
	t.Run("Format", func(t *testing.T) {
		h, err := auth.HashPassword("correct horse battery staple")
		if err != nil {
			t.Fatal(err)
		}
		m := phcPattern.FindStringSubmatch(h)
		if m == nil {
			t.Fatalf("hash %q is not argon2id PHC with m=19456,t=2,p=1", h)
		}
		salt, err := base64.RawStdEncoding.DecodeString(m[1])
		if err != nil || len(salt) != 16 {
			t.Errorf("salt %q: %d bytes, %v; want 16", m[1], len(salt), err)
		}
		key, err := base64.RawStdEncoding.DecodeString(m[2])
		if err != nil || len(key) != 32 {
			t.Errorf("key %q: %d bytes, %v; want 32", m[2], len(key), err)
		}
		// Independent recomputation with the documented parameters.
		want := argon2.IDKey([]byte("correct horse battery staple"), salt, 2, 19456, 1, 32)
		if string(key) != string(want) {
			t.Error("hash does not match argon2id with the documented parameters")
		}
	})
	t.Run("SaltedUnique", func(t *testing.T) {
		a, errA := auth.HashPassword("same password!")
		b, errB := auth.HashPassword("same password!")
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if a == b {
			t.Fatal("two hashes of the same password are equal")
		}
	})

	errTests := []struct {
		name    string
		pw      string
		wantErr error
	}{
		{name: "ErrEmpty", pw: ""},
		{name: "ErrTooLong", pw: strings.Repeat("a", 257), wantErr: auth.ErrPasswordTooLong},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := auth.HashPassword(tt.pw)
			if err == nil || h != "" {
				t.Fatalf("HashPassword = %q, %v; want error", h, err)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestCheckPassword(t *testing.T) {
	const pw = "Tr0ub4dor&3 horse"
	hash, err := auth.HashPassword(pw)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 256)
	longHash, err := auth.HashPassword(long)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		hash string
		pw   string
		want bool
	}{
		{name: "Correct", hash: hash, pw: pw, want: true},
		{name: "Wrong", hash: hash, pw: "Tr0ub4dor&3 house"},
		{name: "CaseDiffers", hash: hash, pw: strings.ToUpper(pw)},
		{name: "TrailingSpace", hash: hash, pw: pw + " "},
		{name: "Prefix", hash: hash, pw: pw[:len(pw)-1]},
		{name: "Empty", hash: hash, pw: ""},
		{name: "MaxLengthCorrect", hash: longHash, pw: long, want: true},
		{name: "OverMaxLength", hash: longHash, pw: long + "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := auth.CheckPassword(tt.hash, tt.pw); got != tt.want {
				t.Fatalf("CheckPassword = %v, want %v", got, tt.want)
			}
		})
	}
}

// phc builds an argon2id hash string with arbitrary parameters.
func phc(pw string, m, tm uint32, p uint8, salt []byte, keyLen uint32) string {
	key := argon2.IDKey([]byte(pw), salt, tm, m, p, keyLen)
	return fmt.Sprintf("$argon2id$v=19$m=%d,t=%d,p=%d$%s$%s", m, tm, p,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key))
}

func TestCheckPasswordStoredParams(t *testing.T) {
	// Hashes made with other parameters (older or newer policy) still
	// verify: the parameters come from the stored string.
	salt := []byte("0123456789abcdef")
	tests := []struct {
		name string
		hash string
	}{
		{name: "LowMemory", hash: phc("password-12345", 64, 1, 1, salt, 32)},
		{name: "MoreLanes", hash: phc("password-12345", 256, 3, 4, salt, 32)},
		{name: "LongerKeyShortSalt", hash: phc("password-12345", 64, 1, 1, salt[:8], 64)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !auth.CheckPassword(tt.hash, "password-12345") {
				t.Error("correct password rejected")
			}
			if auth.CheckPassword(tt.hash, "password-12346") {
				t.Error("wrong password accepted")
			}
		})
	}
}

func TestCheckPasswordMalformedHash(t *testing.T) {
	const pw = "password-12345"
	salt := []byte("0123456789abcdef")
	good := phc(pw, 64, 1, 1, salt, 32)
	parts := strings.Split(good, "$") // "", argon2id, v=19, params, salt, key
	join := func(edit func(p []string)) string {
		p := append([]string(nil), parts...)
		edit(p)
		return strings.Join(p, "$")
	}
	if !auth.CheckPassword(good, pw) {
		t.Fatal("control hash rejected")
	}
	tests := []struct {
		name string
		hash string
	}{
		{name: "Empty", hash: ""},
		{name: "Plaintext", hash: pw},
		{name: "Bcrypt", hash: "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"},
		{name: "Argon2i", hash: join(func(p []string) { p[1] = "argon2i" })},
		{name: "Argon2d", hash: join(func(p []string) { p[1] = "argon2d" })},
		{name: "Version16", hash: join(func(p []string) { p[2] = "v=16" })},
		{name: "NoVersion", hash: strings.Join(append(parts[:2:2], parts[3:]...), "$")},
		{name: "MissingKey", hash: strings.Join(parts[:5], "$")},
		{name: "ExtraField", hash: good + "$AAAA"},
		{name: "NoLeadingDollar", hash: good[1:]},
		{name: "ParamsReordered", hash: join(func(p []string) { p[3] = "t=1,m=64,p=1" })},
		{name: "ParamsLeadingZero", hash: join(func(p []string) { p[3] = "m=064,t=1,p=1" })},
		{name: "ParamsPlusSign", hash: join(func(p []string) { p[3] = "m=+64,t=1,p=1" })},
		{name: "ParamsTrailing", hash: join(func(p []string) { p[3] = "m=64,t=1,p=1,k=2" })},
		{name: "TimeZero", hash: join(func(p []string) { p[3] = "m=64,t=0,p=1" })},
		{name: "ThreadsZero", hash: join(func(p []string) { p[3] = "m=64,t=1,p=0" })},
		{name: "ThreadsTooMany", hash: join(func(p []string) { p[3] = "m=4096,t=1,p=255" })},
		{name: "ThreadsOverflow", hash: join(func(p []string) { p[3] = "m=64,t=1,p=257" })},
		{name: "MemoryTooSmall", hash: join(func(p []string) { p[3] = "m=7,t=1,p=1" })},
		// Absurd costs are refused before any work is done.
		{name: "MemoryHuge", hash: join(func(p []string) { p[3] = "m=4194304,t=1,p=1" })},
		{name: "TimeHuge", hash: join(func(p []string) { p[3] = "m=64,t=100000,p=1" })},
		{name: "MemoryOverflow", hash: join(func(p []string) { p[3] = "m=99999999999,t=1,p=1" })},
		{name: "SaltTooShort", hash: join(func(p []string) { p[4] = base64.RawStdEncoding.EncodeToString(salt[:7]) })},
		{name: "SaltPadded", hash: join(func(p []string) { p[4] += "==" })},
		{name: "SaltURLAlphabet", hash: join(func(p []string) { p[4] = "_-" + p[4][2:] })},
		{name: "KeyTooShort", hash: join(func(p []string) { p[5] = base64.RawStdEncoding.EncodeToString(make([]byte, 15)) })},
		{name: "KeyTooLong", hash: join(func(p []string) { p[5] = base64.RawStdEncoding.EncodeToString(make([]byte, 129)) })},
		{name: "KeyNotBase64", hash: join(func(p []string) { p[5] = "!!!!" })},
		{name: "KeyTruncated", hash: good[:len(good)-1]},
		{name: "KeyFlipped", hash: good[:len(good)-2] + string(good[len(good)-2]^1) + good[len(good)-1:]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if auth.CheckPassword(tt.hash, pw) {
				t.Fatalf("CheckPassword(%q) accepted", tt.hash)
			}
		})
	}
}

func TestDummyCheck(t *testing.T) {
	// Only that it runs; timing is not asserted. It must not panic on its
	// own constant hash (which would show up as a 500 for unknown emails).
	auth.DummyCheck()
}
