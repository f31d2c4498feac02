package provider

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Product catalogs and their items, as the Graph API's commerce
// endpoints document them: a catalog is owned by the business (portfolio)
// that owns the WhatsApp Business Account.

// OwnerBusinessID returns the id of the business that owns the account's
// WhatsApp Business Account (GET /{waba_id}?fields=owner_business_info).
//
// Errors: *Error for a Graph error answer; ErrUnexpectedResponse when the
// answer names no owner; a transport error otherwise.
func (c *Client) OwnerBusinessID(ctx context.Context, acc Account) (string, error) {
	u, err := c.endpoint(acc, url.Values{"fields": {"owner_business_info"}}, acc.BusinessID)
	if err != nil {
		return "", err
	}
	var a struct {
		OwnerBusinessInfo struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"owner_business_info"`
	}
	r := getRequest(u)
	if err := c.doJSON(ctx, acc, r, &a); err != nil {
		return "", err
	}
	if a.OwnerBusinessInfo.ID == "" {
		return "", fmt.Errorf("%w: %s: no owner_business_info.id", ErrUnexpectedResponse, r.what)
	}
	return a.OwnerBusinessInfo.ID, nil
}

// CreateCatalog creates a product catalog owned by business
// (POST /{business_id}/owned_product_catalogs) and returns its id. It is
// not retried: a lost answer could otherwise create two catalogs.
//
// Errors: ErrInvalid for an empty business id or name; *Error for a Graph
// error answer; ErrUnexpectedResponse when the answer has no id; a
// transport error otherwise.
func (c *Client) CreateCatalog(ctx context.Context, acc Account, businessID, name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("%w: a catalog needs a name", ErrInvalid)
	}
	u, err := c.endpoint(acc, nil, businessID, "owned_product_catalogs")
	if err != nil {
		return "", err
	}
	return c.createNode(ctx, acc, u, map[string]string{"name": name})
}

// ConnectCatalog connects a product catalog to the account's WhatsApp
// Business Account (POST /{waba_id}/product_catalogs with catalog_id),
// which product messages need. An account has one connected catalog: a
// new connection replaces the old. Connecting the same catalog again
// changes nothing, so the call is retried.
//
// Errors: ErrInvalid for an empty catalog id; *Error for a Graph error
// answer (an unknown catalog, missing permissions); ErrUnexpectedResponse
// when success is not true; a transport error otherwise.
func (c *Client) ConnectCatalog(ctx context.Context, acc Account, catalogID string) error {
	if catalogID == "" {
		return fmt.Errorf("%w: a catalog id is required", ErrInvalid)
	}
	u, err := c.endpoint(acc, nil, acc.BusinessID, "product_catalogs")
	if err != nil {
		return err
	}
	r, err := jsonRequest(http.MethodPost, u, map[string]string{"catalog_id": catalogID})
	if err != nil {
		return err
	}
	r.idempotent = true
	return c.doSuccess(ctx, acc, r)
}

// DeleteCatalog deletes a product catalog (DELETE /{catalog_id}).
//
// Errors: ErrInvalid for an empty id; *Error for a Graph error answer (an
// unknown catalog, one with live ads); ErrUnexpectedResponse when success
// is not true; a transport error otherwise.
func (c *Client) DeleteCatalog(ctx context.Context, acc Account, catalogID string) error {
	return c.deleteNode(ctx, acc, catalogID)
}

// PlatformCatalog is a catalog as the platform lists it.
type PlatformCatalog struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	ProductCount int    `json:"product_count"`
}

// ListCatalogs returns a page of the catalogs business owns
// (GET /{business_id}/owned_product_catalogs?fields=&limit=&after=).
//
// Errors: *Error for a Graph error answer; ErrUnexpectedResponse for an
// answer that is not the documented list; a transport error otherwise.
func (c *Client) ListCatalogs(ctx context.Context, acc Account, businessID, after string, limit int) (*Page[PlatformCatalog], error) {
	return listPage[PlatformCatalog](ctx, c, acc, "id,name,product_count", after, limit, businessID, "owned_product_catalogs")
}

// ProductFields are the fields of a product create or update
// (POST /{catalog_id}/products, POST /{product_id}). Price is in minor
// units of Currency (cents), as the create call takes it. On update,
// empty strings and a nil Price are left out (unchanged).
type ProductFields struct {
	RetailerID   string `json:"retailer_id,omitempty"`
	Name         string `json:"name,omitempty"`
	Description  string `json:"description,omitempty"`
	Price        *int64 `json:"price,omitempty"`
	Currency     string `json:"currency,omitempty"`
	URL          string `json:"url,omitempty"`
	ImageURL     string `json:"image_url,omitempty"`
	Availability string `json:"availability,omitempty"`
}

// Product availabilities the platform accepts.
const (
	InStock    = "in stock"
	OutOfStock = "out of stock"
)

// CreateProduct adds a product to a catalog (POST /{catalog_id}/products)
// and returns its id. Not retried (a lost answer could create two).
//
// Errors: ErrInvalid for an empty catalog id, retailer id or name, or a
// missing or negative price; *Error for a Graph error answer (a retailer
// id in use, an invalid image URL); ErrUnexpectedResponse when the answer
// has no id; a transport error otherwise.
func (c *Client) CreateProduct(ctx context.Context, acc Account, catalogID string, p ProductFields) (string, error) {
	if p.RetailerID == "" || p.Name == "" || p.Price == nil || *p.Price < 0 || p.Currency == "" {
		return "", fmt.Errorf("%w: a product needs a retailer id, a name, a price of at least 0 and a currency", ErrInvalid)
	}
	u, err := c.endpoint(acc, nil, catalogID, "products")
	if err != nil {
		return "", err
	}
	return c.createNode(ctx, acc, u, p)
}

// UpdateProduct changes the given fields of a product (POST /{product_id}).
//
// Errors: ErrInvalid for an empty id or a negative price; *Error for a
// Graph error answer; ErrUnexpectedResponse when success is not true; a
// transport error otherwise.
func (c *Client) UpdateProduct(ctx context.Context, acc Account, productID string, p ProductFields) error {
	if p.Price != nil && *p.Price < 0 {
		return fmt.Errorf("%w: a product price must be at least 0", ErrInvalid)
	}
	u, err := c.endpoint(acc, nil, productID)
	if err != nil {
		return err
	}
	r, err := jsonRequest(http.MethodPost, u, p)
	if err != nil {
		return err
	}
	r.idempotent = true // the same fields twice leave the same product
	return c.doSuccess(ctx, acc, r)
}

// DeleteProduct deletes a product (DELETE /{product_id}).
//
// Errors: as DeleteCatalog.
func (c *Client) DeleteProduct(ctx context.Context, acc Account, productID string) error {
	return c.deleteNode(ctx, acc, productID)
}

// PlatformProduct is a product as the platform lists it. Price is the
// platform's formatted price ("$10.00", "1.234,50 €"); PriceMinor reads
// it in minor units.
type PlatformProduct struct {
	ID           string `json:"id"`
	RetailerID   string `json:"retailer_id"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	Price        string `json:"price"`
	Currency     string `json:"currency"`
	URL          string `json:"url"`
	ImageURL     string `json:"image_url"`
	Availability string `json:"availability"`
}

// PriceMinor is the product's price in minor units (two decimals), and
// whether its formatted price could be read.
func (p PlatformProduct) PriceMinor() (int64, bool) { return ParsePrice(p.Price) }

// productFields are the fields ListProducts asks for.
const productFields = "id,retailer_id,name,description,price,currency,url,image_url,availability"

// ListProducts returns a page of a catalog's products
// (GET /{catalog_id}/products?fields=&limit=&after=).
//
// Errors: as ListCatalogs.
func (c *Client) ListProducts(ctx context.Context, acc Account, catalogID, after string, limit int) (*Page[PlatformProduct], error) {
	return listPage[PlatformProduct](ctx, c, acc, productFields, after, limit, catalogID, "products")
}

// ParsePrice reads a formatted price such as "$10.00", "10.00 USD",
// "1,234.50" or "1.234,50 €" as minor units with two decimals: the last
// "." or "," followed by one or two digits is the decimal separator, other
// separators group thousands. It reports false for text with no digits,
// a negative price or one too large for int64.
func ParsePrice(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	start, end := strings.IndexAny(s, "0123456789"), strings.LastIndexAny(s, "0123456789")
	if start < 0 || strings.Contains(s[:start], "-") {
		return 0, false
	}
	num := s[start : end+1]
	whole, frac := num, ""
	if i := strings.LastIndexAny(num, ".,"); i >= 0 && len(num)-i-1 <= 2 {
		whole, frac = num[:i], num[i+1:]
	}
	var digits strings.Builder
	for _, r := range whole {
		switch {
		case r >= '0' && r <= '9':
			digits.WriteRune(r)
		case r == '.' || r == ',' || r == ' ' || r == '\u00a0' || r == '\'':
		default:
			return 0, false
		}
	}
	for len(frac) < 2 {
		frac += "0"
	}
	for _, r := range frac {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	w := digits.String()
	if w == "" {
		w = "0"
	}
	n, err := strconv.ParseInt(w, 10, 64)
	if err != nil || n > (1<<63-1)/100 {
		return 0, false
	}
	f, _ := strconv.ParseInt(frac, 10, 64)
	return n*100 + f, true
}

// createNode posts payload to u and returns the new object's id.
func (c *Client) createNode(ctx context.Context, acc Account, u *url.URL, payload any) (string, error) {
	r, err := jsonRequest(http.MethodPost, u, payload)
	if err != nil {
		return "", err
	}
	var a struct {
		ID string `json:"id"`
	}
	if err := c.doJSON(ctx, acc, r, &a); err != nil {
		return "", err
	}
	if a.ID == "" {
		return "", fmt.Errorf("%w: %s: no id", ErrUnexpectedResponse, r.what)
	}
	return a.ID, nil
}

// deleteNode deletes the object id (DELETE /{id}).
func (c *Client) deleteNode(ctx context.Context, acc Account, id string) error {
	u, err := c.endpoint(acc, nil, id)
	if err != nil {
		return err
	}
	return c.doSuccess(ctx, acc, &request{method: http.MethodDelete, url: u, idempotent: true})
}
