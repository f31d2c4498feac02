package auth_test

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"switchboard/auth"
)

func TestParseExpiry(t *testing.T) {
	tests := []struct {
		name    string
		typ     auth.TokenType
		at      time.Duration // clock offset from issuance when parsing
		wantErr error
	}{
		{name: "AccessAtIssue", typ: auth.TokenAccess, at: 0},
		{name: "AccessLastSecond", typ: auth.TokenAccess, at: time.Hour - time.Second},
		{name: "AccessLastNanosecond", typ: auth.TokenAccess, at: time.Hour - time.Nanosecond},
		{name: "AccessAtExp", typ: auth.TokenAccess, at: time.Hour, wantErr: auth.ErrTokenExpired},
		{name: "AccessLongAfter", typ: auth.TokenAccess, at: 400 * 24 * time.Hour, wantErr: auth.ErrTokenExpired},
		{name: "RefreshLastSecond", typ: auth.TokenRefresh, at: 7*24*time.Hour - time.Second},
		{name: "RefreshAtExp", typ: auth.TokenRefresh, at: 7 * 24 * time.Hour, wantErr: auth.ErrTokenExpired},
		{name: "WSLastSecond", typ: auth.TokenWS, at: 59 * time.Second},
		{name: "WSAtExp", typ: auth.TokenWS, at: 60 * time.Second, wantErr: auth.ErrTokenExpired},
		{name: "BeforeNotBefore", typ: auth.TokenAccess, at: -time.Nanosecond, wantErr: auth.ErrTokenInvalid},
		{name: "LongBeforeIssue", typ: auth.TokenAccess, at: -time.Hour, wantErr: auth.ErrTokenInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newClock()
			tk := MustTokens(t, testSecret, auth.TokenOptions{Now: clk.Now})
			token := issue(t, tk, tt.typ)
			clk.Set(epoch.Add(tt.at))
			c, err := tk.Parse(token, tt.typ)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Parse err = %v, want %v", err, tt.wantErr)
			}
			if (c == nil) != (tt.wantErr != nil) {
				t.Fatalf("Parse claims = %v with err %v", c, err)
			}
			assertOneSentinel(t, err)
		})
	}
}

// assertOneSentinel checks that a Parse error wraps exactly one sentinel.
func assertOneSentinel(tb testing.TB, err error) {
	tb.Helper()
	if err == nil {
		return
	}
	n := 0
	for _, s := range []error{auth.ErrTokenExpired, auth.ErrTokenInvalid, auth.ErrWrongTokenType} {
		if errors.Is(err, s) {
			n++
		}
	}
	if n != 1 {
		tb.Fatalf("error %v wraps %d sentinel errors, want 1", err, n)
	}
}

func TestParseWrongType(t *testing.T) {
	tk := MustTokens(t, testSecret, auth.TokenOptions{Now: newClock().Now})
	for _, have := range allTypes {
		for _, want := range append(allTypes, "", "ACCESS", "bogus") {
			if have == want {
				continue
			}
			t.Run(string(have)+"As_"+string(want), func(t *testing.T) {
				c, err := tk.Parse(issue(t, tk, have), want)
				if !errors.Is(err, auth.ErrWrongTokenType) {
					t.Fatalf("Parse err = %v, want ErrWrongTokenType", err)
				}
				if c != nil {
					t.Fatalf("Parse returned claims %+v with error", c)
				}
				assertOneSentinel(t, err)
			})
		}
	}
}

