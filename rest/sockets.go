package rest

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/auth"
	"switchboard/ent/viewer"
	"switchboard/ratelimit"
)

// SocketLimits bound the WebSockets (/ws and GraphQL subscriptions
// together) held open by one user and from one client address, across all
// server processes (Redis leases, which lapse if a process dies).
type SocketLimits struct {
	Leases     *ratelimit.Leases
	PerUser    int
	PerAddress int
}

// socketLease is the place a WebSocket holds; nil holds none (no limits
// configured, or Redis failed and the check fails open).
type socketLease struct {
	a     *API
	lease *ratelimit.Lease
}

// openSocket runs before a WebSocket upgrade: the upgrade counts as a
// request in the rate limit (of user, when the token names one, else of
// the address), then takes a place among the address's open sockets and,
// with user, among the user's. It answers 429 and reports false when the
// client may not open another.
func (a *API) openSocket(c *gin.Context, user string) (*socketLease, bool) {
	addr := c.ClientIP()
	key, limit := "ip:"+addr, a.Opts.AnonRatePerMinute
	if user != "" {
		key, limit = "user:"+user, a.Opts.RatePerMinute
	}
	if !a.rateLimit(c, key, limit) {
		return nil, false
	}
	s := a.Sockets
	if s.Leases == nil {
		return nil, true
	}
	slots := []ratelimit.Slot{{Key: "ws:addr:" + addr, Limit: s.PerAddress}}
	if user != "" {
		slots = append(slots, a.userSocketSlot(user))
	}
	lease, err := s.Leases.Acquire(c.Request.Context(), slots...)
	if err != nil {
		if err = a.socketError(err); err != nil {
			writeError(c, err)
			return nil, false
		}
		return nil, true
	}
	return &socketLease{a: a, lease: lease}, true
}

func (a *API) userSocketSlot(user string) ratelimit.Slot {
	return ratelimit.Slot{Key: "ws:user:" + user, Limit: a.Sockets.PerUser}
}

// socketError turns a refused place into a TooMany error naming the
// limit; a Redis failure is logged and yields nil (fail open, as the rate
// limit does).
func (a *API) socketError(err error) error {
	var full *ratelimit.FullError
	switch {
	case errors.As(err, &full) && strings.HasPrefix(full.Slot.Key, "ws:user:"):
		return apperr.New(apperr.TooMany, "too many open WebSocket connections for this user (at most %d); close one first", full.Slot.Limit)
	case errors.As(err, &full):
		return apperr.New(apperr.TooMany, "too many open WebSocket connections from this address (at most %d); close one first", full.Slot.Limit)
	}
	a.Log.Warn("WebSocket connection limits unavailable", "err", err)
	return nil
}

// addUser takes the place of the user who authenticated after the
// upgrade. The error is TooMany when the user holds all theirs.
func (l *socketLease) addUser(ctx context.Context, user string) error {
	if l == nil {
		return nil
	}
	if err := l.lease.Add(ctx, l.a.userSocketSlot(user)); err != nil {
		return l.a.socketError(err)
	}
	return nil
}

// release gives the places back when the socket closes; again is a no-op.
func (l *socketLease) release() {
	if l == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := l.lease.Release(ctx); err != nil {
		// The places lapse with the lease's TTL.
		l.a.Log.Warn("releasing WebSocket places", "err", err)
	}
}

// wsTokenUser is the user a ws token names, "" when there is no valid one.
// It does not spend the token.
func wsTokenUser(a *API, token string) string {
	if token == "" {
		return ""
	}
	c, err := a.Access.Tokens.Parse(token, auth.TokenWS)
	if err != nil {
		return ""
	}
	return c.UserID().String()
}

// socketLeaseKey carries a GraphQL WebSocket's lease to its init.
type socketLeaseKey struct{}

// closeMessage is the message of a refusal, for a close frame.
func closeMessage(err error) string {
	var ae *apperr.Error
	if errors.As(err, &ae) {
		return ae.Message
	}
	return "refused"
}

// Close codes of a socket whose access was revoked, on /ws and on the
// GraphQL WebSocket: the credential ended (log in again), or the access it
// gave changed (membership, role).
const (
	CloseCredentialEnded = 4401
	CloseAccessChanged   = 4403
)

// maxCloseReason is the room for a reason in a close frame (125 bytes of
// payload, 2 of them the code).
const maxCloseReason = 123

// RevokedClose is the close frame of a socket revoked with err (see
// access.Revocations): its code and the error's message as the reason.
func RevokedClose(err error) (code int, reason string) {
	code = CloseAccessChanged
	if apperr.CodeOf(err) == apperr.Unauthenticated {
		code = CloseCredentialEnded
	}
	reason = closeMessage(err)
	if len(reason) > maxCloseReason {
		reason = strings.ToValidUTF8(reason[:maxCloseReason], "")
	}
	return code, reason
}

// LimitSocketOperation counts one operation over a GraphQL WebSocket
// against the budget of the identity v acts as, the one its REST requests
// use: its API key's, else its user's. Errors: rate_limited past the
// limit.
func (a *API) LimitSocketOperation(ctx context.Context, v *viewer.Viewer) error {
	key := "user:" + v.UserID.String()
	if v.APIKeyID != uuid.Nil {
		key = "key:" + v.APIKeyID.String()
	}
	if lr := a.limit(ctx, key, a.Opts.RatePerMinute); !lr.skip && !lr.res.Allowed {
		return apperr.New(apperr.TooMany, "rate limit exceeded; retry later")
	}
	return nil
}
