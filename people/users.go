package people

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/auth"
	"switchboard/ent"
	"switchboard/ent/organizationmember"
	"switchboard/ent/user"
	"switchboard/ent/viewer"
	"switchboard/internal/valid"
)

// MaxFullNameLength is the limit of a user's full_name column.
const MaxFullNameLength = 200

// Users of an organization are its members: every operation here reads and
// returns the membership (*ent.OrganizationMember) with the user and the
// role loaded, so a user from another organization is simply not found.

// CreateUserInput is a person to add to the viewer's organization: by
// invitation, or (a super admin, with Password) as a new account.
type CreateUserInput struct {
	Email    string
	FullName string
	Password *string
	// RoleID nil: the organization's default role.
	RoleID *uuid.UUID
}

// UpdateUserInput changes a member: nil fields keep their value. RoleID
// is the organization's to manage; the rest is the person's identity.
type UpdateUserInput struct {
	FullName *string
	IsActive *bool
	RoleID   *uuid.UUID
	Password *string
}

// User returns the membership of user id in the viewer's organization
// with the user and the role. Errors: not_found.
func (s *Service) User(ctx context.Context, id uuid.UUID) (*ent.OrganizationMember, error) {
	m, err := s.db(ctx).OrganizationMember.Query().Where(organizationmember.UserID(id)).
		WithUser().WithRole().Only(ctx)
	return m, apperr.Wrap(err, "user")
}

// UsersQuery returns the users who are members of the viewer's
// organization matching search (name or email). The membership predicate
// is about meaning (the viewer's own account is not listed unless it is a
// member); isolation itself is the data layer's.
func (s *Service) UsersQuery(ctx context.Context, search string) *ent.UserQuery {
	v := viewer.FromContext(ctx)
	q := s.db(ctx).User.Query().Where(user.HasMembershipsWith(organizationmember.OrganizationID(v.OrgID)))
	if t := strings.TrimSpace(search); t != "" {
		q = q.Where(user.Or(user.FullNameContainsFold(t), user.EmailContainsFold(t)))
	}
	return q
}

// CreateUser adds a person to the viewer's organization with a role
// (default: the organization's default role). Without a password it
// creates (or refreshes) an invitation, whether or not the email has an
// account (the answer does not tell which): the person registers, or, with
// an account, accepts it. With a password, which only a super admin may
// set for another person (access.ManagesAccounts), it creates the
// account, active, and its membership. Errors: invalid (malformed email,
// full_name missing or too long when creating the account, password
// policy, a password from anyone but a super admin, the email is a member
// already, or (for a super admin) it has an account), not_found (role_id),
// forbidden (an Admin seat, for a viewer who is not an Admin).
func (s *Service) CreateUser(ctx context.Context, in CreateUserInput) (*Addition, error) {
	email, err := validInviteEmail(in.Email)
	if err != nil {
		return nil, err
	}
	ro, err := s.memberRole(ctx, in.RoleID)
	if err != nil {
		return nil, err
	}
	if err := s.notYetMember(ctx, email); err != nil {
		return nil, err
	}
	if in.Password == nil {
		inv, err := s.invite(ctx, email, ro.ID)
		if err != nil {
			return nil, err
		}
		return &Addition{Invitation: inv}, nil
	}
	if !access.ManagesAccounts(viewer.FromContext(ctx)) {
		return nil, apperr.Invalidf("only a super admin can set another person's password; leave password out and the person is invited to set their own")
	}
	existing, err := s.findAccount(ctx, user.Email(email))
	if err != nil {
		return nil, err
	}
	if existing != nil {
		return nil, apperr.Invalidf("an account with this email already exists; add it to the organization as a member instead")
	}
	name, err := validFullName(in.FullName)
	if err != nil {
		return nil, err
	}
	hash, err := newPasswordHash(*in.Password)
	if err != nil {
		return nil, err
	}
	db := s.db(ctx)
	u, err := db.User.Create().SetEmail(email).SetFullName(name).SetPasswordHash(hash).Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "user")
	}
	if err := db.OrganizationMember.Create().SetUserID(u.ID).SetRoleID(ro.ID).SetIsDefault(true).Exec(ctx); err != nil {
		return nil, apperr.Wrap(err, "member")
	}
	m, err := s.User(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	return &Addition{Member: m}, nil
}

