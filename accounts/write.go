package accounts

import (
	"context"
	"strings"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/auth"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/organization"
	"switchboard/ent/predicate"
	"switchboard/ent/viewer"
	"switchboard/internal/valid"
	"switchboard/provider"
)

// Create connects a business phone number. The access token and
// app secret are encrypted at rest; a missing webhook verify token is
// generated; api_version defaults to v21.0. The organization's first
// account, and any account created while the organization has no default,
// becomes the default incoming and outgoing account; setting a default
// clears it on the other accounts. Errors: invalid (a required field
// missing, a malformed id, token or api_version, a duplicate name),
// conflict (phone_id held by another account, of any organization;
// business_id held by another organization).
func (s *Service) Create(ctx context.Context, in CreateInput) (*View, error) {
	name, err := valid.RequiredText("name", in.Name, maxAccountName)
	if err != nil {
		return nil, err
	}
	phoneID, err := graphID("phone_id", in.PhoneID, true)
	if err != nil {
		return nil, err
	}
	businessID, err := graphID("business_id", in.BusinessID, true)
	if err != nil {
		return nil, err
	}
	token := strings.TrimSpace(in.AccessToken)
	if token == "" {
		return nil, apperr.Invalidf("access_token is required")
	}
	appID := ""
	if in.AppID != nil {
		if appID, err = graphID("app_id", *in.AppID, false); err != nil {
			return nil, err
		}
	}
	version := provider.DefaultAPIVersion
	if in.APIVersion != nil {
		if version, err = apiVersion(*in.APIVersion); err != nil {
			return nil, err
		}
	}
	verify := auth.RandomToken(verifyTokenBytes)
	if in.WebhookVerifyToken != nil && strings.TrimSpace(*in.WebhookVerifyToken) != "" {
		if verify, err = valid.Text("webhook_verify_token", *in.WebhookVerifyToken, maxVerifyToken); err != nil {
			return nil, err
		}
	}
	sealedToken, err := s.Secrets.SealField("access_token", token, maxAccessToken)
	if err != nil {
		return nil, err
	}
	var sealedSecret []byte
	if in.AppSecret != nil && strings.TrimSpace(*in.AppSecret) != "" {
		if sealedSecret, err = s.Secrets.SealField("app_secret", strings.TrimSpace(*in.AppSecret), maxAppSecret); err != nil {
			return nil, err
		}
	}

	if err := s.lockAccountDefaults(ctx); err != nil {
		return nil, err
	}
	if err := s.uniqueAccountName(ctx, name, uuid.Nil); err != nil {
		return nil, err
	}
	db := s.db(ctx)
	incoming, err := s.defaultFor(ctx, in.IsDefaultIncoming, account.IsDefaultIncoming(true))
	if err != nil {
		return nil, err
	}
	outgoing, err := s.defaultFor(ctx, in.IsDefaultOutgoing, account.IsDefaultOutgoing(true))
	if err != nil {
		return nil, err
	}
	c := db.Account.Create().SetName(name).SetPhoneID(phoneID).SetBusinessID(businessID).
		SetAppID(appID).SetAPIVersion(version).SetWebhookVerifyToken(verify).
		SetAccessTokenEncrypted(sealedToken).
		SetIsDefaultIncoming(incoming).SetIsDefaultOutgoing(outgoing).
		SetNillableAutoReadReceipt(in.AutoReadReceipt).
		SetNillableBusinessCallingEnabled(in.BusinessCallingEnabled)
	if sealedSecret != nil {
		c.SetAppSecretEncrypted(sealedSecret)
	}
	if v := viewer.FromContext(ctx); v.UserID != uuid.Nil {
		c.SetCreatedByID(v.UserID).SetUpdatedByID(v.UserID)
	}
	a, err := c.Save(ctx)
	if err != nil {
		return nil, accountWriteError(err)
	}
	if err := s.claimBusinessID(ctx, businessID); err != nil {
		return nil, err
	}
	if err := s.clearOtherDefaults(ctx, a.ID, incoming, outgoing); err != nil {
		return nil, err
	}
	s.announceChange(ctx, a.ID)
	return s.Get(ctx, a.ID)
}

// errPhoneIDHeld answers a phone_id that an account already holds. It
// does not say where: the holder may be another organization.
const errPhoneIDHeld = "this phone_id is already connected; a phone number can be connected to one account only"

