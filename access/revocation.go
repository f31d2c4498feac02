package access

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"sync"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent/viewer"
)

// An open WebSocket (/ws or GraphQL) acts with the credential it was
// opened with for as long as it stays open, so a change that takes that
// credential's rights away must end it at once, on whichever node holds
// it: each such change publishes a Revocation to every node through the
// event bus's Redis channel, and each node closes its sockets that match.
// Pub/sub delivers at most once, so every socket is also verified again
// against the database every VerifyEvery and whenever the node's
// subscription comes back after an outage.

// Revocation names the open sockets a change ends: set fields must all
// match a socket's viewer.
type Revocation struct {
	// Session is a session's token family (logout, refresh token reuse).
	Session uuid.UUID `json:"session,omitzero"`
	// User is the person: their sessions and their API keys.
	User uuid.UUID `json:"user,omitzero"`
	// Org narrows User to the user's membership of one organization.
	Org uuid.UUID `json:"org,omitzero"`
	// Role is a role (role ids are per organization).
	Role uuid.UUID `json:"role,omitzero"`
	// APIKey is one API key.
	APIKey uuid.UUID `json:"api_key,omitzero"`
	// SessionsOnly narrows User to their sessions (not their API keys),
	// except the session Keep (a password change goes on in the session
	// that made it).
	SessionsOnly bool      `json:"sessions_only,omitzero"`
	Keep         uuid.UUID `json:"keep,omitzero"`
	// Code says how the socket is told (unauthenticated: the credential
	// ended; forbidden: the access it gave changed), Reason why.
	Code   apperr.Code `json:"code"`
	Reason string      `json:"reason"`
}

// EndSession revokes the sockets of one session (logout).
func EndSession(family uuid.UUID) Revocation {
	return Revocation{Session: family, Code: apperr.Unauthenticated, Reason: "session ended; log in again"}
}

// EndUserSessions revokes the sockets of every session of userID except
// keep (uuid.Nil keeps none): a password change or reset. API keys go on.
func EndUserSessions(userID, keep uuid.UUID) Revocation {
	return Revocation{User: userID, SessionsOnly: true, Keep: keep, Code: apperr.Unauthenticated,
		Reason: "password changed; log in again"}
}

// EndUser revokes every socket of userID, their API keys' included (the
// account was deactivated).
func EndUser(userID uuid.UUID) Revocation {
	return Revocation{User: userID, Code: apperr.Unauthenticated, Reason: "user is deactivated"}
}

// EndMembership revokes the sockets of userID acting in orgID, their API
// keys' included: the membership was removed or its role changed (why).
func EndMembership(userID, orgID uuid.UUID, why string) Revocation {
	return Revocation{User: userID, Org: orgID, Code: apperr.Forbidden, Reason: why}
}

// EndRole revokes the sockets acting with roleID: its permissions changed
// or it was deleted (why).
func EndRole(roleID uuid.UUID, why string) Revocation {
	return Revocation{Role: roleID, Code: apperr.Forbidden, Reason: why}
}

// EndAPIKey revokes the sockets of an API key (disabled or deleted).
func EndAPIKey(keyID uuid.UUID) Revocation {
	return Revocation{APIKey: keyID, Code: apperr.Unauthenticated, Reason: "API key revoked"}
}

// matches reports whether the socket of v is one r ends. A revocation
// naming no session, user, role or key ends none.
func (r Revocation) matches(v *viewer.Viewer) bool {
	if r.Session == uuid.Nil && r.User == uuid.Nil && r.Role == uuid.Nil && r.APIKey == uuid.Nil {
		return false
	}
	switch {
	case r.Session != uuid.Nil && v.SessionID != r.Session,
		r.User != uuid.Nil && v.UserID != r.User,
		r.Org != uuid.Nil && v.OrgID != r.Org,
		r.Role != uuid.Nil && v.RoleID != r.Role,
		r.APIKey != uuid.Nil && v.APIKeyID != r.APIKey,
		r.SessionsOnly && (v.SessionID == uuid.Nil || v.SessionID == r.Keep):
		return false
	}
	return true
}

// err is the error a revoked socket and its refused operations report.
func (r Revocation) err() error {
	code := r.Code
	if code != apperr.Forbidden {
		code = apperr.Unauthenticated
	}
	return apperr.New(code, "access revoked: %s", r.Reason)
}

// ControlBus carries control messages to every node (events.Bus).
type ControlBus interface {
	OnControl(name string, fn func(body []byte))
	OnResubscribe(fn func())
	PublishControl(ctx context.Context, name string, body []byte)
}

// revokeMessage names revocations on the control bus.
const revokeMessage = "revoke"

// VerifyEvery is how often each open socket's credential is verified
// again, in case a revocation was lost.
const VerifyEvery = 30 * time.Second

// Revocations keeps this node's open sockets and ends those a revocation
// names. The zero value is not usable; a nil *Revocations publishes nothing
// and keeps no sockets (tests that build parts of the application).
type Revocations struct {
	bus    ControlBus
	verify func(context.Context, *viewer.Viewer) (*viewer.Viewer, error)
	log    *slog.Logger
	again  chan struct{}

	mu      sync.Mutex
	sockets map[*Socket]struct{}
}

// NewRevocations returns the revocations of this node, receiving those of
// every node through bus. verify rebuilds a socket's viewer from its
// credential (Service.Reauthorize). Run must run for the safety net.
func NewRevocations(bus ControlBus, verify func(context.Context, *viewer.Viewer) (*viewer.Viewer, error), log *slog.Logger) *Revocations {
	r := &Revocations{bus: bus, verify: verify, log: log, again: make(chan struct{}, 1), sockets: map[*Socket]struct{}{}}
	bus.OnControl(revokeMessage, r.received)
	bus.OnResubscribe(func() {
		select {
		case r.again <- struct{}{}:
		default: // a verification is due already
		}
	})
	return r
}

