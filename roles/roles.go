// Package roles owns an organization's roles: their names (unique,
// case-insensitively), descriptions and permission sets (keys of
// access.Catalogue), the default role new members get, which roles are
// Admin seats (access.IsAdminSeat), and the SSO configurations' default
// role name, which follows a rename. It reads the permission catalogue as
// stored, and counts who holds a role; it does not change who holds one
// (package people) nor the catalogue and the system roles themselves
// (package access seeds them). Transports (rest/, graph/) call its
// Service.
package roles

import (
	"context"
	"fmt"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/invitation"
	"switchboard/ent/organizationmember"
	"switchboard/ent/permission"
	"switchboard/ent/role"
	"switchboard/ent/ssoconfig"
	"switchboard/internal/valid"
)

// Limits of a role's text fields (the columns' limits).
const (
	MaxNameLength        = 100
	MaxDescriptionLength = 500
)

// Service is the roles' operations.
type Service struct {
	Client *ent.Client
	// Revocations ends the open sockets of a role's holders when its
	// permissions change or it is deleted.
	Revocations *access.Revocations
}

// CreateInput is a new custom role. Permissions are "resource:action"
// keys (duplicates allowed); nil is refused.
type CreateInput struct {
	Name        string
	Description *string
	Permissions []string
	IsDefault   *bool
}

// UpdateInput changes a role; nil fields (and a nil Permissions) keep
// their value, an empty Permissions takes every permission away.
type UpdateInput struct {
	Name        *string
	Description *string
	Permissions []string
	IsDefault   *bool
}

func (s *Service) db(ctx context.Context) *ent.Client { return database.ClientFor(ctx, s.Client) }

// Permissions returns the permission catalogue sorted by resource and
// action.
func (s *Service) Permissions(ctx context.Context) ([]*ent.Permission, error) {
	ps, err := s.db(ctx).Permission.Query().
		Order(ent.Asc(permission.FieldResource), ent.Asc(permission.FieldAction)).All(ctx)
	return ps, apperr.Wrap(err, "permission")
}

// Query returns the roles of the viewer's organization matching search
// (name or description, case-insensitive).
func (s *Service) Query(ctx context.Context, search string) *ent.RoleQuery {
	q := s.db(ctx).Role.Query()
	if t := strings.TrimSpace(search); t != "" {
		q = q.Where(role.Or(role.NameContainsFold(t), role.DescriptionContainsFold(t)))
	}
	return q
}

// List returns a page of Query, system roles first and then by name, each
// with its permissions, and the total of the filter.
func (s *Service) List(ctx context.Context, search string, offset, limit int) ([]*ent.Role, int, error) {
	q := s.Query(ctx, search).WithPermissions().
		Order(ent.Desc(role.FieldIsSystem), ent.Asc(role.FieldName), ent.Asc(role.FieldID))
	rs, total, err := database.OffsetPage(ctx, q, offset, limit)
	return rs, total, apperr.Wrap(err, "role")
}

// PermissionCounts counts the permissions of each role in ids with one
// query; roles without permissions are absent from the map.
func (s *Service) PermissionCounts(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]int, error) {
	var rows []roleCount
	err := s.db(ctx).Role.Query().Where(role.IDIn(ids...)).Modify(func(sel *sql.Selector) {
		rp := sql.Table(role.PermissionsTable)
		sel.Join(rp).On(sel.C(role.FieldID), rp.C(role.PermissionsPrimaryKey[0])).
			GroupBy(sel.C(role.FieldID)).
			Select(sql.As(sel.C(role.FieldID), "role_id"), sql.As(sql.Count("*"), "count"))
	}).Scan(ctx, &rows)
	if err != nil {
		return nil, apperr.Wrap(err, "role")
	}
	return countsOf(rows), nil
}

// UserCounts counts the members of the viewer's organization holding each
// role in ids with one query; roles nobody holds are absent from the map.
func (s *Service) UserCounts(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]int, error) {
	var rows []roleCount
	err := s.db(ctx).OrganizationMember.Query().Where(organizationmember.RoleIDIn(ids...)).
		GroupBy(organizationmember.FieldRoleID).Aggregate(ent.Count()).Scan(ctx, &rows)
	if err != nil {
		return nil, apperr.Wrap(err, "member")
	}
	return countsOf(rows), nil
}

// roleCount is a row of a count per role.
type roleCount struct {
	RoleID uuid.UUID `json:"role_id"`
	Count  int       `json:"count"`
}

