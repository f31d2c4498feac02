package people

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
)

// InvitationTTL is how long an invitation to register stays valid; inviting
// the same email again restarts it.
const InvitationTTL = 7 * 24 * time.Hour

// maxEmailLength bounds an email address (RFC 5321's path limit, with
// room: what the column holds).
const maxEmailLength = 320

// PendingInvitation is an invitation addressed to the viewer's email:
// accepting it makes the viewer a member with RoleName.
type PendingInvitation struct {
	ID               uuid.UUID
	OrganizationID   uuid.UUID
	OrganizationName string
	RoleName         string
	ExpiresAt        time.Time
	CreatedAt        time.Time
}

// Invitations addressed to a person are theirs to see and decide on, in
// whichever organization they were made: each query here is a named
// privacy bypass limited to the viewer's own email.

// MyInvitations returns the pending invitations addressed to the viewer's
// email, oldest first, with their organization and role names.
// Errors: unauthenticated.
func (s *Service) MyInvitations(ctx context.Context) ([]*PendingInvitation, error) {
	_, u, err := s.viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	bctx := rule.Bypass(ctx, "a person reads the invitations addressed to their email")
	db := s.db(ctx)
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
	rs, err := db.Role.Query().Where(role.IDIn(roleIDs...)).All(bctx)
	if err != nil {
		return nil, apperr.Wrap(err, "role")
	}
	orgName, roleName := map[uuid.UUID]string{}, map[uuid.UUID]string{}
	for _, o := range orgs {
		orgName[o.ID] = o.Name
	}
	for _, ro := range rs {
		roleName[ro.ID] = ro.Name
	}
	out := make([]*PendingInvitation, len(invs))
	for i, inv := range invs {
		out[i] = &PendingInvitation{
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
func (s *Service) AcceptInvitation(ctx context.Context, id uuid.UUID) (*ent.Organization, error) {
	inv, err := s.myPendingInvitation(ctx, id, "accept")
	if err != nil {
		return nil, err
	}
	v := viewer.FromContext(ctx)
	octx := viewer.SystemContext(ctx, inv.OrganizationID)
	db := s.db(ctx)
	member, err := db.OrganizationMember.Query().Where(organizationmember.UserID(v.UserID)).Exist(octx)
	if err != nil {
		return nil, apperr.Wrap(err, "member")
	}
	if !member {
		if err := s.join(ctx, octx, inv); err != nil {
			return nil, err
		}
	}
	if err := db.Invitation.UpdateOneID(inv.ID).SetAcceptedAt(time.Now().UTC()).Exec(octx); err != nil {
		return nil, apperr.Wrap(err, "invitation")
	}
	o, err := db.Organization.Get(octx, inv.OrganizationID)
	return o, apperr.Wrap(err, "organization")
}

// join makes the viewer a member of inv's organization (octx acts in it)
// with inv's role, or the organization's default role if that one is
// gone.
func (s *Service) join(ctx, octx context.Context, inv *ent.Invitation) error {
	db := s.db(ctx)
	userID := viewer.FromContext(ctx).UserID
	roleID := inv.RoleID
	if ok, err := db.Role.Query().Where(role.ID(roleID)).Exist(octx); err != nil {
		return apperr.Wrap(err, "role")
	} else if !ok {
		if roleID, err = access.DefaultRoleID(octx, db); err != nil {
			return err
		}
	}
	others, err := s.membershipCount(ctx, userID)
	if err != nil {
		return err
	}
	err = db.OrganizationMember.Create().SetUserID(userID).SetRoleID(roleID).SetIsDefault(others == 0).Exec(octx)
	return apperr.Wrap(err, "member")
}

// DeclineInvitation deletes a pending invitation addressed to the viewer.
// Errors: unauthenticated, forbidden (an API key), not_found.
func (s *Service) DeclineInvitation(ctx context.Context, id uuid.UUID) error {
	inv, err := s.myPendingInvitation(ctx, id, "decline")
	if err != nil {
		return err
	}
	return apperr.Wrap(s.db(ctx).Invitation.DeleteOneID(inv.ID).
		Exec(viewer.SystemContext(ctx, inv.OrganizationID)), "invitation")
}

// myPendingInvitation returns the pending invitation id when it is
// addressed to the viewer, who must be the person, signed in
// (access.ActsInPerson).
func (s *Service) myPendingInvitation(ctx context.Context, id uuid.UUID, verb string) (*ent.Invitation, error) {
	v, u, err := s.viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	if !access.ActsInPerson(v) {
		return nil, apperr.Forbiddenf("only the person can %s an invitation; API keys cannot", verb)
	}
	inv, err := s.db(ctx).Invitation.Query().Where(append(pendingFor(u.Email), invitation.ID(id))...).
		Only(rule.Bypass(ctx, "a person decides on an invitation addressed to their email"))
	return inv, apperr.Wrap(err, "invitation")
}

// pendingFor selects the unexpired, unaccepted invitations of email.
func pendingFor(email string) []predicate.Invitation {
	return []predicate.Invitation{
		invitation.Email(email), invitation.AcceptedAtIsNil(), invitation.ExpiresAtGT(time.Now()),
	}
}

// invite creates the organization's invitation for email with roleID, or
// refreshes the existing one (new role, new expiry, pending again).
func (s *Service) invite(ctx context.Context, email string, roleID uuid.UUID) (*ent.Invitation, error) {
	db := s.db(ctx)
	expires := time.Now().UTC().Add(InvitationTTL)
	var invitedBy *uuid.UUID
	if v := viewer.FromContext(ctx); v.UserID != uuid.Nil {
		invitedBy = &v.UserID
	}
	inv, err := db.Invitation.Query().Where(invitation.Email(email)).Only(ctx)
	switch {
	case err == nil:
		inv, err = inv.Update().SetRoleID(roleID).SetExpiresAt(expires).ClearAcceptedAt().
			SetNillableInvitedByID(invitedBy).Save(ctx)
	case ent.IsNotFound(err):
		inv, err = db.Invitation.Create().SetEmail(email).SetRoleID(roleID).SetExpiresAt(expires).
			SetNillableInvitedByID(invitedBy).Save(ctx)
	}
	return inv, apperr.Wrap(err, "invitation")
}

// validInviteEmail normalizes an email to invite or add. Errors: invalid
// (missing, malformed).
func validInviteEmail(raw string) (string, error) {
	email := access.NormalizeEmail(raw)
	if email == "" {
		return "", apperr.Invalidf("email is required")
	}
	if len(email) > maxEmailLength || !access.ValidEmail(email) {
		return "", apperr.Invalidf("email must be a valid email address")
	}
	return email, nil
}
