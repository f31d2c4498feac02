package rest

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/auth"
	"switchboard/calling/audio"
	"switchboard/ent"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/graph"
	"switchboard/internal/valid"
	"switchboard/media"
	"switchboard/ratelimit"
	"switchboard/sso"
)

// Options configure the REST layer.
type Options struct {
	CookieSecure bool
	// RatePerMinute limits an authenticated principal (user or API key).
	RatePerMinute int
	// AnonRatePerMinute limits unauthenticated requests per client address.
	AnonRatePerMinute int
}

// API holds what the handlers call.
type API struct {
	R      *graph.Resolver
	Access *access.Service
	// Inbound receives the platform's webhooks.
	Inbound PlatformWebhooks
	// Events feeds /ws.
	Events *events.Bus
	// SSO runs single sign-on.
	SSO *sso.Service
	// Media serves stored message media.
	Media *media.Store
	// Audio keeps the organizations' call audio.
	Audio   *audio.Service
	Limiter *ratelimit.Limiter
	// UsedTokens spends single-use WebSocket tokens.
	UsedTokens auth.UsedTokens
	// Sockets bounds open WebSockets per user and per address.
	Sockets SocketLimits
	Opts    Options
	Log     *slog.Logger
}

// Cookie and header names of the contract.
const (
	cookieAccess  = "whm_access"
	cookieRefresh = "whm_refresh"
	cookieCSRF    = "whm_csrf"
	headerCSRF    = "X-CSRF-Token"
	headerAPIKey  = "X-API-Key"
	headerOrg     = "X-Organization-ID"
	ctxRequestID  = "request_id"
	ctxViewer     = "viewer"
	ctxAccessTok  = "access_token"
	// ctxGraphQL marks a /graphql request: its refusals are GraphQL
	// responses, not envelopes.
	ctxGraphQL = "graphql"
)

// Mount registers every route of the table on e, each behind guard. A row
// naming an unknown operation panics here, at start.
func (a *API) Mount(e *gin.Engine) {
	for _, r := range a.Routes() {
		r.operation()
		e.Handle(r.Method, r.Path, a.guard(r))
	}
}

// credential is what a request presented.
type credential struct {
	apiKey string
	bearer string
	cookie string
}

func readCredential(c *gin.Context) credential {
	cr := credential{apiKey: c.GetHeader(headerAPIKey)}
	if h := c.GetHeader("Authorization"); len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		cr.bearer = strings.TrimSpace(h[7:])
	}
	if v, err := c.Cookie(cookieAccess); err == nil {
		cr.cookie = v
	}
	return cr
}

func (cr credential) present() bool { return cr.apiKey != "" || cr.bearer != "" || cr.cookie != "" }

// guard is the one middleware of every route: authentication, rate limit,
// CSRF, the route's permission, then the operation, inside a transaction
// for mutating routes.
func (a *API) guard(r Route) gin.HandlerFunc {
	return func(c *gin.Context) {
		if hasNUL(c) {
			writeError(c, valid.NUL("query and path"))
			return
		}
		perm := r.operation().Perm
		if perm == access.Public {
			if !r.Unlimited && !a.rateLimit(c, "ip:"+c.ClientIP(), a.Opts.AnonRatePerMinute) {
				return
			}
			a.run(c, r)
			return
		}
		v, viaCookie, ok := a.authenticateLimited(c)
		if !ok {
			return
		}
		if viaCookie && r.Method != http.MethodGet && r.Method != http.MethodHead {
			if err := a.checkCSRF(c, v.SessionID); err != nil {
				writeError(c, err)
				return
			}
		}
		if err := access.Require(v, perm); err != nil {
			writeError(c, err)
			return
		}
		c.Request = c.Request.WithContext(viewer.NewContext(c.Request.Context(), v))
		c.Set(ctxViewer, v)
		a.run(c, r)
	}
}

