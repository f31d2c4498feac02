package rest_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc/oidctest"

	"switchboard/access"
	"switchboard/ent/ssoconfig"
	"switchboard/internal/apitest"
	"switchboard/sso"
)

// idpPerson is who the fake identity provider signs in.
type idpPerson struct {
	Email    string
	Verified bool
	Name     string
}

// fakeIdP is an in-process OpenID Connect / OAuth2 provider: discovery
// and keys (oidctest), an authorize endpoint that redirects back with a
// code, a token endpoint that checks the PKCE verifier, the redirect URI
// and single use of the code, and a user-info endpoint.
type fakeIdP struct {
	*httptest.Server
	oidc oidctest.Server
	key  *rsa.PrivateKey

	mu     sync.Mutex
	person idpPerson
	codes  map[string]issuedCode
	tokens map[string]idpPerson
}

type issuedCode struct {
	challenge, redirectURI, nonce, clientID string
	person                                  idpPerson
}

func newFakeIdP(t *testing.T) *fakeIdP {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeIdP{key: key, codes: map[string]issuedCode{}, tokens: map[string]idpPerson{}}
	f.oidc.PublicKeys = []oidctest.PublicKey{{PublicKey: key.Public(), KeyID: "k1", Algorithm: "RS256"}}
	mux := http.NewServeMux()
	mux.Handle("/.well-known/openid-configuration", &f.oidc)
	mux.Handle("/keys", &f.oidc)
	mux.HandleFunc("/auth", f.authorize)
	mux.HandleFunc("/token", f.token)
	mux.HandleFunc("/userinfo", f.userinfo)
	f.Server = httptest.NewServer(mux)
	f.oidc.SetIssuer(f.URL)
	t.Cleanup(f.Close)
	return f
}

func (f *fakeIdP) signIn(p idpPerson) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.person = p
}

func (f *fakeIdP) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" ||
		q.Get("state") == "" || q.Get("client_id") == "" {
		http.Error(w, "bad authorize request", http.StatusBadRequest)
		return
	}
	code := fmt.Sprintf("code-%d", time.Now().UnixNano())
	f.mu.Lock()
	f.codes[code] = issuedCode{challenge: q.Get("code_challenge"), redirectURI: q.Get("redirect_uri"),
		nonce: q.Get("nonce"), clientID: q.Get("client_id"), person: f.person}
	f.mu.Unlock()
	back, _ := url.Parse(q.Get("redirect_uri"))
	v := back.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (f *fakeIdP) token(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	tokenError := func(code string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = fmt.Fprintf(w, `{"error":%q}`, code)
	}
	f.mu.Lock()
	c, ok := f.codes[r.PostForm.Get("code")]
	delete(f.codes, r.PostForm.Get("code")) // a code works once
	f.mu.Unlock()
	clientID, secret, basic := r.BasicAuth()
	if !basic {
		clientID, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	switch {
	case !ok:
		tokenError("invalid_grant")
		return
	case base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge:
		tokenError("invalid_grant") // PKCE
		return
	case r.PostForm.Get("redirect_uri") != c.redirectURI || clientID != c.clientID || secret != "idp-secret":
		tokenError("invalid_client")
		return
	}
	access := fmt.Sprintf("at-%d", time.Now().UnixNano())
	f.mu.Lock()
	f.tokens[access] = c.person
	f.mu.Unlock()
	now := time.Now().Unix()
	claims, _ := json.Marshal(map[string]any{
		"iss": f.URL, "aud": c.clientID, "sub": "sub-" + c.person.Email, "iat": now, "exp": now + 300,
		"nonce": c.nonce, "email": c.person.Email, "email_verified": c.person.Verified, "name": c.person.Name,
	})
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"access_token": access, "token_type": "Bearer", "expires_in": 300,
		"id_token": oidctest.SignIDToken(f.key, "k1", "RS256", string(claims)),
	})
}

func (f *fakeIdP) userinfo(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	p, ok := f.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
	f.mu.Unlock()
	if !ok {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"email": p.Email, "email_verified": p.Verified, "name": p.Name})
}

