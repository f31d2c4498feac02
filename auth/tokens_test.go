package auth_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"switchboard/auth"
)

var (
	userID   = uuid.MustParse("11111111-1111-4111-8111-111111111111")
	orgID    = uuid.MustParse("22222222-2222-4222-8222-222222222222")
	familyID = uuid.MustParse("33333333-3333-4333-8333-333333333333")
)

var allTypes = []auth.TokenType{auth.TokenAccess, auth.TokenRefresh, auth.TokenWS}

// issue returns a token of type typ for userID in orgID.
func issue(tb testing.TB, tk *auth.Tokens, typ auth.TokenType) string {
	tb.Helper()
	s, err := issueErr(tk, typ)
	if err != nil {
		tb.Fatalf("issue %s: %v", typ, err)
	}
	return s
}

// issueErr is issue for use off the test goroutine.
func issueErr(tk *auth.Tokens, typ auth.TokenType) (s string, err error) {
	switch typ {
	case auth.TokenAccess:
		s, _, err = tk.IssueAccess(userID, orgID, testFamily)
	case auth.TokenRefresh:
		s, _, err = tk.IssueRefresh(userID, orgID, familyID)
	case auth.TokenWS:
		s, _, err = tk.IssueWS(userID, orgID, familyID, uuid.Nil)
	default:
		err = fmt.Errorf("unknown type %q", typ)
	}
	return s, err
}

// segments splits a JWT into its three parts.
func segments(tb testing.TB, token string) (header, payload, sig string) {
	tb.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		tb.Fatalf("token has %d segments", len(parts))
	}
	return parts[0], parts[1], parts[2]
}

// decodeSegment returns the JSON object in a header or payload segment.
func decodeSegment(tb testing.TB, seg string) map[string]any {
	tb.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		tb.Fatalf("decode segment: %v", err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(raw, &m); err != nil {
		tb.Fatalf("unmarshal segment: %v", err)
	}
	return m
}

// flipChar replaces the base64url character at i with another one.
func flipChar(s string, i int) string {
	r := byte('A')
	if s[i] == 'A' {
		r = 'B'
	}
	return s[:i] + string(r) + s[i+1:]
}

// sign returns claims signed with method and key, as an attacker with
// that key (or a buggy issuer) would produce them.
func sign(tb testing.TB, method jwt.SigningMethod, claims jwt.Claims, key any) string {
	tb.Helper()
	s, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		tb.Fatalf("sign: %v", err)
	}
	return s
}

// validClaims returns the claims of a good access token at epoch.
func validClaims() jwt.MapClaims {
	return jwt.MapClaims{
		"iss": "switchboard",
		"sub": userID.String(),
		"jti": uuid.NewString(),
		"iat": epoch.Unix(),
		"nbf": epoch.Unix(),
		"exp": epoch.Add(time.Hour).Unix(),
		"typ": "access",
		"org": orgID.String(),
		"fam": familyID.String(),
	}
}

func TestNewTokens(t *testing.T) {
	tests := []struct {
		name    string
		secret  []byte
		opts    auth.TokenOptions
		wantErr bool
	}{
		{name: "OK", secret: testSecret},
		{name: "OneByteSecret", secret: []byte("x")},
		{name: "ErrEmptySecret", secret: []byte{}, wantErr: true},
		{name: "ErrNilSecret", secret: nil, wantErr: true},
		{name: "ErrNegativeAccessTTL", secret: testSecret, opts: auth.TokenOptions{AccessTTL: -time.Second}, wantErr: true},
		{name: "ErrNegativeRefreshTTL", secret: testSecret, opts: auth.TokenOptions{RefreshTTL: -time.Second}, wantErr: true},
		{name: "ErrNegativeWSTTL", secret: testSecret, opts: auth.TokenOptions{WSTTL: -time.Second}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk, err := auth.NewTokens(tt.secret, tt.opts)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if (tk == nil) != tt.wantErr {
				t.Fatalf("tokens = %v with err %v", tk, err)
			}
		})
	}
}

