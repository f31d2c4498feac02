package graph

import (
	"context"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
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
	"switchboard/ent/teammember"
	"switchboard/ent/user"
	"switchboard/ent/viewer"
	"switchboard/graph/model"
)

// InvitationTTL is how long an invitation to register stays valid; inviting
// the same email again restarts it.
const InvitationTTL = 7 * 24 * time.Hour

// ListOrganizations returns the organizations the viewer may see, by name:
// every organization for a super admin, the viewer's own otherwise (the
// data layer decides).
func (r *Resolver) ListOrganizations(ctx context.Context) ([]*ent.Organization, error) {
	orgs, err := r.db(ctx).Organization.Query().
		Order(ent.Asc(organization.FieldName), ent.Asc(organization.FieldID)).All(ctx)
	return orgs, apperr.Wrap(err, "organization")
}

// CurrentOrganization returns the organization the viewer acts in.
// Errors: unauthenticated (no viewer), not_found.
func (r *Resolver) CurrentOrganization(ctx context.Context) (*ent.Organization, error) {
	v := viewer.FromContext(ctx)
	if !v.HasOrg() {
		return nil, apperr.New(apperr.Unauthenticated, "authentication required")
	}
	o, err := r.db(ctx).Organization.Get(ctx, v.OrgID)
	return o, apperr.Wrap(err, "organization")
}

// CreateOrganization creates an organization with its system roles and
// defaults and makes the viewer its Admin. The viewer's default
// organization does not change. Errors: forbidden (an API key or a system
// actor: only a person can own an organization), invalid (name missing or
// too long).
func (r *Resolver) CreateOrganization(ctx context.Context, in model.CreateOrganizationInput) (*ent.Organization, error) {
	v := viewer.FromContext(ctx)
	if v == nil || v.UserID == uuid.Nil || v.APIKeyID != uuid.Nil {
		return nil, apperr.Forbiddenf("only a signed-in user can create an organization; API keys cannot")
	}
	return access.CreateOrganization(ctx, r.db(ctx), in.Name, v.UserID, false)
}

// MemberFilter narrows the memberships of the viewer's organization.
type MemberFilter struct {
	// Search matches the user's full name or email, case-insensitively.
	Search string
	// RoleID, when set, keeps the members holding that role.
	RoleID *uuid.UUID
}

// MembersQuery returns the memberships of the viewer's organization that
// match f.
func (r *Resolver) MembersQuery(ctx context.Context, f MemberFilter) *ent.OrganizationMemberQuery {
	q := r.db(ctx).OrganizationMember.Query()
	if s := strings.TrimSpace(f.Search); s != "" {
		q = q.Where(organizationmember.HasUserWith(user.Or(user.FullNameContainsFold(s), user.EmailContainsFold(s))))
	}
	if f.RoleID != nil {
		q = q.Where(organizationmember.RoleID(*f.RoleID))
	}
	return q
}

// MemberPage is one page of memberships with their users and roles loaded.
type MemberPage struct {
	Members []*ent.OrganizationMember
	Total   int
}

// ListMembers returns a page of MembersQuery, oldest membership first, with
// each member's user and role.
func (r *Resolver) ListMembers(ctx context.Context, f MemberFilter, offset, limit int) (*MemberPage, error) {
	q := r.MembersQuery(ctx, f).WithUser().WithRole().
		Order(ent.Asc(organizationmember.FieldCreatedAt), ent.Asc(organizationmember.FieldID))
	ms, total, err := offsetPage(ctx, q, offset, limit, "member")
	if err != nil {
		return nil, err
	}
	return &MemberPage{Members: ms, Total: total}, nil
}

// MemberAddition tells what AddMember did: a membership (a super admin
// adding an existing account), or an invitation.
type MemberAddition struct {
	Member     *ent.OrganizationMember
	Invitation *ent.Invitation
}

