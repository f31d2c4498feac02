package access

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent/role"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
)

// principalQuery loads a user and their membership in one organization in a
// single round trip: it runs on every authenticated request.
const principalQuery = `SELECT u.email, u.is_active, u.is_super_admin,
 m.role_id, r.name, r.updated_at,
 EXISTS (SELECT 1 FROM refresh_tokens t WHERE t.family_id = ? AND t.revoked_at IS NOT NULL)
FROM users u
LEFT JOIN organization_members m ON m.user_id = u.id AND m.organization_id = ?
LEFT JOIN roles r ON r.id = m.role_id
WHERE u.id = ?`

// loadViewer builds the viewer of userID acting in orgID. It fails with
// Unauthenticated when the user is gone or deactivated, and with Forbidden
// when the user is not a member of orgID (a super admin may act anywhere).
func (s *Service) loadViewer(ctx context.Context, userID, orgID uuid.UUID) (*viewer.Viewer, error) {
	return s.loadSessionViewer(ctx, userID, orgID, uuid.Nil)
}

// loadSessionViewer is loadViewer for a session token of family: a family
// revoked by logout or by refresh-token reuse ends the session at once.
func (s *Service) loadSessionViewer(ctx context.Context, userID, orgID, family uuid.UUID) (*viewer.Viewer, error) {
	var (
		email      string
		active     bool
		superAdmin bool
		roleID     uuid.NullUUID
		roleName   sql.NullString
		roleStamp  sql.NullTime
		revoked    bool
	)
	err := s.scanPrincipal(ctx, family, userID, orgID, &email, &active, &superAdmin, &roleID, &roleName, &roleStamp, &revoked)
	if err != nil {
		return nil, err
	}
	if revoked {
		return nil, apperr.New(apperr.Unauthenticated, "session has ended; log in again")
	}
	if !active {
		return nil, apperr.New(apperr.Unauthenticated, "user is deactivated")
	}
	v := &viewer.Viewer{UserID: userID, OrgID: orgID, SuperAdmin: superAdmin, SessionID: family}
	switch {
	case roleID.Valid:
		v.RoleID, v.RoleName = roleID.UUID, roleName.String
		perms, err := s.rolePermissions(ctx, roleID.UUID, roleStamp.Time)
		if err != nil {
			return nil, err
		}
		v.Permissions = perms
	case superAdmin:
		if !s.orgExists(ctx, orgID) {
			return nil, apperr.NotFoundf("organization not found")
		}
		v.RoleName = RoleAdmin
		v.Permissions = allPermissions()
	default:
		return nil, apperr.Forbiddenf("you are not a member of this organization")
	}
	if superAdmin {
		// A super admin holds every permission in any organization.
		v.Permissions = allPermissions()
	}
	return v, nil
}

// scanPrincipal runs principalQuery and closes its rows before returning,
// so that later queries can use the connection (SQLite has only one).
func (s *Service) scanPrincipal(ctx context.Context, family, userID, orgID uuid.UUID, dest ...any) error {
	stmt, err := s.principalStmt(ctx)
	if err != nil {
		return apperr.Wrap(err, "user")
	}
	err = stmt.QueryRowContext(ctx, family, orgID, userID).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return apperr.New(apperr.Unauthenticated, "user no longer exists")
	}
	return apperr.Wrap(err, "user")
}

// principalStmt prepares principalQuery once: it runs on every request, and
// a prepared statement skips PostgreSQL's parse and plan.
func (s *Service) principalStmt(ctx context.Context) (*sql.Stmt, error) {
	s.stmtMu.Lock()
	defer s.stmtMu.Unlock()
	if s.stmt != nil {
		return s.stmt, nil
	}
	stmt, err := s.SQL.PrepareContext(ctx, s.rebind(principalQuery))
	if err != nil {
		return nil, err
	}
	s.stmt = stmt
	return stmt, nil
}

func (s *Service) orgExists(ctx context.Context, orgID uuid.UUID) bool {
	ok, _ := s.Client.Organization.Get(rule.Bypass(ctx, "super admin org check"), orgID)
	return ok != nil
}

// rebind turns ? placeholders into $n for PostgreSQL.
func (s *Service) rebind(q string) string {
	if !s.Postgres {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

type roleCacheEntry struct {
	stamp time.Time
	perms map[string]bool
}

// roleCache keeps each role's permission set, keyed by role id and checked
// against the role's updated_at, which every permission change bumps.
type roleCache struct {
	mu sync.RWMutex
	m  map[uuid.UUID]roleCacheEntry
}

func (s *Service) rolePermissions(ctx context.Context, roleID uuid.UUID, stamp time.Time) (map[string]bool, error) {
	s.roles.mu.RLock()
	e, ok := s.roles.m[roleID]
	s.roles.mu.RUnlock()
	if ok && e.stamp.Equal(stamp) {
		return e.perms, nil
	}
	perms, err := s.Client.Role.Query().Where(role.ID(roleID)).
		QueryPermissions().All(rule.Bypass(ctx, "permission lookup for authentication"))
	if err != nil {
		return nil, apperr.Wrap(err, "role")
	}
	set := make(map[string]bool, len(perms))
	for _, p := range perms {
		set[p.Resource+":"+p.Action] = true
	}
	s.roles.mu.Lock()
	if s.roles.m == nil {
		s.roles.m = map[uuid.UUID]roleCacheEntry{}
	}
	s.roles.m[roleID] = roleCacheEntry{stamp: stamp, perms: set}
	s.roles.mu.Unlock()
	return set, nil
}

var allPerms = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range Catalogue {
		m[p.Key()] = true
	}
	return m
}()

func allPermissions() map[string]bool { return allPerms }

// ViewerFor builds the viewer of userID in orgID; used by entry points that
// authenticate by other means (WebSocket tokens, tests).
func (s *Service) ViewerFor(ctx context.Context, userID, orgID uuid.UUID) (*viewer.Viewer, error) {
	return s.loadViewer(ctx, userID, orgID)
}
