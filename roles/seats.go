package roles

import (
	"context"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/predicate"
	"switchboard/ent/role"
)

// IsAdminSeat reports whether ro, loaded with its permissions, is an
// Admin seat: it grants every permission of the catalogue
// (access.IsAdminSeat). Admin is never told by a role's name.
func IsAdminSeat(ro *ent.Role) bool {
	keys := make([]string, len(ro.Edges.Permissions))
	for i, p := range ro.Edges.Permissions {
		keys[i] = p.Resource + ":" + p.Action
	}
	return access.IsAdminSeat(keys)
}

// AdminSeatIDs returns the ids of the roles of the viewer's organization
// that are Admin seats and match ps.
func (s *Service) AdminSeatIDs(ctx context.Context, ps ...predicate.Role) ([]uuid.UUID, error) {
	rs, err := s.db(ctx).Role.Query().Where(ps...).WithPermissions().All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "role")
	}
	var ids []uuid.UUID
	for _, ro := range rs {
		if IsAdminSeat(ro) {
			ids = append(ids, ro.ID)
		}
	}
	return ids, nil
}

// keepSystemAdminSeat refuses to take a permission from the Admin role:
// an organization always keeps a system role (which nobody deletes) that
// is an Admin seat, so there is always one to give. cur is loaded with its
// permissions, keys are its new ones. The Admin role is the system role
// that is an Admin seat; should another system role have been given every
// permission too, either may lose some while the other keeps them all.
// Errors: invalid.
func (s *Service) keepSystemAdminSeat(ctx context.Context, cur *ent.Role, keys []string) error {
	if !cur.IsSystem || !IsAdminSeat(cur) || access.IsAdminSeat(keys) {
		return nil
	}
	others, err := s.AdminSeatIDs(ctx, role.IsSystem(true), role.IDNEQ(cur.ID))
	if err != nil {
		return err
	}
	if len(others) == 0 {
		return apperr.Invalidf("the Admin role always holds every permission; its permissions cannot be changed")
	}
	return nil
}
