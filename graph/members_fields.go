package graph

import (
	"context"
	"strings"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/organizationmember"
	"switchboard/ent/user"
	"switchboard/ent/viewer"
)

// memberUser is the member's user, from the loaded edge when there is one.
func (r *Resolver) memberUser(ctx context.Context, m *ent.OrganizationMember) (*ent.User, error) {
	if m.Edges.User != nil {
		return m.Edges.User, nil
	}
	u, err := m.QueryUser().Only(ctx)
	return u, apperr.Wrap(err, "user")
}

// memberRoleOf is the member's role, from the loaded edge when there is one.
func (r *Resolver) memberRoleOf(ctx context.Context, m *ent.OrganizationMember) (*ent.Role, error) {
	if m.Edges.Role != nil {
		return m.Edges.Role, nil
	}
	ro, err := m.QueryRole().Only(ctx)
	return ro, apperr.Wrap(err, "role")
}

// OrganizationUsersQuery returns the users who are members of the viewer's
// organization matching search (name or email). The membership predicate
// is about meaning (the viewer's own account is not listed unless it is a
// member); isolation itself is the data layer's.
func (r *Resolver) OrganizationUsersQuery(ctx context.Context, search string) *ent.UserQuery {
	v := viewer.FromContext(ctx)
	q := r.db(ctx).User.Query().Where(user.HasMembershipsWith(organizationmember.OrganizationID(v.OrgID)))
	if s := strings.TrimSpace(search); s != "" {
		q = q.Where(user.Or(user.FullNameContainsFold(s), user.EmailContainsFold(s)))
	}
	return q
}
