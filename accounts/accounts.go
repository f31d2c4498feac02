// Package accounts owns the organization's business phone numbers
// connected to the chat platform: their validation, defaults and
// credentials (encrypted at rest, never returned), and the platform calls
// made for them (credential test, webhook subscription, business profile).
// REST and GraphQL call it; it knows neither.
package accounts

import (
	"context"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/user"
	"switchboard/provider"
	"switchboard/secrets"
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

// Service holds the account operations and what they use.
type Service struct {
	Client *ent.Client
	// Secrets encrypts the access tokens and app secrets at rest.
	Secrets *secrets.Box
	// Provider calls the platform's Graph API.
	Provider *provider.Client
	// Bus announces account changes to every node (nil: nobody caches
	// accounts, as in tests that build parts of the application).
	Bus ControlBus
}

// db returns the client of the caller's transaction, else the root client.
func (s *Service) db(ctx context.Context) *ent.Client { return database.ClientFor(ctx, s.Client) }

// View is an account with the names of the users who created and
// last updated it, as the API shows it.
type View struct {
	*ent.Account
	CreatedByName string
	UpdatedByName string
}

// HasAccessToken reports whether an account holds an access token
// (the token itself is never returned).
func HasAccessToken(a *ent.Account) bool { return len(a.AccessTokenEncrypted) > 0 }

// HasAppSecret reports whether an account holds an app secret (the
// secret itself is never returned).
func HasAppSecret(a *ent.Account) bool { return len(a.AppSecretEncrypted) > 0 }

// CreateInput is a new account. Nil fields take their defaults.
type CreateInput struct {
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

// UpdateInput changes the non-nil fields of an account. AccessToken
// and AppSecret are replaced only when given non-blank.
type UpdateInput struct {
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

// Query returns the accounts of the viewer's organization ordered
// by name.
func (s *Service) Query(ctx context.Context) *ent.AccountQuery {
	return s.db(ctx).Account.Query().Order(ent.Asc(account.FieldName), ent.Asc(account.FieldID))
}

// List returns the accounts of the viewer's organization ordered by
// name, with creator and updater names.
func (s *Service) List(ctx context.Context) ([]*View, error) {
	as, err := s.Query(ctx).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "account")
	}
	return s.accountViews(ctx, as)
}

// Get returns one account with creator and updater names. Errors:
// not_found.
func (s *Service) Get(ctx context.Context, id uuid.UUID) (*View, error) {
	a, err := s.db(ctx).Account.Get(ctx, id)
	if err != nil {
		return nil, apperr.Wrap(err, "account")
	}
	vs, err := s.accountViews(ctx, []*ent.Account{a})
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

// UserNames maps user ids to full names with one query.
func (s *Service) UserNames(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]string, error) {
	names := map[uuid.UUID]string{}
	if len(ids) == 0 {
		return names, nil
	}
	us, err := s.db(ctx).User.Query().Where(user.IDIn(ids...)).Select(user.FieldID, user.FieldFullName).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "user")
	}
	for _, u := range us {
		names[u.ID] = u.FullName
	}
	return names, nil
}

// accountViews adds the creator and updater names with one user query.
func (s *Service) accountViews(ctx context.Context, as []*ent.Account) ([]*View, error) {
	var ids []uuid.UUID
	for _, a := range as {
		for _, id := range []*uuid.UUID{a.CreatedByID, a.UpdatedByID} {
			if id != nil {
				ids = append(ids, *id)
			}
		}
	}
	names, err := s.UserNames(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*View, len(as))
	for i, a := range as {
		v := &View{Account: a}
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
