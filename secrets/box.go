// Package secrets encrypts values stored at rest: account access tokens, app
// secrets, SSO client secrets and webhook secrets.
//
// A [Box] derives an AES-256 key from the configured ENCRYPTION_KEY with
// HKDF-SHA256 and seals values with AES-GCM. The package owns only the
// encryption format; it must not know which fields are encrypted, how they are
// stored, or how the key is configured.
//
// The sealed format is
//
//	version (1 byte) || nonce (12 bytes) || AES-GCM ciphertext and tag
//
// The version byte leaves room for a future key or algorithm change without
// guessing at what a stored value is.
package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"

	"golang.org/x/crypto/hkdf"

	"switchboard/apperr"
	"switchboard/internal/valid"
)

const (
	// formatV1 is the version byte of values sealed with the v1 key
	// derivation and AES-256-GCM.
	formatV1 byte = 1

	nonceSize = 12
	tagSize   = 16

	// overhead is what Seal adds to a plaintext.
	overhead = 1 + nonceSize + tagSize
)

// HKDF parameters of the v1 format. They are fixed: changing them makes every
// stored value unreadable.
var (
	hkdfSaltV1 = []byte("switchboard/secrets/v1")
	hkdfInfoV1 = []byte("switchboard/secrets/v1 aes-256-gcm")
)

// ErrEmptyKey is returned by [NewBox] when the key is the empty string.
var ErrEmptyKey = errors.New("secrets: encryption key is empty")

// ErrOpen is returned by [Box.Open] and [Box.OpenString] when a value cannot
// be decrypted: it is truncated, has an unknown version, was modified, or was
// sealed with another key. The causes are deliberately not distinguished.
var ErrOpen = errors.New("secrets: cannot decrypt value (corrupt, tampered or wrong key)")

// Box seals and opens values with one key. It is safe for concurrent use.
type Box struct {
	aead cipher.AEAD
}

// NewBox returns a Box whose AES-256 key is derived from key, which may be any
// non-empty string, with HKDF-SHA256 and a fixed salt and info string. The
// same key always yields the same Box, so values survive restarts.
//
// It returns [ErrEmptyKey] when key is empty.
func NewBox(key string) (*Box, error) {
	if key == "" {
		return nil, ErrEmptyKey
	}
	aesKey := make([]byte, 32)
	if _, err := io.ReadFull(hkdf.New(sha256.New, []byte(key), hkdfSaltV1, hkdfInfoV1), aesKey); err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(aesKey)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead}, nil
}

// Seal encrypts plaintext under a fresh random nonce and returns
// version || nonce || ciphertext. Sealing the same plaintext twice gives
// different outputs. An empty plaintext is sealed too (the result still
// authenticates), so callers that mean "no value" must not call Seal.
func (b *Box) Seal(plaintext []byte) []byte {
	out := make([]byte, 1+nonceSize, len(plaintext)+overhead)
	out[0] = formatV1
	// crypto/rand.Read never fails (it crashes the program instead).
	_, _ = rand.Read(out[1 : 1+nonceSize])
	return b.aead.Seal(out, out[1:1+nonceSize], plaintext, out[:1])
}

// Open decrypts a value produced by [Box.Seal] with the same key. It returns
// [ErrOpen] when the value is truncated, has an unknown version byte, was
// modified, or was sealed with another key. The result is never nil on
// success, even for an empty plaintext.
func (b *Box) Open(sealed []byte) ([]byte, error) {
	if len(sealed) < overhead || sealed[0] != formatV1 {
		return nil, ErrOpen
	}
	nonce, ct := sealed[1:1+nonceSize], sealed[1+nonceSize:]
	// The version byte is additional authenticated data, so it cannot be
	// swapped without detection once a second version exists.
	pt, err := b.aead.Open(nil, nonce, ct, sealed[:1])
	if err != nil {
		return nil, ErrOpen
	}
	if pt == nil {
		pt = []byte{}
	}
	return pt, nil
}

// SealString seals s and returns the result in standard base64 (with
// padding), suitable for a text column. Like [Box.Seal] it always encrypts:
// an empty s gives a non-empty result.
func (b *Box) SealString(s string) string {
	return base64.StdEncoding.EncodeToString(b.Seal([]byte(s)))
}

// OpenString reverses [Box.SealString]. It returns [ErrOpen] when s is not
// valid base64 or cannot be opened.
func (b *Box) OpenString(s string) (string, error) {
	raw, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return "", ErrOpen
	}
	pt, err := b.Open(raw)
	if err != nil {
		return "", err
	}
	return string(pt), nil
}

// SealField encrypts a credential given in field for storage, refusing
// one longer than limit characters. Errors (apperr): invalid, internal (no
// box configured).
func (b *Box) SealField(field, value string, limit int) ([]byte, error) {
	if len(value) > limit {
		return nil, valid.TooLong(field, limit)
	}
	if b == nil {
		return nil, apperr.New(apperr.Internal, "encryption is not configured")
	}
	return b.Seal([]byte(value)), nil
}
