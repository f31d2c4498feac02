package access

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"switchboard/apperr"
	"switchboard/auth"
	"switchboard/ent"
	"switchboard/ent/organizationmember"
	"switchboard/ent/refreshtoken"
	"switchboard/ent/rule"
	"switchboard/ent/user"
	"switchboard/ent/viewer"
)

// Service authenticates credentials and issues sessions.
type Service struct {
	Client *ent.Client
	// SQL is the pool under Client, for the prepared per-request query.
	SQL      *sql.DB
	Postgres bool
	Tokens   *auth.Tokens
	Redis    redis.Cmdable
	// Prefix namespaces every Redis key of this service.
	Prefix string
	Log    *slog.Logger
	Now    func() time.Time
	// Revocations ends the open sockets of ended sessions.
	Revocations *Revocations

	roles  roleCache
	stmtMu sync.Mutex
	stmt   *sql.Stmt
}

// Login brute-force limits: failures for one email from one client
// address, and from one client address in all, within loginWindow.
const (
	loginWindow          = 15 * time.Minute
	loginFailsPerAccount = 10
	loginFailsPerIP      = 50
)

// Session is the outcome of a login, registration, refresh or switch.
type Session struct {
	AccessToken  string
	AccessExp    time.Time
	RefreshToken string
	RefreshExp   time.Time
	CSRFToken    string
	Viewer       *viewer.Viewer
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

var errBadLogin = apperr.New(apperr.Unauthenticated, "invalid email or password")

// Login checks an email and password. Unknown emails and wrong passwords
// answer the same, in the same time. Repeated failures per account and per
// client address are refused for a while (rate_limited).
func (s *Service) Login(ctx context.Context, email, password, clientIP string) (*Session, error) {
	email = NormalizeEmail(email)
	if email == "" || password == "" {
		return nil, apperr.Invalidf("email and password are required")
	}
	if err := s.checkLoginThrottle(ctx, email, clientIP); err != nil {
		return nil, err
	}
	bctx := rule.Bypass(ctx, "login looks up the user by email")
	u, err := s.Client.User.Query().Where(user.Email(email)).Only(bctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, apperr.Wrap(err, "user")
	}
	if u == nil || u.PasswordHash == "" {
		auth.DummyCheck()
		s.recordLoginFailure(ctx, email, clientIP)
		return nil, errBadLogin
	}
	if !auth.CheckPassword(u.PasswordHash, password) {
		s.recordLoginFailure(ctx, email, clientIP)
		return nil, errBadLogin
	}
	if !u.IsActive {
		return nil, apperr.New(apperr.Unauthenticated, "this account is deactivated")
	}
	s.clearLoginFailures(ctx, email, clientIP)
	orgID, err := s.defaultOrganization(bctx, u)
	if err != nil {
		return nil, err
	}
	_ = s.Client.User.UpdateOneID(u.ID).SetLastLoginAt(s.now().UTC()).Exec(bctx)
	return s.newSession(ctx, u.ID, orgID, uuid.New())
}

// defaultOrganization picks the membership marked default, else the oldest.
func (s *Service) defaultOrganization(bctx context.Context, u *ent.User) (uuid.UUID, error) {
	ms, err := s.Client.OrganizationMember.Query().
		Where(organizationmember.UserID(u.ID)).
		Order(ent.Desc(organizationmember.FieldIsDefault), ent.Asc(organizationmember.FieldCreatedAt)).
		Limit(1).All(bctx)
	if err != nil {
		return uuid.Nil, apperr.Wrap(err, "membership")
	}
	if len(ms) == 0 {
		return uuid.Nil, apperr.Forbiddenf("this account does not belong to any organization")
	}
	return ms[0].OrganizationID, nil
}

// newSession issues an access and a refresh token for userID in orgID.
func (s *Service) newSession(ctx context.Context, userID, orgID, family uuid.UUID) (*Session, error) {
	v, err := s.loadViewer(ctx, userID, orgID)
	if err != nil {
		return nil, err
	}
	v.SessionID = family
	access, accessExp, err := s.Tokens.IssueAccess(userID, orgID, family)
	if err != nil {
		return nil, apperr.Wrap(err, "token")
	}
	refresh, rc, err := s.Tokens.IssueRefresh(userID, orgID, family)
	if err != nil {
		return nil, apperr.Wrap(err, "token")
	}
	jti, err := uuid.Parse(rc.ID)
	if err != nil {
		return nil, apperr.Wrap(err, "token")
	}
	err = s.Client.RefreshToken.Create().SetID(jti).SetUserID(userID).SetOrganizationID(orgID).
		SetFamilyID(family).SetExpiresAt(rc.ExpiresAt.Time).
		Exec(rule.Bypass(ctx, "issuing a refresh token"))
	if err != nil {
		return nil, apperr.Wrap(err, "refresh token")
	}
	return &Session{
		AccessToken: access, AccessExp: accessExp,
		RefreshToken: refresh, RefreshExp: rc.ExpiresAt.Time,
		CSRFToken: s.Tokens.CSRF(family), Viewer: v,
	}, nil
}

var errBadRefresh = apperr.New(apperr.Unauthenticated, "invalid or expired refresh token")

// Refresh rotates a refresh token: the presented token is spent and a new
// pair is issued in the same organization. Presenting a spent token again
// revokes every token of its family (the session was stolen or replayed).
func (s *Service) Refresh(ctx context.Context, token string) (*Session, error) {
	c, err := s.Tokens.Parse(token, auth.TokenRefresh)
	if err != nil {
		return nil, errBadRefresh
	}
	jti, err := uuid.Parse(c.ID)
	if err != nil {
		return nil, errBadRefresh
	}
	bctx := rule.Bypass(ctx, "refresh token rotation")
	now := s.now().UTC()
	n, err := s.Client.RefreshToken.Update().
		Where(refreshtoken.ID(jti), refreshtoken.UsedAtIsNil(), refreshtoken.RevokedAtIsNil(),
			refreshtoken.ExpiresAtGT(now)).
		SetUsedAt(now).Save(bctx)
	if err != nil {
		return nil, apperr.Wrap(err, "refresh token")
	}
	if n == 0 {
		rt, gerr := s.Client.RefreshToken.Get(bctx, jti)
		if gerr == nil && rt.UsedAt != nil {
			s.revokeFamily(bctx, rt.FamilyID)
			s.Log.Warn("refresh token reuse detected; family revoked",
				"user_id", rt.UserID, "family_id", rt.FamilyID)
		}
		return nil, errBadRefresh
	}
	sess, err := s.newSession(ctx, c.UserID(), c.OrgID, c.FamilyID)
	if err != nil {
		var ae *apperr.Error
		if errors.As(err, &ae) && (ae.Code == apperr.Forbidden || ae.Code == apperr.NotFound) {
			return nil, apperr.New(apperr.Unauthenticated, "membership no longer valid; log in again")
		}
		return nil, err
	}
	return sess, nil
}

func (s *Service) revokeFamily(bctx context.Context, family uuid.UUID) {
	_, err := s.Client.RefreshToken.Update().
		Where(refreshtoken.FamilyID(family), refreshtoken.RevokedAtIsNil()).
		SetRevokedAt(s.now().UTC()).Save(bctx)
	if err != nil {
		s.Log.Error("revoking refresh token family", "family_id", family, "err", err)
	}
	s.Revocations.Publish(bctx, EndSession(family))
}

// Logout ends the session: it revokes the token family of the presented
// refresh and access tokens, so both stop working at once.
func (s *Service) Logout(ctx context.Context, refreshToken, accessToken string) error {
	bctx := rule.Bypass(ctx, "logout revokes tokens")
	if c, err := s.Tokens.Parse(refreshToken, auth.TokenRefresh); err == nil {
		s.revokeFamily(bctx, c.FamilyID)
	}
	if c, err := s.Tokens.Parse(accessToken, auth.TokenAccess); err == nil {
		s.revokeFamily(bctx, c.FamilyID)
	}
	return nil
}

// SessionOf returns the session family of a refresh or access token of
// this service, expired or not (uuid.Nil when neither is one).
func (s *Service) SessionOf(refreshToken, accessToken string) uuid.UUID {
	if f := s.Tokens.SessionFamily(refreshToken); f != uuid.Nil {
		return f
	}
	return s.Tokens.SessionFamily(accessToken)
}

// SwitchOrganization issues a session for the viewer in another organization
// they belong to (a super admin may switch to any).
func (s *Service) SwitchOrganization(ctx context.Context, v *viewer.Viewer, orgID uuid.UUID) (*Session, error) {
	if v.APIKeyID != uuid.Nil {
		return nil, apperr.Forbiddenf("API keys cannot switch organization")
	}
	sess, err := s.newSession(ctx, v.UserID, orgID, uuid.New())
	if err != nil {
		var ae *apperr.Error
		if errors.As(err, &ae) && ae.Code == apperr.Forbidden {
			return nil, apperr.NotFoundf("organization not found")
		}
		return nil, err
	}
	return sess, nil
}

// IssueWSToken returns a short-lived, single-use token for /ws and the
// GraphQL WebSocket. It carries the credential it was issued to (the
// session, or the API key), so the socket it opens acts with exactly that
// credential's identity and limits and ends with it. Errors: forbidden (a
// viewer with neither, such as a system actor).
func (s *Service) IssueWSToken(v *viewer.Viewer) (string, error) {
	if v.SessionID == uuid.Nil && v.APIKeyID == uuid.Nil {
		return "", apperr.Forbiddenf("only a signed-in user or an API key can open a WebSocket")
	}
	tok, _, err := s.Tokens.IssueWS(v.UserID, v.OrgID, v.SessionID, v.APIKeyID)
	if err != nil {
		return "", apperr.Wrap(err, "token")
	}
	return tok, nil
}

// NormalizeEmail lowercases and trims an email address.
func NormalizeEmail(e string) string { return strings.ToLower(strings.TrimSpace(e)) }

func (s *Service) key(parts ...string) string {
	return s.Prefix + "access:" + strings.Join(parts, ":")
}

// RevokeUserSessions ends every session of userID except the one of family
// keep (uuid.Nil keeps none): their refresh tokens stop rotating and their
// access tokens stop working at the next request. c may be a transaction's
// client. Password changes and resets call it.
func RevokeUserSessions(ctx context.Context, c *ent.Client, userID, keep uuid.UUID) error {
	q := c.RefreshToken.Update().Where(refreshtoken.UserID(userID), refreshtoken.RevokedAtIsNil())
	if keep != uuid.Nil {
		q.Where(refreshtoken.FamilyIDNEQ(keep))
	}
	_, err := q.SetRevokedAt(time.Now().UTC()).Save(rule.Bypass(ctx, "revoking a user's sessions"))
	return apperr.Wrap(err, "session")
}
