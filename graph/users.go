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

// CreateUser adds a person to the viewer's organization with a role
// (default: the organization's default role). Without a password it
// creates (or refreshes) an invitation, whether or not the email has an
// account (the answer does not tell which): the person registers, or, with
// an account, accepts it. With a password, which only a super admin may
// set for another person, it creates the account, active, and its
// membership. Errors: invalid (malformed email, full_name missing or too
// long when creating the account, password policy, a password from anyone
// but a super admin, the email is a member already, or (for a super admin)
// it has an account), not_found (role_id), forbidden (the Admin role, for
// a viewer who is not an Admin).
func (r *Resolver) CreateUser(ctx context.Context, in model.CreateUserInput) (*CreatedUser, error) {
	email, err := validInviteEmail(in.Email)
	if err != nil {
		return nil, err
	}
	ro, err := r.memberRole(ctx, in.RoleID)
	if err != nil {
		return nil, err
	}
	if err := r.notYetMember(ctx, email); err != nil {
		return nil, err
	}
	if in.Password == nil {
		inv, err := r.invite(ctx, email, ro.ID)
		if err != nil {
			return nil, err
		}
		return &CreatedUser{Invitation: inv}, nil
	}
	if !viewer.FromContext(ctx).SuperAdmin {
		return nil, apperr.Invalidf("only a super admin can set another person's password; leave password out and the person is invited to set their own")
	}
	existing, err := r.findAccount(ctx, user.Email(email))
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
// organization. The role is the organization's to manage. The rest is the
// person's identity, shared by every organization they belong to: only
// the person (their name; their password through ChangePassword) or a
// super admin changes it, and never through an API key. Deactivation takes
// effect at the user's next request. Errors: not_found (user or role),
// invalid (empty or too long full_name, password policy, deactivating
// oneself, setting one's own password here, deactivating or demoting the
// organization's last active Admin), forbidden (an identity change by
// someone else or by an API key; granting, taking away or taking over an
// Admin seat without being an Admin).
func (r *Resolver) UpdateUser(ctx context.Context, id uuid.UUID, in model.UpdateUserInput) (*ent.OrganizationMember, error) {
	m, err := r.GetUser(ctx, id)
	if err != nil {
		return nil, err
	}
	v := viewer.FromContext(ctx)
	if in.FullName != nil || in.IsActive != nil || in.Password != nil {
		if err := requireIdentityOwner(v, id); err != nil {
			return nil, err
		}
	}
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
	if in.IsActive != nil && *in.IsActive != m.Edges.User.IsActive {
		if !*in.IsActive {
			if id == v.UserID {
				return nil, apperr.Invalidf("you cannot deactivate your own account")
			}
			if err := r.guardLastAdmin(ctx, m.ID, "deactivate"); err != nil {
				return nil, err
			}
		}
		u.SetIsActive(*in.IsActive)
		changed = true
	}
	if in.Password != nil {
		if id == v.UserID {
			return nil, apperr.Invalidf("change your own password with your current password instead")
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
		r.Revocations.Publish(ctx, access.EndUserSessions(id, uuid.Nil))
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
	if in.IsActive != nil && !*in.IsActive {
		r.Revocations.Publish(ctx, access.EndUser(id))
	}
	return r.GetUser(ctx, id)
}

// requireIdentityOwner allows a change to the account of userID (its
// name, email, password, active flag) only to that person or a super
// admin, signed in: membership in an organization gives no power over a
// person's identity, and an API key none over its owner's.
func requireIdentityOwner(v *viewer.Viewer, userID uuid.UUID) error {
	if v.APIKeyID != uuid.Nil {
		return apperr.Forbiddenf("an API key cannot change a person's name, email, password or active flag")
	}
	if v.SuperAdmin || v.UserID == userID {
		return nil
	}
	return apperr.Forbiddenf("only the person or a super admin can change their name, email, password or active flag; an organization manages the role only")
}

// DeleteUser removes a user from the viewer's organization (membership
// and team seats); the account remains, as it is the person's. Errors:
// not_found, invalid (the organization's last active Admin), forbidden (an
// Admin removed by someone who is not an Admin).
func (r *Resolver) DeleteUser(ctx context.Context, id uuid.UUID) error {
	m, err := r.GetUser(ctx, id)
	if err != nil {
		return err
	}
	return r.removeMembership(ctx, m)
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
