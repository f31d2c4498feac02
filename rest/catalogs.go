package rest

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/catalogs"
	"switchboard/ent"
)

// catalogJSON is the spec's Catalog; products only on a single get.
type catalogJSON struct {
	ID                uuid.UUID      `json:"id"`
	ProviderCatalogID string         `json:"provider_catalog_id"`
	ChatAccount       string         `json:"chat_account"`
	Name              string         `json:"name"`
	IsActive          bool           `json:"is_active"`
	ProductCount      int            `json:"product_count"`
	Products          *[]productJSON `json:"products,omitempty"`
	CreatedAt         time.Time      `json:"created_at"`
	UpdatedAt         time.Time      `json:"updated_at"`
}

// productJSON is the spec's Product (with its catalog_id).
type productJSON struct {
	ID                uuid.UUID `json:"id"`
	CatalogID         uuid.UUID `json:"catalog_id"`
	ProviderProductID string    `json:"provider_product_id"`
	Name              string    `json:"name"`
	Description       string    `json:"description"`
	Price             int64     `json:"price"`
	Currency          string    `json:"currency"`
	URL               string    `json:"url"`
	ImageURL          string    `json:"image_url"`
	RetailerID        string    `json:"retailer_id"`
	IsActive          bool      `json:"is_active"`
	CreatedAt         time.Time `json:"created_at"`
	UpdatedAt         time.Time `json:"updated_at"`
}

func presentCatalog(v *catalogs.View, withProducts bool) catalogJSON {
	c := v.Catalog
	out := catalogJSON{
		ID: c.ID, ProviderCatalogID: c.ProviderCatalogID, ChatAccount: c.ChatAccount, Name: c.Name,
		IsActive: c.IsActive, ProductCount: v.ProductCount, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
	}
	if withProducts {
		ps := presentProducts(v.Products)
		out.Products = &ps
	}
	return out
}

