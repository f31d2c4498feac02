package graph

import (
	"context"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/invitation"
	"switchboard/ent/organization"
	"switchboard/ent/organizationmember"
	"switchboard/ent/predicate"
	"switchboard/ent/role"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
	"switchboard/graph/model"
)

// Invitations addressed to a person are theirs to see and decide on, in
// whichever organization they were made: each query here is a named
// privacy bypass limited to the viewer's own email.

// MyInvitations returns the pending invitations addressed to the viewer's
// email, oldest first, with their organization and role names.
// Errors: unauthenticated.
func (r *Resolver) MyInvitations(ctx context.Context) ([]*model.PendingInvitation, error) {
	_, u, err := r.viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	bctx := rule.Bypass(ctx, "a person reads the invitations addressed to their email")
	db := r.db(ctx)
	invs, err := db.Invitation.Query().Where(pendingFor(u.Email)...).
		Order(ent.Asc(invitation.FieldCreatedAt), ent.Asc(invitation.FieldID)).All(bctx)
	if err != nil {
		return nil, apperr.Wrap(err, "invitation")
	}
	orgIDs, roleIDs := make([]uuid.UUID, len(invs)), make([]uuid.UUID, len(invs))
	for i, inv := range invs {
		orgIDs[i], roleIDs[i] = inv.OrganizationID, inv.RoleID
	}
	orgs, err := db.Organization.Query().Where(organization.IDIn(orgIDs...)).All(bctx)
	if err != nil {
		return nil, apperr.Wrap(err, "organization")
	}
	roles, err := db.Role.Query().Where(role.IDIn(roleIDs...)).All(bctx)
	if err != nil {
		return nil, apperr.Wrap(err, "role")
	}
	orgName, roleName := map[uuid.UUID]string{}, map[uuid.UUID]string{}
	for _, o := range orgs {
		orgName[o.ID] = o.Name
	}
	for _, ro := range roles {
		roleName[ro.ID] = ro.Name
	}
	out := make([]*model.PendingInvitation, len(invs))
	for i, inv := range invs {
		out[i] = &model.PendingInvitation{
			ID: inv.ID, OrganizationID: inv.OrganizationID, OrganizationName: orgName[inv.OrganizationID],
			RoleName: roleName[inv.RoleID], ExpiresAt: inv.ExpiresAt, CreatedAt: inv.CreatedAt,
		}
	}
	return out, nil
}

// AcceptInvitation makes the viewer a member of the invitation's
// organization with its role (the organization's default role if that
// role is gone since), and spends the invitation. The new membership
// becomes the viewer's default when they have no other. Errors:
// unauthenticated, forbidden (an API key), not_found (no such pending
// invitation for the viewer's email).
func (r *Resolver) AcceptInvitation(ctx context.Context, id uuid.UUID) (*ent.Organization, error) {
	inv, err := r.myPendingInvitation(ctx, id, "accept")
	if err != nil {
		return nil, err
	}
	v := viewer.FromContext(ctx)
	octx := viewer.SystemContext(ctx, inv.OrganizationID)
	db := r.db(ctx)
	member, err := db.OrganizationMember.Query().Where(organizationmember.UserID(v.UserID)).Exist(octx)
	if err != nil {
		return nil, apperr.Wrap(err, "member")
	}
	if !member {
		roleID := inv.RoleID
		if ok, err := db.Role.Query().Where(role.ID(roleID)).Exist(octx); err != nil {
			return nil, apperr.Wrap(err, "role")
		} else if !ok {
			if roleID, err = access.DefaultRoleID(octx, db); err != nil {
				return nil, err
			}
		}
		others, err := r.membershipCount(ctx, v.UserID)
		if err != nil {
			return nil, err
		}
		err = db.OrganizationMember.Create().SetUserID(v.UserID).SetRoleID(roleID).SetIsDefault(others == 0).Exec(octx)
		if err != nil {
			return nil, apperr.Wrap(err, "member")
		}
	}
	if err := db.Invitation.UpdateOneID(inv.ID).SetAcceptedAt(time.Now().UTC()).Exec(octx); err != nil {
		return nil, apperr.Wrap(err, "invitation")
	}
	o, err := db.Organization.Get(octx, inv.OrganizationID)
	return o, apperr.Wrap(err, "organization")
}

// DeclineInvitation deletes a pending invitation addressed to the viewer.
// Errors: unauthenticated, forbidden (an API key), not_found.
func (r *Resolver) DeclineInvitation(ctx context.Context, id uuid.UUID) error {
	inv, err := r.myPendingInvitation(ctx, id, "decline")
	if err != nil {
		return err
	}
	return apperr.Wrap(r.db(ctx).Invitation.DeleteOneID(inv.ID).
		Exec(viewer.SystemContext(ctx, inv.OrganizationID)), "invitation")
}

// myPendingInvitation returns the pending invitation id when it is
// addressed to the viewer, who must be a person signed in.
func (r *Resolver) myPendingInvitation(ctx context.Context, id uuid.UUID, verb string) (*ent.Invitation, error) {
	v, u, err := r.viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	if v.APIKeyID != uuid.Nil {
		return nil, apperr.Forbiddenf("only the person can %s an invitation; API keys cannot", verb)
	}
	inv, err := r.db(ctx).Invitation.Query().Where(append(pendingFor(u.Email), invitation.ID(id))...).
		Only(rule.Bypass(ctx, "a person decides on an invitation addressed to their email"))
	return inv, apperr.Wrap(err, "invitation")
}

// pendingFor selects the unexpired, unaccepted invitations of email.
func pendingFor(email string) []predicate.Invitation {
	return []predicate.Invitation{
		invitation.Email(email), invitation.AcceptedAtIsNil(), invitation.ExpiresAtGT(time.Now()),
	}
}
