package graph

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/invitation"
	"switchboard/ent/organizationmember"
	"switchboard/ent/permission"
	"switchboard/ent/role"
	"switchboard/ent/ssoconfig"
	"switchboard/graph/model"
)

// Limits of a role's text fields (the columns' limits).
const (
	maxRoleName        = 100
	maxRoleDescription = 500
)

// ListPermissions returns the permission catalogue sorted by resource and
// action.
func (r *Resolver) ListPermissions(ctx context.Context) ([]*ent.Permission, error) {
	ps, err := r.db(ctx).Permission.Query().
		Order(ent.Asc(permission.FieldResource), ent.Asc(permission.FieldAction)).All(ctx)
	return ps, apperr.Wrap(err, "permission")
}

// RolesQuery returns the roles of the viewer's organization matching search
// (name or description, case-insensitive).
func (r *Resolver) RolesQuery(ctx context.Context, search string) *ent.RoleQuery {
	q := r.db(ctx).Role.Query()
	if s := strings.TrimSpace(search); s != "" {
		q = q.Where(role.Or(role.NameContainsFold(s), role.DescriptionContainsFold(s)))
	}
	return q
}

// ListRoles returns a page of RolesQuery, system roles first and then by
// name, each with its permissions, and the total of the filter.
func (r *Resolver) ListRoles(ctx context.Context, search string, offset, limit int) ([]*ent.Role, int, error) {
	q := r.RolesQuery(ctx, search).WithPermissions().Order(ent.Desc(role.FieldIsSystem), ent.Asc(role.FieldName), ent.Asc(role.FieldID))
	return offsetPage(ctx, q, offset, limit, "role")
}

// RolePermissionCounts counts the permissions of each role in ids with one
// query; roles without permissions are absent from the map.
func (r *Resolver) RolePermissionCounts(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]int, error) {
	var rows []struct {
		RoleID uuid.UUID `json:"role_id"`
		Count  int       `json:"count"`
	}
	err := r.db(ctx).Role.Query().Where(role.IDIn(ids...)).Modify(func(s *sql.Selector) {
		rp := sql.Table(role.PermissionsTable)
		s.Join(rp).On(s.C(role.FieldID), rp.C(role.PermissionsPrimaryKey[0])).
			GroupBy(s.C(role.FieldID)).
			Select(sql.As(s.C(role.FieldID), "role_id"), sql.As(sql.Count("*"), "count"))
	}).Scan(ctx, &rows)
	if err != nil {
		return nil, apperr.Wrap(err, "role")
	}
	out := make(map[uuid.UUID]int, len(rows))
	for _, row := range rows {
		out[row.RoleID] = row.Count
	}
	return out, nil
}

// RoleUserCounts counts the members of the viewer's organization holding
// each role in ids with one query; roles nobody holds are absent from the
// map.
func (r *Resolver) RoleUserCounts(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]int, error) {
	var rows []struct {
		RoleID uuid.UUID `json:"role_id"`
		Count  int       `json:"count"`
	}
	err := r.db(ctx).OrganizationMember.Query().Where(organizationmember.RoleIDIn(ids...)).
		GroupBy(organizationmember.FieldRoleID).Aggregate(ent.Count()).Scan(ctx, &rows)
	if err != nil {
		return nil, apperr.Wrap(err, "member")
	}
	out := make(map[uuid.UUID]int, len(rows))
	for _, row := range rows {
		out[row.RoleID] = row.Count
	}
	return out, nil
}

// GetRole returns a role with its permissions sorted by resource and
// action. Errors: not_found.
func (r *Resolver) GetRole(ctx context.Context, id uuid.UUID) (*ent.Role, error) {
	ro, err := r.db(ctx).Role.Query().Where(role.ID(id)).
		WithPermissions(func(q *ent.PermissionQuery) {
			q.Order(ent.Asc(permission.FieldResource), ent.Asc(permission.FieldAction))
		}).Only(ctx)
	return ro, apperr.Wrap(err, "role")
}

// CreateRole creates a custom role. Setting is_default makes it the role
// new members get and clears the flag on every other role. Errors: invalid
// (name missing, too long or already used in the organization,
// case-insensitively; a permission key not in the catalogue).
func (r *Resolver) CreateRole(ctx context.Context, in model.CreateRoleInput) (*ent.Role, error) {
	name, err := r.validRoleName(ctx, in.Name, uuid.Nil)
	if err != nil {
		return nil, err
	}
	if err := validRoleDescription(in.Description); err != nil {
		return nil, err
	}
	if in.Permissions == nil {
		return nil, apperr.Invalidf("permissions is required")
	}
	ids, err := r.permissionIDs(ctx, in.Permissions)
	if err != nil {
		return nil, err
	}
	c := r.db(ctx).Role.Create().SetName(name).SetNillableDescription(in.Description).
		AddPermissionIDs(ids...)
	if in.IsDefault != nil && *in.IsDefault {
		if err := r.clearDefaultRole(ctx, uuid.Nil); err != nil {
			return nil, err
		}
		c.SetIsDefault(true)
	}
	ro, err := c.Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "role")
	}
	return r.GetRole(ctx, ro.ID)
}

