package rest_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"switchboard/internal/apitest"
)

// fuzzRoutes are request decoders of this part of the API, fed arbitrary
// bodies.
var fuzzRoutes = []struct{ method, path string }{
	{http.MethodPost, "/api/auth/login"},
	{http.MethodPost, "/api/auth/register"},
	{http.MethodPost, "/api/auth/refresh"},
	{http.MethodPost, "/api/auth/switch-org"},
	{http.MethodPost, "/api/teams"},
	{http.MethodPost, "/api/roles"},
	{http.MethodPost, "/api/api-keys"},
	{http.MethodPost, "/api/organizations/members"},
	{http.MethodPut, "/api/org/settings"},
	{http.MethodPut, "/api/settings/sso/custom"},
	{http.MethodPost, "/api/users"},
	{http.MethodPut, "/api/me/availability"},
	{http.MethodPost, "/api/contacts"},
	{http.MethodPost, "/api/canned-responses"},
	{http.MethodPost, "/api/accounts"},
	{http.MethodPost, "/api/webhook"},
	{http.MethodPost, "/api/webhooks"},
	{http.MethodPost, "/api/messages/template"},
	{http.MethodPost, "/api/messages/media"},
	{http.MethodPost, "/api/contacts/00000000-0000-0000-0000-000000000001/messages"},
}

// FuzzRequestBodies checks that no body, however malformed, makes a decoder
// answer 500. Run longer with: go test -run '^$' -fuzz FuzzRequestBodies ./rest/
func FuzzRequestBodies(f *testing.F) {
	for _, seed := range []string{
		``, `{`, `}`, `null`, `[]`, `"x"`, `0`, `{"name":null}`, `{"name":5}`, `{"name":"a","x":{}}`,
		`{"email":"a@b.c","password":"p"}`, `{"organization_id":"00000000-0000-0000-0000-000000000000"}`,
		`{"permissions":["teams:read","nope"]}`, `{"expires_at":"yesterday"}`, `{"is_available":"yes"}`,
		`{"name":"` + string(bytes.Repeat([]byte("a"), 300)) + `"}`, "{\"name\":\"\xff\xfe\"}",
		`{"per_agent_timeout_secs":1e40}`, `{"role_id":"` + "\u0000" + `"}`,
	} {
		for i := range fuzzRoutes {
			f.Add(i, []byte(seed))
		}
	}
	env := apitest.New(f)
	h := env.App.Handler
	f.Fuzz(func(t *testing.T, route int, body []byte) {
		if route < 0 {
			route = -route
		}
		r := fuzzRoutes[route%len(fuzzRoutes)]
		req := httptest.NewRequest(r.method, r.path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+env.Admin.Token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%s %s with %q: %d %s", r.method, r.path, body, w.Code, w.Body)
		}
	})
}
