package graph

import (
	"context"
	"sort"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/organizationmember"
	"switchboard/ent/role"
	"switchboard/ent/rule"
	"switchboard/ent/user"
	"switchboard/ent/viewer"
	"switchboard/graph/model"
)

// Viewer returns the current principal: the user, the current organization,
// the role there with its permissions, and every organization the user
// belongs to. Errors: unauthenticated (no viewer).
func (r *Resolver) Viewer(ctx context.Context) (*model.Me, error) {
	v := viewer.FromContext(ctx)
	if v == nil || v.UserID == uuid.Nil {
		return nil, apperr.New(apperr.Unauthenticated, "authentication required")
	}
	db := r.db(ctx)
	u, err := db.User.Query().Where(user.ID(v.UserID)).Only(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "user")
	}
	org, err := db.Organization.Get(ctx, v.OrgID)
	if err != nil {
		return nil, apperr.Wrap(err, "organization")
	}
	me := &model.Me{User: u, Organization: org, Permissions: permissionList(v)}
	if v.RoleID != uuid.Nil {
		me.Role, err = db.Role.Query().Where(role.ID(v.RoleID)).WithPermissions().Only(ctx)
		if err != nil {
			return nil, apperr.Wrap(err, "role")
		}
	}
	// The viewer's own memberships span organizations: a named bypass,
	// filtered to the viewer's user id.
	ms, err := db.OrganizationMember.Query().
		Where(organizationmember.UserID(v.UserID)).
		WithOrganization().WithRole().
		Order(ent.Asc(organizationmember.FieldCreatedAt)).
		All(rule.Bypass(ctx, "listing the viewer's own memberships"))
	if err != nil {
		return nil, apperr.Wrap(err, "membership")
	}
	for _, m := range ms {
		mo := &model.MyOrganization{Organization: m.Edges.Organization, IsDefault: m.IsDefault}
		if m.Edges.Role != nil {
			mo.RoleName = m.Edges.Role.Name
		}
		me.Organizations = append(me.Organizations, mo)
	}
	return me, nil
}

func permissionList(v *viewer.Viewer) []string {
	out := make([]string, 0, len(v.Permissions))
	for p, ok := range v.Permissions {
		if ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
