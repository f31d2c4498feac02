package rest

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent/viewer"
)

// Recovery turns a panic into a 500 envelope and logs it.
func Recovery(log *slog.Logger) gin.HandlerFunc {
	return gin.CustomRecoveryWithWriter(nil, func(c *gin.Context, rec any) {
		log.ErrorContext(c.Request.Context(), "panic serving request", "panic", rec,
			"path", c.Request.URL.Path, "request_id", c.GetString(ctxRequestID))
		writeErrorBody(c, http.StatusInternalServerError, apperr.Internal, "internal error")
	})
}

// NotFound answers unknown paths with the error envelope (rate limited per
// address like any anonymous request).
func (a *API) NotFound(c *gin.Context) {
	if strings.HasPrefix(c.Request.URL.Path, "/api/") && !a.rateLimit(c, "ip:"+c.ClientIP(), a.Opts.AnonRatePerMinute) {
		return
	}
	abort(c, apperr.NotFound, "no such endpoint: "+c.Request.Method+" "+c.Request.URL.Path)
}

// GraphQLGuard authenticates GraphQL HTTP requests like REST ones (cookie
// with CSRF, bearer or API key) and rate limits them; a WebSocket upgrade
// goes through and authenticates in its init message. Its refusals (and a
// panic's 500) are GraphQL responses with the REST status: {"errors":
// [{"message", "extensions": {"code"}}]}.
func (a *API) GraphQLGuard(h http.Handler) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Set(ctxGraphQL, true)
		if strings.EqualFold(c.GetHeader("Upgrade"), "websocket") {
			// The user is known at the init message (AuthenticateInit);
			// the address's place and the rate limit come first.
			lease, ok := a.openSocket(c, "")
			if !ok {
				return
			}
			defer lease.release()
			c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), socketLeaseKey{}, lease))
			h.ServeHTTP(c.Writer, c.Request)
			return
		}
		v, viaCookie, ok := a.authenticateLimited(c)
		if !ok {
			return
		}
		if viaCookie && c.Request.Method == http.MethodPost {
			if err := a.checkCSRF(c, v.SessionID); err != nil {
				writeError(c, err)
				return
			}
		}
		c.Request = c.Request.WithContext(viewer.NewContext(c.Request.Context(), v))
		h.ServeHTTP(c.Writer, c.Request)
	}
}

// PageGuard authenticates a browser page like a REST GET (cookie, bearer
// or API key) under the same rate limit: an authenticated viewer gets
// page, with the viewer in its context; a request with no valid
// credential gets anonymous (say, a login form) instead of the JSON
// error.
func (a *API) PageGuard(page, anonymous http.Handler) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Abort()
		id, ok := a.limitedIdentity(c)
		switch {
		case !ok:
		case apperr.CodeOf(id.err) == apperr.Unauthenticated:
			anonymous.ServeHTTP(c.Writer, c.Request)
		case id.err != nil:
			writeError(c, id.err)
		default:
			page.ServeHTTP(c.Writer, c.Request.WithContext(viewer.NewContext(c.Request.Context(), id.viewer)))
		}
	}
}

// AuthenticateInit authenticates a GraphQL WebSocket from its init
// payload (a single-use ws token, a bearer access token or an API key) and
// takes the socket's place among its user's. Errors: unauthenticated, or
// rate_limited when the user holds all their sockets.
func (a *API) AuthenticateInit(ctx context.Context, wsToken, authorization, apiKey string) (*viewer.Viewer, error) {
	lease, _ := ctx.Value(socketLeaseKey{}).(*socketLease)
	v, err := a.authenticateInit(ctx, wsToken, authorization, apiKey)
	if err == nil {
		err = lease.addUser(ctx, v.UserID.String())
	}
	if err != nil {
		// The socket closes: its places are free before the client
		// hears of it.
		lease.release()
		return nil, err
	}
	return v, nil
}

func (a *API) authenticateInit(ctx context.Context, wsToken, authorization, apiKey string) (*viewer.Viewer, error) {
	switch {
	case wsToken != "":
		return a.Access.ConsumeWSToken(ctx, a.UsedTokens, wsToken)
	case len(authorization) > 7 && strings.EqualFold(authorization[:7], "bearer "):
		return a.Access.AuthenticateAccess(ctx, strings.TrimSpace(authorization[7:]), uuid.Nil)
	case apiKey != "":
		return a.Access.AuthenticateAPIKey(ctx, apiKey, uuid.Nil)
	}
	return nil, apperr.New(apperr.Unauthenticated, "authentication required")
}
