package app_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"switchboard/internal/apitest"
)

// sessionCookies logs the bootstrap admin in and returns the cookies the
// answer sets, by name.
func sessionCookies(t *testing.T, env *apitest.Env) map[string]*http.Cookie {
	t.Helper()
	res := env.Anonymous().Do(http.MethodPost, "/api/auth/login",
		map[string]any{"email": "admin@example.com", "password": apitest.AdminPassword}).ExpectStatus(t, http.StatusOK)
	cookies := map[string]*http.Cookie{}
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		cookies[c.Name] = c
	}
	return cookies
}

// TestGraphQLRefusalsAreGraphQL: what /graphql refuses before any resolver
// runs (credentials, CSRF, rate limit, the body) answers a GraphQL error
// with its code in extensions.code, under the status REST would give.
func TestGraphQLRefusalsAreGraphQL(t *testing.T) {
	env := apitest.New(t)
	const query = `{"query":"mutation { createTeam(input: {name: \"Refused\"}) { id } }"}`
	cookies := sessionCookies(t, env)
	withCookies := func(csrfHeader string, cookieNames ...string) *apitest.Response {
		req, _ := http.NewRequest(http.MethodPost, env.Server.URL+"/graphql", strings.NewReader(query))
		req.Header.Set("Content-Type", "application/json")
		for _, name := range cookieNames {
			req.AddCookie(cookies[name])
		}
		if csrfHeader != "" {
			req.Header.Set("X-CSRF-Token", csrfHeader)
		}
		return env.Send(req)
	}
	for _, tc := range []struct {
		name   string
		do     func() *apitest.Response
		status int
		code   string
	}{
		{"NoCredentials", func() *apitest.Response { return env.Anonymous().Do(http.MethodPost, "/graphql", query) },
			http.StatusUnauthorized, "unauthenticated"},
		{"NoCredentialsGET", func() *apitest.Response {
			return env.Anonymous().Do(http.MethodGet, "/graphql?query="+url.QueryEscape("{ viewer { user { id } } }"), nil)
		}, http.StatusUnauthorized, "unauthenticated"},
		{"BadBearer", func() *apitest.Response { return env.WithToken("not-a-token").Do(http.MethodPost, "/graphql", query) },
			http.StatusUnauthorized, "unauthenticated"},
		{"UnknownAPIKey", func() *apitest.Response {
			return env.WithAPIKey("whm_00000000000000000000000000000000").Do(http.MethodPost, "/graphql", query)
		}, http.StatusUnauthorized, "unauthenticated"},
		{"CookieWithoutCSRF", func() *apitest.Response { return withCookies("", "whm_access", "whm_csrf") },
			http.StatusForbidden, "forbidden"},
		{"CookieWithWrongCSRF", func() *apitest.Response { return withCookies("wrong", "whm_access", "whm_csrf") },
			http.StatusForbidden, "forbidden"},
		{"BodyTooLarge", func() *apitest.Response {
			return env.Admin.Do(http.MethodPost, "/graphql", `{"query":"{ viewer { user { id } } }","variables":{"x":"`+strings.Repeat("a", 1<<20)+`"}}`)
		}, http.StatusBadRequest, "invalid"},
		{"Batch", func() *apitest.Response {
			return env.Admin.Do(http.MethodPost, "/graphql", `[{"query":"{ viewer { user { id } } }"}]`)
		}, http.StatusBadRequest, "invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.do().ExpectGraphQLError(t, tc.status, tc.code)
		})
	}
	t.Run("CookieWithCSRFAccepted", func(t *testing.T) {
		r := withCookies(cookies["whm_csrf"].Value, "whm_access", "whm_csrf").ExpectStatus(t, http.StatusOK)
		if r.String("data.createTeam.id") == "" {
			t.Fatalf("mutation with the session's CSRF token: %s", r.Raw)
		}
	})
}

// TestGraphQLRateLimitIsGraphQL: over the rate limit, /graphql answers 429
// with the limit's headers and a GraphQL error of code rate_limited, for a
// POST and for a WebSocket upgrade.
func TestGraphQLRateLimitIsGraphQL(t *testing.T) {
	env := apitest.New(t, apitest.Setting{Name: "RATE_LIMIT_PER_MINUTE", Value: "2"},
		apitest.Setting{Name: "RATE_LIMIT_ANON_PER_MINUTE", Value: "1"}) // the admin's login spends it
	for range 2 {
		env.Admin.GraphQL("{ viewer { user { id } } }", nil).ExpectStatus(t, http.StatusOK)
	}
	r := env.Admin.GraphQL("{ viewer { user { id } } }", nil).ExpectGraphQLError(t, http.StatusTooManyRequests, "rate_limited")
	if r.Header.Get("Retry-After") == "" || r.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("headers: %v", r.Header)
	}
	t.Run("WebSocketUpgrade", func(t *testing.T) {
		// An upgrade counts against the address, whose budget the
		// admin's login spent.
		req, _ := http.NewRequest(http.MethodGet, env.Server.URL+"/graphql", nil)
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Sec-WebSocket-Version", "13")
		req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
		req.Header.Set("Sec-WebSocket-Protocol", "graphql-transport-ws")
		env.Send(req).ExpectGraphQLError(t, http.StatusTooManyRequests, "rate_limited")
	})
}