// AddMember adds a person to the viewer's organization with a role (the
// organization's default role when none is given). Membership in an
// organization is the person's own choice: anyone but a super admin gets
// an invitation (valid for InvitationTTL; inviting again refreshes it),
// which the person accepts (AcceptInvitation), or which registration
// consumes when the email has no account yet. The answer is the same
// whether the email has an account or not, so adding people tells nobody
// who has one. A super admin adds an existing account at once.
// Errors: invalid (neither or both of user_id and email, a malformed
// email, already a member), not_found (an unknown user_id, or a role of
// another organization), forbidden (granting the Admin role without being
// an Admin).
func (r *Resolver) AddMember(ctx context.Context, in model.AddMemberInput) (*MemberAddition, error) {
	hasEmail := in.Email != nil && strings.TrimSpace(*in.Email) != ""
	switch {
	case in.UserID == nil && !hasEmail:
		return nil, apperr.Invalidf("user_id or email is required")
	case in.UserID != nil && hasEmail:
		return nil, apperr.Invalidf("give either user_id or email, not both")
	}
	ro, err := r.memberRole(ctx, in.RoleID)
	if err != nil {
		return nil, err
	}
	var email string
	var u *ent.User
	if in.UserID != nil {
		if u, err = r.findAccount(ctx, user.ID(*in.UserID)); err != nil {
			return nil, err
		}
		if u == nil {
			return nil, apperr.NotFoundf("user not found")
		}
		email = u.Email
	} else if email, err = validInviteEmail(*in.Email); err != nil {
		return nil, err
	}
	if err := r.notYetMember(ctx, email); err != nil {
		return nil, err
	}
	if viewer.FromContext(ctx).SuperAdmin {
		if u == nil {
			if u, err = r.findAccount(ctx, user.Email(email)); err != nil {
				return nil, err
			}
		}
		if u != nil {
			m, err := r.addMembership(ctx, u.ID, ro.ID)
			if err != nil {
				return nil, err
			}
			return &MemberAddition{Member: m}, nil
		}
	}
	inv, err := r.invite(ctx, email, ro.ID)
	if err != nil {
		return nil, err
	}
	return &MemberAddition{Invitation: inv}, nil
}

// notYetMember refuses an email that belongs to a member of the viewer's
// organization already (whose email the viewer's organization sees).
func (r *Resolver) notYetMember(ctx context.Context, email string) error {
	member, err := r.db(ctx).OrganizationMember.Query().
		Where(organizationmember.HasUserWith(user.Email(email))).Exist(ctx)
	if err != nil {
		return apperr.Wrap(err, "member")
	}
	if member {
		return apperr.Invalidf("a user with this email is already a member of the organization")
	}
	return nil
}

// findAccount looks an account up by id or email across organizations: a
// named privacy bypass, since the person being added is not (yet) a member
// of the viewer's organization. It returns nil when there is none.
func (r *Resolver) findAccount(ctx context.Context, p predicate.User) (*ent.User, error) {
	u, err := r.db(ctx).User.Query().Where(p).
		Only(rule.Bypass(ctx, "finding an account by id or email to add it to the organization"))
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return u, apperr.Wrap(err, "user")
}

// memberRole returns the role with id, or the organization's default role
// when id is nil. Errors: not_found (unknown, or another organization's),
// forbidden (the Admin role, for a viewer who is not an Admin).
func (r *Resolver) memberRole(ctx context.Context, id *uuid.UUID) (*ent.Role, error) {
	db := r.db(ctx)
	if id == nil {
		def, err := access.DefaultRoleID(ctx, db)
		if err != nil {
			return nil, err
		}
		id = &def
	}
	ro, err := db.Role.Get(ctx, *id)
	if err != nil {
		return nil, apperr.Wrap(err, "role")
	}
	if err := requireAdminFor(ctx, isAdminRole(ro), "grant the Admin role"); err != nil {
		return nil, err
	}
	return ro, nil
}