// ssoFlow walks a browser through init, the provider and the callback,
// and returns the callback's answer and its URL (for replays).
func ssoFlow(t *testing.T, env *apitest.Env, provider, query string) (*http.Response, string) {
	t.Helper()
	init := redeem(t, env, "/api/auth/sso/"+provider+"/init"+query)
	if init.StatusCode != http.StatusFound {
		t.Fatalf("init: %d", init.StatusCode)
	}
	resp, err := noRedirects.Get(init.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("authorize: %d", resp.StatusCode)
	}
	back, _ := url.Parse(resp.Header.Get("Location"))
	callback := back.Path + "?" + back.RawQuery
	return redeem(t, env, callback), callback
}

func respCookie(resp *http.Response, name string) *http.Cookie {
	for _, c := range resp.Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func TestSSO(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	idp := newFakeIdP(t)
	env.App.SSO.Providers = map[ssoconfig.Provider]sso.Endpoints{
		ssoconfig.ProviderGoogle: {Issuer: idp.URL, Scopes: []string{"openid", "email", "profile"}},
	}
	orgQuery := "?organization_id=" + env.OrgID.String()
	configure := func(t *testing.T, provider string, body map[string]any) {
		t.Helper()
		body["client_id"], body["client_secret"], body["is_enabled"] = "client-1", "idp-secret", true
		if _, ok := body["allow_auto_create"]; !ok {
			body["allow_auto_create"] = false
		}
		admin.Do(http.MethodPut, "/api/settings/sso/"+provider, body).ExpectStatus(t, http.StatusOK)
	}
	configure(t, "google", map[string]any{"allowed_domains": "example.com"})
	configure(t, "custom", map[string]any{
		"allow_auto_create": true, "default_role": "manager",
		"auth_url": idp.URL + "/auth", "token_url": idp.URL + "/token", "user_info_url": idp.URL + "/userinfo",
	})
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	agentEmail := agent.Do(http.MethodGet, "/api/me", nil).ExpectStatus(t, http.StatusOK).String("data.email")

	var firstCallback string
	t.Run("OIDCExistingUser", func(t *testing.T) {
		idp.signIn(idpPerson{Email: strings.ToUpper(agentEmail), Verified: true, Name: "Agent"})
		resp, callback := ssoFlow(t, env, "google", orgQuery)
		firstCallback = callback
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "http://localhost:8080/" {
			t.Fatalf("callback: %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		acc, ref, csrf := respCookie(resp, "whm_access"), respCookie(resp, "whm_refresh"), respCookie(resp, "whm_csrf")
		if acc == nil || ref == nil || csrf == nil || !acc.HttpOnly || !ref.HttpOnly || csrf.HttpOnly ||
			ref.Path != "/api/auth/refresh" {
			t.Fatalf("cookies: %v", resp.Cookies())
		}
		me := env.WithToken(acc.Value).Do(http.MethodGet, "/api/me", nil).ExpectStatus(t, http.StatusOK)
		if me.String("data.id") != agent.UserID.String() || me.String("data.organization_id") != env.OrgID.String() {
			t.Fatalf("signed in as: %s", me.Raw)
		}
	})
	t.Run("ErrStateReplay", func(t *testing.T) {
		if resp := redeem(t, env, firstCallback); resp.StatusCode != http.StatusBadRequest || respCookie(resp, "whm_access") != nil {
			t.Fatalf("replayed callback: %d", resp.StatusCode)
		}
	})
	t.Run("ErrCodeReuse", func(t *testing.T) {
		// A fresh state, with the code already exchanged.
		init := redeem(t, env, "/api/auth/sso/google/init"+orgQuery)
		loc, _ := url.Parse(init.Header.Get("Location"))
		old, _ := url.Parse(firstCallback)
		cb := "/api/auth/sso/google/callback?state=" + url.QueryEscape(loc.Query().Get("state")) +
			"&code=" + url.QueryEscape(old.Query().Get("code"))
		if resp := redeem(t, env, cb); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("reused code: %d", resp.StatusCode)
		}
	})
	t.Run("ErrWrongDomain", func(t *testing.T) {
		idp.signIn(idpPerson{Email: "someone@elsewhere.org", Verified: true})
		if resp, _ := ssoFlow(t, env, "google", orgQuery); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("wrong domain: %d", resp.StatusCode)
		}
	})
	t.Run("ErrUnverifiedEmail", func(t *testing.T) {
		idp.signIn(idpPerson{Email: agentEmail, Verified: false})
		if resp, _ := ssoFlow(t, env, "google", orgQuery); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("unverified: %d", resp.StatusCode)
		}
	})
	t.Run("ErrAutoCreateOff", func(t *testing.T) {
		idp.signIn(idpPerson{Email: "newcomer@example.com", Verified: true})
		if resp, _ := ssoFlow(t, env, "google", orgQuery); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("auto-create off: %d", resp.StatusCode)
		}
	})
	t.Run("CustomAutoCreate", func(t *testing.T) {
		idp.signIn(idpPerson{Email: "fresh@example.net", Verified: true, Name: "Fresh Person"})
		// Without organization_id: the one organization that enabled it.
		resp, _ := ssoFlow(t, env, "custom", "")
		acc := respCookie(resp, "whm_access")
		if resp.StatusCode != http.StatusFound || acc == nil {
			t.Fatalf("callback: %d", resp.StatusCode)
		}
		me := env.WithToken(acc.Value).Do(http.MethodGet, "/api/me", nil).ExpectStatus(t, http.StatusOK)
		if me.String("data.email") != "fresh@example.net" || me.String("data.full_name") != "Fresh Person" ||
			me.String("data.role.name") != access.RoleManager {
			t.Fatalf("created: %s", me.Raw)
		}
		// The account has no password.
		env.Anonymous().Do(http.MethodPost, "/api/auth/login", map[string]any{"email": "fresh@example.net", "password": ""}).
			ExpectError(t, http.StatusBadRequest)
	})
	t.Run("ErrCustomUnverified", func(t *testing.T) {
		idp.signIn(idpPerson{Email: "other@example.net", Verified: false})
		if resp, _ := ssoFlow(t, env, "custom", ""); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("unverified: %d", resp.StatusCode)
		}
	})
	t.Run("ErrProviderRefused", func(t *testing.T) {
		init := redeem(t, env, "/api/auth/sso/google/init"+orgQuery)
		loc, _ := url.Parse(init.Header.Get("Location"))
		cb := "/api/auth/sso/google/callback?error=access_denied&state=" + url.QueryEscape(loc.Query().Get("state"))
		if resp := redeem(t, env, cb); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("refused: %d", resp.StatusCode)
		}
	})
	t.Run("ErrStateOfAnotherProvider", func(t *testing.T) {
		init := redeem(t, env, "/api/auth/sso/google/init"+orgQuery)
		loc, _ := url.Parse(init.Header.Get("Location"))
		cb := "/api/auth/sso/custom/callback?code=x&state=" + url.QueryEscape(loc.Query().Get("state"))
		if resp := redeem(t, env, cb); resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("another provider's state: %d", resp.StatusCode)
		}
	})
	t.Run("ErrBadRequests", func(t *testing.T) {
		for name, path := range map[string]string{
			"UnknownProvider": "/api/auth/sso/myspace/init",
			"BadOrganization": "/api/auth/sso/google/init?organization_id=nope",
			"NoState":         "/api/auth/sso/google/callback?code=x",
			"UnknownState":    "/api/auth/sso/google/callback?code=x&state=never-issued",
		} {
			if resp := redeem(t, env, path); resp.StatusCode != http.StatusBadRequest {
				t.Errorf("%s: %d", name, resp.StatusCode)
			}
		}
	})
	t.Run("ErrDisabledProvider", func(t *testing.T) {
		// A sign-in started before the provider was disabled cannot end.
		init := redeem(t, env, "/api/auth/sso/google/init"+orgQuery)
		admin.Do(http.MethodPut, "/api/settings/sso/google", map[string]any{
			"client_id": "client-1", "is_enabled": false, "allow_auto_create": false,
		}).ExpectStatus(t, http.StatusOK)
		if resp := redeem(t, env, "/api/auth/sso/google/init"+orgQuery); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("init of a disabled provider: %d", resp.StatusCode)
		}
		if resp := redeem(t, env, "/api/auth/sso/github/init"+orgQuery); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("init of an unconfigured provider: %d", resp.StatusCode)
		}
		idp.signIn(idpPerson{Email: agentEmail, Verified: true})
		resp, err := noRedirects.Get(init.Header.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		back, _ := url.Parse(resp.Header.Get("Location"))
		if resp := redeem(t, env, back.Path+"?"+back.RawQuery); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("callback of a disabled provider: %d", resp.StatusCode)
		}
	})
}
