package provider

import "unicode/utf8"

// Product messages: a single product of a catalog, or up to 30 products in
// up to 10 sections, as interactive messages.

// ProductMessage is an interactive "product" message: one product of the
// catalog, by its retailer id (the catalog's content id).
type ProductMessage struct {
	Body              string
	Footer            string
	CatalogID         string
	ProductRetailerID string
}

// ProductList is an interactive "product_list" message (a multi-product
// message): a text header, a body and sections of products.
type ProductList struct {
	Header    string
	Body      string
	Footer    string
	CatalogID string
	Sections  []ProductSection
}

// ProductSection is one titled section of a ProductList.
type ProductSection struct {
	Title              string
	ProductRetailerIDs []string
}

// Limits of product messages, as the platform documents them.
const (
	MaxProductSections     = 10
	MaxProductItems        = 30
	maxProductSectionTitle = 24
)

type wireProductItem struct {
	ProductRetailerID string `json:"product_retailer_id"`
}

func buildProduct(p *ProductMessage) (*wireInteractive, error) {
	if p.Body == "" || p.CatalogID == "" || p.ProductRetailerID == "" {
		return nil, invalid("product message needs a body, a catalog id and a product retailer id")
	}
	return &wireInteractive{
		Type: "product", Body: wireBodyText{Text: p.Body}, Footer: footer(p.Footer),
		Action: wireAction{CatalogID: p.CatalogID, ProductRetailerID: p.ProductRetailerID},
	}, nil
}

func buildProductList(l *ProductList) (*wireInteractive, error) {
	if l.Header == "" || l.Body == "" || l.CatalogID == "" {
		return nil, invalid("product_list message needs a header, a body and a catalog id")
	}
	if n := len(l.Sections); n < 1 || n > MaxProductSections {
		return nil, invalid("product_list message needs 1 to %d sections, has %d", MaxProductSections, n)
	}
	items := 0
	sections := make([]wireSection, 0, len(l.Sections))
	for i, s := range l.Sections {
		if s.Title == "" || utf8.RuneCountInString(s.Title) > maxProductSectionTitle {
			return nil, invalid("product_list section %d needs a title of 1 to %d characters", i, maxProductSectionTitle)
		}
		if len(s.ProductRetailerIDs) == 0 {
			return nil, invalid("product_list section %d has no products", i)
		}
		ws := wireSection{Title: s.Title, ProductItems: make([]wireProductItem, 0, len(s.ProductRetailerIDs))}
		for j, id := range s.ProductRetailerIDs {
			if id == "" {
				return nil, invalid("product_list item %d.%d has no retailer id", i, j)
			}
			ws.ProductItems = append(ws.ProductItems, wireProductItem{ProductRetailerID: id})
		}
		items += len(s.ProductRetailerIDs)
		sections = append(sections, ws)
	}
	if items > MaxProductItems {
		return nil, invalid("product_list message has %d products, at most %d", items, MaxProductItems)
	}
	return &wireInteractive{
		Type: "product_list", Header: &wireHeader{Type: "text", Text: l.Header}, Body: wireBodyText{Text: l.Body},
		Footer: footer(l.Footer), Action: wireAction{CatalogID: l.CatalogID, Sections: sections},
	}, nil
}