func TestTTL(t *testing.T) {
	tests := []struct {
		name string
		opts auth.TokenOptions
		typ  auth.TokenType
		want time.Duration
	}{
		{name: "DefaultAccess", typ: auth.TokenAccess, want: time.Hour},
		{name: "DefaultRefresh", typ: auth.TokenRefresh, want: 7 * 24 * time.Hour},
		{name: "DefaultWS", typ: auth.TokenWS, want: 60 * time.Second},
		{name: "CustomAccess", opts: auth.TokenOptions{AccessTTL: time.Minute}, typ: auth.TokenAccess, want: time.Minute},
		{name: "CustomRefresh", opts: auth.TokenOptions{RefreshTTL: time.Hour}, typ: auth.TokenRefresh, want: time.Hour},
		{name: "CustomWS", opts: auth.TokenOptions{WSTTL: 5 * time.Second}, typ: auth.TokenWS, want: 5 * time.Second},
		{name: "UnknownType", typ: "bogus", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MustTokens(t, testSecret, tt.opts).TTL(tt.typ); got != tt.want {
				t.Fatalf("TTL(%q) = %v, want %v", tt.typ, got, tt.want)
			}
		})
	}
}

func TestIssue(t *testing.T) {
	clk := newClock()
	// Sub-second clock time: iat/nbf/exp are whole seconds.
	clk.Set(epoch.Add(700 * time.Millisecond))
	tk := MustTokens(t, testSecret, auth.TokenOptions{Now: clk.Now})

	tests := []struct {
		name    string
		typ     auth.TokenType
		ttl     time.Duration
		wantFam bool
	}{
		{name: "Access", typ: auth.TokenAccess, ttl: time.Hour, wantFam: true},
		{name: "Refresh", typ: auth.TokenRefresh, ttl: 7 * 24 * time.Hour, wantFam: true},
		{name: "WS", typ: auth.TokenWS, ttl: time.Minute, wantFam: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			token := issue(t, tk, tt.typ)
			header, payload, _ := segments(t, token)

			h := decodeSegment(t, header)
			if h["alg"] != "HS256" || h["typ"] != "JWT" || len(h) != 2 {
				t.Errorf("header = %v, want alg HS256 and typ JWT only", h)
			}

			p := decodeSegment(t, payload)
			want := map[string]any{
				"iss": "switchboard",
				"sub": userID.String(),
				"typ": string(tt.typ),
				"org": orgID.String(),
				"iat": float64(epoch.Unix()),
				"nbf": float64(epoch.Unix()),
				"exp": float64(epoch.Add(tt.ttl).Unix()),
			}
			if tt.wantFam {
				want["fam"] = familyID.String()
			}
			for k, v := range want {
				if p[k] != v {
					t.Errorf("claim %s = %v, want %v", k, p[k], v)
				}
			}
			if _, ok := p["fam"]; ok != tt.wantFam {
				t.Errorf("fam present = %v, want %v", ok, tt.wantFam)
			}
			jti, _ := p["jti"].(string)
			if id, err := uuid.Parse(jti); err != nil || id.Version() != 4 {
				t.Errorf("jti = %q, want a random UUID", jti)
			}
			if len(p) != len(want)+1 {
				t.Errorf("payload has unexpected claims: %v", p)
			}

			c, err := tk.Parse(token, tt.typ)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if c.UserID() != userID || c.OrgID != orgID || c.Type != tt.typ || c.ID != jti {
				t.Errorf("parsed claims = %+v", c)
			}
		})
	}
}

