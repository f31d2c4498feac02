package access

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/organizationmember"
	"switchboard/ent/role"
	"switchboard/ent/rule"
	"switchboard/ent/ssoconfig"
	"switchboard/ent/ssoidentity"
	"switchboard/ent/user"
	"switchboard/ent/viewer"
)

// SSOIdentity is a person an identity provider vouched for, under one of
// the organization's provider configurations, with what that configuration
// allows.
type SSOIdentity struct {
	OrgID    uuid.UUID
	ConfigID uuid.UUID
	Provider ssoconfig.Provider
	// Issuer and Subject are the provider's stable name of the person:
	// the one thing single sign-on finds them by.
	Issuer  string
	Subject string
	// Email is verified by the identity provider (the caller checks it).
	Email    string
	FullName string
	// AllowAutoCreate creates a new account (never a membership of an
	// existing one) on first sign-in; DefaultRole names its role.
	AllowAutoCreate bool
	DefaultRole     string
}

// Refusals of single sign-on.
var (
	errSSOSuperAdmin = apperr.Forbiddenf("a super admin cannot sign in through an organization's identity provider")
	errSSONotMember  = apperr.Forbiddenf("this account is not a member of the organization")
	errSSOLinkedElse = apperr.New(apperr.Conflict, "this identity is already linked to another account")
)

// errSSONotLinked refuses a sign-in whose subject is linked to no account
// when none may be created; it reads the same whether the e-mail has an
// account or not.
func errSSONotLinked(p ssoconfig.Provider) error {
	return apperr.Forbiddenf("no account is linked to this sign-in: if you already have an account, sign in with your password and link %s from your profile", p)
}

// SingleSignOn starts a session in the organization for the person whose
// subject the provider vouched for. The person is the account linked to
// that subject (issuer and sub, under this provider configuration), never
// one found by e-mail: an account must be linked by its owner first
// (LinkSSOIdentity). Without a link, and only with AllowAutoCreate, a new
// account is created with its membership and link, when no account uses
// the e-mail. An organization's provider never signs in a super admin, and
// never adds a membership to an existing account. Accounts created here
// have no password. Errors: forbidden (no link and no creation, a super
// admin, a deactivated account, an account that is no longer a member),
// not_found (the organization).
func (s *Service) SingleSignOn(ctx context.Context, id SSOIdentity) (*Session, error) {
	if id.Issuer == "" || id.Subject == "" {
		return nil, apperr.Forbiddenf("the identity provider did not identify the person")
	}
	bctx := rule.Bypass(ctx, "single sign-on reads the linked account")
	sctx := viewer.SystemContext(ctx, id.OrgID)
	link, err := s.Client.SSOIdentity.Query().Where(ssoidentity.SSOConfigID(id.ConfigID),
		ssoidentity.Issuer(id.Issuer), ssoidentity.Subject(id.Subject)).Only(sctx)
	switch {
	case ent.IsNotFound(err):
		return s.ssoCreate(ctx, id)
	case err != nil:
		return nil, apperr.Wrap(err, "identity")
	}
	u, err := s.Client.User.Get(bctx, link.UserID)
	if err != nil {
		return nil, apperr.Wrap(err, "user")
	}
	if err := ssoEligible(u); err != nil {
		return nil, err
	}
	member, err := s.Client.OrganizationMember.Query().Where(organizationmember.UserID(u.ID)).Exist(sctx)
	if err != nil {
		return nil, apperr.Wrap(err, "membership")
	}
	if !member {
		return nil, errSSONotMember
	}
	now := s.now().UTC()
	_ = s.Client.SSOIdentity.UpdateOne(link).SetLastLoginAt(now).Exec(sctx)
	_ = s.Client.User.UpdateOneID(u.ID).SetLastLoginAt(now).Exec(bctx)
	return s.newSession(ctx, u.ID, id.OrgID, uuid.New())
}

// ssoEligible refuses the accounts an organization's provider may not
// sign in or link.
func ssoEligible(u *ent.User) error {
	switch {
	case u.IsSuperAdmin:
		return errSSOSuperAdmin
	case !u.IsActive:
		return apperr.Forbiddenf("this account is deactivated")
	}
	return nil
}

// ssoCreate makes the account of a first sign-in whose subject is linked
// to no one: a new user (no password), their membership with the
// configuration's role and the link, in one transaction. An e-mail that
// has an account already is refused like a sign-in without creation.
func (s *Service) ssoCreate(ctx context.Context, id SSOIdentity) (*Session, error) {
	email := NormalizeEmail(id.Email)
	if !id.AllowAutoCreate || !validEmail(email) {
		return nil, errSSONotLinked(id.Provider)
	}
	bctx := rule.Bypass(ctx, "single sign-on creates an account")
	sctx := viewer.SystemContext(ctx, id.OrgID)
	if _, err := s.Client.Organization.Get(bctx, id.OrgID); err != nil {
		return nil, apperr.Wrap(err, "organization")
	}
	taken, err := s.Client.User.Query().Where(user.Email(email)).Exist(bctx)
	if err != nil {
		return nil, apperr.Wrap(err, "user")
	}
	if taken {
		return nil, errSSONotLinked(id.Provider)
	}
	name := strings.TrimSpace(id.FullName)
	if name == "" || utf8.RuneCountInString(name) > 200 {
		name = email[:strings.IndexByte(email, '@')]
	}
	now := s.now().UTC()
	var userID uuid.UUID
	err = WithTx(ctx, s.Client, func(tx *ent.Client) error {
		roleID, err := ssoRole(sctx, tx, id.DefaultRole)
		if err != nil {
			return err
		}
		u, err := tx.User.Create().SetEmail(email).SetFullName(name).SetLastLoginAt(now).Save(bctx)
		if err != nil {
			return apperr.Wrap(err, "user")
		}
		userID = u.ID
		if err := tx.OrganizationMember.Create().SetUserID(u.ID).SetRoleID(roleID).
			SetIsDefault(true).Exec(sctx); err != nil {
			return apperr.Wrap(err, "membership")
		}
		return createLink(sctx, tx, id, u.ID, &now)
	})
	if apperr.CodeOf(err) == apperr.Conflict {
		// A concurrent first sign-in of the same person or address won.
		return nil, errSSONotLinked(id.Provider)
	}
	if err != nil {
		return nil, err
	}
	return s.newSession(ctx, userID, id.OrgID, uuid.New())
}

