// Package catalogs owns product catalogs and their products: created,
// changed and deleted at the platform (the Graph API's commerce endpoints)
// and locally, the sync that pulls an account's catalogs and products,
// and product messages (a single product, or a multi-product list) sent
// through messaging. A platform catalog or product id belongs to one
// organization (unique indexes across tenants). Prices are integers in
// minor units. REST and GraphQL call it; it knows neither.
package catalogs

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"switchboard/accounts"
	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/catalog"
	"switchboard/ent/product"
	"switchboard/internal/valid"
	"switchboard/messaging"
	"switchboard/provider"
	"switchboard/secrets"
)

// Bounds of catalogs and products.
const (
	MaxNameLength        = 200
	MaxDescriptionLength = 5000
	MaxURLLength         = 2000
	MaxRetailerIDLength  = 100
	// DefaultPageSize is how many catalogs or products a sync asks the
	// platform for per page; maxSyncPages bounds the pages read per list.
	DefaultPageSize = 100
	maxSyncPages    = 100
)

// Service is the catalogs' operations.
type Service struct {
	Client *ent.Client
	// Secrets opens the accounts' access tokens for platform calls.
	Secrets *secrets.Box
	// Provider calls the platform's Graph API.
	Provider *provider.Client
	// Messaging sends product messages.
	Messaging *messaging.Service
	// PageSize is the sync's page size; zero means DefaultPageSize.
	PageSize int
}

func (s *Service) db(ctx context.Context) *ent.Client { return database.ClientFor(ctx, s.Client) }

// View is a catalog with its product count and, on a single get, its
// products.
type View struct {
	*ent.Catalog
	ProductCount int
	// Products is set by Get only.
	Products []*ent.Product
}

// List returns the organization's catalogs (of one account when
// chatAccount is not empty), by name, each with its product count, in two
// queries. Errors: invalid (an over-long account name).
func (s *Service) List(ctx context.Context, chatAccount string) ([]*View, error) {
	chatAccount = strings.TrimSpace(chatAccount)
	if utf8.RuneCountInString(chatAccount) > MaxNameLength {
		return nil, apperr.Invalidf("chat_account must be at most %d characters", MaxNameLength)
	}
	db := s.db(ctx)
	q := db.Catalog.Query().Order(ent.Asc(catalog.FieldName), ent.Asc(catalog.FieldID))
	if chatAccount != "" {
		q.Where(catalog.ChatAccount(chatAccount))
	}
	cs, err := q.All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "catalog")
	}
	counts, err := s.productCounts(ctx, db, cs)
	if err != nil {
		return nil, err
	}
	out := make([]*View, len(cs))
	for i, c := range cs {
		out[i] = &View{Catalog: c, ProductCount: counts[c.ID]}
	}
	return out, nil
}

// productCounts counts the products of catalogs in one grouped query.
func (s *Service) productCounts(ctx context.Context, db *ent.Client, cs []*ent.Catalog) (map[uuid.UUID]int, error) {
	counts := map[uuid.UUID]int{}
	if len(cs) == 0 {
		return counts, nil
	}
	ids := make([]uuid.UUID, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	var rows []struct {
		CatalogID uuid.UUID `json:"catalog_id"`
		Count     int       `json:"count"`
	}
	err := db.Product.Query().Where(product.CatalogIDIn(ids...)).GroupBy(product.FieldCatalogID).
		Aggregate(ent.Count()).Scan(ctx, &rows)
	if err != nil {
		return nil, apperr.Wrap(err, "product")
	}
	for _, r := range rows {
		counts[r.CatalogID] = r.Count
	}
	return counts, nil
}

// Get returns a catalog with its products (by name). Errors: not_found.
func (s *Service) Get(ctx context.Context, id uuid.UUID) (*View, error) {
	c, err := s.db(ctx).Catalog.Query().Where(catalog.ID(id)).
		WithProducts(func(q *ent.ProductQuery) { q.Order(ent.Asc(product.FieldName), ent.Asc(product.FieldID)) }).
		Only(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "catalog")
	}
	ps := c.Edges.Products
	if ps == nil {
		ps = []*ent.Product{}
	}
	return &View{Catalog: c, ProductCount: len(ps), Products: ps}, nil
}