// UpdateRole changes the given fields of a role. A permission list replaces
// the role's set; every change bumps the role's updated_at, which is the key
// of the authentication layer's permission cache, so holders of the role
// gain or lose access on their next request. System roles cannot be
// renamed, and the Admin role always keeps every permission. Renaming a
// role also renames it where SSO configurations name it as their default
// role. Errors: not_found, invalid (as CreateRole; renaming a system role;
// changing the Admin role's permissions).
func (r *Resolver) UpdateRole(ctx context.Context, id uuid.UUID, in model.UpdateRoleInput) (*ent.Role, error) {
	db := r.db(ctx)
	cur, err := r.GetRole(ctx, id)
	if err != nil {
		return nil, err
	}
	u := db.Role.UpdateOneID(id)
	rename := ""
	if in.Name != nil && strings.TrimSpace(*in.Name) != cur.Name {
		if cur.IsSystem {
			return nil, apperr.Invalidf("system role %s cannot be renamed", cur.Name)
		}
		if rename, err = r.validRoleName(ctx, *in.Name, id); err != nil {
			return nil, err
		}
		u.SetName(rename)
	}
	if err := validRoleDescription(in.Description); err != nil {
		return nil, err
	}
	u.SetNillableDescription(in.Description)
	if in.Permissions != nil {
		ids, err := r.permissionIDs(ctx, in.Permissions)
		if err != nil {
			return nil, err
		}
		if isAdminRole(cur) && len(ids) != len(access.Catalogue) {
			return nil, apperr.Invalidf("the Admin role always holds every permission; its permissions cannot be changed")
		}
		u.ClearPermissions().AddPermissionIDs(ids...)
	}
	if in.IsDefault != nil {
		if *in.IsDefault && !cur.IsDefault {
			if err := r.clearDefaultRole(ctx, id); err != nil {
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
		r.Revocations.Publish(ctx, access.EndRole(id, "your role's permissions changed"))
	}
	return r.GetRole(ctx, id)
}

// DeleteRole deletes a custom role. Errors: not_found, invalid (a system
// role; a role still held by members or by pending invitations, or named as
// the default role of an SSO configuration).
func (r *Resolver) DeleteRole(ctx context.Context, id uuid.UUID) error {
	db := r.db(ctx)
	cur, err := db.Role.Get(ctx, id)
	if err != nil {
		return apperr.Wrap(err, "role")
	}
	if cur.IsSystem {
		return apperr.Invalidf("system role %s cannot be deleted", cur.Name)
	}
	members, err := db.OrganizationMember.Query().Where(organizationmember.RoleID(id)).Count(ctx)
	if err != nil {
		return apperr.Wrap(err, "membership")
	}
	if members > 0 {
		return apperr.Invalidf("role is assigned to %s; reassign them first", plural(members, "member"))
	}
	invites, err := db.Invitation.Query().Where(invitation.RoleID(id), invitation.AcceptedAtIsNil(),
		invitation.ExpiresAtGT(time.Now())).Count(ctx)
	if err != nil {
		return apperr.Wrap(err, "invitation")
	}
	if invites > 0 {
		return apperr.Invalidf("role is assigned to %s; reassign them first", plural(invites, "pending invitation"))
	}
	sso, err := db.SSOConfig.Query().Where(ssoconfig.DefaultRoleEqualFold(cur.Name)).
		Order(ent.Asc(ssoconfig.FieldProvider)).All(ctx)
	if err != nil {
		return apperr.Wrap(err, "SSO configuration")
	}
	if len(sso) > 0 {
		return apperr.Invalidf("role is the default role of the %s SSO configuration; change it first", sso[0].Provider)
	}
	if err := db.Role.DeleteOneID(id).Exec(ctx); err != nil {
		return apperr.Wrap(err, "role")
	}
	r.Revocations.Publish(ctx, access.EndRole(id, "your role was deleted"))
	return nil
}

// validRoleName trims name and checks it is present, short enough and not
// used by another role of the organization (case-insensitively, so that
// names resolve unambiguously, as SSO default roles do). self is the role
// being renamed, or uuid.Nil.
func (r *Resolver) validRoleName(ctx context.Context, name string, self uuid.UUID) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", apperr.Invalidf("name is required")
	}
	if utf8.RuneCountInString(name) > maxRoleName {
		return "", apperr.Invalidf("name must be at most %d characters", maxRoleName)
	}
	taken, err := r.db(ctx).Role.Query().Where(role.NameEqualFold(name), role.IDNEQ(self)).Exist(ctx)
	if err != nil {
		return "", apperr.Wrap(err, "role")
	}
	if taken {
		return "", apperr.Invalidf("a role named %q already exists", name)
	}
	return name, nil
}

func validRoleDescription(d *string) error {
	if d != nil && utf8.RuneCountInString(*d) > maxRoleDescription {
		return apperr.Invalidf("description must be at most %d characters", maxRoleDescription)
	}
	return nil
}

// permissionIDs resolves "resource:action" keys (duplicates allowed) to
// permission ids. Errors: invalid naming the first key that is not in the
// catalogue.
func (r *Resolver) permissionIDs(ctx context.Context, keys []string) ([]uuid.UUID, error) {
	for _, k := range keys {
		if !access.ValidPermission(k) {
			return nil, apperr.Invalidf("unknown permission %q (permissions are resource:action keys from GET /api/permissions)", k)
		}
	}
	all, err := r.db(ctx).Permission.Query().All(ctx)
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

// clearDefaultRole removes the default flag from every role but except.
func (r *Resolver) clearDefaultRole(ctx context.Context, except uuid.UUID) error {
	_, err := r.db(ctx).Role.Update().Where(role.IsDefault(true), role.IDNEQ(except)).
		SetIsDefault(false).Save(ctx)
	return apperr.Wrap(err, "role")
}

func isAdminRole(ro *ent.Role) bool { return ro.IsSystem && ro.Name == access.RoleAdmin }

func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
