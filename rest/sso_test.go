package rest_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
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
	"switchboard/internal/testkit"
	"switchboard/sso"
)

// idpPerson is who the fake identity provider signs in.
type idpPerson struct {
	Email    string
	Verified bool
	Name     string
	// Subject is the provider's stable id of the person ("sub-" + Email
	// when empty).
	Subject string
}

func (p idpPerson) subject() string {
	if p.Subject != "" {
		return p.Subject
	}
	return "sub-" + p.Email
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
		"iss": f.URL, "aud": c.clientID, "sub": c.person.subject(), "iat": now, "exp": now + 300,
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
	_ = json.NewEncoder(w).Encode(map[string]any{"sub": p.subject(), "email": p.Email, "email_verified": p.Verified, "name": p.Name})
}

// ssoAuthorize walks a browser through init and the provider, and returns
// the callback path the provider redirects to.
func ssoAuthorize(t *testing.T, env *apitest.Env, provider, query string) string {
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
	return back.Path + "?" + back.RawQuery
}

// ssoFlow walks a browser through init, the provider and the callback,
// and returns the callback's answer and its URL (for replays).
func ssoFlow(t *testing.T, env *apitest.Env, provider, query string) (*http.Response, string) {
	t.Helper()
	callback := ssoAuthorize(t, env, provider, query)
	return ssoCallback(t, env, callback, callbackState(callback)), callback
}

// callbackState is the state of a callback path: the browser that started
// that sign-in holds it in its state cookie.
func callbackState(path string) string {
	u, _ := url.Parse(path)
	return u.Query().Get("state")
}

