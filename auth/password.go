package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// Password length limits. The minimum is the spec's; the maximum bounds the
// work an attacker can make one login cost.
const (
	// MinPasswordChars is the minimum password length in characters
	// (Unicode code points).
	MinPasswordChars = 12
	// MaxPasswordBytes is the maximum password length in bytes.
	MaxPasswordBytes = 256
)

// Password policy errors returned by [ValidatePassword] and [HashPassword].
// Their messages are safe to show to users.
var (
	// ErrPasswordTooShort means fewer than MinPasswordChars characters.
	ErrPasswordTooShort = errors.New("password must be at least 12 characters")
	// ErrPasswordTooLong means more than MaxPasswordBytes bytes.
	ErrPasswordTooLong = errors.New("password must be at most 256 bytes")
)

// argon2id parameters for new hashes, the OWASP recommendation (19 MiB,
// two passes, one lane). Stored hashes carry their own parameters, so these
// can be raised later without invalidating existing passwords.
const (
	argonMemoryKiB = 19456
	argonTime      = 2
	argonThreads   = 1
	argonSaltLen   = 16
	argonKeyLen    = 32
)

// Bounds on parameters read from a stored hash, so that a corrupted or
// planted hash cannot make a login allocate gigabytes or spin for minutes.
const (
	maxArgonMemoryKiB = 256 * 1024
	maxArgonTime      = 16
	maxArgonThreads   = 16
	minArgonSaltLen   = 8
	minArgonKeyLen    = 16
	maxArgonKeyLen    = 128
)

// b64 is the PHC string encoding: standard alphabet, no padding.
var b64 = base64.RawStdEncoding

// dummyHash is a well-formed hash with the current parameters that no
// password matches in practice; DummyCheck verifies against it.
var dummyHash = encodeArgon2id(argonParams{
	memory: argonMemoryKiB, time: argonTime, threads: argonThreads,
	salt: make([]byte, argonSaltLen), key: make([]byte, argonKeyLen),
})

// ValidatePassword enforces the password policy for a password a user
// chooses: at least [MinPasswordChars] characters and at most
// [MaxPasswordBytes] bytes. It returns [ErrPasswordTooShort] or
// [ErrPasswordTooLong].
func ValidatePassword(pw string) error {
	if len(pw) > MaxPasswordBytes {
		return ErrPasswordTooLong
	}
	if utf8.RuneCountInString(pw) < MinPasswordChars {
		return ErrPasswordTooShort
	}
	return nil
}

// HashPassword returns an argon2id hash of pw in PHC string format,
// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>, with a random 16-byte salt.
// It does not apply the length minimum (call [ValidatePassword] for that)
// but rejects an empty password and one longer than [MaxPasswordBytes]
// ([ErrPasswordTooLong]).
func HashPassword(pw string) (string, error) {
	if pw == "" {
		return "", errors.New("auth: password is empty")
	}
	if len(pw) > MaxPasswordBytes {
		return "", ErrPasswordTooLong
	}
	salt := make([]byte, argonSaltLen)
	_, _ = rand.Read(salt) // never fails: crypto/rand crashes instead
	p := argonParams{memory: argonMemoryKiB, time: argonTime, threads: argonThreads, salt: salt}
	p.key = argon2.IDKey([]byte(pw), p.salt, p.time, p.memory, p.threads, argonKeyLen)
	return encodeArgon2id(p), nil
}

// CheckPassword reports whether pw matches hash, a value from
// [HashPassword]. It uses the parameters stored in hash and compares in
// constant time. A malformed hash, or parameters outside sane bounds, never
// matches.
func CheckPassword(hash, pw string) bool {
	p, err := decodeArgon2id(hash)
	if err != nil || len(pw) > MaxPasswordBytes {
		return false
	}
	got := argon2.IDKey([]byte(pw), p.salt, p.time, p.memory, p.threads, uint32(len(p.key)))
	return subtle.ConstantTimeCompare(got, p.key) == 1
}

// DummyCheck spends the time of one [CheckPassword] with the current
// parameters and throws the result away. Login calls it when no user has the
// given email, so response time does not tell which emails exist.
func DummyCheck() {
	_ = CheckPassword(dummyHash, "switchboard dummy password")
}

type argonParams struct {
	memory  uint32
	time    uint32
	threads uint8
	salt    []byte
	key     []byte
}

func encodeArgon2id(p argonParams) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.memory, p.time, p.threads, b64.EncodeToString(p.salt), b64.EncodeToString(p.key))
}

var errBadHash = errors.New("auth: malformed password hash")

func decodeArgon2id(s string) (argonParams, error) {
	var p argonParams
	// "", "argon2id", "v=19", "m=..,t=..,p=..", salt, hash
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return p, errBadHash
	}
	if parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return p, errBadHash
	}
	var memory, time, threads uint32
	n, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &time, &threads)
	if err != nil || n != 3 || parts[3] != fmt.Sprintf("m=%d,t=%d,p=%d", memory, time, threads) {
		return p, errBadHash
	}
	if memory < 8*threads || memory > maxArgonMemoryKiB || time < 1 || time > maxArgonTime ||
		threads < 1 || threads > maxArgonThreads {
		return p, errBadHash
	}
	salt, err := b64.Strict().DecodeString(parts[4])
	if err != nil || len(salt) < minArgonSaltLen {
		return p, errBadHash
	}
	key, err := b64.Strict().DecodeString(parts[5])
	if err != nil || len(key) < minArgonKeyLen || len(key) > maxArgonKeyLen {
		return p, errBadHash
	}
	p.memory, p.time, p.threads, p.salt, p.key = memory, time, uint8(threads), salt, key
	return p, nil
}
