package rest_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"switchboard/internal/apitest"
)

// TestRefreshCSRFExemption: POST /api/auth/refresh by cookie needs no
// X-CSRF-Token, as the contract exempts it; docs/api.md says so and why,
// and the cookie keeps the attributes that make the exemption safe
// (issue 28, point 12: the code and the documentation disagreed).
func TestRefreshCSRFExemption(t *testing.T) {
	env := apitest.New(t)
	login := env.Anonymous().Do(http.MethodPost, "/api/auth/login", map[string]any{
		"email": "admin@example.com", "password": apitest.AdminPassword,
	}).ExpectStatus(t, http.StatusOK)
	cookies := (&http.Response{Header: login.Header}).Cookies()
	var refresh *http.Cookie
	for _, c := range cookies {
		if c.Name == "whm_refresh" {
			refresh = c
		}
	}
	if refresh == nil || !refresh.HttpOnly || refresh.Path != "/api/auth/refresh" || refresh.SameSite != http.SameSiteLaxMode {
		t.Fatalf("refresh cookie: %+v", refresh)
	}
	req, _ := http.NewRequest(http.MethodPost, env.Server.URL+"/api/auth/refresh", nil)
	req.AddCookie(&http.Cookie{Name: "whm_refresh", Value: refresh.Value})
	res := env.Send(req).ExpectStatus(t, http.StatusOK)
	var csrf bool
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		csrf = csrf || (c.Name == "whm_csrf" && c.Value != "")
	}
	if !csrf {
		t.Fatal("a refresh by cookie did not give the CSRF token back")
	}
	doc, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(doc)), " ")
	for _, want := range []string{
		"`POST /api/auth/refresh`. Refresh is exempt because",
		"`whm_refresh` is `SameSite=Lax` and scoped to `/api/auth/refresh`",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("docs/api.md does not say %q", want)
		}
	}
}
