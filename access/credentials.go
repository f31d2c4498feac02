package access

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"switchboard/apperr"
	"switchboard/auth"
	"switchboard/ent"
	"switchboard/ent/apikey"
	"switchboard/ent/predicate"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
)

var errBadToken = apperr.New(apperr.Unauthenticated, "invalid or expired token")

// AuthenticateAccess verifies an access JWT and returns its viewer, acting in
// orgOverride when that is set (X-Organization-ID). A token revoked by logout,
// a deactivated user or a removed membership fail at once.
func (s *Service) AuthenticateAccess(ctx context.Context, token string, orgOverride uuid.UUID) (*viewer.Viewer, error) {
	c, err := s.Tokens.Parse(token, auth.TokenAccess)
	if err != nil {
		if errors.Is(err, auth.ErrTokenExpired) {
			return nil, apperr.New(apperr.Unauthenticated, "access token expired")
		}
		return nil, errBadToken
	}
	orgID := c.OrgID
	if orgOverride != uuid.Nil {
		orgID = orgOverride
	}
	return s.loadSessionViewer(ctx, c.UserID(), orgID, c.FamilyID)
}

// ConsumeWSToken verifies a WebSocket token and spends it: it works once.
func (s *Service) ConsumeWSToken(ctx context.Context, used auth.UsedTokens, token string) (*viewer.Viewer, error) {
	c, err := s.Tokens.Parse(token, auth.TokenWS)
	if err != nil {
		return nil, errBadToken
	}
	first, err := used.MarkUsed(ctx, c.ID, time.Until(c.ExpiresAt.Time)+time.Minute)
	if err != nil {
		return nil, apperr.Wrap(err, "token")
	}
	if !first {
		return nil, apperr.New(apperr.Unauthenticated, "token already used")
	}
	if c.KeyID != uuid.Nil {
		return s.apiKeyViewer(ctx, rule.Bypass(ctx, "WebSocket token of an API key"), apikey.ID(c.KeyID), c.OrgID)
	}
	return s.loadSessionViewer(ctx, c.UserID(), c.OrgID, c.FamilyID)
}

var errBadKey = apperr.New(apperr.Unauthenticated, "invalid API key")

// lastUsedEvery bounds how often last_used_at of a key is written.
const lastUsedEvery = time.Minute

// AuthenticateAPIKey finds a key by the SHA-256 of its value (a unique
// index lookup, no slow hash per request) and returns the viewer of its
// creator in the key's organization. Expired, disabled and deleted keys are
// refused.
func (s *Service) AuthenticateAPIKey(ctx context.Context, key string, orgOverride uuid.UUID) (*viewer.Viewer, error) {
	hash, _, err := auth.ParseAPIKey(key)
	if err != nil {
		return nil, errBadKey
	}
	return s.apiKeyViewer(ctx, rule.Bypass(ctx, "API key authentication"), apikey.KeyHash(hash), orgOverride)
}

// apiKeyViewer returns the viewer of the one API key matching which (its
// hash, or its id for a WebSocket token issued to it): its creator in the
// key's organization, marked with the key. bctx bypasses the privacy rules
// for the key's lookup only.
func (s *Service) apiKeyViewer(ctx, bctx context.Context, which predicate.APIKey, orgOverride uuid.UUID) (*viewer.Viewer, error) {
	k, err := s.Client.APIKey.Query().Where(which).Only(bctx)
	if ent.IsNotFound(err) {
		return nil, errBadKey
	}
	if err != nil {
		return nil, apperr.Wrap(err, "API key")
	}
	if !k.IsActive {
		return nil, errBadKey
	}
	now := s.now()
	if k.ExpiresAt != nil && !now.Before(*k.ExpiresAt) {
		return nil, apperr.New(apperr.Unauthenticated, "API key expired")
	}
	if orgOverride != uuid.Nil && orgOverride != k.OrganizationID {
		return nil, apperr.Forbiddenf("an API key acts only in its own organization")
	}
	v, err := s.loadViewer(ctx, k.UserID, k.OrganizationID)
	if err != nil {
		var ae *apperr.Error
		if errors.As(err, &ae) && ae.Code == apperr.Forbidden {
			return nil, apperr.New(apperr.Unauthenticated, "API key owner is no longer a member")
		}
		return nil, err
	}
	v.APIKeyID = k.ID
	s.touchAPIKey(ctx, k.ID, now)
	return v, nil
}

// touchAPIKey records last_used_at at most once per lastUsedEvery per key,
// using Redis to decide so most requests write nothing.
func (s *Service) touchAPIKey(ctx context.Context, id uuid.UUID, now time.Time) {
	ok, err := s.Redis.SetNX(ctx, s.key("keyused", id.String()), 1, lastUsedEvery).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		s.Log.Warn("api key last-used throttle", "err", err)
		return
	}
	if !ok {
		return
	}
	bctx := rule.Bypass(context.WithoutCancel(ctx), "API key last_used_at")
	if err := s.Client.APIKey.UpdateOneID(id).SetLastUsedAt(now.UTC()).Exec(bctx); err != nil {
		s.Log.Warn("updating api key last_used_at", "err", err)
	}
}

// Reauthorize rebuilds the viewer of an open socket from the credential it
// was opened with (v's session, or its API key) against the current state:
// the session not ended, the user active and a member, the key active and
// unexpired, and the permissions of the role held now. It costs what a
// request's authentication does: one prepared query and the cached
// permission set of the role for a session; the key's lookup besides for
// an API key. Errors: unauthenticated (the credential ended), forbidden
// (no longer a member), not_found (a super admin's organization is gone).
func (s *Service) Reauthorize(ctx context.Context, v *viewer.Viewer) (*viewer.Viewer, error) {
	switch {
	case v.APIKeyID != uuid.Nil:
		return s.apiKeyViewer(ctx, rule.Bypass(ctx, "re-authorizing an API key's socket"), apikey.ID(v.APIKeyID), v.OrgID)
	case v.SessionID != uuid.Nil:
		return s.loadSessionViewer(ctx, v.UserID, v.OrgID, v.SessionID)
	}
	return nil, apperr.New(apperr.Unauthenticated, "only a session or an API key holds a socket")
}
