package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"switchboard/access"
	"switchboard/internal/apitest"
)

func login(env *apitest.Env, email, password string) *apitest.Response {
	return env.Anonymous().Do(http.MethodPost, "/api/auth/login", map[string]any{"email": email, "password": password})
}

func cookieOf(res *apitest.Response, name string) *http.Cookie {
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func TestLogin(t *testing.T) {
	env := apitest.New(t)
	t.Run("OK", func(t *testing.T) {
		res := login(env, "admin@example.com", apitest.AdminPassword).ExpectStatus(t, http.StatusOK)
		if res.String("status") != "success" || res.Number("data.expires_in") < 3590 {
			t.Fatalf("body: %s", res.Raw)
		}
		for _, f := range []string{"id", "organization_id", "email", "full_name", "role_id", "is_active", "is_available", "is_super_admin", "created_at", "updated_at"} {
			if res.Get("data.user."+f) == nil {
				t.Errorf("user.%s missing", f)
			}
		}
		if res.Len("data.user.role.permissions") < 40 {
			t.Errorf("admin role permissions: %v", res.Get("data.user.role.permissions"))
		}
		access, refresh, csrf := cookieOf(res, "whm_access"), cookieOf(res, "whm_refresh"), cookieOf(res, "whm_csrf")
		if access == nil || !access.HttpOnly || access.Path != "/" {
			t.Errorf("whm_access cookie: %+v", access)
		}
		if refresh == nil || !refresh.HttpOnly || refresh.Path != "/api/auth/refresh" {
			t.Errorf("whm_refresh cookie: %+v", refresh)
		}
		if csrf == nil || csrf.HttpOnly || csrf.Value == "" {
			t.Errorf("whm_csrf cookie: %+v", csrf)
		}
		if res.Header.Get("X-RateLimit-Limit") == "" || res.Header.Get("X-RateLimit-Remaining") == "" || res.Header.Get("X-RateLimit-Reset") == "" {
			t.Errorf("rate limit headers missing: %v", res.Header)
		}
	})
	t.Run("WrongPasswordAndUnknownEmailAnswerAlike", func(t *testing.T) {
		a := login(env, "admin@example.com", "wrong-password-123").ExpectError(t, http.StatusUnauthorized)
		b := login(env, "nobody@example.com", "wrong-password-123").ExpectError(t, http.StatusUnauthorized)
		if a.String("message") != b.String("message") {
			t.Errorf("messages differ: %q vs %q", a.String("message"), b.String("message"))
		}
	})
	t.Run("BadInput", func(t *testing.T) {
		for name, body := range map[string]string{
			"Malformed":  `{"email":`,
			"WrongType":  `{"email": 5, "password": "x"}`,
			"NotObject":  `[1,2]`,
			"Missing":    `{}`,
			"EmptyBody":  ``,
			"TrailingJS": `{"email":"a@b.c","password":"p"} {}`,
		} {
			t.Run(name, func(t *testing.T) {
				env.Anonymous().Do(http.MethodPost, "/api/auth/login", body).ExpectError(t, http.StatusBadRequest)
			})
		}
	})
	t.Run("RepeatedFailuresAreRefused", func(t *testing.T) {
		u := env.NewUser(env.OrgID, access.RoleAgent)
		email := userEmail(t, env, u)
		for i := 0; i < 10; i++ {
			login(env, email, "not-the-password-1").ExpectError(t, http.StatusUnauthorized)
		}
		res := login(env, email, apitest.UserPassword).ExpectError(t, http.StatusTooManyRequests)
		if res.Header.Get("Retry-After") == "" {
			t.Error("no Retry-After")
		}
	})
}

func userEmail(t *testing.T, env *apitest.Env, c *apitest.Client) string {
	t.Helper()
	return emailOf(t, env, c.UserID)
}

func TestTokenTypesAndRotation(t *testing.T) {
	env := apitest.New(t)
	res := login(env, "admin@example.com", apitest.AdminPassword).ExpectStatus(t, http.StatusOK)
	accessTok, refreshTok := res.String("data.access_token"), res.String("data.refresh_token")
	anon := env.Anonymous()

	t.Run("RefreshTokenIsNotAnAccessToken", func(t *testing.T) {
		c := *env.Admin
		c.Token = refreshTok
		c.Do(http.MethodGet, "/api/me", nil).ExpectError(t, http.StatusUnauthorized)
	})
	t.Run("WSTokenIsNotAnAccessToken", func(t *testing.T) {
		ws := env.Admin.Do(http.MethodGet, "/api/auth/ws-token", nil).ExpectStatus(t, http.StatusOK).String("data.token")
		c := *env.Admin
		c.Token = ws
		c.Do(http.MethodGet, "/api/me", nil).ExpectError(t, http.StatusUnauthorized)
	})
	t.Run("AccessTokenIsNotARefreshToken", func(t *testing.T) {
		anon.Do(http.MethodPost, "/api/auth/refresh", map[string]string{"refresh_token": accessTok}).ExpectError(t, http.StatusUnauthorized)
	})
	t.Run("TamperedTokenRefused", func(t *testing.T) {
		c := *env.Admin
		c.Token = accessTok[:len(accessTok)-2] + "xx"
		c.Do(http.MethodGet, "/api/me", nil).ExpectError(t, http.StatusUnauthorized)
	})

	var rotated string
	t.Run("RefreshRotates", func(t *testing.T) {
		r := anon.Do(http.MethodPost, "/api/auth/refresh", map[string]string{"refresh_token": refreshTok}).ExpectStatus(t, http.StatusOK)
		rotated = r.String("data.refresh_token")
		if rotated == "" || rotated == refreshTok {
			t.Fatalf("no new refresh token: %s", r.Raw)
		}
		if cookieOf(r, "whm_refresh") == nil {
			t.Error("refresh did not set cookies")
		}
	})
	t.Run("ReuseRevokesFamily", func(t *testing.T) {
		anon.Do(http.MethodPost, "/api/auth/refresh", map[string]string{"refresh_token": refreshTok}).ExpectError(t, http.StatusUnauthorized)
		// The rotated token belonged to the same family: revoked too.
		anon.Do(http.MethodPost, "/api/auth/refresh", map[string]string{"refresh_token": rotated}).ExpectError(t, http.StatusUnauthorized)
	})
	t.Run("RefreshFromCookie", func(t *testing.T) {
		r := login(env, "admin@example.com", apitest.AdminPassword)
		req, _ := http.NewRequest(http.MethodPost, env.Server.URL+"/api/auth/refresh", nil)
		req.AddCookie(cookieOf(r, "whm_refresh"))
		env.Send(req).ExpectStatus(t, http.StatusOK)
	})
	t.Run("Logout", func(t *testing.T) {
		r := login(env, "admin@example.com", apitest.AdminPassword)
		c := *env.Admin
		c.Token = r.String("data.access_token")
		c.Do(http.MethodGet, "/api/me", nil).ExpectStatus(t, http.StatusOK)
		out := c.Do(http.MethodPost, "/api/auth/logout", map[string]string{"refresh_token": r.String("data.refresh_token")}).ExpectStatus(t, http.StatusOK)
		if out.String("data.status") != "logged_out" {
			t.Errorf("body: %s", out.Raw)
		}
		c.Do(http.MethodGet, "/api/me", nil).ExpectError(t, http.StatusUnauthorized)
		anon.Do(http.MethodPost, "/api/auth/refresh", map[string]string{"refresh_token": r.String("data.refresh_token")}).ExpectError(t, http.StatusUnauthorized)
	})
}

func TestSwitchOrganization(t *testing.T) {
	env := apitest.New(t)
	other := env.NewOrg("Other Org")
	agent := env.NewUser(env.OrgID, access.RoleAgent)

	t.Run("SuperAdminSwitchesAndRefreshKeepsOrg", func(t *testing.T) {
		res := env.Admin.Do(http.MethodPost, "/api/auth/switch-org", map[string]string{"organization_id": other.OrgID.String()}).ExpectStatus(t, http.StatusOK)
		if res.String("data.user.organization_id") != other.OrgID.String() {
			t.Fatalf("org not switched: %s", res.Raw)
		}
		if res.Len("data.user.role.permissions") < 1 {
			t.Errorf("switch-org must include permissions: %s", res.Raw)
		}
		r := env.Anonymous().Do(http.MethodPost, "/api/auth/refresh", map[string]string{"refresh_token": res.String("data.refresh_token")}).ExpectStatus(t, http.StatusOK)
		if r.String("data.user.organization_id") != other.OrgID.String() {
			t.Errorf("refresh moved the session to another org: %s", r.Raw)
		}
	})
	t.Run("NonMemberCannotSwitch", func(t *testing.T) {
		agent.Do(http.MethodPost, "/api/auth/switch-org", map[string]string{"organization_id": other.OrgID.String()}).ExpectError(t, http.StatusNotFound)
	})
	t.Run("BadInput", func(t *testing.T) {
		agent.Do(http.MethodPost, "/api/auth/switch-org", map[string]string{"organization_id": "nope"}).ExpectError(t, http.StatusBadRequest)
		agent.Do(http.MethodPost, "/api/auth/switch-org", `{"organization_id": 5}`).ExpectError(t, http.StatusBadRequest)
	})
	t.Run("OrganizationHeader", func(t *testing.T) {
		c := *agent
		c.Org = other.OrgID.String()
		c.Do(http.MethodGet, "/api/me", nil).ExpectError(t, http.StatusForbidden)
		c.Org = "not-a-uuid"
		c.Do(http.MethodGet, "/api/me", nil).ExpectError(t, http.StatusBadRequest)
		admin := *env.Admin
		admin.Org = other.OrgID.String()
		me := admin.Do(http.MethodGet, "/api/me", nil).ExpectStatus(t, http.StatusOK)
		if me.String("data.organization_id") != other.OrgID.String() || me.String("data.organization_name") != "Other Org" {
			t.Errorf("X-Organization-ID ignored: %s", me.Raw)
		}
	})
}

func TestCSRFAndCookies(t *testing.T) {
	env := apitest.New(t)
	res := login(env, "admin@example.com", apitest.AdminPassword)
	send := func(method, path, csrf string) *apitest.Response {
		req, _ := http.NewRequest(method, env.Server.URL+path, strings.NewReader(`{"name":"Support"}`))
		req.Header.Set("Content-Type", "application/json")
		req.AddCookie(cookieOf(res, "whm_access"))
		req.AddCookie(cookieOf(res, "whm_csrf"))
		if csrf != "" {
			req.Header.Set("X-CSRF-Token", csrf)
		}
		return env.Send(req)
	}
	t.Run("GetNeedsNoToken", func(t *testing.T) {
		send(http.MethodGet, "/api/teams", "").ExpectStatus(t, http.StatusOK)
	})
	t.Run("PostWithoutTokenRefused", func(t *testing.T) {
		send(http.MethodPost, "/api/teams", "").ExpectError(t, http.StatusForbidden)
	})
	t.Run("PostWithWrongTokenRefused", func(t *testing.T) {
		send(http.MethodPost, "/api/teams", "wrong").ExpectError(t, http.StatusForbidden)
	})
	t.Run("PostWithTokenAccepted", func(t *testing.T) {
		send(http.MethodPost, "/api/teams", cookieOf(res, "whm_csrf").Value).ExpectStatus(t, http.StatusCreated)
	})
	t.Run("BearerIsExempt", func(t *testing.T) {
		env.Admin.Do(http.MethodPost, "/api/teams", map[string]string{"name": "Sales"}).ExpectStatus(t, http.StatusCreated)
	})
	// A pair planted by an attacker (a cookie set from a sibling domain and
	// the same value in the header) is equal but not the session's.
	planted := func(method, path, body string) *apitest.Response {
		req, _ := http.NewRequest(method, env.Server.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.AddCookie(cookieOf(res, "whm_access"))
		req.AddCookie(&http.Cookie{Name: "whm_csrf", Value: "planted-by-attacker-0123456789abcdef"})
		req.Header.Set("X-CSRF-Token", "planted-by-attacker-0123456789abcdef")
		return env.Send(req)
	}
	t.Run("PlantedPairRefused", func(t *testing.T) {
		planted(http.MethodPost, "/api/teams", `{"name":"Planted"}`).ExpectError(t, http.StatusForbidden)
	})
	t.Run("PlantedPairRefusedOnGraphQL", func(t *testing.T) {
		planted(http.MethodPost, "/graphql", `{"query":"mutation { createTeam(input: {name: \"Planted\"}) { id } }"}`).
			ExpectGraphQLError(t, http.StatusForbidden, "forbidden")
	})
	t.Run("AnotherSessionsTokenRefused", func(t *testing.T) {
		other := login(env, "admin@example.com", apitest.AdminPassword)
		send(http.MethodPost, "/api/teams", cookieOf(other, "whm_csrf").Value).ExpectError(t, http.StatusForbidden)
	})
	t.Run("TokenSurvivesRefresh", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, env.Server.URL+"/api/auth/refresh", nil)
		req.AddCookie(cookieOf(res, "whm_refresh"))
		rotated := env.Send(req).ExpectStatus(t, http.StatusOK)
		if got, want := cookieOf(rotated, "whm_csrf").Value, cookieOf(res, "whm_csrf").Value; got != want {
			t.Errorf("refresh changed the session's CSRF token: %q, was %q", got, want)
		}
	})
	logout := func(csrf string) *apitest.Response {
		req, _ := http.NewRequest(http.MethodPost, env.Server.URL+"/api/auth/logout", nil)
		req.AddCookie(cookieOf(res, "whm_access"))
		req.AddCookie(cookieOf(res, "whm_refresh"))
		req.AddCookie(cookieOf(res, "whm_csrf"))
		if csrf != "" {
			req.Header.Set("X-CSRF-Token", csrf)
		}
		return env.Send(req)
	}
	t.Run("LogoutByCookieNeedsToken", func(t *testing.T) {
		logout("").ExpectError(t, http.StatusForbidden)
		send(http.MethodGet, "/api/teams", "").ExpectStatus(t, http.StatusOK)
		logout(cookieOf(res, "whm_csrf").Value).ExpectStatus(t, http.StatusOK)
		send(http.MethodGet, "/api/teams", "").ExpectError(t, http.StatusUnauthorized)
	})
}