// holdsAdmin reports whether membership m holds the organization's Admin
// system role.
func (r *Resolver) holdsAdmin(ctx context.Context, m *ent.OrganizationMember) (bool, error) {
	ro := m.Edges.Role
	if ro == nil || ro.ID != m.RoleID {
		var err error
		if ro, err = r.db(ctx).Role.Get(ctx, m.RoleID); err != nil {
			return false, apperr.Wrap(err, "role")
		}
	}
	return isAdminRole(ro), nil
}

// requireAdminFor lets only a viewer holding every permission (an Admin, a
// super admin) make a change that involves an Admin seat: granting the
// Admin role, or changing, removing or taking over an Admin. Otherwise a
// custom role holding the users:* permissions could make its holder an
// Admin.
func requireAdminFor(ctx context.Context, involvesAdmin bool, what string) error {
	if involvesAdmin && !access.HoldsEvery(viewer.FromContext(ctx)) {
		return apperr.Forbiddenf("only an Admin can %s", what)
	}
	return nil
}

// addMembership makes userID a member of the viewer's organization with
// roleID. The membership becomes the user's default when they have no
// other. Errors: invalid (already a member).
func (r *Resolver) addMembership(ctx context.Context, userID, roleID uuid.UUID) (*ent.OrganizationMember, error) {
	db := r.db(ctx)
	exists, err := db.OrganizationMember.Query().Where(organizationmember.UserID(userID)).Exist(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "member")
	}
	if exists {
		return nil, apperr.Invalidf("this user is already a member of the organization")
	}
	others, err := r.membershipCount(ctx, userID)
	if err != nil {
		return nil, err
	}
	m, err := db.OrganizationMember.Create().SetUserID(userID).SetRoleID(roleID).
		SetIsDefault(others == 0).Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "member")
	}
	return db.OrganizationMember.Query().Where(organizationmember.ID(m.ID)).WithUser().WithRole().Only(ctx)
}

// membershipCount counts a user's memberships in every organization: a
// named privacy bypass reading only that user's memberships.
func (r *Resolver) membershipCount(ctx context.Context, userID uuid.UUID) (int, error) {
	n, err := r.db(ctx).OrganizationMember.Query().Where(organizationmember.UserID(userID)).
		Count(rule.Bypass(ctx, "counting a user's memberships across organizations"))
	return n, apperr.Wrap(err, "member")
}

