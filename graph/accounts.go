package graph

import (
	"context"
	"errors"
	"net/http"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/auth"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/organization"
	"switchboard/ent/predicate"
	"switchboard/ent/user"
	"switchboard/ent/viewer"
	"switchboard/provider"
)

// Bounds of an account's fields.
const (
	maxAccountName   = 200
	maxGraphID       = 64
	maxAccessToken   = 4096
	maxAppSecret     = 256
	maxVerifyToken   = 256
	verifyTokenBytes = 24
)

// Bounds of the business profile, as the platform documents them.
const (
	maxProfileAbout       = 139
	maxProfileAddress     = 256
	maxProfileDescription = 512
	maxProfileEmail       = 128
	maxProfileWebsite     = 256
	// MaxProfilePhotoBytes is the largest business profile photo accepted.
	MaxProfilePhotoBytes = 5 << 20
)

// profileProduct is the only messaging_product of a business profile.
const profileProduct = "whatsapp"

// apiVersionPattern is a Graph API version such as v21.0.
var apiVersionPattern = regexp.MustCompile(`^v\d+\.\d+$`)

// graphIDPattern is a platform object id (phone number, business account,
// app): digits only.
var graphIDPattern = regexp.MustCompile(`^[0-9]+$`)

// profileVerticals are the industry codes the platform accepts.
var profileVerticals = map[string]bool{
	"UNDEFINED": true, "OTHER": true, "AUTO": true, "BEAUTY": true, "APPAREL": true, "EDU": true,
	"ENTERTAIN": true, "EVENT_PLAN": true, "FINANCE": true, "GROCERY": true, "GOVT": true, "HOTEL": true,
	"HEALTH": true, "NONPROFIT": true, "PROF_SERVICES": true, "RETAIL": true, "TRAVEL": true,
	"RESTAURANT": true, "NOT_A_BIZ": true,
}

// AccountView is an account with the names of the users who created and
// last updated it, as the API shows it.
type AccountView struct {
	*ent.Account
	CreatedByName string
	UpdatedByName string
}

// AccountHasAccessToken reports whether an account holds an access token
// (the token itself is never returned).
func AccountHasAccessToken(a *ent.Account) bool { return len(a.AccessTokenEncrypted) > 0 }

// AccountHasAppSecret reports whether an account holds an app secret (the
// secret itself is never returned).
func AccountHasAppSecret(a *ent.Account) bool { return len(a.AppSecretEncrypted) > 0 }

// CreateAccountInput is a new account. Nil fields take their defaults.
type CreateAccountInput struct {
	Name        string
	PhoneID     string
	BusinessID  string
	AccessToken string
	AppID       *string
	AppSecret   *string
	// WebhookVerifyToken is generated when nil or blank.
	WebhookVerifyToken     *string
	APIVersion             *string
	IsDefaultIncoming      *bool
	IsDefaultOutgoing      *bool
	AutoReadReceipt        *bool
	BusinessCallingEnabled *bool
}

// UpdateAccountInput changes the non-nil fields of an account. AccessToken
// and AppSecret are replaced only when given non-blank.
type UpdateAccountInput struct {
	Name                   *string
	PhoneID                *string
	BusinessID             *string
	AccessToken            *string
	AppID                  *string
	AppSecret              *string
	WebhookVerifyToken     *string
	APIVersion             *string
	IsDefaultIncoming      *bool
	IsDefaultOutgoing      *bool
	AutoReadReceipt        *bool
	BusinessCallingEnabled *bool
}

// BusinessProfileInput changes the non-nil fields of a business profile.
// MessagingProduct must be "whatsapp". Websites replaces the list when not
// nil; an empty list leaves it as it is (the platform has no way to clear
// it through this call).
type BusinessProfileInput struct {
	MessagingProduct *string
	Address          *string
	Description      *string
	Vertical         *string
	Email            *string
	Websites         []string
	About            *string
}