func TestRateLimit(t *testing.T) {
	env := apitest.New(t, apitest.Setting{Name: "RATE_LIMIT_PER_MINUTE", Value: "5"})
	var last *apitest.Response
	for i := 0; i < 5; i++ {
		last = env.Admin.Do(http.MethodGet, "/api/teams", nil).ExpectStatus(t, http.StatusOK)
	}
	if last.Header.Get("X-RateLimit-Limit") != "5" || last.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("headers: %v", last.Header)
	}
	res := env.Admin.Do(http.MethodGet, "/api/teams", nil).ExpectError(t, http.StatusTooManyRequests)
	if res.Header.Get("Retry-After") == "" || res.Header.Get("X-RateLimit-Reset") == "" {
		t.Errorf("headers: %v", res.Header)
	}
	// Another principal has its own budget.
	other := env.NewUser(env.OrgID, access.RoleAgent)
	other.Do(http.MethodGet, "/api/teams", nil).ExpectStatus(t, http.StatusOK)
}

func TestUnauthenticatedAndUnknown(t *testing.T) {
	env := apitest.New(t)
	env.Anonymous().Do(http.MethodGet, "/api/teams", nil).ExpectError(t, http.StatusUnauthorized)
	env.WithAPIKey("whm_nope").Do(http.MethodGet, "/api/teams", nil).ExpectError(t, http.StatusUnauthorized)
	env.Admin.Do(http.MethodGet, "/api/no-such-thing", nil).ExpectError(t, http.StatusNotFound)
}

