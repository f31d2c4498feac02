package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
)

// MinTokenBytes is the smallest entropy, in bytes, [RandomToken] accepts.
const MinTokenBytes = 16

// RandomToken returns nBytes random bytes as unpadded URL-safe base64, for
// CSRF tokens, webhook verify tokens, SSO state and similar bearer values.
// It panics if nBytes is below [MinTokenBytes], which is a programming
// error: shorter tokens can be guessed.
func RandomToken(nBytes int) string {
	if nBytes < MinTokenBytes {
		panic(fmt.Sprintf("auth: RandomToken(%d): need at least %d bytes", nBytes, MinTokenBytes))
	}
	b := make([]byte, nBytes)
	_, _ = rand.Read(b) // never fails: crypto/rand crashes instead
	return base64.RawURLEncoding.EncodeToString(b)
}

// CSRFMatch reports whether the CSRF header equals the CSRF cookie, in
// constant time. It is false when either is empty, so a request with no
// cookie and no header does not pass.
func CSRFMatch(cookie, header string) bool {
	if cookie == "" || header == "" {
		return false
	}
	return ConstantTimeEqual(cookie, header)
}

// ConstantTimeEqual reports whether a and b are equal, taking time that
// depends on their length but not on their contents. Use it to compare
// secrets such as tokens, signatures and key hashes. Two empty values are
// equal.
func ConstantTimeEqual[T ~string | ~[]byte](a, b T) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
