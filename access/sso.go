package access

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/organizationmember"
	"switchboard/ent/role"
	"switchboard/ent/rule"
	"switchboard/ent/user"
	"switchboard/ent/viewer"
)

// SSOIdentity is a person an identity provider vouched for, with what the
// organization's SSO configuration allows.
type SSOIdentity struct {
	OrgID uuid.UUID
	// Email is verified by the identity provider (the caller checks it).
	Email    string
	FullName string
	// AllowAutoCreate creates the account, or the membership, on first
	// login; DefaultRole names the role they get.
	AllowAutoCreate bool
	DefaultRole     string
}

// SingleSignOn starts a session in the organization for the person of a
// verified email: an existing account is matched by that email; one that
// is not a member, or no account at all, is created (membership, or user
// and membership, with DefaultRole, else the organization's default role)
// only with AllowAutoCreate. Accounts created here have no password.
// Errors: forbidden (no account or membership and no auto-creation; a
// deactivated account), not_found (the organization).
func (s *Service) SingleSignOn(ctx context.Context, id SSOIdentity) (*Session, error) {
	email := NormalizeEmail(id.Email)
	if email == "" {
		return nil, apperr.Forbiddenf("the identity provider gave no email address")
	}
	bctx := rule.Bypass(ctx, "single sign-on looks up the user by a verified email")
	sctx := viewer.SystemContext(ctx, id.OrgID)
	if _, err := s.Client.Organization.Get(bctx, id.OrgID); err != nil {
		return nil, apperr.Wrap(err, "organization")
	}
	u, err := s.Client.User.Query().Where(user.Email(email)).Only(bctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, apperr.Wrap(err, "user")
	}
	if u != nil && !u.IsActive {
		return nil, apperr.Forbiddenf("this account is deactivated")
	}
	member := false
	if u != nil {
		if member, err = s.Client.OrganizationMember.Query().
			Where(organizationmember.UserID(u.ID)).Exist(sctx); err != nil {
			return nil, apperr.Wrap(err, "membership")
		}
	}
	if !member {
		if !id.AllowAutoCreate {
			return nil, apperr.Forbiddenf("no account of this organization uses %s, and single sign-on does not create accounts", email)
		}
		name := strings.TrimSpace(id.FullName)
		if name == "" || utf8.RuneCountInString(name) > 200 {
			name = email[:strings.IndexByte(email+"@", '@')]
		}
		err = WithTx(ctx, s.Client, func(tx *ent.Client) error {
			roleID, err := ssoRole(sctx, tx, id.DefaultRole)
			if err != nil {
				return err
			}
			if u == nil {
				if u, err = tx.User.Create().SetEmail(email).SetFullName(name).Save(bctx); err != nil {
					return apperr.Wrap(err, "user")
				}
			}
			return apperr.Wrap(tx.OrganizationMember.Create().SetUserID(u.ID).SetRoleID(roleID).
				SetIsDefault(true).Exec(sctx), "membership")
		})
		if err != nil {
			return nil, err
		}
	}
	_ = s.Client.User.UpdateOneID(u.ID).SetLastLoginAt(s.now().UTC()).Exec(bctx)
	return s.newSession(ctx, u.ID, id.OrgID, uuid.New())
}

// ssoRole is the role named name (case-insensitively) in the organization
// of ctx, else its default role.
func ssoRole(ctx context.Context, tx *ent.Client, name string) (uuid.UUID, error) {
	if name = strings.TrimSpace(name); name != "" {
		r, err := tx.Role.Query().Where(role.NameEqualFold(name)).First(ctx)
		if err == nil {
			return r.ID, nil
		}
		if !ent.IsNotFound(err) {
			return uuid.Nil, apperr.Wrap(err, "role")
		}
	}
	return DefaultRoleID(ctx, tx)
}
