package rest

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"switchboard/access"
	"switchboard/apperr"
)

// setSessionCookies sets the three auth cookies of the contract.
func (a *API) setSessionCookies(c *gin.Context, s *access.Session) {
	secure := a.Opts.CookieSecure
	c.SetSameSite(http.SameSiteLaxMode)
	c.SetCookie(cookieAccess, s.AccessToken, maxAge(s.AccessExp), "/", "", secure, true)
	c.SetCookie(cookieRefresh, s.RefreshToken, maxAge(s.RefreshExp), "/api/auth/refresh", "", secure, true)
	c.SetCookie(cookieCSRF, s.CSRFToken, maxAge(s.RefreshExp), "/", "", secure, false)
}

func clearSessionCookies(c *gin.Context, secure bool) {
	c.SetSameSite(http.SameSiteLaxMode)
	c.SetCookie(cookieAccess, "", -1, "/", "", secure, true)
	c.SetCookie(cookieRefresh, "", -1, "/api/auth/refresh", "", secure, true)
	c.SetCookie(cookieCSRF, "", -1, "/", "", secure, false)
}

func maxAge(exp time.Time) int {
	s := int(time.Until(exp).Seconds())
	if s < 1 {
		return 1
	}
	return s
}

// sessionPayload is the spec's {expires_in, user}, plus the tokens for
// clients that use the Authorization header instead of cookies.
func (a *API) sessionPayload(c *gin.Context, s *access.Session, withPermissions bool) (any, error) {
	u, err := a.currentUser(viewerContext(c, s), withPermissions)
	if err != nil {
		return nil, err
	}
	return sessionData{
		ExpiresIn:    int(time.Until(s.AccessExp).Round(time.Second).Seconds()),
		User:         u,
		AccessToken:  s.AccessToken,
		RefreshToken: s.RefreshToken,
		TokenType:    "Bearer",
	}, nil
}

func (a *API) startSession(c *gin.Context, s *access.Session, withPermissions bool) (int, any, error) {
	payload, err := a.sessionPayload(c, s, withPermissions)
	if err != nil {
		return 0, nil, err
	}
	a.setSessionCookies(c, s)
	return http.StatusOK, payload, nil
}

// loginBody is the JSON body of login.
type loginBody struct {
	Email    string `json:"email" required:"true" minLength:"1" example:"admin@example.com"`
	Password string `json:"password" required:"true" minLength:"1" example:"correct horse battery staple"`
}

func (a *API) login(c *gin.Context) (int, any, error) {
	var b loginBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	s, err := a.Access.Login(ctx(c), b.Email, b.Password, c.ClientIP())
	if err != nil {
		if apperr.CodeOf(err) == apperr.TooMany {
			c.Header("Retry-After", "900")
		}
		return 0, nil, err
	}
	return a.startSession(c, s, true)
}

// registerBody is the JSON body of register.
type registerBody struct {
	Email          string `json:"email" required:"true" format:"email" example:"grace@example.com"`
	Password       string `json:"password" required:"true" minLength:"12" example:"correct horse battery staple" description:"At least 12 characters and at most 256 bytes."`
	FullName       string `json:"full_name" required:"true" minLength:"1" example:"Grace Hopper"`
	OrganizationID string `json:"organization_id" required:"true" format:"uuid"`
}

func (a *API) register(c *gin.Context) (int, any, error) {
	var b registerBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	org, err := optionalUUID("organization_id", b.OrganizationID)
	if err != nil {
		return 0, nil, err
	}
	if org == nil {
		return 0, nil, apperr.Invalidf("organization_id is required")
	}
	s, err := a.Access.Register(ctx(c), access.RegisterInput{
		Email: b.Email, Password: b.Password, FullName: b.FullName, OrganizationID: *org,
	})
	if err != nil {
		return 0, nil, err
	}
	status, payload, err := a.startSession(c, s, false)
	if status == http.StatusOK {
		status = http.StatusCreated
	}
	return status, payload, err
}