// invite creates the organization's invitation for email with roleID, or
// refreshes the existing one (new role, new expiry, pending again).
func (r *Resolver) invite(ctx context.Context, email string, roleID uuid.UUID) (*ent.Invitation, error) {
	db := r.db(ctx)
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

func validInviteEmail(raw string) (string, error) {
	email := access.NormalizeEmail(raw)
	if email == "" {
		return "", apperr.Invalidf("email is required")
	}
	if len(email) > 320 || !access.ValidEmail(email) {
		return "", apperr.Invalidf("email must be a valid email address")
	}
	return email, nil
}

// UpdateMemberRole gives a member of the viewer's organization another
// role. Errors: not_found (member or role), invalid (it would demote the
// organization's last active Admin), forbidden (granting or taking away
// the Admin role without being an Admin).
func (r *Resolver) UpdateMemberRole(ctx context.Context, memberID, roleID uuid.UUID) (*ent.OrganizationMember, error) {
	db := r.db(ctx)
	m, err := db.OrganizationMember.Get(ctx, memberID)
	if err != nil {
		return nil, apperr.Wrap(err, "member")
	}
	if err := r.setMemberRole(ctx, m, roleID); err != nil {
		return nil, err
	}
	return db.OrganizationMember.Query().Where(organizationmember.ID(m.ID)).WithUser().WithRole().Only(ctx)
}

// setMemberRole changes m's role to roleID, keeping an active Admin.
func (r *Resolver) setMemberRole(ctx context.Context, m *ent.OrganizationMember, roleID uuid.UUID) error {
	db := r.db(ctx)
	ro, err := db.Role.Get(ctx, roleID)
	if err != nil {
		return apperr.Wrap(err, "role")
	}
	if ro.ID == m.RoleID {
		return nil
	}
	wasAdmin, err := r.holdsAdmin(ctx, m)
	if err != nil {
		return err
	}
	if err := requireAdminFor(ctx, wasAdmin || isAdminRole(ro), "grant or take away the Admin role"); err != nil {
		return err
	}
	if !isAdminRole(ro) {
		if err := r.guardLastAdmin(ctx, m.ID, "change the role of"); err != nil {
			return err
		}
	}
	if err := db.OrganizationMember.UpdateOneID(m.ID).SetRoleID(ro.ID).Exec(ctx); err != nil {
		return apperr.Wrap(err, "member")
	}
	r.Revocations.Publish(ctx, access.EndMembership(m.UserID, m.OrganizationID, "your role changed"))
	return nil
}

// RemoveMember removes a membership, and the user's seats in the
// organization's teams; the account remains. Errors: not_found, invalid
// (the organization's last active Admin), forbidden (an Admin removed by
// someone who is not an Admin).
func (r *Resolver) RemoveMember(ctx context.Context, memberID uuid.UUID) error {
	m, err := r.db(ctx).OrganizationMember.Get(ctx, memberID)
	if err != nil {
		return apperr.Wrap(err, "member")
	}
	return r.removeMembership(ctx, m)
}

func (r *Resolver) removeMembership(ctx context.Context, m *ent.OrganizationMember) error {
	if err := r.guardAdminRemoval(ctx, m); err != nil {
		return err
	}
	return r.deleteMembership(ctx, m)
}

// guardAdminRemoval checks that m may leave the organization: only an
// Admin removes an Admin, and never the last active one.
func (r *Resolver) guardAdminRemoval(ctx context.Context, m *ent.OrganizationMember) error {
	admin, err := r.holdsAdmin(ctx, m)
	if err != nil {
		return err
	}
	if err := requireAdminFor(ctx, admin, "remove an Admin"); err != nil {
		return err
	}
	return r.guardLastAdmin(ctx, m.ID, "remove")
}

// deleteMembership deletes m and the user's team seats in the organization,
// without the last-Admin check (callers make it first).
func (r *Resolver) deleteMembership(ctx context.Context, m *ent.OrganizationMember) error {
	db := r.db(ctx)
	if _, err := db.TeamMember.Delete().Where(teammember.UserID(m.UserID)).Exec(ctx); err != nil {
		return apperr.Wrap(err, "team member")
	}
	if err := db.OrganizationMember.DeleteOneID(m.ID).Exec(ctx); err != nil {
		return apperr.Wrap(err, "member")
	}
	r.Revocations.Publish(ctx, access.EndMembership(m.UserID, m.OrganizationID, "removed from the organization"))
	return nil
}

// guardLastAdmin refuses to take the Admin seat of membership memberID
// (verb: "remove", "change the role of", "deactivate") when it is the
// organization's last Admin whose account is active. On PostgreSQL it
// locks the Admin memberships until the transaction ends, so two
// concurrent changes cannot each leave the other Admin as the last and
// both pass; SQLite serializes write transactions anyway.
func (r *Resolver) guardLastAdmin(ctx context.Context, memberID uuid.UUID, verb string) error {
	db := r.db(ctx)
	admin, err := db.Role.Query().Where(role.Name(access.RoleAdmin), role.IsSystem(true)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return apperr.Wrap(err, "role")
	}
	q := db.OrganizationMember.Query().
		Where(organizationmember.RoleID(admin.ID), organizationmember.HasUserWith(user.IsActive(true))).
		Order(ent.Asc(organizationmember.FieldID)).Unique(false)
	q.Modify(func(s *sql.Selector) {
		if s.Dialect() == dialect.Postgres {
			s.ForUpdate()
		}
	})
	ids, err := q.IDs(ctx)
	if err != nil {
		return apperr.Wrap(err, "member")
	}
	if len(ids) > 1 {
		return nil
	}
	for _, id := range ids {
		if id == memberID {
			return apperr.Invalidf("cannot %s the last Admin of the organization; make another member Admin first", verb)
		}
	}
	return nil
}
