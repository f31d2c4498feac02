package catalogs

import (
	"context"
	"net/url"
	"regexp"
	"strings"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/product"
	"switchboard/internal/valid"
	"switchboard/provider"
)

// ProductInput is a product's fields. On create Name and Price are
// required (Currency defaults to USD, RetailerID to the product's id); on
// update nil fields keep their value.
type ProductInput struct {
	Name        *string
	Description *string
	// Price is in minor units (cents) of Currency; never negative.
	Price      *int64
	Currency   *string
	URL        *string
	ImageURL   *string
	RetailerID *string
	IsActive   *bool
}

var currencyPattern = regexp.MustCompile(`^[A-Z]{3}$`)

// checked is a validated ProductInput: nil fields are absent.
type checked = ProductInput

// validate trims and checks the given fields of in.
func validate(in ProductInput) (checked, error) {
	var err error
	str := func(p **string, field string, maxLen int, required bool) {
		if err != nil || *p == nil {
			return
		}
		check := valid.Text
		if required {
			check = valid.RequiredText
		}
		var v string
		v, err = check(field, **p, maxLen)
		*p = &v
	}
	str(&in.Name, "name", MaxNameLength, true)
	str(&in.Description, "description", MaxDescriptionLength, false)
	str(&in.RetailerID, "retailer_id", MaxRetailerIDLength, true)
	str(&in.URL, "url", MaxURLLength, false)
	str(&in.ImageURL, "image_url", MaxURLLength, false)
	if err != nil {
		return in, err
	}
	if in.Price != nil && *in.Price < 0 {
		return in, apperr.Invalidf("price must be an integer of at least 0 (minor units, such as cents)")
	}
	if in.Currency != nil {
		c := strings.ToUpper(strings.TrimSpace(*in.Currency))
		if !currencyPattern.MatchString(c) {
			return in, apperr.Invalidf("currency must be an ISO 4217 code such as USD")
		}
		in.Currency = &c
	}
	for field, p := range map[string]*string{"url": in.URL, "image_url": in.ImageURL} {
		if p == nil || *p == "" {
			continue
		}
		u, perr := url.Parse(*p)
		if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return in, apperr.Invalidf("%s must be an absolute http or https URL", field)
		}
	}
	return in, nil
}

func availability(active bool) string {
	if active {
		return provider.InStock
	}
	return provider.OutOfStock
}

// Products returns a catalog's products by name. Errors: not_found.
func (s *Service) Products(ctx context.Context, catalogID uuid.UUID) ([]*ent.Product, error) {
	v, err := s.Get(ctx, catalogID)
	if err != nil {
		return nil, err
	}
	return v.Products, nil
}

// Product returns one product. Errors: not_found.
func (s *Service) Product(ctx context.Context, id uuid.UUID) (*ent.Product, error) {
	p, err := s.db(ctx).Product.Get(ctx, id)
	return p, apperr.Wrap(err, "product")
}