// checkCSRF checks the CSRF token of a cookie-authenticated request: the
// whm_csrf cookie and the X-CSRF-Token header must both hold the token of
// the session (family) the request's cookie belongs to. Errors: forbidden.
func (a *API) checkCSRF(c *gin.Context, family uuid.UUID) error {
	cookie, _ := c.Cookie(cookieCSRF)
	if a.Access.Tokens.CheckCSRF(family, cookie, c.GetHeader(headerCSRF)) {
		return nil
	}
	return apperr.Forbiddenf("missing or invalid CSRF token (send the whm_csrf cookie value in X-CSRF-Token)")
}

// hasNUL reports a NUL character in the query or the path, which no
// parameter may carry (PostgreSQL cannot store it).
func hasNUL(c *gin.Context) bool {
	return strings.Contains(c.Request.URL.RawQuery, "%00") || strings.ContainsRune(c.Request.URL.Path, 0)
}

// authenticateLimited authenticates the request and applies its rate
// limit (see limitedIdentity). It writes the answer and reports false when
// the request must stop.
func (a *API) authenticateLimited(c *gin.Context) (*viewer.Viewer, bool, bool) {
	id, ok := a.limitedIdentity(c)
	if !ok {
		return nil, false, false
	}
	if id.err != nil {
		writeError(c, id.err)
		return nil, false, false
	}
	return id.viewer, id.viaCookie, true
}

// identity is who a request proved to be, or why it proved no one.
type identity struct {
	viewer *viewer.Viewer
	// viaCookie: the credential was the access cookie (CSRF applies).
	viaCookie bool
	err       error
}

// limitedIdentity authenticates the request and applies its rate limit,
// which counts against the identity the request proved: the user of an
// access token (its signature proves it, so the check runs beside the
// database's), the API key once it verified, and otherwise the client
// address with the anonymous budget. A key that does not verify never
// touches a real key's budget, and a made-up one gets none of its own. It
// answers 429 and reports false past the limit; an authentication error
// is left to the caller.
func (a *API) limitedIdentity(c *gin.Context) (identity, bool) {
	if userKey, signed := a.signedUserKey(c); signed {
		limited := make(chan limitResult, 1)
		go func() { limited <- a.limit(c.Request.Context(), userKey, a.Opts.RatePerMinute) }()
		v, viaCookie, err := a.authenticate(c)
		return identity{v, viaCookie, err}, a.applyLimit(c, <-limited)
	}
	v, viaCookie, err := a.authenticate(c)
	key, limit := "ip:"+c.ClientIP(), a.Opts.AnonRatePerMinute
	if err == nil {
		key, limit = "key:"+v.APIKeyID.String(), a.Opts.RatePerMinute
	}
	return identity{v, viaCookie, err}, a.rateLimit(c, key, limit)
}

// signedUserKey names the budget of a request authenticated by an access
// token whose signature verifies (no API key given): its user's.
func (a *API) signedUserKey(c *gin.Context) (string, bool) {
	cr := readCredential(c)
	if cr.apiKey != "" {
		return "", false
	}
	token := cr.bearer
	if token == "" {
		token = cr.cookie
	}
	if token == "" {
		return "", false
	}
	claims, err := a.Access.Tokens.Parse(token, auth.TokenAccess)
	if err != nil {
		return "", false
	}
	return "user:" + claims.Subject, true
}

// authenticate resolves the request's credential to a viewer. It reports
// whether the credential was the access cookie (CSRF applies then).
func (a *API) authenticate(c *gin.Context) (*viewer.Viewer, bool, error) {
	cr := readCredential(c)
	if !cr.present() {
		return nil, false, apperr.New(apperr.Unauthenticated, "authentication required")
	}
	org, err := optionalUUID(headerOrg, c.GetHeader(headerOrg))
	if err != nil {
		return nil, false, err
	}
	var orgID uuid.UUID
	if org != nil {
		orgID = *org
	}
	ctx := c.Request.Context()
	switch {
	case cr.apiKey != "":
		v, err := a.Access.AuthenticateAPIKey(ctx, cr.apiKey, orgID)
		return v, false, err
	case cr.bearer != "":
		c.Set(ctxAccessTok, cr.bearer)
		v, err := a.Access.AuthenticateAccess(ctx, cr.bearer, orgID)
		return v, false, err
	default:
		c.Set(ctxAccessTok, cr.cookie)
		v, err := a.Access.AuthenticateAccess(ctx, cr.cookie, orgID)
		return v, true, err
	}
}

