package outbound

import (
	"crypto/rand"
	"encoding/base64"
	"strings"
)

// SecretPrefix marks a Standard Webhooks signing secret.
const SecretPrefix = "whsec_"

// secretSize is the number of random bytes in a new secret: the Standard
// Webhooks minimum of 24 bytes (192 bits).
const secretSize = 24

// NewSecret returns a new subscription signing secret in the Standard
// Webhooks form: "whsec_" followed by the standard base64 of 24 random
// bytes.
func NewSecret() string {
	b := make([]byte, secretSize)
	// crypto/rand.Read never fails; it crashes the program instead.
	_, _ = rand.Read(b)
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// SecretBytes returns the HMAC key of a subscription secret, used for both
// signatures. For a "whsec_" secret it is, as the Standard Webhooks libraries
// do, the base64 decoding of what follows the prefix, so receivers can give
// the secret to those libraries unchanged. Any other secret (one a user
// supplied in their own format, or a "whsec_" string that is not valid
// base64) is used as its raw string bytes, prefix included: receivers then
// use the string as given.
func SecretBytes(s string) []byte {
	if rest, ok := strings.CutPrefix(s, SecretPrefix); ok && rest != "" {
		if key, err := base64.StdEncoding.DecodeString(rest); err == nil && len(key) > 0 {
			return key
		}
	}
	return []byte(s)
}
