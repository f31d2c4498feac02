package messaging

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/internal/valid"
	"switchboard/provider"
)

// Interactive types of product messages (package catalogs builds them from
// its catalogs and products).
const (
	InteractiveProduct     = "product"
	InteractiveProductList = "product_list"
)

// Limits of product messages, as the platform documents them.
const (
	maxProductHeader       = 60
	maxProductFooter       = 60
	maxProductSectionTitle = 24
	maxRetailerID          = 100
)

// ProductMessage is a product message in the platform's terms: Type
// product (one product, ProductRetailerID) or product_list (a text
// Header and Sections of products, at most 10 sections and 30 products).
// CatalogID is the platform's catalog id. Its JSON form is the message's
// interactive_data.
type ProductMessage struct {
	Type              string           `json:"type"`
	Header            string           `json:"header,omitempty"`
	Body              string           `json:"body"`
	Footer            string           `json:"footer,omitempty"`
	CatalogID         string           `json:"catalog_id"`
	ProductRetailerID string           `json:"product_retailer_id,omitempty"`
	Sections          []ProductSection `json:"sections,omitempty"`
}

// ProductSection is one titled section of a product_list message.
type ProductSection struct {
	Title              string   `json:"title"`
	ProductRetailerIDs []string `json:"product_retailer_ids"`
}

// SendProductMessage stores a product message for a contact and queues
// it, like any interactive message (the 24-hour service window applies).
// Errors: invalid (the message breaks the platform's rules, a closed
// service window, no account), not_found (contact).
func (s *Service) SendProductMessage(ctx context.Context, contactID uuid.UUID, accountName string, pm ProductMessage) (*ent.Message, error) {
	pm, err := validProductMessage(pm)
	if err != nil {
		return nil, err
	}
	return s.sendFreeForm(ctx, contactID, accountName, draft{
		kind: TypeInteractive, content: map[string]any{"body": pm.Body}, interactive: toMap(pm), preview: pm.Body,
	})
}

// validProductMessage trims pm and checks it against the platform's rules.
func validProductMessage(pm ProductMessage) (ProductMessage, error) {
	var err error
	if pm.Body, err = valid.RequiredText("body", pm.Body, maxInteractiveBody); err != nil {
		return pm, err
	}
	if pm.Footer, err = optionalText("footer", pm.Footer, maxProductFooter); err != nil {
		return pm, err
	}
	if pm.CatalogID, err = valid.RequiredText("catalog_id", pm.CatalogID, maxRetailerID); err != nil {
		return pm, err
	}
	switch pm.Type {
	case InteractiveProduct:
		pm.Header, pm.Sections = "", nil
		pm.ProductRetailerID, err = valid.RequiredText("product_retailer_id", pm.ProductRetailerID, maxRetailerID)
		return pm, err
	case InteractiveProductList:
		pm.ProductRetailerID = ""
		if pm.Header, err = valid.RequiredText("header", pm.Header, maxProductHeader); err != nil {
			return pm, err
		}
		pm.Sections, err = validProductSections(pm.Sections)
		return pm, err
	}
	return pm, apperr.Invalidf("type must be product or product_list")
}

// CheckProductListSize checks the number of sections and products of a
// product_list message against the platform's limits; callers that look
// the products up first check before they do.
func CheckProductListSize(sections, products int) error {
	if sections < 1 || sections > provider.MaxProductSections {
		return apperr.Invalidf("sections must hold 1 to %d sections, not %d", provider.MaxProductSections, sections)
	}
	if products > provider.MaxProductItems {
		return apperr.Invalidf("a product list holds at most %d products, not %d", provider.MaxProductItems, products)
	}
	return nil
}

func validProductSections(sections []ProductSection) ([]ProductSection, error) {
	total := 0
	for _, sec := range sections {
		total += len(sec.ProductRetailerIDs)
	}
	if err := CheckProductListSize(len(sections), total); err != nil {
		return nil, err
	}
	out := make([]ProductSection, len(sections))
	seen := map[string]bool{}
	for i, sec := range sections {
		title, err := valid.RequiredText("sections[].title", sec.Title, maxProductSectionTitle)
		if err != nil {
			return nil, err
		}
		if len(sec.ProductRetailerIDs) == 0 {
			return nil, apperr.Invalidf("section %q has no products", title)
		}
		ids := make([]string, len(sec.ProductRetailerIDs))
		for j, id := range sec.ProductRetailerIDs {
			if ids[j], err = valid.RequiredText("sections[].product_items[].product_retailer_id", id, maxRetailerID); err != nil {
				return nil, err
			}
			if seen[ids[j]] {
				return nil, apperr.Invalidf("product %q is listed twice", ids[j])
			}
			seen[ids[j]] = true
		}
		out[i] = ProductSection{Title: title, ProductRetailerIDs: ids}
	}
	return out, nil
}

// optionalText trims s and checks it when present.
func optionalText(field, s string, maxLen int) (string, error) {
	if s == "" {
		return "", nil
	}
	return valid.RequiredText(field, s, maxLen)
}

// productOutgoing rebuilds the platform's product message from the
// stored interactive_data.
func productOutgoing(data map[string]any) (provider.OutgoingMessage, error) {
	var pm ProductMessage
	b, _ := json.Marshal(data)
	if err := json.Unmarshal(b, &pm); err != nil {
		return provider.OutgoingMessage{}, permanent("the product message is malformed")
	}
	var out provider.OutgoingMessage
	if pm.Type == InteractiveProduct {
		out.Product = &provider.ProductMessage{Body: pm.Body, Footer: pm.Footer, CatalogID: pm.CatalogID,
			ProductRetailerID: pm.ProductRetailerID}
		return out, nil
	}
	l := &provider.ProductList{Header: pm.Header, Body: pm.Body, Footer: pm.Footer, CatalogID: pm.CatalogID}
	for _, s := range pm.Sections {
		l.Sections = append(l.Sections, provider.ProductSection{Title: s.Title, ProductRetailerIDs: s.ProductRetailerIDs})
	}
	out.ProductList = l
	return out, nil
}
