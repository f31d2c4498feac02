package rest

import (
	"net/http"
	"strings"

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
	target, err := a.SSO.Start(ctx(c), c.Param("provider"), orgID)
	if err != nil {
		return 0, nil, err
	}
	c.Redirect(http.StatusFound, target)
	return http.StatusFound, nil, nil
}

// ssoCallback completes the sign-in, sets the session cookies exactly as
// login does, and redirects to the application's root (PUBLIC_URL/).
// Failures answer the error envelope with their status.
func (a *API) ssoCallback(c *gin.Context) (int, any, error) {
	s, err := a.SSO.Finish(ctx(c), sso.Callback{
		Provider: c.Param("provider"), State: c.Query("state"), Code: c.Query("code"),
		Error: c.Query("error"), ErrorDescription: c.Query("error_description"),
	})
	if err != nil {
		return 0, nil, err
	}
	a.setSessionCookies(c, s)
	c.Redirect(http.StatusFound, strings.TrimRight(a.SSO.PublicURL, "/")+"/")
	return http.StatusFound, nil, nil
}

// ssoRoutes: public, as login is; the state kept server-side is the
// anti-CSRF check of the callback.
func (a *API) ssoRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/auth/sso/:provider/init", Op: "ssoInit", Handle: a.ssoInit},
		{Method: get, Path: "/api/auth/sso/:provider/callback", Op: "ssoCallback", Handle: a.ssoCallback},
	}
}