// refreshBody is the JSON body of refresh.
type refreshBody struct {
	RefreshToken string `json:"refresh_token"`
}

func (a *API) refresh(c *gin.Context) (int, any, error) {
	var b refreshBody
	if err := bindJSON(c, &b, true); err != nil {
		return 0, nil, err
	}
	token, _ := c.Cookie(cookieRefresh)
	if token == "" {
		token = b.RefreshToken
	}
	if token == "" {
		return 0, nil, apperr.New(apperr.Unauthenticated, "refresh token required")
	}
	s, err := a.Access.Refresh(ctx(c), token)
	if err != nil {
		return 0, nil, err
	}
	return a.startSession(c, s, true)
}

// logoutBody is the JSON body of logout.
type logoutBody struct {
	RefreshToken string `json:"refresh_token"`
}

func (a *API) logout(c *gin.Context) (int, any, error) {
	var b logoutBody
	if err := bindJSON(c, &b, true); err != nil {
		return 0, nil, err
	}
	refresh := b.RefreshToken
	cr := readCredential(c)
	access := cr.bearer
	if refresh == "" && access == "" {
		// Logging out by cookie: like any cookie-authenticated change
		// it needs the session's CSRF token, or another site could end
		// the session.
		refresh, _ = c.Cookie(cookieRefresh)
		access = cr.cookie
		if refresh != "" || access != "" {
			if err := a.checkCSRF(c, a.Access.SessionOf(refresh, access)); err != nil {
				return 0, nil, err
			}
		}
	}
	if err := a.Access.Logout(ctx(c), refresh, access); err != nil {
		return 0, nil, err
	}
	clearSessionCookies(c, a.Opts.CookieSecure)
	return http.StatusOK, statusData{Status: "logged_out"}, nil
}

// switchOrgBody is the JSON body of switchOrg.
type switchOrgBody struct {
	OrganizationID string `json:"organization_id" required:"true" format:"uuid"`
}

func (a *API) switchOrg(c *gin.Context) (int, any, error) {
	var b switchOrgBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	org, err := optionalUUID("organization_id", b.OrganizationID)
	if err != nil {
		return 0, nil, err
	}
	if org == nil {
		return 0, nil, apperr.Invalidf("organization_id is required")
	}
	s, err := a.Access.SwitchOrganization(ctx(c), viewerOf(c), *org)
	if err != nil {
		return 0, nil, err
	}
	return a.startSession(c, s, true)
}

func (a *API) wsToken(c *gin.Context) (int, any, error) {
	tok, err := a.Access.IssueWSToken(viewerOf(c))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, wsTokenData{Token: tok}, nil
}

func (a *API) authRoutes() []Route {
	return []Route{
		{Method: post, Path: "/api/auth/register", Op: "register", Errors: []int{http.StatusForbidden, http.StatusConflict}, Status: http.StatusCreated, In: registerBody{}, Out: sessionData{}, Handle: a.register},
		{Method: post, Path: "/api/auth/login", Op: "login", Errors: []int{http.StatusUnauthorized}, In: loginBody{}, Out: sessionData{}, Handle: a.login},
		{Method: post, Path: "/api/auth/refresh", Op: "refresh", Errors: []int{http.StatusUnauthorized}, In: refreshBody{}, Out: sessionData{}, Handle: a.refresh},
		{Method: post, Path: "/api/auth/logout", Op: "logout", Errors: []int{http.StatusForbidden}, In: logoutBody{}, Out: statusData{}, Handle: a.logout},
		{Method: post, Path: "/api/auth/switch-org", Op: "switchOrganization", In: switchOrgBody{}, Out: sessionData{}, Handle: a.switchOrg},
		{Method: get, Path: "/api/auth/ws-token", Op: "wsToken", Out: wsTokenData{}, Handle: a.wsToken},
	}
}