// accountWriteError classifies an account create or update error: the
// unique index on the held phone_id answers 409 with errPhoneIDHeld.
func accountWriteError(err error) error {
	if ent.IsConstraintError(err) && strings.Contains(err.Error(), account.FieldHeldPhoneID) {
		return apperr.New(apperr.Conflict, errPhoneIDHeld)
	}
	return apperr.Wrap(err, "account")
}

// Update changes the given fields of an account. The access token
// and app secret are replaced only when given non-blank. Making an account
// a default clears that default on the others; the default account cannot
// be unset (make another account the default instead). Errors: not_found,
// invalid (as for Create; an empty webhook verify token; unsetting a
// default), conflict (as for Create).
func (s *Service) Update(ctx context.Context, id uuid.UUID, in UpdateInput) (*View, error) {
	if err := s.lockAccountDefaults(ctx); err != nil {
		return nil, err
	}
	db := s.db(ctx)
	cur, err := db.Account.Get(ctx, id)
	if err != nil {
		return nil, apperr.Wrap(err, "account")
	}
	u := db.Account.UpdateOneID(id).
		SetNillableAutoReadReceipt(in.AutoReadReceipt).
		SetNillableBusinessCallingEnabled(in.BusinessCallingEnabled)
	if in.Name != nil {
		name, err := valid.RequiredText("name", *in.Name, maxAccountName)
		if err != nil {
			return nil, err
		}
		if err := s.uniqueAccountName(ctx, name, id); err != nil {
			return nil, err
		}
		u.SetName(name)
	}
	for _, f := range []struct {
		name string
		val  *string
		set  func(string) *ent.AccountUpdateOne
	}{{"phone_id", in.PhoneID, u.SetPhoneID}, {"business_id", in.BusinessID, u.SetBusinessID}} {
		if f.val != nil {
			v, err := graphID(f.name, *f.val, true)
			if err != nil {
				return nil, err
			}
			f.set(v)
		}
	}
	if in.AppID != nil {
		appID, err := graphID("app_id", *in.AppID, false)
		if err != nil {
			return nil, err
		}
		u.SetAppID(appID)
	}
	if in.APIVersion != nil {
		v, err := apiVersion(*in.APIVersion)
		if err != nil {
			return nil, err
		}
		u.SetAPIVersion(v)
	}
	if in.WebhookVerifyToken != nil {
		if strings.TrimSpace(*in.WebhookVerifyToken) == "" {
			return nil, apperr.Invalidf("webhook_verify_token cannot be empty")
		}
		v, err := valid.Text("webhook_verify_token", *in.WebhookVerifyToken, maxVerifyToken)
		if err != nil {
			return nil, err
		}
		u.SetWebhookVerifyToken(v)
	}
	if in.AccessToken != nil && strings.TrimSpace(*in.AccessToken) != "" {
		sealed, err := s.Secrets.SealField("access_token", strings.TrimSpace(*in.AccessToken), maxAccessToken)
		if err != nil {
			return nil, err
		}
		u.SetAccessTokenEncrypted(sealed)
	}
	if in.AppSecret != nil && strings.TrimSpace(*in.AppSecret) != "" {
		sealed, err := s.Secrets.SealField("app_secret", strings.TrimSpace(*in.AppSecret), maxAppSecret)
		if err != nil {
			return nil, err
		}
		u.SetAppSecretEncrypted(sealed)
	}
	if p := in.IsDefaultIncoming; p != nil && !*p && cur.IsDefaultIncoming {
		return nil, apperr.Invalidf("is_default_incoming cannot be unset: make another account the default incoming account instead")
	}
	if p := in.IsDefaultOutgoing; p != nil && !*p && cur.IsDefaultOutgoing {
		return nil, apperr.Invalidf("is_default_outgoing cannot be unset: make another account the default outgoing account instead")
	}
	incoming := in.IsDefaultIncoming != nil && *in.IsDefaultIncoming
	outgoing := in.IsDefaultOutgoing != nil && *in.IsDefaultOutgoing
	if incoming {
		u.SetIsDefaultIncoming(true)
	}
	if outgoing {
		u.SetIsDefaultOutgoing(true)
	}
	if v := viewer.FromContext(ctx); v.UserID != uuid.Nil {
		u.SetUpdatedByID(v.UserID)
	}
	saved, err := u.Save(ctx)
	if err != nil {
		return nil, accountWriteError(err)
	}
	if saved.BusinessID != cur.BusinessID {
		if err := s.claimBusinessID(ctx, saved.BusinessID); err != nil {
			return nil, err
		}
		if err := s.releaseBusinessID(ctx, cur.BusinessID, id); err != nil {
			return nil, err
		}
	}
	if err := s.clearOtherDefaults(ctx, id, incoming, outgoing); err != nil {
		return nil, err
	}
	s.announceChange(ctx, id)
	return s.Get(ctx, id)
}