// createLink links userID to the subject of id; loginAt is set for a link
// made by signing in.
func createLink(sctx context.Context, tx *ent.Client, id SSOIdentity, userID uuid.UUID, loginAt *time.Time) error {
	return apperr.Wrap(tx.SSOIdentity.Create().SetSSOConfigID(id.ConfigID).SetUserID(userID).
		SetProvider(ssoidentity.Provider(id.Provider)).SetIssuer(id.Issuer).SetSubject(id.Subject).
		SetEmail(clipEmail(NormalizeEmail(id.Email))).SetNillableLastLoginAt(loginAt).Exec(sctx), "identity")
}

// clipEmail keeps a provider's address within the column; it is shown,
// never matched.
func clipEmail(e string) string {
	if len(e) > 320 {
		return ""
	}
	return e
}

// SSOLink is a person's request, from their own session, to link their
// subject at the organization's provider to their account.
type SSOLink struct {
	// UserID, OrgID and SessionID are the session that asked.
	UserID, OrgID, SessionID uuid.UUID
	Identity                 SSOIdentity
}

// CheckSSOLinker refuses the viewers that may not link an identity
// provider: an API key or system actor (only a person's own session
// links), and a super admin (no organization's provider signs one in).
func (s *Service) CheckSSOLinker(ctx context.Context, v *viewer.Viewer) error {
	if v == nil || v.APIKeyID != uuid.Nil || v.SessionID == uuid.Nil || v.System {
		return apperr.Forbiddenf("only a person's own session can link an identity provider")
	}
	if v.SuperAdmin {
		return errSSOSuperAdmin
	}
	return nil
}

// LinkSSOIdentity links the subject to the account of the session that
// started the link, once the provider vouched for it. The session must
// still be live and a member, the account active and not a super admin,
// and the subject linked to no other account of this configuration; a
// person's earlier link to this configuration is replaced. Errors:
// unauthenticated (the session ended), forbidden (the rules above),
// conflict (the subject is another account's).
func (s *Service) LinkSSOIdentity(ctx context.Context, l SSOLink) error {
	v, err := s.loadSessionViewer(ctx, l.UserID, l.OrgID, l.SessionID)
	if err != nil {
		return err
	}
	if err := s.CheckSSOLinker(ctx, v); err != nil {
		return err
	}
	if l.Identity.Issuer == "" || l.Identity.Subject == "" {
		return apperr.Forbiddenf("the identity provider did not identify the person")
	}
	sctx := viewer.SystemContext(ctx, l.OrgID)
	err = WithTx(ctx, s.Client, func(tx *ent.Client) error {
		holder, err := tx.SSOIdentity.Query().Where(ssoidentity.SSOConfigID(l.Identity.ConfigID),
			ssoidentity.Issuer(l.Identity.Issuer), ssoidentity.Subject(l.Identity.Subject)).Only(sctx)
		switch {
		case err == nil && holder.UserID != l.UserID:
			return errSSOLinkedElse
		case err == nil:
			return nil // linked already
		case !ent.IsNotFound(err):
			return apperr.Wrap(err, "identity")
		}
		if _, err := tx.SSOIdentity.Delete().Where(ssoidentity.SSOConfigID(l.Identity.ConfigID),
			ssoidentity.UserID(l.UserID)).Exec(sctx); err != nil {
			return apperr.Wrap(err, "identity")
		}
		return createLink(sctx, tx, l.Identity, l.UserID, nil)
	})
	if apperr.CodeOf(err) == apperr.Conflict {
		return errSSOLinkedElse
	}
	return err
}

// MySSOIdentities lists the viewer's own links in their organization
// (the privacy policy keeps everyone else's out), newest first.
func MySSOIdentities(ctx context.Context, c *ent.Client) ([]*ent.SSOIdentity, error) {
	ids, err := c.SSOIdentity.Query().Order(ent.Desc(ssoidentity.FieldCreatedAt)).Limit(maxIdentities).All(ctx)
	return ids, apperr.Wrap(err, "identity")
}

// maxIdentities bounds a person's links in one organization: one per
// provider configuration.
const maxIdentities = 10

// UnlinkSSOIdentity removes one of the viewer's own links. Errors:
// not_found (unknown, or another person's).
func UnlinkSSOIdentity(ctx context.Context, c *ent.Client, id uuid.UUID) error {
	n, err := c.SSOIdentity.Delete().Where(ssoidentity.ID(id)).Exec(ctx)
	if err != nil {
		return apperr.Wrap(err, "identity")
	}
	if n == 0 {
		return apperr.NotFoundf("identity not found")
	}
	return nil
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