// UpdateUser changes the given fields of a member of the viewer's
// organization. The role is the organization's to manage. The rest is the
// person's identity, shared by every organization they belong to: only
// the person (their name; their password through ChangePassword) or a
// super admin changes it, and never through an API key
// (access.RequireIdentityOwner). Deactivation takes effect at the user's
// next request, and ends their open sockets after the commit; a reset
// password ends every session of the account. Errors: not_found (user or
// role), invalid (empty or too long full_name, password policy,
// deactivating oneself, setting one's own password here, deactivating or
// demoting the organization's last active Admin), forbidden (an identity
// change by someone else or by an API key; granting, taking away or taking
// over an Admin seat without being an Admin).
func (s *Service) UpdateUser(ctx context.Context, id uuid.UUID, in UpdateUserInput) (*ent.OrganizationMember, error) {
	m, err := s.User(ctx, id)
	if err != nil {
		return nil, err
	}
	v := viewer.FromContext(ctx)
	if in.FullName != nil || in.IsActive != nil || in.Password != nil {
		if err := access.RequireIdentityOwner(v, id); err != nil {
			return nil, err
		}
	}
	u := s.db(ctx).User.UpdateOneID(id)
	changed := false
	if in.FullName != nil {
		name, err := validFullName(*in.FullName)
		if err != nil {
			return nil, err
		}
		u.SetFullName(name)
		changed = true
	}
	if in.IsActive != nil && *in.IsActive != m.Edges.User.IsActive {
		if !*in.IsActive {
			if id == v.UserID {
				return nil, apperr.Invalidf("you cannot deactivate your own account")
			}
			if err := s.guardLastAdmin(ctx, m.ID, "deactivate"); err != nil {
				return nil, err
			}
		}
		u.SetIsActive(*in.IsActive)
		changed = true
	}
	if in.Password != nil {
		if err := s.resetPassword(ctx, u, id, *in.Password); err != nil {
			return nil, err
		}
		changed = true
	}
	if in.RoleID != nil {
		if err := s.setMemberRole(ctx, m, *in.RoleID); err != nil {
			return nil, err
		}
	}
	if changed {
		if err := u.Exec(ctx); err != nil {
			return nil, apperr.Wrap(err, "user")
		}
	}
	if in.IsActive != nil && !*in.IsActive {
		s.Revocations.Publish(ctx, access.EndUser(id))
	}
	return s.User(ctx, id)
}

// resetPassword sets another person's password pw on u (the update of
// user id) and ends every session of the account, after the commit for
// open sockets. Errors: invalid (one's own password, the password policy).
func (s *Service) resetPassword(ctx context.Context, u *ent.UserUpdateOne, id uuid.UUID, pw string) error {
	if id == viewer.FromContext(ctx).UserID {
		return apperr.Invalidf("change your own password with your current password instead")
	}
	hash, err := newPasswordHash(pw)
	if err != nil {
		return err
	}
	u.SetPasswordHash(hash)
	if err := access.RevokeUserSessions(ctx, s.db(ctx), id, uuid.Nil); err != nil {
		return err
	}
	s.Revocations.Publish(ctx, access.EndUserSessions(id, uuid.Nil))
	return nil
}

// DeleteUser removes a user from the viewer's organization (membership
// and team seats); the account remains, as it is the person's. Errors:
// not_found, invalid (the organization's last active Admin), forbidden (an
// Admin removed by someone who is not an Admin).
func (s *Service) DeleteUser(ctx context.Context, id uuid.UUID) error {
	m, err := s.User(ctx, id)
	if err != nil {
		return err
	}
	return s.removeMembership(ctx, m)
}

// validFullName trims a full name and checks it. Errors: invalid.
func validFullName(raw string) (string, error) {
	return valid.RequiredText("full_name", raw, MaxFullNameLength)
}

// newPasswordHash checks pw against the password policy and hashes it.
// Errors: invalid (the policy).
func newPasswordHash(pw string) (string, error) {
	if err := auth.ValidatePassword(pw); err != nil {
		return "", apperr.Invalidf("%s", err.Error())
	}
	hash, err := auth.HashPassword(pw)
	return hash, apperr.Wrap(err, "password")
}
