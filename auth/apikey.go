package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
)

// API key format: [APIKeyPrefix] followed by 32 lowercase hex characters (16
// random bytes). Only the SHA-256 hash of the full key and the first
// [APIKeyPrefixLen] characters of the body are stored.
const (
	// APIKeyPrefix starts every API key.
	APIKeyPrefix = "whm_"
	// APIKeyLen is the length of a full API key.
	APIKeyLen = len(APIKeyPrefix) + 2*apiKeyRandomBytes
	// APIKeyPrefixLen is the length of the stored, displayable key prefix
	// (the start of the hex body, without "whm_").
	APIKeyPrefixLen = 8

	apiKeyRandomBytes = 16
)

// ErrAPIKeyMalformed is returned by [ParseAPIKey] for a string that is not
// in the API key format.
var ErrAPIKeyMalformed = errors.New("auth: malformed API key")

// GenerateAPIKey returns a new random API key, its display prefix (the first
// 8 characters of the hex body) and the SHA-256 hash of the full key. Store
// prefix and hash; show full to the user once.
func GenerateAPIKey() (full, prefix string, hash []byte) {
	b := make([]byte, apiKeyRandomBytes)
	_, _ = rand.Read(b) // never fails: crypto/rand crashes instead
	full = APIKeyPrefix + hex.EncodeToString(b)
	return full, full[len(APIKeyPrefix) : len(APIKeyPrefix)+APIKeyPrefixLen], HashAPIKey(full)
}

// ParseAPIKey checks that s is exactly "whm_" followed by 32 lowercase hex
// characters and returns the hash to look the key up by and its display
// prefix. Anything else, including surrounding space and upper-case hex,
// gives [ErrAPIKeyMalformed].
func ParseAPIKey(s string) (hash []byte, prefix string, err error) {
	if len(s) != APIKeyLen || s[:len(APIKeyPrefix)] != APIKeyPrefix {
		return nil, "", ErrAPIKeyMalformed
	}
	for i := len(APIKeyPrefix); i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return nil, "", ErrAPIKeyMalformed
		}
	}
	return HashAPIKey(s), s[len(APIKeyPrefix) : len(APIKeyPrefix)+APIKeyPrefixLen], nil
}

// HashAPIKey returns the SHA-256 hash of a full API key, the value stored
// and looked up. A fast hash is enough: the key has 128 random bits.
func HashAPIKey(full string) []byte {
	sum := sha256.Sum256([]byte(full))
	return sum[:]
}