func TestParseTampered(t *testing.T) {
	tk := MustTokens(t, testSecret, auth.TokenOptions{Now: newClock().Now})
	refresh := issue(t, tk, auth.TokenRefresh)
	h, p, s := segments(t, refresh)

	// Re-encode the payload with typ changed, keeping the old signature.
	claims := decodeSegment(t, p)
	claims["typ"] = "access"
	raw, _ := json.Marshal(claims)
	retyped := base64.RawURLEncoding.EncodeToString(raw)

	claims = decodeSegment(t, p)
	claims["org"] = uuid.NewString()
	raw, _ = json.Marshal(claims)
	reorg := base64.RawURLEncoding.EncodeToString(raw)

	// The last signature character carries 2 unused bits; a lax decoder
	// would map both spellings to the same signature.
	last := s[len(s)-1]
	idx := strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", last)
	alias := string("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[idx^1])

	tests := []struct {
		name  string
		token string
		want  auth.TokenType
	}{
		{name: "PayloadFirstByte", token: h + "." + flipChar(p, 0) + "." + s},
		{name: "PayloadMiddleByte", token: h + "." + flipChar(p, len(p)/2) + "." + s},
		{name: "PayloadLastByte", token: h + "." + flipChar(p, len(p)-1) + "." + s},
		{name: "SignatureFirstByte", token: h + "." + p + "." + flipChar(s, 0)},
		{name: "SignatureMiddleByte", token: h + "." + p + "." + flipChar(s, len(s)/2)},
		{name: "SignatureUnusedBits", token: h + "." + p + "." + s[:len(s)-1] + alias},
		{name: "HeaderByte", token: flipChar(h, 3) + "." + p + "." + s},
		{name: "RetypedToAccess", token: h + "." + retyped + "." + s, want: auth.TokenAccess},
		{name: "OtherOrganization", token: h + "." + reorg + "." + s},
		{name: "SignatureRemoved", token: h + "." + p + "."},
		{name: "SignaturePadded", token: refresh + "="},
		{name: "SignatureTruncated", token: refresh[:len(refresh)-1]},
		{name: "ExtraSegment", token: refresh + ".AAAA"},
		{name: "TwoSegments", token: h + "." + p},
		{name: "LeadingSpace", token: " " + refresh},
		{name: "TrailingNewline", token: refresh + "\n"},
		{name: "InnerNewline", token: h + "." + p[:10] + "\n" + p[10:] + "." + s},
		{name: "InnerCRLF", token: h + "." + p + "." + s[:5] + "\r\n" + s[5:]},
		{name: "StandardBase64Plus", token: h + "." + "+" + p[1:] + "." + s},
		{name: "StandardBase64Slash", token: h + "." + p + "." + s[:len(s)-2] + "/" + s[len(s)-1:]},
		{name: "TooLong", token: h + "." + p + strings.Repeat("A", 5000) + "." + s},
		{name: "BearerPrefix", token: "Bearer " + refresh},
		{name: "Empty", token: ""},
		{name: "Dots", token: ".."},
		{name: "Garbage", token: "not.a.jwt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if want == "" {
				want = auth.TokenRefresh
			}
			c, err := tk.Parse(tt.token, want)
			if !errors.Is(err, auth.ErrTokenInvalid) {
				t.Fatalf("Parse err = %v, want ErrTokenInvalid", err)
			}
			if c != nil {
				t.Fatalf("Parse returned claims %+v with error", c)
			}
			assertOneSentinel(t, err)
		})
	}
	t.Run("OriginalStillValid", func(t *testing.T) {
		if _, err := tk.Parse(refresh, auth.TokenRefresh); err != nil {
			t.Fatalf("Parse: %v", err)
		}
	})
}

