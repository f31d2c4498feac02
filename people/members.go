package people

import (
	"context"
	"strings"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/organizationmember"
	"switchboard/ent/predicate"
	"switchboard/ent/rule"
	"switchboard/ent/teammember"
	"switchboard/ent/user"
	"switchboard/ent/viewer"
	"switchboard/roles"
)

// MemberFilter narrows the memberships of the viewer's organization.
type MemberFilter struct {
	// Search matches the user's full name or email, case-insensitively.
	Search string
	// RoleID, when set, keeps the members holding that role.
	RoleID *uuid.UUID
}

// MemberPage is one page of memberships with their users and roles loaded.
type MemberPage struct {
	Members []*ent.OrganizationMember
	Total   int
}

// AddMemberInput names the person to add: an existing account (UserID)
// or an email, exactly one of them, with a role (nil: the organization's
// default role).
type AddMemberInput struct {
	UserID *uuid.UUID
	Email  *string
	RoleID *uuid.UUID
}

// MembersQuery returns the memberships of the viewer's organization that
// match f, loading each member's user and role.
func (s *Service) MembersQuery(ctx context.Context, f MemberFilter) *ent.OrganizationMemberQuery {
	q := s.db(ctx).OrganizationMember.Query().WithUser().WithRole()
	if t := strings.TrimSpace(f.Search); t != "" {
		q = q.Where(organizationmember.HasUserWith(user.Or(user.FullNameContainsFold(t), user.EmailContainsFold(t))))
	}
	if f.RoleID != nil {
		q = q.Where(organizationmember.RoleID(*f.RoleID))
	}
	return q
}

// ListMembers returns a page of MembersQuery, oldest membership first, with
// each member's user and role.
func (s *Service) ListMembers(ctx context.Context, f MemberFilter, offset, limit int) (*MemberPage, error) {
	q := s.MembersQuery(ctx, f).
		Order(ent.Asc(organizationmember.FieldCreatedAt), ent.Asc(organizationmember.FieldID))
	ms, total, err := database.OffsetPage(ctx, q, offset, limit)
	if err != nil {
		return nil, apperr.Wrap(err, "member")
	}
	return &MemberPage{Members: ms, Total: total}, nil
}

// MemberUser is the member's user, from the loaded edge when there is one.
func (s *Service) MemberUser(ctx context.Context, m *ent.OrganizationMember) (*ent.User, error) {
	if m.Edges.User != nil {
		return m.Edges.User, nil
	}
	u, err := m.QueryUser().Only(ctx)
	return u, apperr.Wrap(err, "user")
}

// MemberRole is the member's role, from the loaded edge when there is one.
func (s *Service) MemberRole(ctx context.Context, m *ent.OrganizationMember) (*ent.Role, error) {
	if m.Edges.Role != nil {
		return m.Edges.Role, nil
	}
	ro, err := m.QueryRole().Only(ctx)
	return ro, apperr.Wrap(err, "role")
}

// UserRoles returns each user's role in the viewer's organization, with
// one query; users who are not members there (as a super admin may not
// be) are absent from the map.
func (s *Service) UserRoles(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]*ent.Role, error) {
	ms, err := s.db(ctx).OrganizationMember.Query().Where(organizationmember.UserIDIn(ids...)).WithRole().All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "membership")
	}
	out := make(map[uuid.UUID]*ent.Role, len(ms))
	for _, m := range ms {
		out[m.UserID] = m.Edges.Role
	}
	return out, nil
}