// Create creates a catalog at the platform, owned by the business that
// owns the account's WhatsApp Business Account, connects it to that
// WhatsApp Business Account (replacing the catalog connected before, as
// the platform allows one) and stores it. A catalog that cannot be
// connected or stored is deleted at the platform again. Errors: invalid
// (missing name or account, an unknown account, the platform's refusal
// with its message), unavailable (the platform failed), conflict (the
// platform's catalog id is held already).
func (s *Service) Create(ctx context.Context, chatAccount, name string) (*View, error) {
	name, err := valid.RequiredText("name", name, MaxNameLength)
	if err != nil {
		return nil, err
	}
	chatAccount, err = valid.RequiredText("chat_account", chatAccount, MaxNameLength)
	if err != nil {
		return nil, err
	}
	_, acc, err := s.providerAccount(ctx, chatAccount)
	if err != nil {
		return nil, err
	}
	business, err := s.Provider.OwnerBusinessID(ctx, acc)
	if err != nil {
		return nil, provider.AppError(err)
	}
	platformID, err := s.Provider.CreateCatalog(ctx, acc, business, name)
	if err != nil {
		return nil, provider.AppError(err)
	}
	if err := s.Provider.ConnectCatalog(ctx, acc, platformID); err != nil {
		_ = s.Provider.DeleteCatalog(context.WithoutCancel(ctx), acc, platformID)
		return nil, provider.AppError(err)
	}
	c, err := s.db(ctx).Catalog.Create().SetChatAccount(chatAccount).SetName(name).SetProviderCatalogID(platformID).Save(ctx)
	if err != nil {
		// Do not leave a catalog at the platform that nothing here shows.
		_ = s.Provider.DeleteCatalog(context.WithoutCancel(ctx), acc, platformID)
		return nil, apperr.Wrap(err, "catalog")
	}
	return &View{Catalog: c, Products: []*ent.Product{}}, nil
}

// Delete deletes a catalog at the platform (one the platform no longer
// knows counts as deleted) and locally with its products. Errors:
// not_found, invalid (the platform's refusal), unavailable.
func (s *Service) Delete(ctx context.Context, id uuid.UUID) error {
	c, err := s.db(ctx).Catalog.Get(ctx, id)
	if err != nil {
		return apperr.Wrap(err, "catalog")
	}
	if c.ProviderCatalogID != "" {
		_, acc, err := s.providerAccount(ctx, c.ChatAccount)
		if err != nil {
			return err
		}
		if err := s.Provider.DeleteCatalog(ctx, acc, c.ProviderCatalogID); err != nil && !goneAtPlatform(err) {
			return provider.AppError(err)
		}
	}
	return database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		if _, err := db.Product.Delete().Where(product.CatalogID(id)).Exec(ctx); err != nil {
			return apperr.Wrap(err, "product")
		}
		return apperr.Wrap(db.Catalog.DeleteOneID(id).Exec(ctx), "catalog")
	})
}

// goneAtPlatform tells the platform's answer that an object does not
// exist (any more).
func goneAtPlatform(err error) bool {
	var pe *provider.Error
	return errors.As(err, &pe) && (pe.Status == 404 || pe.Code == 100 && strings.Contains(pe.Message, "does not exist"))
}

// providerAccount loads the named account's credentials for a platform
// call. Errors: invalid (unknown account, no access token), internal.
func (s *Service) providerAccount(ctx context.Context, name string) (*ent.Account, provider.Account, error) {
	a, err := s.db(ctx).Account.Query().Where(account.Name(name)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, provider.Account{}, apperr.Invalidf("account %q not found", name)
	}
	if err != nil {
		return nil, provider.Account{}, apperr.Wrap(err, "account")
	}
	if !accounts.HasAccessToken(a) {
		return nil, provider.Account{}, apperr.Invalidf("account %q has no access token", name)
	}
	if s.Secrets == nil || s.Provider == nil {
		return nil, provider.Account{}, apperr.New(apperr.Internal, "the platform client is not configured")
	}
	creds, err := accounts.Credentials(s.Secrets, a)
	return a, creds, err
}