// Publish ends the sockets rev names on every node once the transaction
// ctx carries commits (at once without one), so that a socket opened
// before the commit cannot outlive it. This node's sockets end even when
// Redis fails.
func (r *Revocations) Publish(ctx context.Context, rev Revocation) {
	if r == nil {
		return
	}
	body, err := json.Marshal(rev)
	if err != nil {
		r.log.Error("access: encoding a revocation", "err", err)
		return
	}
	ctx = context.WithoutCancel(ctx)
	database.AfterCommit(ctx, func() {
		r.apply(rev)
		r.bus.PublishControl(ctx, revokeMessage, body)
	})
}

// received applies a revocation published by any node.
func (r *Revocations) received(body []byte) {
	var rev Revocation
	if err := json.Unmarshal(body, &rev); err != nil {
		r.log.Warn("access: undecodable revocation", "err", err)
		return
	}
	r.apply(rev)
}

// apply ends this node's sockets that rev names. A node holds thousands of
// sockets at most and revocations are rare: a scan costs microseconds.
func (r *Revocations) apply(rev Revocation) {
	for _, s := range r.open() {
		if rev.matches(s.viewer) {
			s.Revoke(rev.err())
		}
	}
}

// open is a snapshot of the open sockets.
func (r *Revocations) open() []*Socket {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Socket, 0, len(r.sockets))
	for s := range r.sockets {
		out = append(out, s)
	}
	return out
}

// Run verifies every open socket again every VerifyEvery, and whenever
// the bus subscribed again after an outage, until ctx is done.
func (r *Revocations) Run(ctx context.Context) {
	tick := time.NewTicker(VerifyEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-r.again:
		}
		r.VerifyAll(ctx)
	}
}

// VerifyAll verifies each open socket's credential against the database
// (one check per credential, however many sockets share it) and ends the
// sockets whose credential no longer holds or whose access changed. A
// failure to check (the database is down) leaves the sockets open.
func (r *Revocations) VerifyAll(ctx context.Context) {
	if r == nil {
		return
	}
	type credential struct{ user, org, session, key uuid.UUID }
	type check struct {
		fresh *viewer.Viewer
		err   error
	}
	checked := map[credential]check{}
	var unchecked error
	for _, s := range r.open() {
		v := s.viewer
		c := credential{v.UserID, v.OrgID, v.SessionID, v.APIKeyID}
		ck, done := checked[c]
		if !done {
			ck.fresh, ck.err = r.verify(ctx, v)
			checked[c] = ck
		}
		err := ck.err
		if err == nil {
			err = s.Stale(ck.fresh)
		}
		switch {
		case err == nil:
		case Revokes(err):
			s.Revoke(err)
		default:
			unchecked = err
		}
	}
	if unchecked != nil && ctx.Err() == nil {
		r.log.Warn("access: verifying open sockets; those not verified stay open", "err", unchecked)
	}
}

// Revokes reports whether a failed check of a socket's credential ends
// the socket: the credential no longer holds (unauthenticated, not found)
// or its access changed (forbidden); anything else (the database is down)
// does not.
func Revokes(err error) bool {
	switch apperr.CodeOf(err) {
	case apperr.Unauthenticated, apperr.Forbidden, apperr.NotFound:
		return true
	}
	return false
}

// Socket is an open WebSocket as revocation knows it: the viewer it was
// opened with, and whether it has been revoked.
type Socket struct {
	r      *Revocations
	viewer *viewer.Viewer
	done   chan struct{}
	once   sync.Once
	err    error
}

// Open registers a socket opened by v; Close it when the socket ends. On a
// nil *Revocations the socket is never revoked.
func (r *Revocations) Open(v *viewer.Viewer) *Socket {
	s := &Socket{r: r, viewer: v, done: make(chan struct{})}
	if r != nil {
		r.mu.Lock()
		r.sockets[s] = struct{}{}
		r.mu.Unlock()
	}
	return s
}

// Close forgets the socket (it ended).
func (s *Socket) Close() {
	if s.r == nil {
		return
	}
	s.r.mu.Lock()
	delete(s.r.sockets, s)
	s.r.mu.Unlock()
}

// Viewer is the viewer the socket was opened with.
func (s *Socket) Viewer() *viewer.Viewer { return s.viewer }

// Done is closed when the socket is revoked.
func (s *Socket) Done() <-chan struct{} { return s.done }

// Err tells why the socket was revoked (an apperr of code unauthenticated
// or forbidden); nil while it is not.
func (s *Socket) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// Revoke ends the socket with err; later calls do nothing.
func (s *Socket) Revoke(err error) {
	s.once.Do(func() {
		s.err = err
		close(s.done)
	})
}

var errAccessChanged = apperr.Forbiddenf("access revoked: your role or its permissions changed; reconnect")

// Stale compares the socket's viewer with fresh, rebuilt from the same
// credential now: a socket acts with the role it was opened with, so a
// changed role or permission set ends it (forbidden), as the revocation
// of that change would have.
func (s *Socket) Stale(fresh *viewer.Viewer) error {
	v := s.viewer
	if fresh.RoleID != v.RoleID || fresh.SuperAdmin != v.SuperAdmin || !maps.Equal(fresh.Permissions, v.Permissions) {
		return errAccessChanged
	}
	return nil
}