// Authenticate resolves the credential in the request's headers (API key,
// bearer token or access cookie, and X-Organization-ID) to a viewer
// without reading the body, for a decision that must come before the body
// is read (the long deadline of an upload). It applies no rate limit and
// no CSRF check: the route's guard still authenticates the request.
// Errors: unauthenticated, invalid, forbidden.
func (a *API) Authenticate(c *gin.Context) (*viewer.Viewer, error) {
	v, _, err := a.authenticate(c)
	return v, err
}

// rateLimit applies the sliding-window limit of key, sets the three
// headers, and answers 429 past the limit. It reports whether to go on.
func (a *API) rateLimit(c *gin.Context, key string, perMinute int) bool {
	return a.applyLimit(c, a.limit(c.Request.Context(), key, perMinute))
}

// limitResult is the outcome of one rate-limit check; skip means no limit
// applies (none configured, or Redis failed and the check fails open).
type limitResult struct {
	res  ratelimit.Result
	skip bool
}

func (a *API) limit(ctx context.Context, key string, perMinute int) limitResult {
	if a.Limiter == nil || perMinute <= 0 {
		return limitResult{skip: true}
	}
	res, err := a.Limiter.Allow(ctx, key, perMinute, time.Minute)
	if err != nil {
		// Failing open keeps the API up when Redis hiccups; it is logged.
		a.Log.Warn("rate limiter unavailable", "err", err)
		return limitResult{skip: true}
	}
	return limitResult{res: res}
}

// applyLimit sets the three headers and answers 429 past the limit.
func (a *API) applyLimit(c *gin.Context, lr limitResult) bool {
	if lr.skip {
		return true
	}
	res := lr.res
	h := c.Writer.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(res.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(res.Remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(res.Reset.Unix(), 10))
	if !res.Allowed {
		h.Set("Retry-After", strconv.Itoa(int(res.RetryAfter.Seconds()+0.999)))
		abort(c, apperr.TooMany, "rate limit exceeded; retry later")
		return false
	}
	return true
}

// run calls the route's operation, inside a transaction when the route
// mutates, and writes the envelope only after the commit.
func (a *API) run(c *gin.Context, r Route) {
	if err := bindQuery(c, r.Query); err != nil {
		writeError(c, err)
		return
	}
	if !r.inTx() {
		status, data, err := r.Handle(c)
		respond(c, status, data, err)
		return
	}
	tx, err := a.R.Client.Tx(c.Request.Context())
	if err != nil {
		writeError(c, err)
		return
	}
	ctx := ent.NewContext(ent.NewTxContext(c.Request.Context(), tx), tx.Client())
	c.Request = c.Request.WithContext(ctx)
	status, data, err := r.Handle(c)
	if err != nil {
		_ = tx.Rollback()
		writeError(c, err)
		return
	}
	if err := tx.Commit(); err != nil {
		writeError(c, err)
		return
	}
	respond(c, status, data, nil)
}

func respond(c *gin.Context, status int, data any, err error) {
	switch {
	case err != nil:
		writeError(c, err)
	case c.Writer.Written():
		// The handler wrote a response of its own (redirects, files).
	default:
		writeOK(c, status, data)
	}
}

// viewerOf returns the request's viewer.
func viewerOf(c *gin.Context) *viewer.Viewer { return viewer.FromContext(c.Request.Context()) }

// ctx is the request's context.
func ctx(c *gin.Context) context.Context { return c.Request.Context() }
