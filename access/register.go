package access

import (
	"context"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/auth"
	"switchboard/ent"
	"switchboard/ent/invitation"
	"switchboard/ent/role"
	"switchboard/ent/rule"
	"switchboard/ent/user"
	"switchboard/ent/viewer"
)

// RegisterInput is a registration request.
type RegisterInput struct {
	Email          string
	Password       string
	FullName       string
	OrganizationID uuid.UUID
}

// errRegistrationRefused answers every registration that cannot be made:
// no invitation (and no open registration), or an address that has an
// account already. They read the same, so registering tells nobody who has
// an account (issue 28).
var errRegistrationRefused = apperr.Forbiddenf("registration needs an invitation to this organization for an address without an account; if you already have an account, log in and accept the invitation instead")

// Register creates a user inside an existing organization. The organization
// must hold a pending invitation for the email, unless its settings allow
// open registration, and the email must have no account. The new member
// gets the invitation's role, else the organization's default role. A
// refusal says the same, in about the same time, whatever the reason.
// Errors: invalid (the input), not_found (the organization), forbidden
// (errRegistrationRefused).
func (s *Service) Register(ctx context.Context, in RegisterInput) (*Session, error) {
	in.Email = NormalizeEmail(in.Email)
	if err := validateRegistration(in); err != nil {
		return nil, err
	}
	// Hashed first, so a refusal costs what a registration costs.
	hash, err := auth.HashPassword(in.Password)
	if err != nil {
		return nil, apperr.Wrap(err, "user")
	}
	bctx := rule.Bypass(ctx, "registration")
	org, err := s.Client.Organization.Get(bctx, in.OrganizationID)
	if err != nil {
		return nil, apperr.Wrap(err, "organization")
	}
	sctx := viewer.SystemContext(ctx, org.ID)
	inv, err := s.Client.Invitation.Query().
		Where(invitation.Email(in.Email), invitation.AcceptedAtIsNil(), invitation.ExpiresAtGT(s.now())).
		Only(sctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, apperr.Wrap(err, "invitation")
	}
	taken, err := s.Client.User.Query().Where(user.Email(in.Email)).Exist(bctx)
	if err != nil {
		return nil, apperr.Wrap(err, "user")
	}
	if taken || (inv == nil && !org.AllowOpenRegistration) {
		return nil, errRegistrationRefused
	}
	var userID uuid.UUID
	err = WithTx(ctx, s.Client, func(tx *ent.Client) error {
		roleID, err := registrationRole(sctx, tx, inv)
		if err != nil {
			return err
		}
		u, err := tx.User.Create().SetEmail(in.Email).SetPasswordHash(hash).SetFullName(in.FullName).Save(bctx)
		if err != nil {
			return apperr.Wrap(err, "user")
		}
		userID = u.ID
		if err := tx.OrganizationMember.Create().SetUserID(u.ID).SetRoleID(roleID).SetIsDefault(true).Exec(sctx); err != nil {
			return apperr.Wrap(err, "membership")
		}
		if inv != nil {
			return tx.Invitation.UpdateOneID(inv.ID).SetAcceptedAt(s.now().UTC()).Exec(sctx)
		}
		return nil
	})
	if apperr.CodeOf(err) == apperr.Conflict {
		// The address was registered meanwhile.
		return nil, errRegistrationRefused
	}
	if err != nil {
		return nil, apperr.Wrap(err, "user")
	}
	return s.newSession(ctx, userID, org.ID, uuid.New())
}

func validateRegistration(in RegisterInput) error {
	switch {
	case in.Email == "" || !validEmail(in.Email):
		return apperr.Invalidf("a valid email is required")
	case in.FullName == "":
		return apperr.Invalidf("full_name is required")
	case in.OrganizationID == uuid.Nil:
		return apperr.Invalidf("organization_id is required")
	}
	if err := auth.ValidatePassword(in.Password); err != nil {
		return apperr.Invalidf("%s", err.Error())
	}
	return nil
}

// registrationRole is the invitation's role, else the organization's
// default role, else Agent.
func registrationRole(sctx context.Context, tx *ent.Client, inv *ent.Invitation) (uuid.UUID, error) {
	if inv != nil {
		return inv.RoleID, nil
	}
	return DefaultRoleID(sctx, tx)
}

// DefaultRoleID returns the organization's default role (the viewer's
// organization in ctx), falling back to the Agent system role.
func DefaultRoleID(ctx context.Context, c *ent.Client) (uuid.UUID, error) {
	r, err := c.Role.Query().Where(role.IsDefault(true)).Order(ent.Asc(role.FieldCreatedAt)).First(ctx)
	if ent.IsNotFound(err) {
		r, err = c.Role.Query().Where(role.Name(RoleAgent), role.IsSystem(true)).Only(ctx)
	}
	if err != nil {
		return uuid.Nil, apperr.Wrap(err, "default role")
	}
	return r.ID, nil
}
