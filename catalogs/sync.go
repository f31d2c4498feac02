package catalogs

import (
	"context"
	"fmt"
	"strings"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/catalog"
	"switchboard/ent/product"
	"switchboard/ent/rule"
	"switchboard/internal/valid"
	"switchboard/provider"
)

// SyncResult is the answer of Sync: Synced catalogs stored of Total the
// platform listed, and the products stored with them.
type SyncResult struct {
	Message  string
	Synced   int
	Total    int
	Products int
}

// Sync pulls the catalogs of the business owning the account's WhatsApp
// Business Account and the products of each (following the after
// cursor), and upserts them by platform id: new ones are created, known
// ones take the platform's name, price and fields. A catalog or product
// another organization holds is skipped (it stays theirs); local rows the
// platform no longer lists are kept. Errors: invalid (unknown account,
// the platform's refusal), unavailable.
func (s *Service) Sync(ctx context.Context, chatAccount string) (*SyncResult, error) {
	chatAccount, err := valid.RequiredText("chat_account", chatAccount, MaxNameLength)
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
	size := s.PageSize
	if size <= 0 {
		size = DefaultPageSize
	}
	pcs, err := provider.ReadAll(maxSyncPages, func(after string) (*provider.Page[provider.PlatformCatalog], error) {
		return s.Provider.ListCatalogs(ctx, acc, business, after, size)
	})
	if err != nil {
		return nil, provider.AppError(err)
	}
	products := make([][]provider.PlatformProduct, len(pcs))
	for i, pc := range pcs {
		products[i], err = provider.ReadAll(maxSyncPages, func(after string) (*provider.Page[provider.PlatformProduct], error) {
			return s.Provider.ListProducts(ctx, acc, pc.ID, after, size)
		})
		if err != nil {
			return nil, provider.AppError(err)
		}
	}
	res := &SyncResult{Total: len(pcs)}
	err = database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		for i, pc := range pcs {
			c, err := s.upsertCatalog(ctx, db, chatAccount, pc)
			if err != nil || c == nil {
				return err
			}
			res.Synced++
			for _, pp := range products[i] {
				ok, err := s.upsertProduct(ctx, db, c, pp)
				if err != nil {
					return err
				}
				if ok {
					res.Products++
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Message = fmt.Sprintf("Synced %d of %d catalogs with %d products", res.Synced, res.Total, res.Products)
	return res, nil
}

// heldElsewhere reports whether another organization holds a row with
// this platform id (the viewer's own rows are found by the caller first).
func heldElsewhere(ctx context.Context, exists func(context.Context) (bool, error)) (bool, error) {
	return exists(rule.Bypass(ctx, "a platform catalog or product id belongs to one organization across all of them"))
}

// upsertCatalog stores one listed catalog; it returns nil for one without
// id or name, or held by another organization.
func (s *Service) upsertCatalog(ctx context.Context, db *ent.Client, chatAccount string, pc provider.PlatformCatalog) (*ent.Catalog, error) {
	name := strings.TrimSpace(pc.Name)
	if pc.ID == "" || name == "" || valid.Check("name", name, MaxNameLength) != nil {
		return nil, nil
	}
	cur, err := db.Catalog.Query().Where(catalog.ProviderCatalogID(pc.ID)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		held, err := heldElsewhere(ctx, db.Catalog.Query().Where(catalog.ProviderCatalogID(pc.ID)).Exist)
		if err != nil || held {
			return nil, apperr.Wrap(err, "catalog")
		}
		c, err := db.Catalog.Create().SetProviderCatalogID(pc.ID).SetName(name).SetChatAccount(chatAccount).Save(ctx)
		return c, apperr.Wrap(err, "catalog")
	case err != nil:
		return nil, apperr.Wrap(err, "catalog")
	}
	c, err := db.Catalog.UpdateOne(cur).SetName(name).Save(ctx)
	return c, apperr.Wrap(err, "catalog")
}

// upsertProduct stores one listed product of c; a product without id,
// retailer id or name, with an unreadable price, or held by another
// organization is skipped.
func (s *Service) upsertProduct(ctx context.Context, db *ent.Client, c *ent.Catalog, pp provider.PlatformProduct) (bool, error) {
	price, ok := pp.PriceMinor()
	name := strings.TrimSpace(pp.Name)
	in, err := validate(ProductInput{Name: &name, Description: &pp.Description, RetailerID: &pp.RetailerID,
		URL: &pp.URL, ImageURL: &pp.ImageURL, Price: &price})
	if pp.ID == "" || !ok || err != nil {
		return false, nil
	}
	currency := strings.ToUpper(strings.TrimSpace(pp.Currency))
	if !currencyPattern.MatchString(currency) {
		currency = "USD"
	}
	active := pp.Availability == "" || pp.Availability == provider.InStock
	cur, err := db.Product.Query().Where(product.ProviderProductID(pp.ID)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		held, err := heldElsewhere(ctx, db.Product.Query().Where(product.ProviderProductID(pp.ID)).Exist)
		if err != nil || held {
			return false, apperr.Wrap(err, "product")
		}
		err = db.Product.Create().SetCatalogID(c.ID).SetProviderProductID(pp.ID).SetName(*in.Name).
			SetDescription(*in.Description).SetPrice(price).SetCurrency(currency).SetURL(*in.URL).
			SetImageURL(*in.ImageURL).SetRetailerID(*in.RetailerID).SetIsActive(active).Exec(ctx)
		return err == nil, apperr.Wrap(err, "product")
	case err != nil:
		return false, apperr.Wrap(err, "product")
	}
	if cur.CatalogID != c.ID {
		return false, nil // listed under another catalog: the first one keeps it
	}
	err = db.Product.UpdateOne(cur).SetName(*in.Name).SetDescription(*in.Description).SetPrice(price).
		SetCurrency(currency).SetURL(*in.URL).SetImageURL(*in.ImageURL).SetRetailerID(*in.RetailerID).
		SetIsActive(active).Exec(ctx)
	return err == nil, apperr.Wrap(err, "product")
}
