package rest

import (
	"net/http"
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
	orgID, err := optionalUUID("organization_id", c.Query("organization_id"))
	if err != nil {
		return 0, nil, err
	}
	target, state, err := a.SSO.Start(ctx(c), c.Param("provider"), orgID)
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
// login does, and redirects to the application's root (PUBLIC_URL/).
// Failures answer the error envelope with their status. The state cookie
// is spent either way.
func (a *API) ssoCallback(c *gin.Context) (int, any, error) {
	bound, _ := c.Cookie(cookieSSOState)
	c.SetSameSite(http.SameSiteLaxMode)
	c.SetCookie(cookieSSOState, "", -1, ssoCookiePath, "", a.Opts.CookieSecure, true)
	s, err := a.SSO.Finish(ctx(c), sso.Callback{
		Provider: c.Param("provider"), State: c.Query("state"), Code: c.Query("code"),
		Error: c.Query("error"), ErrorDescription: c.Query("error_description"), BrowserState: bound,
	})
	if err != nil {
		return 0, nil, err
	}
	a.setSessionCookies(c, s)
	c.Redirect(http.StatusFound, strings.TrimRight(a.SSO.PublicURL, "/")+"/")
	return http.StatusFound, nil, nil
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
		{Method: get, Path: "/api/auth/sso/:provider/init", Op: "ssoInit", Handle: a.ssoInit},
		{Method: get, Path: "/api/auth/sso/:provider/callback", Op: "ssoCallback", Handle: a.ssoCallback},
	}
}