// AddMember adds a person to the viewer's organization with a role (the
// organization's default role when none is given). Membership in an
// organization is the person's own choice: anyone but a super admin gets
// an invitation (valid for InvitationTTL; inviting again refreshes it),
// which the person accepts (AcceptInvitation), or which registration
// consumes when the email has no account yet. The answer is the same
// whether the email has an account or not, so adding people tells nobody
// who has one. A super admin adds an existing account at once
// (access.ManagesAccounts). Errors: invalid (neither or both of user_id
// and email, a malformed email, already a member), not_found (an unknown
// user_id, or a role of another organization), forbidden (granting an
// Admin seat without being an Admin).
func (s *Service) AddMember(ctx context.Context, in AddMemberInput) (*Addition, error) {
	hasEmail := in.Email != nil && strings.TrimSpace(*in.Email) != ""
	switch {
	case in.UserID == nil && !hasEmail:
		return nil, apperr.Invalidf("user_id or email is required")
	case in.UserID != nil && hasEmail:
		return nil, apperr.Invalidf("give either user_id or email, not both")
	}
	ro, err := s.memberRole(ctx, in.RoleID)
	if err != nil {
		return nil, err
	}
	var email string
	var u *ent.User
	if in.UserID != nil {
		if u, err = s.findAccount(ctx, user.ID(*in.UserID)); err != nil {
			return nil, err
		}
		if u == nil {
			return nil, apperr.NotFoundf("user not found")
		}
		email = u.Email
	} else if email, err = validInviteEmail(*in.Email); err != nil {
		return nil, err
	}
	if err := s.notYetMember(ctx, email); err != nil {
		return nil, err
	}
	if access.ManagesAccounts(viewer.FromContext(ctx)) {
		if u == nil {
			if u, err = s.findAccount(ctx, user.Email(email)); err != nil {
				return nil, err
			}
		}
		if u != nil {
			m, err := s.addMembership(ctx, u.ID, ro.ID)
			if err != nil {
				return nil, err
			}
			return &Addition{Member: m}, nil
		}
	}
	inv, err := s.invite(ctx, email, ro.ID)
	if err != nil {
		return nil, err
	}
	return &Addition{Invitation: inv}, nil
}

// notYetMember refuses an email that belongs to a member of the viewer's
// organization already (whose email the viewer's organization sees).
func (s *Service) notYetMember(ctx context.Context, email string) error {
	member, err := s.db(ctx).OrganizationMember.Query().
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
func (s *Service) findAccount(ctx context.Context, p predicate.User) (*ent.User, error) {
	u, err := s.db(ctx).User.Query().Where(p).
		Only(rule.Bypass(ctx, "finding an account by id or email to add it to the organization"))
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return u, apperr.Wrap(err, "user")
}

// memberRole returns the role with id, or the organization's default role
// when id is nil. Errors: not_found (unknown, or another organization's),
// forbidden (an Admin seat, for a viewer who is not an Admin).
func (s *Service) memberRole(ctx context.Context, id *uuid.UUID) (*ent.Role, error) {
	if id == nil {
		def, err := access.DefaultRoleID(ctx, s.db(ctx))
		if err != nil {
			return nil, err
		}
		id = &def
	}
	ro, err := s.Roles.Get(ctx, *id)
	if err != nil {
		return nil, err
	}
	if err := access.RequireAdminFor(viewer.FromContext(ctx), roles.IsAdminSeat(ro), "grant the Admin role"); err != nil {
		return nil, err
	}
	return ro, nil
}

// holdsAdminSeat reports whether membership m holds a role that is an
// Admin seat.
func (s *Service) holdsAdminSeat(ctx context.Context, m *ent.OrganizationMember) (bool, error) {
	ro, err := s.Roles.Get(ctx, m.RoleID)
	if err != nil {
		return false, err
	}
	return roles.IsAdminSeat(ro), nil
}

// addMembership makes userID a member of the viewer's organization with
// roleID. The membership becomes the user's default when they have no
// other. Errors: invalid (already a member).
func (s *Service) addMembership(ctx context.Context, userID, roleID uuid.UUID) (*ent.OrganizationMember, error) {
	db := s.db(ctx)
	exists, err := db.OrganizationMember.Query().Where(organizationmember.UserID(userID)).Exist(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "member")
	}
	if exists {
		return nil, apperr.Invalidf("this user is already a member of the organization")
	}
	others, err := s.membershipCount(ctx, userID)
	if err != nil {
		return nil, err
	}
	m, err := db.OrganizationMember.Create().SetUserID(userID).SetRoleID(roleID).
		SetIsDefault(others == 0).Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "member")
	}
	return s.member(ctx, m.ID)
}

// member returns membership id with its user and role.
func (s *Service) member(ctx context.Context, id uuid.UUID) (*ent.OrganizationMember, error) {
	m, err := s.db(ctx).OrganizationMember.Query().Where(organizationmember.ID(id)).WithUser().WithRole().Only(ctx)
	return m, apperr.Wrap(err, "member")
}

// membershipCount counts a user's memberships in every organization: a
// named privacy bypass reading only that user's memberships.
func (s *Service) membershipCount(ctx context.Context, userID uuid.UUID) (int, error) {
	n, err := s.db(ctx).OrganizationMember.Query().Where(organizationmember.UserID(userID)).
		Count(rule.Bypass(ctx, "counting a user's memberships across organizations"))
	return n, apperr.Wrap(err, "member")
}

