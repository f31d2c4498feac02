package catalogs

import (
	"context"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/product"
	"switchboard/messaging"
)

// ProductSend is a single product message: ProductID's product, sent
// from Account (default: the product's catalog's account).
type ProductSend struct {
	ContactID uuid.UUID
	ProductID uuid.UUID
	Body      string
	Footer    string
	Account   string
}

// ProductListSend is a multi-product message: Sections of products of
// CatalogID (at most 10 sections, 30 products), with a text Header.
type ProductListSend struct {
	ContactID uuid.UUID
	CatalogID uuid.UUID
	Header    string
	Body      string
	Footer    string
	Sections  []SectionSend
	Account   string
}

// SectionSend is one titled section of a ProductListSend.
type SectionSend struct {
	Title      string
	ProductIDs []uuid.UUID
}

// SendProduct sends a single product message through messaging (queued
// like any interactive message). Errors: not_found (product, contact),
// invalid (the product or its catalog is not at the platform, the
// message breaks the platform's rules, a closed service window).
func (s *Service) SendProduct(ctx context.Context, in ProductSend) (*ent.Message, error) {
	if in.ContactID == uuid.Nil || in.ProductID == uuid.Nil {
		return nil, apperr.Invalidf("contact_id and product_id are required")
	}
	p, err := s.db(ctx).Product.Query().Where(product.ID(in.ProductID)).WithCatalog().Only(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "product")
	}
	c := p.Edges.Catalog
	if c.ProviderCatalogID == "" || p.RetailerID == "" {
		return nil, apperr.Invalidf("the product is not at the platform (no catalog id or retailer id)")
	}
	return s.Messaging.SendProductMessage(ctx, in.ContactID, orDefault(in.Account, c.ChatAccount), messaging.ProductMessage{
		Type: messaging.InteractiveProduct, Body: in.Body, Footer: in.Footer, CatalogID: c.ProviderCatalogID,
		ProductRetailerID: p.RetailerID,
	})
}

// SendProductList sends a multi-product message; every product must
// belong to the catalog. Errors: not_found (catalog, contact), invalid
// (an unknown product or one of another catalog, more than 10 sections
// or 30 products, a missing header or body, a closed service window).
func (s *Service) SendProductList(ctx context.Context, in ProductListSend) (*ent.Message, error) {
	if in.ContactID == uuid.Nil || in.CatalogID == uuid.Nil {
		return nil, apperr.Invalidf("contact_id and catalog_id are required")
	}
	var ids []uuid.UUID
	for _, sec := range in.Sections {
		ids = append(ids, sec.ProductIDs...)
	}
	// Bounded before the products are looked up; messaging checks the rest.
	if err := messaging.CheckProductListSize(len(in.Sections), len(ids)); err != nil {
		return nil, err
	}
	db := s.db(ctx)
	c, err := db.Catalog.Get(ctx, in.CatalogID)
	if err != nil {
		return nil, apperr.Wrap(err, "catalog")
	}
	if c.ProviderCatalogID == "" {
		return nil, apperr.Invalidf("the catalog is not at the platform")
	}
	ps, err := db.Product.Query().Where(product.IDIn(ids...), product.CatalogID(c.ID)).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "product")
	}
	retailer := make(map[uuid.UUID]string, len(ps))
	for _, p := range ps {
		retailer[p.ID] = p.RetailerID
	}
	pm := messaging.ProductMessage{Type: messaging.InteractiveProductList, Header: in.Header, Body: in.Body,
		Footer: in.Footer, CatalogID: c.ProviderCatalogID}
	for _, sec := range in.Sections {
		ms := messaging.ProductSection{Title: sec.Title, ProductRetailerIDs: []string{}}
		for _, id := range sec.ProductIDs {
			r, ok := retailer[id]
			if !ok || r == "" {
				return nil, apperr.Invalidf("product %s is not a product of this catalog at the platform", id)
			}
			ms.ProductRetailerIDs = append(ms.ProductRetailerIDs, r)
		}
		pm.Sections = append(pm.Sections, ms)
	}
	return s.Messaging.SendProductMessage(ctx, in.ContactID, orDefault(in.Account, c.ChatAccount), pm)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
