package graph

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/auth"
	"switchboard/ent"
	"switchboard/ent/organizationmember"
	"switchboard/ent/user"
	"switchboard/ent/viewer"
	"switchboard/graph/model"
)

// maxFullName is the limit of a user's full_name column.
const maxFullName = 200

// Users of an organization are its members: every operation here reads and
// returns the membership (*ent.OrganizationMember) with the user and the
// role loaded, so a user from another organization is simply not found.

// GetUser returns the membership of user id in the viewer's organization
// with the user and the role. Errors: not_found.
func (r *Resolver) GetUser(ctx context.Context, id uuid.UUID) (*ent.OrganizationMember, error) {
	m, err := r.db(ctx).OrganizationMember.Query().Where(organizationmember.UserID(id)).
		WithUser().WithRole().Only(ctx)
	return m, apperr.Wrap(err, "user")
}

// CreatedUser tells what CreateUser did: an account with a membership, or
// an invitation to register.
type CreatedUser struct {
	Member     *ent.OrganizationMember
	Invitation *ent.Invitation
}

// CreateUser adds a new person to the viewer's organization with a role
// (default: the organization's default role). With a password it creates
// the account, active, and its membership; without one it creates (or
// refreshes) an invitation to register, and full_name is left for the
// person to give when registering. Errors: invalid (malformed email,
// full_name missing or too long when creating the account, password
// policy, an account with this email already exists), not_found (role_id),
// forbidden (the Admin role, for a viewer who is not an Admin).
func (r *Resolver) CreateUser(ctx context.Context, in model.CreateUserInput) (*CreatedUser, error) {
	email, err := validInviteEmail(in.Email)
	if err != nil {
		return nil, err
	}
	ro, err := r.memberRole(ctx, in.RoleID)
	if err != nil {
		return nil, err
	}
	existing, err := r.findAccount(ctx, user.Email(email))
	if err != nil {
		return nil, err
	}
	if existing != nil {
		member, err := r.db(ctx).OrganizationMember.Query().Where(organizationmember.UserID(existing.ID)).Exist(ctx)
		if err != nil {
			return nil, apperr.Wrap(err, "member")
		}
		if member {
			return nil, apperr.Invalidf("a user with this email is already a member of the organization")
		}
		return nil, apperr.Invalidf("an account with this email already exists; add it to the organization as a member instead")
	}
	if in.Password == nil {
		inv, err := r.invite(ctx, email, ro.ID)
		if err != nil {
			return nil, err
		}
		return &CreatedUser{Invitation: inv}, nil
	}
	name, err := validFullName(in.FullName)
	if err != nil {
		return nil, err
	}
	hash, err := newPasswordHash(*in.Password)
	if err != nil {
		return nil, err
	}
	db := r.db(ctx)
	u, err := db.User.Create().SetEmail(email).SetFullName(name).SetPasswordHash(hash).Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "user")
	}
	if err := db.OrganizationMember.Create().SetUserID(u.ID).SetRoleID(ro.ID).SetIsDefault(true).Exec(ctx); err != nil {
		return nil, apperr.Wrap(err, "member")
	}
	m, err := r.GetUser(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	return &CreatedUser{Member: m}, nil
}