// ssoCallback sends the callback path with the browser's state cookie
// (none when browserState is empty); the body is left unread.
func ssoCallback(t *testing.T, env *apitest.Env, path, browserState string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, env.Server.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if browserState != "" {
		req.AddCookie(&http.Cookie{Name: "whm_sso_state", Value: browserState})
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// ssoState starts a sign-in and returns its state, without going to the
// provider.
func ssoState(t *testing.T, env *apitest.Env, provider, query string) string {
	t.Helper()
	init := redeem(t, env, "/api/auth/sso/"+provider+"/init"+query)
	loc, err := url.Parse(init.Header.Get("Location"))
	if init.StatusCode != http.StatusFound || err != nil || loc.Query().Get("state") == "" {
		t.Fatalf("init: %d %q", init.StatusCode, init.Header.Get("Location"))
	}
	return loc.Query().Get("state")
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

	t.Run("StateCookie", func(t *testing.T) {
		// Init binds the state to the browser.
		init := redeem(t, env, "/api/auth/sso/google/init"+orgQuery)
		loc, _ := url.Parse(init.Header.Get("Location"))
		c := respCookie(init, "whm_sso_state")
		if c == nil || c.Value != loc.Query().Get("state") || !c.HttpOnly || c.Path != "/api/auth/sso/" ||
			c.SameSite != http.SameSiteLaxMode || c.MaxAge != int(sso.StateTTL/time.Second) {
			t.Fatalf("state cookie: %+v", c)
		}
	})
	var firstCallback string
	t.Run("OIDCLinkedUser", func(t *testing.T) {
		// The person linked the provider from their session first
		// (TestSSOLink); the subject signs them in.
		idp.signIn(idpPerson{Email: strings.ToUpper(agentEmail), Verified: true, Name: "Agent"})
		if resp := ssoLink(t, env, agent, "google"); resp.Header.Get("Location") != "http://localhost:8080/?sso_linked=google" {
			t.Fatalf("link: %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		resp, callback := ssoFlow(t, env, "google", orgQuery)
		firstCallback = callback
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "http://localhost:8080/" {
			t.Fatalf("callback: %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		if c := respCookie(resp, "whm_sso_state"); c == nil || c.MaxAge >= 0 || c.Path != "/api/auth/sso/" {
			t.Errorf("the state cookie is not cleared: %v", resp.Cookies())
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
	testSSOFailures(t, env, idp, firstCallback, agentEmail)
}

// testSSOFailures checks every way a callback fails: a redirect to the
// login page with the message of the error envelope (tc.status is the
// envelope's status, for the reader), no session cookie, and nothing of the
// provider's answer beyond its error code (no description, code, URL or
// secret). The provider's own failure codes are the spec's error
// parameter. It disables google last.
func testSSOFailures(t *testing.T, env *apitest.Env, idp *fakeIdP, firstCallback, agentEmail string) {
	orgQuery := "?organization_id=" + env.OrgID.String()
	const (
		stateGone   = "the sign-in state is unknown, expired or already used; start again"
		unverified  = "the identity provider did not verify this email address"
		description = "internal-idp-detail"
	)
	withState := func(provider, state, rest string) string {
		return "/api/auth/sso/" + provider + "/callback?state=" + url.QueryEscape(state) + rest
	}
	signIn := func(p idpPerson, provider string) func(t *testing.T) string {
		return func(t *testing.T) string {
			idp.signIn(p)
			return ssoAuthorize(t, env, provider, orgQuery)
		}
	}
	const notThisBrowser = "the sign-in was not started in this browser; start again"
	// browser is the state cookie the callback carries: "" the callback's
	// own state (the browser that started it), "none" no cookie, "other"
	// the state of another sign-in.
	cases := []struct {
		name     string
		callback func(t *testing.T) string
		browser  string
		status   int
		message  string
	}{
		{"StateReplay", func(*testing.T) string { return firstCallback }, "", http.StatusBadRequest, stateGone},
		{"UnknownState", func(*testing.T) string { return withState("google", "never-issued", "&code=x") }, "", http.StatusBadRequest, stateGone},
		{"ExpiredState", func(t *testing.T) string {
			state := ssoState(t, env, "google", orgQuery)
			// The state lives in Redis for sso.StateTTL: let it lapse now.
			key := env.App.SSO.Prefix + "sso:state:" + state
			if err := env.App.SSO.Redis.PExpire(t.Context(), key, time.Millisecond).Err(); err != nil {
				t.Fatal(err)
			}
			testkit.Eventually(t, "the state to expire", func() bool { return env.App.SSO.Redis.Exists(t.Context(), key).Val() == 0 })
			return withState("google", state, "&code=x")
		}, "", http.StatusBadRequest, stateGone},
		{"NoState", func(*testing.T) string { return "/api/auth/sso/google/callback?code=x" }, "", http.StatusBadRequest, "state is required"},
		{"LongState", func(*testing.T) string { return withState("google", strings.Repeat("s", 129), "&code=x") }, "", http.StatusBadRequest, "state is required"},
		{"StateOfAnotherProvider", func(t *testing.T) string { return withState("custom", ssoState(t, env, "google", orgQuery), "&code=x") },
			"", http.StatusBadRequest, "the sign-in state belongs to another provider; start again"},
		{"NoCode", func(t *testing.T) string { return withState("google", ssoState(t, env, "google", orgQuery), "") },
			"", http.StatusBadRequest, "code is required"},
		{"ProviderRefused", func(t *testing.T) string {
			return withState("google", ssoState(t, env, "google", orgQuery), "&error=access_denied&error_description="+description)
		}, "", http.StatusUnauthorized, `the identity provider refused the sign-in: "access_denied"`},
		{"ProviderErrorClipped", func(t *testing.T) string {
			return withState("google", ssoState(t, env, "google", orgQuery), "&error="+strings.Repeat("e", 150)+"%0A")
		}, "", http.StatusUnauthorized, `the identity provider refused the sign-in: "` + strings.Repeat("e", 100) + `"`},
		{"CodeReuse", func(t *testing.T) string {
			old, _ := url.Parse(firstCallback)
			return withState("google", ssoState(t, env, "google", orgQuery), "&code="+url.QueryEscape(old.Query().Get("code")))
		}, "", http.StatusUnauthorized, "the identity provider did not accept the sign-in code"},
		{"WrongDomain", signIn(idpPerson{Email: "someone@elsewhere.org", Verified: true}, "google"),
			"", http.StatusForbidden, "sign-in with this email domain is not allowed"},
		{"UnverifiedEmail", signIn(idpPerson{Email: agentEmail, Verified: false}, "google"), "", http.StatusForbidden, unverified},
		{"AutoCreateOff", signIn(idpPerson{Email: "newcomer@example.com", Verified: true}, "google"),
			"", http.StatusForbidden, notLinkedGoogle},
		{"CustomUnverified", func(t *testing.T) string {
			idp.signIn(idpPerson{Email: "other@example.net", Verified: false})
			return ssoAuthorize(t, env, "custom", "")
		}, "", http.StatusForbidden, unverified},
		// A callback link made in another browser (login CSRF), or one
		// whose browser lost or replaced its state cookie.
		{"NoStateCookie", signIn(idpPerson{Email: agentEmail, Verified: true}, "google"), "none", http.StatusBadRequest, notThisBrowser},
		{"OtherSignInsCookie", signIn(idpPerson{Email: agentEmail, Verified: true}, "google"), "other", http.StatusBadRequest, notThisBrowser},
		{"ProviderDisabled", func(t *testing.T) string {
			// A sign-in started before the provider was disabled cannot end.
			idp.signIn(idpPerson{Email: agentEmail, Verified: true})
			callback := ssoAuthorize(t, env, "google", orgQuery)
			env.Admin.Do(http.MethodPut, "/api/settings/sso/google", map[string]any{
				"client_id": "client-1", "is_enabled": false, "allow_auto_create": false,
			}).ExpectStatus(t, http.StatusOK)
			return callback
		}, "", http.StatusNotFound, "single sign-on with google is not enabled for this organization"},
	}
	for _, tc := range cases {
		t.Run("Err"+tc.name, func(t *testing.T) {
			callback := tc.callback(t)
			browserState := callbackState(callback)
			switch tc.browser {
			case "none":
				browserState = ""
			case "other":
				browserState = ssoState(t, env, "google", orgQuery)
			}
			resp := ssoCallback(t, env, callback, browserState)
			raw, _ := io.ReadAll(resp.Body)
			// The browser goes back to the login page with the message
			// the error envelope would carry.
			want := "http://localhost:8080/login?sso_error=" + url.QueryEscape(tc.message)
			if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != want {
				t.Fatalf("callback: %d %q, want 302 %q (the envelope's %d)", resp.StatusCode, resp.Header.Get("Location"), want, tc.status)
			}
			raw = append(raw, resp.Header.Get("Location")...)
			if c := respCookie(resp, "whm_access"); c != nil {
				t.Errorf("a failed callback set a session: %v", resp.Cookies())
			}
			if c := respCookie(resp, "whm_sso_state"); c == nil || c.MaxAge >= 0 {
				t.Errorf("the state cookie is not cleared: %v", resp.Cookies())
			}
			leaks := []string{description, idp.URL, "idp-secret", "client-1"}
			if u, _ := url.Parse(callback); len(u.Query().Get("code")) > 1 {
				leaks = append(leaks, u.Query().Get("code"))
			}
			for _, leak := range leaks {
				if strings.Contains(string(raw), leak) {
					t.Errorf("the answer shows %q: %s", leak, raw)
				}
			}
		})
	}
	t.Run("ErrInit", func(t *testing.T) {
		for path, status := range map[string]int{
			"/api/auth/sso/myspace/init":                     http.StatusBadRequest,
			"/api/auth/sso/google/init?organization_id=nope": http.StatusBadRequest,
			"/api/auth/sso/google/init" + orgQuery:           http.StatusNotFound, // disabled above
			"/api/auth/sso/github/init" + orgQuery:           http.StatusNotFound, // not configured
			"/api/auth/sso/myspace/callback?state=s&code=x":  http.StatusFound,    // to the login page
		} {
			if resp := redeem(t, env, path); resp.StatusCode != status {
				t.Errorf("%s: %d, want %d", path, resp.StatusCode, status)
			}
		}
	})
}