// AccountsQuery returns the accounts of the viewer's organization ordered
// by name.
func (r *Resolver) AccountsQuery(ctx context.Context) *ent.AccountQuery {
	return r.db(ctx).Account.Query().Order(ent.Asc(account.FieldName), ent.Asc(account.FieldID))
}

// Accounts returns the accounts of the viewer's organization ordered by
// name, with creator and updater names.
func (r *Resolver) Accounts(ctx context.Context) ([]*AccountView, error) {
	as, err := r.AccountsQuery(ctx).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "account")
	}
	return r.accountViews(ctx, as)
}

// GetAccount returns one account with creator and updater names. Errors:
// not_found.
func (r *Resolver) GetAccount(ctx context.Context, id uuid.UUID) (*AccountView, error) {
	a, err := r.db(ctx).Account.Get(ctx, id)
	if err != nil {
		return nil, apperr.Wrap(err, "account")
	}
	vs, err := r.accountViews(ctx, []*ent.Account{a})
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

// UserName returns the full name of the user id points to, nil when id is
// nil or the user is gone (the names an account shows for its creator and
// last updater).
func (r *Resolver) UserName(ctx context.Context, id *uuid.UUID) (*string, error) {
	if id == nil {
		return nil, nil
	}
	names, err := r.userNames(ctx, []uuid.UUID{*id})
	if name, ok := names[*id]; ok {
		return &name, err
	}
	return nil, err
}

// userNames maps user ids to full names with one query.
func (r *Resolver) userNames(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]string, error) {
	names := map[uuid.UUID]string{}
	if len(ids) == 0 {
		return names, nil
	}
	us, err := r.db(ctx).User.Query().Where(user.IDIn(ids...)).Select(user.FieldID, user.FieldFullName).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "user")
	}
	for _, u := range us {
		names[u.ID] = u.FullName
	}
	return names, nil
}

// accountViews adds the creator and updater names with one user query.
func (r *Resolver) accountViews(ctx context.Context, as []*ent.Account) ([]*AccountView, error) {
	var ids []uuid.UUID
	for _, a := range as {
		for _, id := range []*uuid.UUID{a.CreatedByID, a.UpdatedByID} {
			if id != nil {
				ids = append(ids, *id)
			}
		}
	}
	names, err := r.userNames(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*AccountView, len(as))
	for i, a := range as {
		v := &AccountView{Account: a}
		if a.CreatedByID != nil {
			v.CreatedByName = names[*a.CreatedByID]
		}
		if a.UpdatedByID != nil {
			v.UpdatedByName = names[*a.UpdatedByID]
		}
		out[i] = v
	}
	return out, nil
}

// CreateAccount connects a business phone number. The access token and
// app secret are encrypted at rest; a missing webhook verify token is
// generated; api_version defaults to v21.0. The organization's first
// account, and any account created while the organization has no default,
// becomes the default incoming and outgoing account; setting a default
// clears it on the other accounts. Errors: invalid (a required field
// missing, a malformed id, token or api_version, a duplicate name),
// conflict (phone_id held by another account, of any organization).
func (r *Resolver) CreateAccount(ctx context.Context, in CreateAccountInput) (*AccountView, error) {
	name, err := accountName(in.Name)
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
		if verify, err = verifyToken(*in.WebhookVerifyToken); err != nil {
			return nil, err
		}
	}
	sealedToken, err := r.sealSecret("access_token", token, maxAccessToken)
	if err != nil {
		return nil, err
	}
	var sealedSecret []byte
	if in.AppSecret != nil && strings.TrimSpace(*in.AppSecret) != "" {
		if sealedSecret, err = r.sealSecret("app_secret", strings.TrimSpace(*in.AppSecret), maxAppSecret); err != nil {
			return nil, err
		}
	}

	if err := r.lockAccountDefaults(ctx); err != nil {
		return nil, err
	}
	if err := r.uniqueAccountName(ctx, name, uuid.Nil); err != nil {
		return nil, err
	}
	db := r.db(ctx)
	incoming, err := r.defaultFor(ctx, in.IsDefaultIncoming, account.IsDefaultIncoming(true))
	if err != nil {
		return nil, err
	}
	outgoing, err := r.defaultFor(ctx, in.IsDefaultOutgoing, account.IsDefaultOutgoing(true))
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
	if err := r.clearOtherDefaults(ctx, a.ID, incoming, outgoing); err != nil {
		return nil, err
	}
	return r.GetAccount(ctx, a.ID)
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

