package auth_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"switchboard/auth"
)

// FuzzParse checks that Parse never panics, that every error wraps exactly
// one sentinel, and that whatever it accepts is byte for byte a token Issue*
// produces for the claims it returns, with the configured lifetime.
//
// The secret and the clock are fixed, so tokens in the seed corpus stay
// valid across runs and fuzz workers.
func FuzzParse(f *testing.F) {
	tk := MustTokens(f, testSecret, auth.TokenOptions{Now: newClock().Now})
	for _, typ := range allTypes {
		token := issue(f, tk, typ)
		h, p, s := segments(f, token)
		for _, want := range allTypes {
			f.Add(token, string(want))
		}
		f.Add(h+"."+flipChar(p, len(p)/2)+"."+s, string(typ))
		f.Add(h+"."+p+"."+flipChar(s, len(s)/2), string(typ))
		f.Add(h+"."+p+".", string(typ))
		f.Add(token+"\n", string(typ))
	}
	f.Add(sign(f, jwt.SigningMethodNone, validClaims(), jwt.UnsafeAllowNoneSignatureType), "access")
	f.Add(sign(f, jwt.SigningMethodHS512, validClaims(), testSecret), "access")
	f.Add(sign(f, jwt.SigningMethodHS256, validClaims(), []byte("other secret")), "access")
	f.Add("", "")
	f.Add("..", "access")
	f.Add("a.b.c", "ws")
	f.Add(base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256"}`))+"."+
		base64.RawURLEncoding.EncodeToString([]byte(`{"exp":1e400}`))+".", "access")

	f.Fuzz(func(t *testing.T, token, want string) {
		c, err := tk.Parse(token, auth.TokenType(want))
		if err != nil {
			if c != nil {
				t.Fatalf("claims %+v returned with error %v", c, err)
			}
			assertOneSentinel(t, err)
			return
		}
		if string(c.Type) != want {
			t.Fatalf("accepted a %q token as %q", c.Type, want)
		}
		if c.Issuer != auth.DefaultIssuer || c.IssuedAt == nil || c.NotBefore == nil || c.ExpiresAt == nil ||
			!c.NotBefore.Equal(c.IssuedAt.Time) || !c.ExpiresAt.Equal(c.IssuedAt.Add(tk.TTL(c.Type))) {
			t.Fatalf("accepted claims Issue* does not produce: %+v", c)
		}
		resigned, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(testSecret)
		if err != nil {
			t.Fatal(err)
		}
		if resigned != token {
			t.Fatalf("accepted %q, but Issue* would produce %q for its claims", token, resigned)
		}
	})
}

// FuzzParseAPIKey checks ParseAPIKey against a plain reading of the format:
// it accepts exactly "whm_" and 32 lowercase hex characters, and then
// returns the SHA-256 of the key and the first 8 body characters.
func FuzzParseAPIKey(f *testing.F) {
	full, _, _ := auth.GenerateAPIKey()
	for _, s := range []string{
		full, "whm_0123456789abcdef0123456789abcdef", "whm_0123456789ABCDEF0123456789abcdef",
		"whm_", "", "whm_0123456789abcdef0123456789abcde", "whm_0123456789abcdef0123456789abcdef0",
		"WHM_0123456789abcdef0123456789abcdef", "whm_0123456789abcdef0123456789abcd\u00e9",
		" whm_0123456789abcdef0123456789abcde", "whm_0123456789abcdef0123456789abcde\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		hash, prefix, err := auth.ParseAPIKey(s)
		if wellFormedAPIKey(s) != (err == nil) {
			t.Fatalf("ParseAPIKey(%q) err = %v, format check says %v", s, err, wellFormedAPIKey(s))
		}
		if err != nil {
			if hash != nil || prefix != "" {
				t.Fatalf("ParseAPIKey(%q) returned %x, %q with an error", s, hash, prefix)
			}
			return
		}
		sum := sha256.Sum256([]byte(s))
		if !bytes.Equal(hash, sum[:]) || prefix != s[4:12] {
			t.Fatalf("ParseAPIKey(%q) = %x, %q", s, hash, prefix)
		}
	})
}

// wellFormedAPIKey is the reference reading of the key format.
func wellFormedAPIKey(s string) bool {
	return apiKeyPattern.MatchString(s)
}