// UpdateUser changes the given fields of a member of the viewer's
// organization. Deactivation takes effect at the user's next request. The
// account is shared by every organization the user belongs to, so its
// password and active flag may only be changed by a super admin when the
// user also belongs to another organization or is a super admin.
// Errors: not_found (user or role), invalid (empty or too long full_name,
// password policy, deactivating oneself, setting one's own password here,
// deactivating or demoting the organization's last active Admin),
// forbidden (an account reaching beyond the organization; granting, taking
// away or taking over an Admin seat without being an Admin).
func (r *Resolver) UpdateUser(ctx context.Context, id uuid.UUID, in model.UpdateUserInput) (*ent.OrganizationMember, error) {
	m, err := r.GetUser(ctx, id)
	if err != nil {
		return nil, err
	}
	v := viewer.FromContext(ctx)
	u := r.db(ctx).User.UpdateOneID(id)
	changed := false
	if in.FullName != nil {
		name, err := validFullName(*in.FullName)
		if err != nil {
			return nil, err
		}
		u.SetFullName(name)
		changed = true
	}
	admin, err := r.holdsAdmin(ctx, m)
	if err != nil {
		return nil, err
	}
	if in.IsActive != nil && *in.IsActive != m.Edges.User.IsActive {
		if err := requireAdminFor(ctx, admin, "activate or deactivate an Admin"); err != nil {
			return nil, err
		}
		if !*in.IsActive {
			if id == v.UserID {
				return nil, apperr.Invalidf("you cannot deactivate your own account")
			}
			if err := r.guardLastAdmin(ctx, m.ID, "deactivate"); err != nil {
				return nil, err
			}
		}
		if err := r.guardAccountChange(ctx, m.Edges.User, "activate or deactivate"); err != nil {
			return nil, err
		}
		u.SetIsActive(*in.IsActive)
		changed = true
	}
	if in.Password != nil {
		if id == v.UserID {
			return nil, apperr.Invalidf("change your own password with your current password instead")
		}
		if err := requireAdminFor(ctx, admin, "set the password of an Admin"); err != nil {
			return nil, err
		}
		if err := r.guardAccountChange(ctx, m.Edges.User, "set the password of"); err != nil {
			return nil, err
		}
		hash, err := newPasswordHash(*in.Password)
		if err != nil {
			return nil, err
		}
		u.SetPasswordHash(hash)
		changed = true
		// A reset password ends every session of the account.
		if err := access.RevokeUserSessions(ctx, r.db(ctx), id, uuid.Nil); err != nil {
			return nil, err
		}
	}
	if in.RoleID != nil {
		if err := r.setMemberRole(ctx, m, *in.RoleID); err != nil {
			return nil, err
		}
	}
	if changed {
		if err := u.Exec(ctx); err != nil {
			return nil, apperr.Wrap(err, "user")
		}
	}
	return r.GetUser(ctx, id)
}

// guardAccountChange allows a change to target's account (shared by every
// organization it belongs to) only when it stays within the viewer's
// organization: a super admin may change any account; anyone else only one
// that is not a super admin and belongs to no other organization.
func (r *Resolver) guardAccountChange(ctx context.Context, target *ent.User, what string) error {
	if viewer.FromContext(ctx).SuperAdmin {
		return nil
	}
	if target.IsSuperAdmin {
		return apperr.Forbiddenf("only a super admin can %s a super admin", what)
	}
	n, err := r.membershipCount(ctx, target.ID)
	if err != nil {
		return err
	}
	if n > 1 {
		return apperr.Forbiddenf("this user also belongs to other organizations; only a super admin can %s them", what)
	}
	return nil
}

// UserRemoval tells what DeleteUser did besides removing the membership.
type UserRemoval struct {
	// Deactivated is set when the user belonged to no other organization
	// and the account was deactivated.
	Deactivated bool
}

// DeleteUser removes a user from the viewer's organization (membership
// and team seats). When they belong to no other organization the account
// is deactivated too (super admins excepted: they act everywhere).
// Errors: not_found, invalid (the organization's last active Admin;
// removing oneself when that would deactivate one's own account),
// forbidden (an Admin removed by someone who is not an Admin).
func (r *Resolver) DeleteUser(ctx context.Context, id uuid.UUID) (*UserRemoval, error) {
	m, err := r.GetUser(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := r.guardAdminRemoval(ctx, m); err != nil {
		return nil, err
	}
	n, err := r.membershipCount(ctx, id)
	if err != nil {
		return nil, err
	}
	out := &UserRemoval{Deactivated: n <= 1 && !m.Edges.User.IsSuperAdmin && m.Edges.User.IsActive}
	if out.Deactivated {
		if id == viewer.FromContext(ctx).UserID {
			return nil, apperr.Invalidf("you cannot remove yourself: this is your only organization and your account would be deactivated")
		}
		// Deactivate while still a member: the data layer lets the viewer
		// change only the users of their organization.
		if err := r.db(ctx).User.UpdateOneID(id).SetIsActive(false).Exec(ctx); err != nil {
			return nil, apperr.Wrap(err, "user")
		}
	}
	if err := r.deleteMembership(ctx, m); err != nil {
		return nil, err
	}
	return out, nil
}

func validFullName(raw string) (string, error) {
	name := strings.TrimSpace(raw)
	switch {
	case name == "":
		return "", apperr.Invalidf("full_name is required")
	case utf8.RuneCountInString(name) > maxFullName:
		return "", apperr.Invalidf("full_name must be at most %d characters", maxFullName)
	}
	return name, nil
}

// newPasswordHash checks pw against the password policy and hashes it.
func newPasswordHash(pw string) (string, error) {
	if err := auth.ValidatePassword(pw); err != nil {
		return "", apperr.Invalidf("%s", err.Error())
	}
	hash, err := auth.HashPassword(pw)
	return hash, apperr.Wrap(err, "password")
}