func TestIssueReturnValues(t *testing.T) {
	clk := newClock()
	tk := MustTokens(t, testSecret, auth.TokenOptions{Now: clk.Now, AccessTTL: 15 * time.Minute, RefreshTTL: 24 * time.Hour, WSTTL: 30 * time.Second})

	t.Run("AccessExp", func(t *testing.T) {
		_, exp, err := tk.IssueAccess(userID, orgID, testFamily)
		if err != nil {
			t.Fatal(err)
		}
		if !exp.Equal(epoch.Add(15 * time.Minute)) {
			t.Fatalf("exp = %v, want %v", exp, epoch.Add(15*time.Minute))
		}
	})
	t.Run("RefreshClaims", func(t *testing.T) {
		token, c, err := tk.IssueRefresh(userID, orgID, familyID)
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := tk.Parse(token, auth.TokenRefresh)
		if err != nil {
			t.Fatal(err)
		}
		if parsed.ID != c.ID || c.ID == "" {
			t.Errorf("returned jti %q, token jti %q", c.ID, parsed.ID)
		}
		if c.FamilyID != familyID || parsed.FamilyID != familyID {
			t.Errorf("family = %v / %v, want %v", c.FamilyID, parsed.FamilyID, familyID)
		}
		if !c.ExpiresAt.Time.Equal(epoch.Add(24*time.Hour)) || c.Type != auth.TokenRefresh || c.UserID() != userID {
			t.Errorf("claims = %+v", c)
		}
	})
	t.Run("WSClaims", func(t *testing.T) {
		token, c, err := tk.IssueWS(userID, orgID, familyID, uuid.Nil)
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := tk.Parse(token, auth.TokenWS)
		if err != nil {
			t.Fatal(err)
		}
		if parsed.ID != c.ID || !c.ExpiresAt.Time.Equal(epoch.Add(30*time.Second)) || parsed.FamilyID != familyID || parsed.KeyID != uuid.Nil {
			t.Errorf("claims = %+v, parsed %+v", c, parsed)
		}
	})
	t.Run("WSClaimsOfAnAPIKey", func(t *testing.T) {
		key := uuid.New()
		token, _, err := tk.IssueWS(userID, orgID, uuid.Nil, key)
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := tk.Parse(token, auth.TokenWS)
		if err != nil {
			t.Fatal(err)
		}
		if parsed.KeyID != key || parsed.FamilyID != uuid.Nil {
			t.Errorf("parsed %+v", parsed)
		}
	})
	t.Run("UniqueJTI", func(t *testing.T) {
		seen := map[string]bool{}
		for range 50 {
			_, c, err := tk.IssueWS(userID, orgID, familyID, uuid.Nil)
			if err != nil {
				t.Fatal(err)
			}
			if seen[c.ID] {
				t.Fatalf("jti %s issued twice", c.ID)
			}
			seen[c.ID] = true
		}
	})
}

func TestIssueRejectsNilIDs(t *testing.T) {
	tk := MustTokens(t, testSecret, auth.TokenOptions{})
	tests := []struct {
		name  string
		issue func() error
	}{
		{name: "AccessNilUser", issue: func() error { _, _, err := tk.IssueAccess(uuid.Nil, orgID, testFamily); return err }},
		{name: "AccessNilOrg", issue: func() error { _, _, err := tk.IssueAccess(userID, uuid.Nil, testFamily); return err }},
		{name: "RefreshNilUser", issue: func() error { _, _, err := tk.IssueRefresh(uuid.Nil, orgID, familyID); return err }},
		{name: "RefreshNilOrg", issue: func() error { _, _, err := tk.IssueRefresh(userID, uuid.Nil, familyID); return err }},
		{name: "RefreshNilFamily", issue: func() error { _, _, err := tk.IssueRefresh(userID, orgID, uuid.Nil); return err }},
		{name: "WSNilUser", issue: func() error { _, _, err := tk.IssueWS(uuid.Nil, orgID, familyID, uuid.Nil); return err }},
		{name: "WSNilOrg", issue: func() error { _, _, err := tk.IssueWS(userID, uuid.Nil, familyID, uuid.Nil); return err }},
		{name: "WSNoCredential", issue: func() error { _, _, err := tk.IssueWS(userID, orgID, uuid.Nil, uuid.Nil); return err }},
		{name: "WSBothCredentials", issue: func() error { _, _, err := tk.IssueWS(userID, orgID, familyID, familyID); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.issue(); err == nil {
				t.Fatal("issued a token with a nil id")
			}
		})
	}
}

func TestClaimsUserID(t *testing.T) {
	tests := []struct {
		name    string
		subject string
		want    uuid.UUID
	}{
		{name: "UUID", subject: userID.String(), want: userID},
		{name: "Empty", subject: "", want: uuid.Nil},
		{name: "NotUUID", subject: "admin", want: uuid.Nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := auth.Claims{RegisteredClaims: jwt.RegisteredClaims{Subject: tt.subject}}
			if got := c.UserID(); got != tt.want {
				t.Fatalf("UserID() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTokensConcurrent(t *testing.T) {
	tk := MustTokens(t, testSecret, auth.TokenOptions{Now: newClock().Now})
	var wg sync.WaitGroup
	errs := make(chan error, 8*len(allTypes))
	for range 8 {
		for _, typ := range allTypes {
			wg.Go(func() {
				token, err := issueErr(tk, typ)
				if err == nil {
					_, err = tk.Parse(token, typ)
				}
				if err != nil {
					errs <- err
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
