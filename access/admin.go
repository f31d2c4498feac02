package access

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/auth"
	"switchboard/ent"
	"switchboard/ent/organization"
	"switchboard/ent/rule"
	"switchboard/ent/user"
)

// AdminRequest is what the operator's create-admin command asks for.
type AdminRequest struct {
	Email string
	// Password empty: one is generated and returned once.
	Password string
	// Organization is an existing organization's id, slug or name (any
	// case); one by that name is created when none matches.
	Organization string
}

// AdminResult tells what CreateAdmin did.
type AdminResult struct {
	UserID           uuid.UUID
	Email            string
	Password         string // set only when it was generated
	OrganizationID   uuid.UUID
	OrganizationName string
	OrganizationNew  bool
}

// CreateAdmin creates a super admin who is Admin of an organization: the
// operator's way in when nobody can log in (a lost bootstrap password, a
// new deployment whose first admin is not ADMIN_EMAIL). It prepares the
// permission catalogue and system roles as Bootstrap does. An email that
// already has an account is refused: the command never takes over a
// person's identity.
func CreateAdmin(ctx context.Context, c *ent.Client, req AdminRequest) (*AdminResult, error) {
	email := NormalizeEmail(req.Email)
	if !validEmail(email) {
		return nil, apperr.Invalidf("email %q is not a valid address", req.Email)
	}
	res := &AdminResult{Email: email, Password: ""}
	password := req.Password
	if password == "" {
		password = auth.RandomToken(16)
		res.Password = password
	} else if err := auth.ValidatePassword(password); err != nil {
		return nil, apperr.Invalidf("%s", err.Error())
	}
	orgRef := strings.TrimSpace(req.Organization)
	if orgRef == "" {
		return nil, apperr.Invalidf("an organization is required")
	}
	added, err := EnsurePermissions(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := EnsureSystemRoles(ctx, c, added); err != nil {
		return nil, err
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return nil, err
	}
	bctx := rule.Bypass(ctx, "operator create-admin")
	err = WithTx(ctx, c, func(tx *ent.Client) error {
		taken, err := tx.User.Query().Where(user.Email(email)).Exist(bctx)
		if err != nil {
			return err
		}
		if taken {
			return apperr.New(apperr.Conflict, "a user with email %s already exists", email)
		}
		u, err := tx.User.Create().SetEmail(email).SetPasswordHash(hash).
			SetFullName("Administrator").SetIsSuperAdmin(true).Save(bctx)
		if err != nil {
			return err
		}
		res.UserID = u.ID
		return joinAsAdmin(ctx, tx, u.ID, orgRef, res)
	})
	if err != nil {
		return nil, fmt.Errorf("create-admin: %w", err)
	}
	return res, nil
}

// joinAsAdmin makes userID the Admin of the organization orgRef names,
// creating it when none matches.
func joinAsAdmin(ctx context.Context, tx *ent.Client, userID uuid.UUID, orgRef string, res *AdminResult) error {
	bctx := rule.Bypass(ctx, "operator create-admin")
	preds := organization.Or(organization.SlugEqualFold(orgRef), organization.NameEqualFold(orgRef))
	if id, err := uuid.Parse(orgRef); err == nil {
		preds = organization.Or(preds, organization.ID(id))
	}
	orgs, err := tx.Organization.Query().Where(preds).Order(ent.Asc(organization.FieldCreatedAt)).All(bctx)
	if err != nil {
		return err
	}
	switch len(orgs) {
	case 0:
		org, err := CreateOrganization(ctx, tx, orgRef, userID, true)
		if err != nil {
			return err
		}
		res.OrganizationID, res.OrganizationName, res.OrganizationNew = org.ID, org.Name, true
		return nil
	case 1:
	default:
		return apperr.Invalidf("%d organizations match %q; name one by id", len(orgs), orgRef)
	}
	org := orgs[0]
	if err := addAdmin(ctx, tx, org.ID, userID, true); err != nil {
		return err
	}
	res.OrganizationID, res.OrganizationName = org.ID, org.Name
	return nil
}