// TestRateLimitKeysOnVerifiedIdentity: a request counts against the budget
// of the identity it proved, else against its address; an API key that does
// not verify neither drains the real key's budget (same prefix) nor gets a
// budget of its own (made-up prefix).
func TestRateLimitKeysOnVerifiedIdentity(t *testing.T) {
	env := apitest.New(t, apitest.Setting{Name: "RATE_LIMIT_PER_MINUTE", Value: "5"},
		apitest.Setting{Name: "RATE_LIMIT_ANON_PER_MINUTE", Value: "4"}) // the admin's login is the first
	key := env.Admin.Do(http.MethodPost, "/api/api-keys", map[string]any{"name": "real"}).
		ExpectStatus(t, http.StatusCreated).String("data.key")
	forged := key[:len("whm_")+8] + strings.Repeat("0", 24)
	if forged == key {
		forged = key[:len("whm_")+8] + strings.Repeat("1", 24)
	}
	for i := 0; i < 3; i++ {
		env.WithAPIKey(forged).Do(http.MethodGet, "/api/teams", nil).ExpectError(t, http.StatusUnauthorized)
	}
	env.WithAPIKey(forged).Do(http.MethodGet, "/api/teams", nil).ExpectError(t, http.StatusTooManyRequests)
	for i := 0; i < 5; i++ {
		res := env.WithAPIKey(key).Do(http.MethodGet, "/api/teams", nil).ExpectStatus(t, http.StatusOK)
		if got, want := res.Header.Get("X-RateLimit-Remaining"), fmt.Sprint(4-i); got != want {
			t.Fatalf("the real key's remaining budget %s, want %s", got, want)
		}
	}
	made := fmt.Sprintf("whm_%08x%024d", 0xabcdef12, 0)
	env.WithAPIKey(made).Do(http.MethodGet, "/api/teams", nil).ExpectError(t, http.StatusTooManyRequests)
}