// Delete disconnects an account. When it was a default, the oldest
// remaining account takes that default over. Errors: not_found.
func (s *Service) Delete(ctx context.Context, id uuid.UUID) error {
	if err := s.lockAccountDefaults(ctx); err != nil {
		return err
	}
	db := s.db(ctx)
	a, err := db.Account.Get(ctx, id)
	if err != nil {
		return apperr.Wrap(err, "account")
	}
	if err := db.Account.DeleteOneID(id).Exec(ctx); err != nil {
		return apperr.Wrap(err, "account")
	}
	s.announceChange(ctx, id)
	if err := s.releaseBusinessID(ctx, a.BusinessID, id); err != nil {
		return err
	}
	if !a.IsDefaultIncoming && !a.IsDefaultOutgoing {
		return nil
	}
	next, err := db.Account.Query().Order(ent.Asc(account.FieldCreatedAt), ent.Asc(account.FieldID)).First(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return apperr.Wrap(err, "account")
	}
	u := next.Update()
	if a.IsDefaultIncoming {
		u.SetIsDefaultIncoming(true)
	}
	if a.IsDefaultOutgoing {
		u.SetIsDefaultOutgoing(true)
	}
	return apperr.Wrap(u.Exec(ctx), "account")
}

// lockAccountDefaults serializes changes to the organization's default
// accounts: on PostgreSQL it locks the organization row until the
// transaction ends, so two concurrent creates cannot both become the
// first default. SQLite serializes write transactions anyway.
func (s *Service) lockAccountDefaults(ctx context.Context) error {
	v := viewer.FromContext(ctx)
	if !v.HasOrg() {
		return apperr.NotFoundf("organization not found")
	}
	q := s.db(ctx).Organization.Query().Where(organization.ID(v.OrgID))
	q.Modify(func(s *sql.Selector) {
		if s.Dialect() == dialect.Postgres {
			s.ForUpdate()
		}
	})
	_, err := q.IDs(ctx)
	return apperr.Wrap(err, "organization")
}

// defaultFor decides whether a new account holds a default: as asked, or
// when no account of the organization holds it yet.
func (s *Service) defaultFor(ctx context.Context, asked *bool, holder predicate.Account) (bool, error) {
	if asked != nil && *asked {
		return true, nil
	}
	taken, err := s.db(ctx).Account.Query().Where(holder).Exist(ctx)
	if err != nil {
		return false, apperr.Wrap(err, "account")
	}
	return !taken, nil
}

// clearOtherDefaults unsets the defaults that keep now holds on the other
// accounts of the organization.
func (s *Service) clearOtherDefaults(ctx context.Context, keep uuid.UUID, incoming, outgoing bool) error {
	db := s.db(ctx)
	if incoming {
		err := db.Account.Update().Where(account.IDNEQ(keep), account.IsDefaultIncoming(true)).
			SetIsDefaultIncoming(false).Exec(ctx)
		if err != nil {
			return apperr.Wrap(err, "account")
		}
	}
	if outgoing {
		err := db.Account.Update().Where(account.IDNEQ(keep), account.IsDefaultOutgoing(true)).
			SetIsDefaultOutgoing(false).Exec(ctx)
		if err != nil {
			return apperr.Wrap(err, "account")
		}
	}
	return nil
}

// uniqueAccountName refuses a name another account of the organization
// (other than except) already has.
func (s *Service) uniqueAccountName(ctx context.Context, name string, except uuid.UUID) error {
	taken, err := s.db(ctx).Account.Query().Where(account.Name(name), account.IDNEQ(except)).Exist(ctx)
	if err != nil {
		return apperr.Wrap(err, "account")
	}
	if taken {
		return apperr.Invalidf("an account named %q already exists", name)
	}
	return nil
}