func countsOf(rows []roleCount) map[uuid.UUID]int {
	out := make(map[uuid.UUID]int, len(rows))
	for _, row := range rows {
		out[row.RoleID] = row.Count
	}
	return out
}

// Get returns a role with its permissions sorted by resource and action.
// Errors: not_found.
func (s *Service) Get(ctx context.Context, id uuid.UUID) (*ent.Role, error) {
	ro, err := s.db(ctx).Role.Query().Where(role.ID(id)).
		WithPermissions(func(q *ent.PermissionQuery) {
			q.Order(ent.Asc(permission.FieldResource), ent.Asc(permission.FieldAction))
		}).Only(ctx)
	return ro, apperr.Wrap(err, "role")
}

// Create creates a custom role. Setting is_default makes it the role new
// members get and clears the flag on every other role. Errors: invalid
// (name missing, too long or already used in the organization,
// case-insensitively; description too long; permissions missing; a
// permission key not in the catalogue).
func (s *Service) Create(ctx context.Context, in CreateInput) (*ent.Role, error) {
	name, err := s.validName(ctx, in.Name, uuid.Nil)
	if err != nil {
		return nil, err
	}
	if err := validDescription(in.Description); err != nil {
		return nil, err
	}
	if in.Permissions == nil {
		return nil, valid.Required("permissions")
	}
	ids, err := s.permissionIDs(ctx, in.Permissions)
	if err != nil {
		return nil, err
	}
	c := s.db(ctx).Role.Create().SetName(name).SetNillableDescription(in.Description).
		AddPermissionIDs(ids...)
	if in.IsDefault != nil && *in.IsDefault {
		if err := s.clearDefault(ctx, uuid.Nil); err != nil {
			return nil, err
		}
		c.SetIsDefault(true)
	}
	ro, err := c.Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "role")
	}
	return s.Get(ctx, ro.ID)
}

// Update changes the given fields of a role. A permission list replaces
// the role's set; every change bumps the role's updated_at, which is the
// key of the authentication layer's permission cache, so holders of the
// role gain or lose access on their next request (and their open sockets
// end after the commit when the permissions changed). System roles cannot
// be renamed, and the Admin role always keeps every permission
// (keepSystemAdminSeat). Renaming a role also renames it where SSO
// configurations name it as their default role. Errors: not_found,
// invalid (as Create; renaming a system role; taking a permission from the
// Admin role).
func (s *Service) Update(ctx context.Context, id uuid.UUID, in UpdateInput) (*ent.Role, error) {
	db := s.db(ctx)
	cur, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	u := db.Role.UpdateOneID(id)
	rename := ""
	if in.Name != nil && strings.TrimSpace(*in.Name) != cur.Name {
		if cur.IsSystem {
			return nil, apperr.Invalidf("system role %s cannot be renamed", cur.Name)
		}
		if rename, err = s.validName(ctx, *in.Name, id); err != nil {
			return nil, err
		}
		u.SetName(rename)
	}
	if err := validDescription(in.Description); err != nil {
		return nil, err
	}
	u.SetNillableDescription(in.Description)
	if in.Permissions != nil {
		ids, err := s.permissionIDs(ctx, in.Permissions)
		if err != nil {
			return nil, err
		}
		if err := s.keepSystemAdminSeat(ctx, cur, in.Permissions); err != nil {
			return nil, err
		}
		u.ClearPermissions().AddPermissionIDs(ids...)
	}
	if in.IsDefault != nil {
		if *in.IsDefault && !cur.IsDefault {
			if err := s.clearDefault(ctx, id); err != nil {
				return nil, err
			}
		}
		u.SetIsDefault(*in.IsDefault)
	}
	if rename != "" {
		err := db.SSOConfig.Update().Where(ssoconfig.DefaultRoleEqualFold(cur.Name)).
			SetDefaultRole(rename).Exec(ctx)
		if err != nil {
			return nil, apperr.Wrap(err, "SSO configuration")
		}
	}
	// Saving always sets updated_at (ent's UpdateDefault); make it strictly
	// later than the stored stamp so that even two edits within the
	// database's timestamp resolution invalidate cached permission sets.
	stamp := time.Now().UTC()
	if next := cur.UpdatedAt.Add(time.Millisecond); stamp.Before(next) {
		stamp = next
	}
	if err := u.SetUpdatedAt(stamp).Exec(ctx); err != nil {
		return nil, apperr.Wrap(err, "role")
	}
	if in.Permissions != nil {
		s.Revocations.Publish(ctx, access.EndRole(id, "your role's permissions changed"))
	}
	return s.Get(ctx, id)
}