func TestParseRejectsAlgorithms(t *testing.T) {
	tk := MustTokens(t, testSecret, auth.TokenOptions{Now: newClock().Now})
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	access := issue(t, tk, auth.TokenAccess)
	_, p, s := segments(t, access)
	header := func(alg string) string {
		return base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"` + alg + `","typ":"JWT"}`))
	}
	// hmacWithHeader signs header.payload with HMAC-SHA256 and our secret,
	// the classic algorithm-confusion forgery.
	hmacWithHeader := func(alg string) string {
		h := header(alg)
		sig, err := jwt.SigningMethodHS256.Sign(h+"."+p, testSecret)
		if err != nil {
			t.Fatal(err)
		}
		return h + "." + p + "." + base64.RawURLEncoding.EncodeToString(sig)
	}

	tests := []struct {
		name  string
		token string
	}{
		{name: "None", token: sign(t, jwt.SigningMethodNone, validClaims(), jwt.UnsafeAllowNoneSignatureType)},
		{name: "NoneWithOldSignature", token: header("none") + "." + p + "." + s},
		{name: "NoneUpperCase", token: header("NONE") + "." + p + "."},
		{name: "HS512SameSecret", token: sign(t, jwt.SigningMethodHS512, validClaims(), testSecret)},
		{name: "HS384SameSecret", token: sign(t, jwt.SigningMethodHS384, validClaims(), testSecret)},
		{name: "RS256", token: sign(t, jwt.SigningMethodRS256, validClaims(), rsaKey)},
		{name: "RS256HeaderHMACSignature", token: hmacWithHeader("RS256")},
		{name: "LowerCaseHS256", token: hmacWithHeader("hs256")},
		{name: "EmptyAlg", token: hmacWithHeader("")},
		{name: "NoAlg", token: base64.RawURLEncoding.EncodeToString([]byte(`{"typ":"JWT"}`)) + "." + p + "." + s},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tk.Parse(tt.token, auth.TokenAccess)
			if !errors.Is(err, auth.ErrTokenInvalid) {
				t.Fatalf("Parse err = %v, want ErrTokenInvalid", err)
			}
			if c != nil {
				t.Fatalf("Parse returned claims %+v with error", c)
			}
		})
	}
	t.Run("HS256HeaderControl", func(t *testing.T) {
		// The same construction with the right header is accepted, so the
		// cases above fail for their algorithm and nothing else.
		if _, err := tk.Parse(hmacWithHeader("HS256"), auth.TokenAccess); err != nil {
			t.Fatalf("Parse: %v", err)
		}
	})
}

func TestParseWrongKeyOrIssuer(t *testing.T) {
	clk := newClock()
	ours := MustTokens(t, testSecret, auth.TokenOptions{Now: clk.Now})
	tests := []struct {
		name  string
		other *auth.Tokens
	}{
		{name: "WrongSecret", other: MustTokens(t, []byte("another-secret"), auth.TokenOptions{Now: clk.Now})},
		{name: "SecretPrefix", other: MustTokens(t, testSecret[:len(testSecret)-1], auth.TokenOptions{Now: clk.Now})},
		{name: "OtherIssuerSameSecret", other: MustTokens(t, testSecret, auth.TokenOptions{Now: clk.Now, Issuer: "someone-else"})},
	}
	for _, tt := range tests {
		for _, typ := range allTypes {
			t.Run(tt.name+"/"+string(typ), func(t *testing.T) {
				c, err := ours.Parse(issue(t, tt.other, typ), typ)
				if !errors.Is(err, auth.ErrTokenInvalid) {
					t.Fatalf("Parse err = %v, want ErrTokenInvalid", err)
				}
				if c != nil {
					t.Fatalf("claims %+v with error", c)
				}
			})
		}
	}
	t.Run("ExpiredFromOtherIssuer", func(t *testing.T) {
		// Expired and from someone else: invalid, not "please refresh".
		other := MustTokens(t, testSecret, auth.TokenOptions{Now: clk.Now, Issuer: "someone-else"})
		token := issue(t, other, auth.TokenAccess)
		later := newClock()
		later.Set(epoch.Add(2 * time.Hour))
		_, err := MustTokens(t, testSecret, auth.TokenOptions{Now: later.Now}).Parse(token, auth.TokenAccess)
		if !errors.Is(err, auth.ErrTokenInvalid) {
			t.Fatalf("Parse err = %v, want ErrTokenInvalid", err)
		}
	})
	t.Run("ExpiredWrongSecret", func(t *testing.T) {
		other := MustTokens(t, []byte("another-secret"), auth.TokenOptions{Now: clk.Now})
		token := issue(t, other, auth.TokenAccess)
		later := newClock()
		later.Set(epoch.Add(2 * time.Hour))
		_, err := MustTokens(t, testSecret, auth.TokenOptions{Now: later.Now}).Parse(token, auth.TokenAccess)
		if !errors.Is(err, auth.ErrTokenInvalid) {
			t.Fatalf("Parse err = %v, want ErrTokenInvalid", err)
		}
	})
}

// TestParseForgedClaims signs claims with the real secret, so only the
// claim checks stand between them and acceptance.
func TestParseForgedClaims(t *testing.T) {
	tk := MustTokens(t, testSecret, auth.TokenOptions{Now: newClock().Now})
	with := func(edit func(jwt.MapClaims)) jwt.MapClaims {
		c := validClaims()
		edit(c)
		return c
	}
	tests := []struct {
		name    string
		claims  jwt.MapClaims
		want    auth.TokenType
		wantErr error
	}{
		{name: "Control", claims: validClaims(), want: auth.TokenAccess},
		{name: "ControlRefresh", claims: with(func(c jwt.MapClaims) { c["typ"] = "refresh"; c["fam"] = familyID.String() }), want: auth.TokenRefresh},
		{name: "MissingExp", claims: with(func(c jwt.MapClaims) { delete(c, "exp") }), wantErr: auth.ErrTokenInvalid},
		{name: "StringExp", claims: with(func(c jwt.MapClaims) { c["exp"] = "tomorrow" }), wantErr: auth.ErrTokenInvalid},
		{name: "MissingIat", claims: with(func(c jwt.MapClaims) { delete(c, "iat") }), wantErr: auth.ErrTokenInvalid},
		{name: "MissingIssuer", claims: with(func(c jwt.MapClaims) { delete(c, "iss") }), wantErr: auth.ErrTokenInvalid},
		{name: "WrongIssuer", claims: with(func(c jwt.MapClaims) { c["iss"] = "evil" }), wantErr: auth.ErrTokenInvalid},
		{name: "ExpiredWrongIssuer", claims: with(func(c jwt.MapClaims) { c["iss"] = "evil"; c["exp"] = epoch.Add(-time.Hour).Unix() }), wantErr: auth.ErrTokenInvalid},
		{name: "ExpiredMissingOrg", claims: with(func(c jwt.MapClaims) { delete(c, "org"); c["exp"] = epoch.Add(-time.Hour).Unix() }), wantErr: auth.ErrTokenInvalid},
		{name: "Expired", claims: with(func(c jwt.MapClaims) { c["exp"] = epoch.Add(-time.Second).Unix() }), wantErr: auth.ErrTokenExpired},
		{name: "NotYetValid", claims: with(func(c jwt.MapClaims) { c["nbf"] = epoch.Add(time.Second).Unix() }), wantErr: auth.ErrTokenInvalid},
		{name: "MissingTyp", claims: with(func(c jwt.MapClaims) { delete(c, "typ") }), wantErr: auth.ErrTokenInvalid},
		{name: "UnknownTyp", claims: with(func(c jwt.MapClaims) { c["typ"] = "admin" }), want: "admin", wantErr: auth.ErrTokenInvalid},
		{name: "NumericTyp", claims: with(func(c jwt.MapClaims) { c["typ"] = 1 }), wantErr: auth.ErrTokenInvalid},
		{name: "SubjectNotUUID", claims: with(func(c jwt.MapClaims) { c["sub"] = "admin" }), wantErr: auth.ErrTokenInvalid},
		{name: "SubjectNilUUID", claims: with(func(c jwt.MapClaims) { c["sub"] = uuid.Nil.String() }), wantErr: auth.ErrTokenInvalid},
		{name: "SubjectBracedUUID", claims: with(func(c jwt.MapClaims) { c["sub"] = "{" + userID.String() + "}" }), wantErr: auth.ErrTokenInvalid},
		{name: "MissingSubject", claims: with(func(c jwt.MapClaims) { delete(c, "sub") }), wantErr: auth.ErrTokenInvalid},
		{name: "MissingJTI", claims: with(func(c jwt.MapClaims) { delete(c, "jti") }), wantErr: auth.ErrTokenInvalid},
		{name: "MissingOrg", claims: with(func(c jwt.MapClaims) { delete(c, "org") }), wantErr: auth.ErrTokenInvalid},
		{name: "NilOrg", claims: with(func(c jwt.MapClaims) { c["org"] = uuid.Nil.String() }), wantErr: auth.ErrTokenInvalid},
		{name: "OrgNotUUID", claims: with(func(c jwt.MapClaims) { c["org"] = "acme" }), wantErr: auth.ErrTokenInvalid},
		{name: "FamilyAndKeyOnWS", claims: with(func(c jwt.MapClaims) { c["typ"] = "ws"; c["key"] = uuid.NewString() }), want: auth.TokenWS, wantErr: auth.ErrTokenInvalid},
		{name: "NeitherFamilyNorKeyOnWS", claims: with(func(c jwt.MapClaims) { c["typ"] = "ws"; delete(c, "fam") }), want: auth.TokenWS, wantErr: auth.ErrTokenInvalid},
		{name: "KeyOnAccess", claims: with(func(c jwt.MapClaims) { c["key"] = uuid.NewString() }), wantErr: auth.ErrTokenInvalid},
		{name: "AccessWithoutFamily", claims: with(func(c jwt.MapClaims) { delete(c, "fam") }), wantErr: auth.ErrTokenInvalid},
		{name: "RefreshWithoutFamily", claims: with(func(c jwt.MapClaims) { c["typ"] = "refresh"; delete(c, "fam") }), want: auth.TokenRefresh, wantErr: auth.ErrTokenInvalid},
		{name: "ClaimsArray", claims: nil, wantErr: auth.ErrTokenInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var token string
			if tt.claims == nil {
				h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
				p := base64.RawURLEncoding.EncodeToString([]byte(`["not","an","object"]`))
				sig, _ := jwt.SigningMethodHS256.Sign(h+"."+p, testSecret)
				token = h + "." + p + "." + base64.RawURLEncoding.EncodeToString(sig)
			} else {
				token = sign(t, jwt.SigningMethodHS256, tt.claims, testSecret)
			}
			want := tt.want
			if want == "" {
				want = auth.TokenAccess
			}
			c, err := tk.Parse(token, want)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Parse err = %v, want %v", err, tt.wantErr)
			}
			if (c == nil) != (tt.wantErr != nil) {
				t.Fatalf("claims %+v with err %v", c, err)
			}
			assertOneSentinel(t, err)
		})
	}
}
