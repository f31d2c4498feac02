package rest

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/ent/viewer"
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
	a.setSSOStateCookie(c, state)
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
	out, err := a.SSO.Finish(ctx(c), sso.Callback{
		Provider: c.Param("provider"), State: q.State, Code: q.Code,
		Error: q.Error, ErrorDescription: q.ErrorDescription, BrowserState: bound,
	})
	if err != nil {
		_, message := errorAnswer(c, err)
		c.Redirect(http.StatusFound, a.ssoLoginPage(message))
		return http.StatusFound, nil, nil
	}
	root := strings.TrimRight(a.SSO.PublicURL, "/") + "/"
	if out.Linked {
		// The person who asked is signed in already; their session
		// stays as it is.
		c.Redirect(http.StatusFound, root+"?sso_linked="+url.QueryEscape(string(out.Provider)))
		return http.StatusFound, nil, nil
	}
	a.setSessionCookies(c, out.Session)
	c.Redirect(http.StatusFound, root)
	return http.StatusFound, nil, nil
}

// ssoLinkData is where the browser goes to link a provider.
type ssoLinkData struct {
	AuthURL string `json:"auth_url" description:"The identity provider's authorization page: open it in this browser (it holds the sign-in's state cookie). The provider sends the browser back to the callback, which links the account and redirects to PUBLIC_URL/?sso_linked={provider}, or to PUBLIC_URL/login?sso_error=... ."`
}

// ssoLink starts linking the provider to the signed-in person's own
// account: it binds the sign-in's state to this browser, as init does,
// and answers the provider's authorization URL for the browser to open.
func (a *API) ssoLink(c *gin.Context) (int, any, error) {
	target, state, err := a.SSO.StartLink(ctx(c), viewer.FromContext(ctx(c)), c.Param("provider"))
	if err != nil {
		return 0, nil, err
	}
	a.setSSOStateCookie(c, state)
	return http.StatusOK, ssoLinkData{AuthURL: target}, nil
}

// setSSOStateCookie binds a started sign-in to the browser for the
// callback. Lax: the provider sends the browser back with a top-level GET.
func (a *API) setSSOStateCookie(c *gin.Context, state string) {
	c.SetSameSite(http.SameSiteLaxMode)
	c.SetCookie(cookieSSOState, state, int(sso.StateTTL/time.Second), ssoCookiePath, "", a.Opts.CookieSecure, true)
}

// ssoIdentityJSON is one of the person's identity provider links.
type ssoIdentityJSON struct {
	ID          uuid.UUID  `json:"id"`
	Provider    string     `json:"provider"`
	Issuer      string     `json:"issuer"`
	Subject     string     `json:"subject"`
	Email       string     `json:"email"`
	LastLoginAt *time.Time `json:"last_login_at"`
	CreatedAt   time.Time  `json:"created_at"`
}

type ssoIdentitiesData struct {
	Identities []ssoIdentityJSON `json:"identities"`
}

func (a *API) mySSOIdentities(c *gin.Context) (int, any, error) {
	ids, err := a.R.People.SSOIdentities(ctx(c))
	if err != nil {
		return 0, nil, err
	}
	out := make([]ssoIdentityJSON, len(ids))
	for i, id := range ids {
		out[i] = ssoIdentityJSON{ID: id.ID, Provider: string(id.Provider), Issuer: id.Issuer, Subject: id.Subject,
			Email: id.Email, LastLoginAt: id.LastLoginAt, CreatedAt: id.CreatedAt}
	}
	return http.StatusOK, ssoIdentitiesData{Identities: out}, nil
}

func (a *API) unlinkSSOIdentity(c *gin.Context) (int, any, error) {
	return idAction(a.R.People.UnlinkSSOIdentity, messageData{Message: "Identity provider unlinked"})(c)
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
		{Method: get, Path: "/api/auth/sso/:provider/callback", Op: "ssoCallback", Query: ssoCallbackQuery{}, Status: http.StatusFound, Out: rawBody{Description: "A redirect to the web client, signed in (or, for a link, with sso_linked) or with an error message."}, Handle: a.ssoCallback},
		// A person's links: single sign-on finds them by the linked
		// subject, never by e-mail (issue 28).
		{Method: post, Path: "/api/auth/sso/:provider/link", Op: "linkSSOIdentity", Out: ssoLinkData{}, Handle: a.ssoLink},
		{Method: get, Path: "/api/me/sso-identities", Op: "mySSOIdentities", Out: ssoIdentitiesData{}, Handle: a.mySSOIdentities},
		{Method: del, Path: "/api/me/sso-identities/:id", Op: "unlinkSSOIdentity", Out: messageData{}, Handle: a.unlinkSSOIdentity},
	}
}