// Delete deletes a custom role; its holders' open sockets end after the
// commit. Errors: not_found, invalid (a system role; a role still held by
// members or by pending invitations, or named as the default role of an
// SSO configuration).
func (s *Service) Delete(ctx context.Context, id uuid.UUID) error {
	db := s.db(ctx)
	cur, err := db.Role.Get(ctx, id)
	if err != nil {
		return apperr.Wrap(err, "role")
	}
	if cur.IsSystem {
		return apperr.Invalidf("system role %s cannot be deleted", cur.Name)
	}
	if err := s.notHeld(ctx, cur); err != nil {
		return err
	}
	if err := db.Role.DeleteOneID(id).Exec(ctx); err != nil {
		return apperr.Wrap(err, "role")
	}
	s.Revocations.Publish(ctx, access.EndRole(id, "your role was deleted"))
	return nil
}

// notHeld refuses to delete a role that members, pending invitations or
// an SSO configuration's default role still name.
func (s *Service) notHeld(ctx context.Context, ro *ent.Role) error {
	db := s.db(ctx)
	members, err := db.OrganizationMember.Query().Where(organizationmember.RoleID(ro.ID)).Count(ctx)
	if err != nil {
		return apperr.Wrap(err, "membership")
	}
	if members > 0 {
		return apperr.Invalidf("role is assigned to %s; reassign them first", plural(members, "member"))
	}
	invites, err := db.Invitation.Query().Where(invitation.RoleID(ro.ID), invitation.AcceptedAtIsNil(),
		invitation.ExpiresAtGT(time.Now())).Count(ctx)
	if err != nil {
		return apperr.Wrap(err, "invitation")
	}
	if invites > 0 {
		return apperr.Invalidf("role is assigned to %s; reassign them first", plural(invites, "pending invitation"))
	}
	sso, err := db.SSOConfig.Query().Where(ssoconfig.DefaultRoleEqualFold(ro.Name)).
		Order(ent.Asc(ssoconfig.FieldProvider)).All(ctx)
	if err != nil {
		return apperr.Wrap(err, "SSO configuration")
	}
	if len(sso) > 0 {
		return apperr.Invalidf("role is the default role of the %s SSO configuration; change it first", sso[0].Provider)
	}
	return nil
}

// validName trims name and checks it is present, short enough and not
// used by another role of the organization (case-insensitively, so that
// names resolve unambiguously, as SSO default roles do). self is the role
// being renamed, or uuid.Nil.
func (s *Service) validName(ctx context.Context, name string, self uuid.UUID) (string, error) {
	name, err := valid.RequiredText("name", name, MaxNameLength)
	if err != nil {
		return "", err
	}
	taken, err := s.db(ctx).Role.Query().Where(role.NameEqualFold(name), role.IDNEQ(self)).Exist(ctx)
	if err != nil {
		return "", apperr.Wrap(err, "role")
	}
	if taken {
		return "", apperr.Invalidf("a role named %q already exists", name)
	}
	return name, nil
}

func validDescription(d *string) error {
	if d == nil {
		return nil
	}
	return valid.Check("description", *d, MaxDescriptionLength)
}

// permissionIDs resolves "resource:action" keys (duplicates allowed) to
// permission ids. Errors: invalid naming the first key that is not in the
// catalogue.
func (s *Service) permissionIDs(ctx context.Context, keys []string) ([]uuid.UUID, error) {
	for _, k := range keys {
		if !access.ValidPermission(k) {
			return nil, apperr.Invalidf("unknown permission %q (permissions are resource:action keys from GET /api/permissions)", k)
		}
	}
	all, err := s.db(ctx).Permission.Query().All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "permission")
	}
	byKey := make(map[string]uuid.UUID, len(all))
	for _, p := range all {
		byKey[p.Resource+":"+p.Action] = p.ID
	}
	seen := map[uuid.UUID]bool{}
	ids := make([]uuid.UUID, 0, len(keys))
	for _, k := range keys {
		id, ok := byKey[k]
		if !ok {
			// In the catalogue but not seeded: startup seeds every entry.
			return nil, apperr.New(apperr.Internal, "permission %s is missing from the database", k)
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// clearDefault removes the default flag from every role but except.
func (s *Service) clearDefault(ctx context.Context, except uuid.UUID) error {
	_, err := s.db(ctx).Role.Update().Where(role.IsDefault(true), role.IDNEQ(except)).
		SetIsDefault(false).Save(ctx)
	return apperr.Wrap(err, "role")
}

func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
