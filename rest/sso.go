package rest

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"switchboard/sso"
)

// ssoInit redirects the browser to the identity provider. The organization
// is the organization_id query parameter, as for GET
// /api/auth/sso/providers; without it, the one organization that enabled
// the provider (a single-tenant installation).
func (a *API) ssoInit(c *gin.Context) (int, any, error) {
	target, state, err := a.SSO.Start(ctx(c), c.Param("provider"), queryOf[ssoQuery](c).OrganizationID)
	if err != nil {
		return 0, nil, err
	}
	// The state, bound to this browser for the callback. Lax: the
	// provider sends the browser back with a top-level GET.
	c.SetSameSite(http.SameSiteLaxMode)
	c.SetCookie(cookieSSOState, state, int(sso.StateTTL/time.Second), ssoCookiePath, "", a.Opts.CookieSecure, true)
	c.Redirect(http.StatusFound, target)
	return http.StatusFound, nil, nil
}

// ssoCallback completes the sign-in, sets the session cookies exactly as
// login does, and redirects to the application's root (PUBLIC_URL/). A
// failure sends the browser to the login page with the error envelope's
// message (PUBLIC_URL/login?sso_error=..., which the peer web UI's login
// page shows). The state cookie is spent either way.
func (a *API) ssoCallback(c *gin.Context) (int, any, error) {
	bound, _ := c.Cookie(cookieSSOState)
	c.SetSameSite(http.SameSiteLaxMode)
	c.SetCookie(cookieSSOState, "", -1, ssoCookiePath, "", a.Opts.CookieSecure, true)
	q := queryOf[ssoCallbackQuery](c)
	s, err := a.SSO.Finish(ctx(c), sso.Callback{
		Provider: c.Param("provider"), State: q.State, Code: q.Code,
		Error: q.Error, ErrorDescription: q.ErrorDescription, BrowserState: bound,
	})
	if err != nil {
		_, message := errorAnswer(c, err)
		c.Redirect(http.StatusFound, a.ssoLoginPage(message))
		return http.StatusFound, nil, nil
	}
	a.setSessionCookies(c, s)
	c.Redirect(http.StatusFound, strings.TrimRight(a.SSO.PublicURL, "/")+"/")
	return http.StatusFound, nil, nil
}

// ssoLoginPage is the login page's address showing a sign-in failure.
func (a *API) ssoLoginPage(message string) string {
	return strings.TrimRight(a.SSO.PublicURL, "/") + "/login?sso_error=" + url.QueryEscape(message)
}

// The cookie holding the state of the browser's sign-in, sent to the SSO
// paths only.
const (
	cookieSSOState = "whm_sso_state"
	ssoCookiePath  = "/api/auth/sso/"
)

// ssoRoutes: public, as login is; the state kept server-side is the
// anti-CSRF check of the callback.
func (a *API) ssoRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/auth/sso/:provider/init", Op: "ssoInit", Query: ssoQuery{}, Status: http.StatusFound, Out: rawBody{Description: "A redirect to the identity provider."}, Handle: a.ssoInit},
		{Method: get, Path: "/api/auth/sso/:provider/callback", Op: "ssoCallback", Query: ssoCallbackQuery{}, Status: http.StatusFound, Out: rawBody{Description: "A redirect to the web client, signed in or with an error message."}, Handle: a.ssoCallback},
	}
}