// CreateProduct adds a product to a catalog at the platform and stores
// it. Errors: not_found (catalog), invalid (a missing name or price, a
// negative price, a bad currency or URL, a catalog not at the platform,
// the platform's refusal), unavailable, conflict.
func (s *Service) CreateProduct(ctx context.Context, catalogID uuid.UUID, in ProductInput) (*ent.Product, error) {
	if in.Name == nil {
		return nil, apperr.Invalidf("name is required")
	}
	if in.Price == nil {
		return nil, apperr.Invalidf("price is required (an integer in minor units, such as cents)")
	}
	in, err := validate(in)
	if err != nil {
		return nil, err
	}
	c, err := s.db(ctx).Catalog.Get(ctx, catalogID)
	if err != nil {
		return nil, apperr.Wrap(err, "catalog")
	}
	if c.ProviderCatalogID == "" {
		return nil, apperr.Invalidf("the catalog is not at the platform")
	}
	id := uuid.New()
	currency, retailer, active := "USD", id.String(), true
	if in.Currency != nil {
		currency = *in.Currency
	}
	if in.RetailerID != nil {
		retailer = *in.RetailerID
	}
	if in.IsActive != nil {
		active = *in.IsActive
	}
	_, acc, err := s.providerAccount(ctx, c.ChatAccount)
	if err != nil {
		return nil, err
	}
	f := provider.ProductFields{RetailerID: retailer, Name: *in.Name, Price: in.Price, Currency: currency,
		Availability: availability(active)}
	if in.Description != nil {
		f.Description = *in.Description
	}
	if in.URL != nil {
		f.URL = *in.URL
	}
	if in.ImageURL != nil {
		f.ImageURL = *in.ImageURL
	}
	platformID, err := s.Provider.CreateProduct(ctx, acc, c.ProviderCatalogID, f)
	if err != nil {
		return nil, provider.AppError(err)
	}
	p, err := s.db(ctx).Product.Create().SetID(id).SetCatalogID(c.ID).SetProviderProductID(platformID).
		SetName(f.Name).SetDescription(f.Description).SetPrice(*in.Price).SetCurrency(currency).SetURL(f.URL).
		SetImageURL(f.ImageURL).SetRetailerID(retailer).SetIsActive(active).Save(ctx)
	if err != nil {
		_ = s.Provider.DeleteProduct(context.WithoutCancel(ctx), acc, platformID)
		return nil, apperr.Wrap(err, "product")
	}
	return p, nil
}

// UpdateProduct changes the given fields of a product at the platform and
// locally. Errors: not_found, invalid, unavailable.
func (s *Service) UpdateProduct(ctx context.Context, id uuid.UUID, in ProductInput) (*ent.Product, error) {
	in, err := validate(in)
	if err != nil {
		return nil, err
	}
	db := s.db(ctx)
	p, err := db.Product.Query().Where(product.ID(id)).WithCatalog().Only(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "product")
	}
	var f provider.ProductFields
	u := db.Product.UpdateOne(p)
	set := func(v *string, dst *string, apply func(string)) {
		if v != nil {
			*dst = *v
			apply(*v)
		}
	}
	set(in.Name, &f.Name, func(v string) { u.SetName(v) })
	set(in.Description, &f.Description, func(v string) { u.SetDescription(v) })
	set(in.Currency, &f.Currency, func(v string) { u.SetCurrency(v) })
	set(in.URL, &f.URL, func(v string) { u.SetURL(v) })
	set(in.ImageURL, &f.ImageURL, func(v string) { u.SetImageURL(v) })
	set(in.RetailerID, &f.RetailerID, func(v string) { u.SetRetailerID(v) })
	if in.Price != nil {
		f.Price = in.Price
		u.SetPrice(*in.Price)
	}
	if in.IsActive != nil {
		f.Availability = availability(*in.IsActive)
		u.SetIsActive(*in.IsActive)
	}
	if p.ProviderProductID != "" && f != (provider.ProductFields{}) {
		_, acc, err := s.providerAccount(ctx, p.Edges.Catalog.ChatAccount)
		if err != nil {
			return nil, err
		}
		if err := s.Provider.UpdateProduct(ctx, acc, p.ProviderProductID, f); err != nil {
			return nil, provider.AppError(err)
		}
	}
	saved, err := u.Save(ctx)
	return saved, apperr.Wrap(err, "product")
}

// DeleteProduct deletes a product at the platform (one it no longer
// knows counts as deleted) and locally. Errors: not_found, invalid,
// unavailable.
func (s *Service) DeleteProduct(ctx context.Context, id uuid.UUID) error {
	db := s.db(ctx)
	p, err := db.Product.Query().Where(product.ID(id)).WithCatalog().Only(ctx)
	if err != nil {
		return apperr.Wrap(err, "product")
	}
	if p.ProviderProductID != "" {
		_, acc, err := s.providerAccount(ctx, p.Edges.Catalog.ChatAccount)
		if err != nil {
			return err
		}
		if err := s.Provider.DeleteProduct(ctx, acc, p.ProviderProductID); err != nil && !goneAtPlatform(err) {
			return provider.AppError(err)
		}
	}
	return apperr.Wrap(db.Product.DeleteOneID(id).Exec(ctx), "product")
}