// UpdateAccount changes the given fields of an account. The access token
// and app secret are replaced only when given non-blank. Making an account
// a default clears that default on the others; the default account cannot
// be unset (make another account the default instead). Errors: not_found,
// invalid (as for CreateAccount; an empty webhook verify token; unsetting a
// default), conflict (as for CreateAccount).
func (r *Resolver) UpdateAccount(ctx context.Context, id uuid.UUID, in UpdateAccountInput) (*AccountView, error) {
	if err := r.lockAccountDefaults(ctx); err != nil {
		return nil, err
	}
	db := r.db(ctx)
	cur, err := db.Account.Get(ctx, id)
	if err != nil {
		return nil, apperr.Wrap(err, "account")
	}
	u := db.Account.UpdateOneID(id).
		SetNillableAutoReadReceipt(in.AutoReadReceipt).
		SetNillableBusinessCallingEnabled(in.BusinessCallingEnabled)
	if in.Name != nil {
		name, err := accountName(*in.Name)
		if err != nil {
			return nil, err
		}
		if err := r.uniqueAccountName(ctx, name, id); err != nil {
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
		v, err := verifyToken(*in.WebhookVerifyToken)
		if err != nil {
			return nil, err
		}
		u.SetWebhookVerifyToken(v)
	}
	if in.AccessToken != nil && strings.TrimSpace(*in.AccessToken) != "" {
		sealed, err := r.sealSecret("access_token", strings.TrimSpace(*in.AccessToken), maxAccessToken)
		if err != nil {
			return nil, err
		}
		u.SetAccessTokenEncrypted(sealed)
	}
	if in.AppSecret != nil && strings.TrimSpace(*in.AppSecret) != "" {
		sealed, err := r.sealSecret("app_secret", strings.TrimSpace(*in.AppSecret), maxAppSecret)
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
	if _, err := u.Save(ctx); err != nil {
		return nil, accountWriteError(err)
	}
	if err := r.clearOtherDefaults(ctx, id, incoming, outgoing); err != nil {
		return nil, err
	}
	return r.GetAccount(ctx, id)
}

// DeleteAccount disconnects an account. When it was a default, the oldest
// remaining account takes that default over. Errors: not_found.
func (r *Resolver) DeleteAccount(ctx context.Context, id uuid.UUID) error {
	if err := r.lockAccountDefaults(ctx); err != nil {
		return err
	}
	db := r.db(ctx)
	a, err := db.Account.Get(ctx, id)
	if err != nil {
		return apperr.Wrap(err, "account")
	}
	if err := db.Account.DeleteOneID(id).Exec(ctx); err != nil {
		return apperr.Wrap(err, "account")
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

// TestAccount verifies an account's credentials by reading its phone
// number's status from the platform, and stores the messaging limit tier
// it reports. Errors: not_found, invalid (the platform refused the
// credentials or the phone number id, with its message), unavailable (the
// platform could not be reached or failed).
func (r *Resolver) TestAccount(ctx context.Context, id uuid.UUID) (*provider.PhoneNumber, error) {
	a, acc, err := r.providerAccount(ctx, id)
	if err != nil {
		return nil, err
	}
	p, err := r.Provider.PhoneNumberInfo(ctx, acc)
	if err != nil {
		return nil, providerError(err)
	}
	if p.MessagingLimitTier != a.MessagingLimitTier {
		if err := r.db(ctx).Account.UpdateOneID(a.ID).SetMessagingLimitTier(p.MessagingLimitTier).Exec(ctx); err != nil {
			return nil, apperr.Wrap(err, "account")
		}
	}
	return p, nil
}

// SubscribeAccount subscribes the app owning the account's token to the
// webhooks of its business account. Errors: not_found, invalid,
// unavailable (as for TestAccount).
func (r *Resolver) SubscribeAccount(ctx context.Context, id uuid.UUID) error {
	_, acc, err := r.providerAccount(ctx, id)
	if err != nil {
		return err
	}
	return providerError(r.Provider.SubscribeApp(ctx, acc))
}

// AccountBusinessProfile reads the account's business profile from the
// platform. Errors: not_found, invalid, unavailable (as for TestAccount).
func (r *Resolver) AccountBusinessProfile(ctx context.Context, id uuid.UUID) (*provider.BusinessProfile, error) {
	_, acc, err := r.providerAccount(ctx, id)
	if err != nil {
		return nil, err
	}
	p, err := r.Provider.GetBusinessProfile(ctx, acc)
	return p, providerError(err)
}

// UpdateAccountBusinessProfile changes the given fields of the account's
// business profile and returns the profile as the platform then shows it.
// Errors: not_found; invalid (messaging_product other than "whatsapp",
// more than 2 websites or one that is not an http(s) URL of at most 256
// characters, an invalid email, an unknown vertical, an empty about or one
// over 139 characters, a description over 512 or an address over 256
// characters, or the platform refused the change); unavailable.
func (r *Resolver) UpdateAccountBusinessProfile(ctx context.Context, id uuid.UUID, in BusinessProfileInput) (*provider.BusinessProfile, error) {
	upd, err := profileUpdate(in)
	if err != nil {
		return nil, err
	}
	_, acc, err := r.providerAccount(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := r.Provider.UpdateBusinessProfile(ctx, acc, upd); err != nil {
		return nil, providerError(err)
	}
	p, err := r.Provider.GetBusinessProfile(ctx, acc)
	return p, providerError(err)
}

// UploadAccountProfilePhoto sets the business profile photo: a JPEG or
// PNG (recognized by its content, not its name) of at most 5 MB, uploaded
// with the platform's Resumable Upload API under the account's app. It
// returns the platform's file handle. Errors: not_found; invalid (empty,
// too large or not JPEG/PNG; the account has no app_id; the platform
// refused the upload); unavailable.
func (r *Resolver) UploadAccountProfilePhoto(ctx context.Context, id uuid.UUID, filename string, data []byte) (string, error) {
	if len(data) == 0 {
		return "", apperr.Invalidf("file is empty")
	}
	if len(data) > MaxProfilePhotoBytes {
		return "", apperr.Invalidf("file is too large (max %d MB)", MaxProfilePhotoBytes>>20)
	}
	mimeType := http.DetectContentType(data)
	if mimeType != "image/jpeg" && mimeType != "image/png" {
		return "", apperr.Invalidf("file must be a JPEG or PNG image (got %s)", mimeType)
	}
	a, acc, err := r.providerAccount(ctx, id)
	if err != nil {
		return "", err
	}
	if a.AppID == "" {
		return "", apperr.Invalidf("the account has no app_id: set it before uploading a profile photo")
	}
	handle, err := r.Provider.UploadProfilePhoto(ctx, acc, a.AppID, filename, mimeType, data)
	if err != nil {
		return "", providerError(err)
	}
	if err := r.Provider.UpdateBusinessProfile(ctx, acc, provider.BusinessProfileUpdate{ProfilePictureHandle: handle}); err != nil {
		return "", providerError(err)
	}
	return handle, nil
}

// providerAccount loads an account and its credentials for a platform
// call. Errors: not_found, invalid (no access token), internal (the token
// cannot be decrypted).
func (r *Resolver) providerAccount(ctx context.Context, id uuid.UUID) (*ent.Account, provider.Account, error) {
	a, err := r.db(ctx).Account.Get(ctx, id)
	if err != nil {
		return nil, provider.Account{}, apperr.Wrap(err, "account")
	}
	if !AccountHasAccessToken(a) {
		return nil, provider.Account{}, apperr.Invalidf("the account has no access token")
	}
	if r.Secrets == nil || r.Provider == nil {
		return nil, provider.Account{}, apperr.New(apperr.Internal, "the platform client is not configured")
	}
	token, err := r.Secrets.Open(a.AccessTokenEncrypted)
	if err != nil {
		return nil, provider.Account{}, &apperr.Error{Code: apperr.Internal, Message: "internal error", Err: err}
	}
	return a, provider.Account{
		PhoneID: a.PhoneID, BusinessID: a.BusinessID, AccessToken: string(token), APIVersion: a.APIVersion,
	}, nil
}

// providerError maps a platform failure to the application's errors: a
// definitive refusal (a 4xx answer such as an invalid token or parameter,
// or arguments the client refused to send) is invalid with the platform's
// message; throttling, 5xx answers, malformed answers and network failures
// are unavailable.
func providerError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return apperr.Wrap(err, "provider")
	}
	var pe *provider.Error
	switch {
	case errors.As(err, &pe) && !pe.Temporary():
		return &apperr.Error{Code: apperr.Invalid, Message: pe.Error(), Err: err}
	case errors.As(err, &pe):
		return &apperr.Error{Code: apperr.Unavailable, Message: pe.Error(), Err: err}
	case errors.Is(err, provider.ErrInvalid):
		return &apperr.Error{Code: apperr.Invalid, Message: err.Error(), Err: err}
	case errors.Is(err, provider.ErrUnexpectedResponse):
		return &apperr.Error{Code: apperr.Unavailable, Message: "provider: unexpected answer from the platform", Err: err}
	}
	return &apperr.Error{Code: apperr.Unavailable, Message: "provider: the platform could not be reached: " + err.Error(), Err: err}
}

// lockAccountDefaults serializes changes to the organization's default
// accounts: on PostgreSQL it locks the organization row until the
// transaction ends, so two concurrent creates cannot both become the
// first default. SQLite serializes write transactions anyway.
func (r *Resolver) lockAccountDefaults(ctx context.Context) error {
	v := viewer.FromContext(ctx)
	if !v.HasOrg() {
		return apperr.NotFoundf("organization not found")
	}
	q := r.db(ctx).Organization.Query().Where(organization.ID(v.OrgID))
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
func (r *Resolver) defaultFor(ctx context.Context, asked *bool, holder predicate.Account) (bool, error) {
	if asked != nil && *asked {
		return true, nil
	}
	taken, err := r.db(ctx).Account.Query().Where(holder).Exist(ctx)
	if err != nil {
		return false, apperr.Wrap(err, "account")
	}
	return !taken, nil
}

// clearOtherDefaults unsets the defaults that keep now holds on the other
// accounts of the organization.
func (r *Resolver) clearOtherDefaults(ctx context.Context, keep uuid.UUID, incoming, outgoing bool) error {
	db := r.db(ctx)
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
func (r *Resolver) uniqueAccountName(ctx context.Context, name string, except uuid.UUID) error {
	taken, err := r.db(ctx).Account.Query().Where(account.Name(name), account.IDNEQ(except)).Exist(ctx)
	if err != nil {
		return apperr.Wrap(err, "account")
	}
	if taken {
		return apperr.Invalidf("an account named %q already exists", name)
	}
	return nil
}

// sealSecret encrypts a credential for storage.
func (r *Resolver) sealSecret(field, value string, limit int) ([]byte, error) {
	if len(value) > limit {
		return nil, apperr.Invalidf("%s must be at most %d characters", field, limit)
	}
	if r.Secrets == nil {
		return nil, apperr.New(apperr.Internal, "encryption is not configured")
	}
	return r.Secrets.Seal([]byte(value)), nil
}

func accountName(raw string) (string, error) {
	name := strings.TrimSpace(raw)
	switch {
	case name == "":
		return "", apperr.Invalidf("name is required")
	case utf8.RuneCountInString(name) > maxAccountName:
		return "", apperr.Invalidf("name must be at most %d characters", maxAccountName)
	case strings.ContainsRune(name, 0):
		return "", apperr.Invalidf("name must not contain NUL characters")
	}
	return name, nil
}

// graphID checks a platform object id; an empty one is allowed unless
// required.
func graphID(field, raw string, required bool) (string, error) {
	id := strings.TrimSpace(raw)
	switch {
	case id == "" && required:
		return "", apperr.Invalidf("%s is required", field)
	case id == "":
		return "", nil
	case len(id) > maxGraphID || !graphIDPattern.MatchString(id):
		return "", apperr.Invalidf("%s must be the platform's numeric id (digits only, at most %d)", field, maxGraphID)
	}
	return id, nil
}

func apiVersion(raw string) (string, error) {
	v := strings.TrimSpace(raw)
	if !apiVersionPattern.MatchString(v) {
		return "", apperr.Invalidf("api_version must look like v21.0")
	}
	return v, nil
}

func verifyToken(raw string) (string, error) {
	t := strings.TrimSpace(raw)
	if len(t) > maxVerifyToken {
		return "", apperr.Invalidf("webhook_verify_token must be at most %d characters", maxVerifyToken)
	}
	if strings.ContainsRune(t, 0) {
		return "", apperr.Invalidf("webhook_verify_token must not contain NUL characters")
	}
	return t, nil
}

// profileUpdate validates a business profile change against the
// platform's documented limits.
func profileUpdate(in BusinessProfileInput) (provider.BusinessProfileUpdate, error) {
	var out provider.BusinessProfileUpdate
	if in.MessagingProduct == nil || *in.MessagingProduct != profileProduct {
		return out, apperr.Invalidf("messaging_product must be %q", profileProduct)
	}
	for _, f := range []struct {
		name  string
		val   *string
		limit int
	}{{"address", in.Address, maxProfileAddress}, {"description", in.Description, maxProfileDescription}} {
		if f.val != nil && utf8.RuneCountInString(*f.val) > f.limit {
			return out, apperr.Invalidf("%s must be at most %d characters", f.name, f.limit)
		}
	}
	if in.About != nil {
		n := utf8.RuneCountInString(*in.About)
		if strings.TrimSpace(*in.About) == "" || n > maxProfileAbout {
			return out, apperr.Invalidf("about must be 1 to %d characters", maxProfileAbout)
		}
	}
	if in.Email != nil && *in.Email != "" {
		e := strings.TrimSpace(*in.Email)
		addr, err := mail.ParseAddress(e)
		if err != nil || addr.Address != e || len(e) > maxProfileEmail {
			return out, apperr.Invalidf("email must be a valid email address of at most %d characters", maxProfileEmail)
		}
		in.Email = &e
	}
	if in.Vertical != nil && *in.Vertical != "" && !profileVerticals[*in.Vertical] {
		return out, apperr.Invalidf("vertical must be one of UNDEFINED, OTHER, AUTO, BEAUTY, APPAREL, EDU, ENTERTAIN, " +
			"EVENT_PLAN, FINANCE, GROCERY, GOVT, HOTEL, HEALTH, NONPROFIT, PROF_SERVICES, RETAIL, TRAVEL, RESTAURANT, NOT_A_BIZ")
	}
	if len(in.Websites) > provider.MaxProfileWebsites {
		return out, apperr.Invalidf("websites may list at most %d URLs", provider.MaxProfileWebsites)
	}
	websites := make([]string, 0, len(in.Websites))
	for _, w := range in.Websites {
		w = strings.TrimSpace(w)
		u, err := url.Parse(w)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(w) > maxProfileWebsite {
			return out, apperr.Invalidf("websites: %q must be an http:// or https:// URL of at most %d characters", w, maxProfileWebsite)
		}
		websites = append(websites, w)
	}
	if in.Websites != nil {
		out.Websites = websites
	}
	out.About, out.Address, out.Description, out.Email, out.Vertical = in.About, in.Address, in.Description, in.Email, in.Vertical
	return out, nil
}