// UpdateMemberRole gives a member of the viewer's organization another
// role; the member's open sockets in the organization end after the
// commit. Errors: not_found (member or role), invalid (it would demote the
// organization's last active Admin), forbidden (granting or taking away an
// Admin seat without being an Admin).
func (s *Service) UpdateMemberRole(ctx context.Context, memberID, roleID uuid.UUID) (*ent.OrganizationMember, error) {
	m, err := s.db(ctx).OrganizationMember.Get(ctx, memberID)
	if err != nil {
		return nil, apperr.Wrap(err, "member")
	}
	if err := s.setMemberRole(ctx, m, roleID); err != nil {
		return nil, err
	}
	return s.member(ctx, m.ID)
}

// setMemberRole changes m's role to roleID, keeping an active Admin, and
// ends m's open sockets in the organization once the change commits.
func (s *Service) setMemberRole(ctx context.Context, m *ent.OrganizationMember, roleID uuid.UUID) error {
	ro, err := s.Roles.Get(ctx, roleID)
	if err != nil {
		return err
	}
	if ro.ID == m.RoleID {
		return nil
	}
	wasAdmin, err := s.holdsAdminSeat(ctx, m)
	if err != nil {
		return err
	}
	toAdmin := roles.IsAdminSeat(ro)
	if err := access.RequireAdminFor(viewer.FromContext(ctx), wasAdmin || toAdmin, "grant or take away the Admin role"); err != nil {
		return err
	}
	if !toAdmin {
		if err := s.guardLastAdmin(ctx, m.ID, "change the role of"); err != nil {
			return err
		}
	}
	if err := s.db(ctx).OrganizationMember.UpdateOneID(m.ID).SetRoleID(ro.ID).Exec(ctx); err != nil {
		return apperr.Wrap(err, "member")
	}
	s.Revocations.Publish(ctx, access.EndMembership(m.UserID, m.OrganizationID, "your role changed"))
	return nil
}

// RemoveMember removes a membership, and the user's seats in the
// organization's teams; the account remains, and its open sockets in the
// organization end after the commit. Errors: not_found, invalid (the
// organization's last active Admin), forbidden (an Admin removed by
// someone who is not an Admin).
func (s *Service) RemoveMember(ctx context.Context, memberID uuid.UUID) error {
	m, err := s.db(ctx).OrganizationMember.Get(ctx, memberID)
	if err != nil {
		return apperr.Wrap(err, "member")
	}
	return s.removeMembership(ctx, m)
}

// removeMembership checks that m may leave the organization (only an
// Admin removes an Admin, and never the last active one), then deletes m
// and the user's team seats in the organization.
func (s *Service) removeMembership(ctx context.Context, m *ent.OrganizationMember) error {
	admin, err := s.holdsAdminSeat(ctx, m)
	if err != nil {
		return err
	}
	if err := access.RequireAdminFor(viewer.FromContext(ctx), admin, "remove an Admin"); err != nil {
		return err
	}
	if err := s.guardLastAdmin(ctx, m.ID, "remove"); err != nil {
		return err
	}
	db := s.db(ctx)
	if _, err := db.TeamMember.Delete().Where(teammember.UserID(m.UserID)).Exec(ctx); err != nil {
		return apperr.Wrap(err, "team member")
	}
	if err := db.OrganizationMember.DeleteOneID(m.ID).Exec(ctx); err != nil {
		return apperr.Wrap(err, "member")
	}
	s.Revocations.Publish(ctx, access.EndMembership(m.UserID, m.OrganizationID, "removed from the organization"))
	return nil
}

// guardLastAdmin refuses to take the Admin seat of membership memberID
// (verb: "remove", "change the role of", "deactivate") when it is the
// organization's last member in an Admin seat (a role granting every
// permission, access.IsAdminSeat) whose account is active. On PostgreSQL
// it locks those memberships until the transaction ends, so two
// concurrent changes cannot each leave the other Admin as the last and
// both pass; SQLite serializes write transactions anyway.
func (s *Service) guardLastAdmin(ctx context.Context, memberID uuid.UUID, verb string) error {
	seats, err := s.Roles.AdminSeatIDs(ctx)
	if err != nil || len(seats) == 0 {
		return err
	}
	q := s.db(ctx).OrganizationMember.Query().
		Where(organizationmember.RoleIDIn(seats...), organizationmember.HasUserWith(user.IsActive(true))).
		Order(ent.Asc(organizationmember.FieldID)).Unique(false)
	q.Modify(func(sel *sql.Selector) {
		if sel.Dialect() == dialect.Postgres {
			sel.ForUpdate()
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