func presentProduct(p *ent.Product) productJSON {
	return productJSON{
		ID: p.ID, CatalogID: p.CatalogID, ProviderProductID: p.ProviderProductID, Name: p.Name,
		Description: p.Description, Price: p.Price, Currency: p.Currency, URL: p.URL, ImageURL: p.ImageURL,
		RetailerID: p.RetailerID, IsActive: p.IsActive, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
}

func presentProducts(ps []*ent.Product) []productJSON {
	out := make([]productJSON, len(ps))
	for i, p := range ps {
		out[i] = presentProduct(p)
	}
	return out
}

// createProductBody is the JSON of createProduct; the bounds are
// catalogs' (TestBodyTagsMatchTheDomain).
type createProductBody struct {
	Name        *string `json:"name" required:"true" nullable:"false" minLength:"1" maxLength:"200" example:"Running shoe"`
	Description *string `json:"description" maxLength:"5000"`
	Price       *int64  `json:"price" required:"true" nullable:"false" minimum:"0" example:"4999" description:"In minor units (cents)."`
	Currency    *string `json:"currency" pattern:"^[A-Za-z]{3}$" example:"USD" description:"An ISO 4217 code (default USD)."`
	URL         *string `json:"url" maxLength:"2000" description:"An absolute http or https URL, or empty."`
	ImageURL    *string `json:"image_url" maxLength:"2000" description:"An absolute http or https URL, or empty."`
	RetailerID  *string `json:"retailer_id" minLength:"1" maxLength:"100"`
	IsActive    *bool   `json:"is_active"`
}

func (b createProductBody) input() catalogs.ProductInput { return updateProductBody(b).input() }

// updateProductBody is the JSON of updateProduct: absent or null fields keep
// their value.
type updateProductBody struct {
	Name        *string `json:"name" minLength:"1" maxLength:"200"`
	Description *string `json:"description" maxLength:"5000"`
	Price       *int64  `json:"price" minimum:"0" description:"In minor units (cents)."`
	Currency    *string `json:"currency" pattern:"^[A-Za-z]{3}$" example:"USD" description:"An ISO 4217 code."`
	URL         *string `json:"url" maxLength:"2000" description:"An absolute http or https URL, or empty."`
	ImageURL    *string `json:"image_url" maxLength:"2000" description:"An absolute http or https URL, or empty."`
	RetailerID  *string `json:"retailer_id" minLength:"1" maxLength:"100"`
	IsActive    *bool   `json:"is_active"`
}

func (b updateProductBody) input() catalogs.ProductInput {
	return catalogs.ProductInput{
		Name: b.Name, Description: b.Description, Price: b.Price, Currency: b.Currency, URL: b.URL,
		ImageURL: b.ImageURL, RetailerID: b.RetailerID, IsActive: b.IsActive,
	}
}

func (a *API) listCatalogs(c *gin.Context) (int, any, error) {
	vs, err := a.R.Catalogs.List(ctx(c), queryOf[chatAccountQuery](c).ChatAccount)
	if err != nil {
		return 0, nil, err
	}
	out := make([]catalogJSON, len(vs))
	for i, v := range vs {
		out[i] = presentCatalog(v, false)
	}
	return http.StatusOK, catalogsData{Catalogs: out}, nil
}

func (a *API) getCatalog(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	v, err := a.R.Catalogs.Get(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentCatalog(v, true), nil
}

// createCatalogBody is the JSON body of createCatalog.
type createCatalogBody struct {
	ChatAccount string `json:"chat_account" required:"true" minLength:"1" maxLength:"200" example:"Main" description:"The name of an account of the organization."`
	Name        string `json:"name" required:"true" minLength:"1" maxLength:"200" example:"Shoes"`
}

func (a *API) createCatalog(c *gin.Context) (int, any, error) {
	var b createCatalogBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	v, err := a.R.Catalogs.Create(ctx(c), b.ChatAccount, b.Name)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, presentCatalog(v, false), nil
}

func (a *API) deleteCatalog(c *gin.Context) (int, any, error) {
	return idAction(a.R.Catalogs.Delete, messageData{Message: "Catalog deleted"})(c)
}

// syncCatalogsBody is the JSON body of syncCatalogs.
type syncCatalogsBody struct {
	ChatAccount string `json:"chat_account" required:"true" minLength:"1" maxLength:"200" example:"Main" description:"The name of an account of the organization."`
}

func (a *API) syncCatalogs(c *gin.Context) (int, any, error) {
	var b syncCatalogsBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	r, err := a.R.Catalogs.Sync(ctx(c), b.ChatAccount)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, catalogSyncData{Message: r.Message, Synced: r.Synced, Total: r.Total}, nil
}

func (a *API) listCatalogProducts(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	ps, err := a.R.Catalogs.Products(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, productsData{Products: presentProducts(ps)}, nil
}

func (a *API) getProduct(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	p, err := a.R.Catalogs.Product(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentProduct(p), nil
}

func (a *API) createProduct(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b createProductBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	p, err := a.R.Catalogs.CreateProduct(ctx(c), id, b.input())
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, presentProduct(p), nil
}

func (a *API) updateProduct(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b updateProductBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	p, err := a.R.Catalogs.UpdateProduct(ctx(c), id, b.input())
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentProduct(p), nil
}

func (a *API) deleteProduct(c *gin.Context) (int, any, error) {
	return idAction(a.R.Catalogs.DeleteProduct, messageData{Message: "Product deleted"})(c)
}

// sendProduct answers POST /api/messages/product: {contact_id,
// product_id, body, footer, chat_account}.
// sendProductBody is the JSON body of sendProduct.
type sendProductBody struct {
	ContactID   uuid.UUID `json:"contact_id" required:"true"`
	ProductID   uuid.UUID `json:"product_id" required:"true" description:"A product of a catalog at the platform."`
	Body        string    `json:"body" required:"true" minLength:"1" maxLength:"1024"`
	Footer      string    `json:"footer" maxLength:"60"`
	ChatAccount string    `json:"chat_account" maxLength:"255" description:"The sending account; default: the catalog's."`
}

func (a *API) sendProduct(c *gin.Context) (int, any, error) {
	var b sendProductBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	m, err := a.R.Catalogs.SendProduct(ctx(c), catalogs.ProductSend{
		ContactID: b.ContactID, ProductID: b.ProductID, Body: b.Body, Footer: b.Footer, Account: b.ChatAccount,
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, presentMessage(m), nil
}

// sendProductList answers POST /api/messages/product-list: {contact_id,
// catalog_id, header, body, footer, sections[{title, product_ids[]}],
// chat_account}.
// sendProductListBody is the JSON body of sendProductList.
type sendProductListBody struct {
	ContactID uuid.UUID `json:"contact_id" required:"true"`
	CatalogID uuid.UUID `json:"catalog_id" required:"true" description:"A catalog at the platform."`
	Header    string    `json:"header" required:"true" minLength:"1" maxLength:"60"`
	Body      string    `json:"body" required:"true" minLength:"1" maxLength:"1024"`
	Footer    string    `json:"footer" maxLength:"60"`
	Sections  []struct {
		Title      string      `json:"title" required:"true" minLength:"1" maxLength:"24"`
		ProductIDs []uuid.UUID `json:"product_ids" required:"true" minItems:"1" description:"Products of the catalog, each listed once."`
	} `json:"sections" required:"true" minItems:"1" maxItems:"10" description:"At most 30 products in all."`
	ChatAccount string `json:"chat_account" maxLength:"255" description:"The sending account; default: the catalog's."`
}

func (a *API) sendProductList(c *gin.Context) (int, any, error) {
	var b sendProductListBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	in := catalogs.ProductListSend{ContactID: b.ContactID, CatalogID: b.CatalogID, Header: b.Header, Body: b.Body,
		Footer: b.Footer, Account: b.ChatAccount}
	for _, s := range b.Sections {
		in.Sections = append(in.Sections, catalogs.SectionSend{Title: s.Title, ProductIDs: s.ProductIDs})
	}
	m, err := a.R.Catalogs.SendProductList(ctx(c), in)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, presentMessage(m), nil
}

// catalogRoutes: members who read messages read catalogs (Agents send
// product messages); changes are business account configuration and
// call the platform (no request transaction).
func (a *API) catalogRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/catalogs", Op: "catalogs", Query: chatAccountQuery{}, Out: catalogsData{}, Handle: a.listCatalogs},
		{Method: post, Path: "/api/catalogs", Op: "createCatalog", Status: http.StatusCreated, In: createCatalogBody{}, Out: catalogJSON{}, Handle: a.createCatalog},
		{Method: post, Path: "/api/catalogs/sync", Op: "syncCatalogs", In: syncCatalogsBody{}, Out: catalogSyncData{}, Handle: a.syncCatalogs},
		{Method: get, Path: "/api/catalogs/:id", Op: "catalog", Out: catalogJSON{}, Handle: a.getCatalog},
		{Method: del, Path: "/api/catalogs/:id", Op: "deleteCatalog", Out: messageData{}, Handle: a.deleteCatalog},
		{Method: get, Path: "/api/catalogs/:id/products", Op: "catalogProducts", Out: productsData{}, Handle: a.listCatalogProducts},
		{Method: post, Path: "/api/catalogs/:id/products", Op: "createProduct", Status: http.StatusCreated, In: createProductBody{}, Out: productJSON{}, Handle: a.createProduct},
		{Method: get, Path: "/api/products/:id", Op: "product", Out: productJSON{}, Handle: a.getProduct},
		{Method: put, Path: "/api/products/:id", Op: "updateProduct", In: updateProductBody{}, Out: productJSON{}, Handle: a.updateProduct},
		{Method: del, Path: "/api/products/:id", Op: "deleteProduct", Out: messageData{}, Handle: a.deleteProduct},
		{Method: post, Path: "/api/messages/product", Op: "sendProductMessage", Status: http.StatusCreated, In: sendProductBody{}, Out: messageJSON{}, Handle: a.sendProduct},
		{Method: post, Path: "/api/messages/product-list", Op: "sendProductListMessage", Status: http.StatusCreated, In: sendProductListBody{}, Out: messageJSON{}, Handle: a.sendProductList},
	}
}
