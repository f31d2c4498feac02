package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// The commerce endpoints of the fake: the WhatsApp Business Account's
// owner business, the business's product catalogs (create, list paged
// with the after cursor, delete), the catalog connected to a WhatsApp
// Business Account (POST and GET /{waba_id}/product_catalogs) and the
// catalogs' products (create, list, update, delete), answering like the
// platform documents them.

// OwnerBusinessID is the business (portfolio) owning the fake's business
// account.
const OwnerBusinessID = "887766554433221"

// Catalog is a product catalog the fake holds.
type Catalog struct {
	ID       string
	Business string
	Name     string
}

// Product is a catalog item the fake holds. Price is in minor units; the
// list answers it formatted ("$12.50") as the platform does.
type Product struct {
	ID           string
	CatalogID    string
	RetailerID   string
	Name         string
	Description  string
	Price        int64
	Currency     string
	URL          string
	ImageURL     string
	Availability string
}

type catalogStore struct {
	catalogs map[string]*Catalog
	products map[string]*Product
	order    []string // catalog and product ids in creation order
	// connected is the catalog connected to each WhatsApp Business
	// Account (one per account: a new connection replaces the old).
	connected map[string]string
}

func (f *Fake) catalogRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /{business}/owned_product_catalogs", f.createCatalog)
	mux.HandleFunc("GET /{business}/owned_product_catalogs", f.listCatalogs)
	mux.HandleFunc("POST /{waba}/product_catalogs", f.connectCatalog)
	mux.HandleFunc("GET /{waba}/product_catalogs", f.connectedCatalogs)
	mux.HandleFunc("POST /{catalog}/products", f.createProduct)
	mux.HandleFunc("GET /{catalog}/products", f.listProducts)
	mux.HandleFunc("DELETE /{id}", f.deleteNode)
}

// AddCatalog stores a catalog as if created (Business defaults to
// OwnerBusinessID, ID is assigned when empty) and returns its id.
func (f *Fake) AddCatalog(c Catalog) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c.Business == "" {
		c.Business = OwnerBusinessID
	}
	if c.ID == "" {
		c.ID = f.commerceID(700000000000000)
	}
	f.catalogStore().catalogs[c.ID] = &c
	f.commerce.order = append(f.commerce.order, c.ID)
	return c.ID
}

// AddProduct stores a product of a catalog as if created and returns its
// id.
func (f *Fake) AddProduct(p Product) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p.ID == "" {
		p.ID = f.commerceID(800000000000000)
	}
	if p.Currency == "" {
		p.Currency = "USD"
	}
	f.catalogStore().products[p.ID] = &p
	f.commerce.order = append(f.commerce.order, p.ID)
	return p.ID
}

// Catalogs returns the catalogs the fake holds, in creation order.
func (f *Fake) Catalogs() []Catalog {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Catalog
	for _, id := range f.commerce.order {
		if c, ok := f.commerce.catalogs[id]; ok {
			out = append(out, *c)
		}
	}
	return out
}

// Products returns the products of a catalog, in creation order.
func (f *Fake) Products(catalogID string) []Product {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Product
	for _, id := range f.commerce.order {
		if p, ok := f.commerce.products[id]; ok && p.CatalogID == catalogID {
			out = append(out, *p)
		}
	}
	return out
}

// ConnectedCatalogs returns the ids of the catalogs connected to the
// WhatsApp Business Account waba (none or one).
func (f *Fake) ConnectedCatalogs(waba string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id, ok := f.catalogStore().connected[waba]; ok {
		return []string{id}
	}
	return nil
}

// catalogStore returns the store, made on first use; f.mu is held.
func (f *Fake) catalogStore() *catalogStore {
	if f.commerce.catalogs == nil {
		f.commerce.catalogs, f.commerce.products = map[string]*Catalog{}, map[string]*Product{}
		f.commerce.connected = map[string]string{}
	}
	return &f.commerce
}

// connectCatalog answers POST /{waba}/product_catalogs with a catalog_id
// parameter (JSON body or query): {success: true}. Only the fake's
// business account is known; a missing or unknown catalog is refused
// with error 100.
func (f *Fake) connectCatalog(w http.ResponseWriter, r *http.Request) {
	waba := r.PathValue("waba")
	in := struct {
		CatalogID string `json:"catalog_id"`
	}{CatalogID: r.URL.Query().Get("catalog_id")}
	if body := readBody(r); len(body) > 0 {
		if err := json.Unmarshal(body, &in); err != nil {
			InvalidParameter("Request body is not a JSON object").write(w)
			return
		}
	}
	if waba != BusinessID {
		notFoundNode(w, waba)
		return
	}
	if in.CatalogID == "" {
		InvalidParameter("(#100) The parameter catalog_id is required").write(w)
		return
	}
	f.mu.Lock()
	st := f.catalogStore()
	_, ok := st.catalogs[in.CatalogID]
	if ok {
		st.connected[waba] = in.CatalogID
	}
	f.mu.Unlock()
	if !ok {
		InvalidParameter("(#100) Param catalog_id must be a valid catalog id").write(w)
		return
	}
	JSON(http.StatusOK, map[string]any{"success": true}).write(w)
}

// connectedCatalogs answers GET /{waba}/product_catalogs: {data} with the
// connected catalog, if any.
func (f *Fake) connectedCatalogs(w http.ResponseWriter, r *http.Request) {
	waba := r.PathValue("waba")
	if waba != BusinessID {
		notFoundNode(w, waba)
		return
	}
	data := []map[string]any{}
	f.mu.Lock()
	st := f.catalogStore()
	if id, ok := st.connected[waba]; ok {
		data = append(data, map[string]any{"id": id, "name": st.catalogs[id].Name})
	}
	f.mu.Unlock()
	JSON(http.StatusOK, map[string]any{"data": data}).write(w)
}

// commerceID returns a new numeric id; f.mu is held.
func (f *Fake) commerceID(base int) string {
	f.nextID++
	return strconv.Itoa(base + f.nextID)
}

func notFoundNode(w http.ResponseWriter, id string) {
	GraphError(http.StatusBadRequest, 100, fmt.Sprintf("Unsupported request. Object with ID '%s' does not exist, "+
		"cannot be loaded due to missing permissions, or does not support this operation.", id), "").write(w)
}

// createCatalog answers POST /{business}/owned_product_catalogs: {id}.
func (f *Fake) createCatalog(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(readBody(r), &in); err != nil || in.Name == "" {
		InvalidParameter("The parameter name is required").write(w)
		return
	}
	if r.PathValue("business") != OwnerBusinessID {
		notFoundNode(w, r.PathValue("business"))
		return
	}
	id := f.AddCatalog(Catalog{Name: in.Name})
	JSON(http.StatusOK, map[string]any{"id": id}).write(w)
}

// listCatalogs answers GET /{business}/owned_product_catalogs.
func (f *Fake) listCatalogs(w http.ResponseWriter, r *http.Request) {
	business := r.PathValue("business")
	var all []map[string]any
	for _, c := range f.Catalogs() {
		if c.Business == business {
			all = append(all, map[string]any{"id": c.ID, "name": c.Name, "product_count": len(f.Products(c.ID))})
		}
	}
	f.writePage(w, r, all)
}

// createProduct answers POST /{catalog}/products: {id}. A missing
// retailer_id, name, price or currency, a negative price, or a retailer
// id the catalog already holds is refused.
func (f *Fake) createProduct(w http.ResponseWriter, r *http.Request) {
	var in struct {
		RetailerID   string `json:"retailer_id"`
		Name         string `json:"name"`
		Description  string `json:"description"`
		Price        *int64 `json:"price"`
		Currency     string `json:"currency"`
		URL          string `json:"url"`
		ImageURL     string `json:"image_url"`
		Availability string `json:"availability"`
	}
	if err := json.Unmarshal(readBody(r), &in); err != nil || in.RetailerID == "" || in.Name == "" ||
		in.Price == nil || in.Currency == "" {
		InvalidParameter("The parameters retailer_id, name, price and currency are required").write(w)
		return
	}
	if *in.Price < 0 {
		InvalidParameter("Param price must be a non-negative integer").write(w)
		return
	}
	catalogID := r.PathValue("catalog")
	f.mu.Lock()
	_, ok := f.catalogStore().catalogs[catalogID]
	dup := false
	for _, p := range f.commerce.products {
		dup = dup || p.CatalogID == catalogID && p.RetailerID == in.RetailerID
	}
	f.mu.Unlock()
	switch {
	case !ok:
		notFoundNode(w, catalogID)
		return
	case dup:
		GraphError(http.StatusBadRequest, 10800, "(#10800) Duplicate retailer_id when attempting to create a store collection: "+
			in.RetailerID, "").write(w)
		return
	}
	id := f.AddProduct(Product{CatalogID: catalogID, RetailerID: in.RetailerID, Name: in.Name, Description: in.Description,
		Price: *in.Price, Currency: in.Currency, URL: in.URL, ImageURL: in.ImageURL, Availability: in.Availability})
	JSON(http.StatusOK, map[string]any{"id": id}).write(w)
}

// listProducts answers GET /{catalog}/products with formatted prices.
func (f *Fake) listProducts(w http.ResponseWriter, r *http.Request) {
	catalogID := r.PathValue("catalog")
	f.mu.Lock()
	_, ok := f.catalogStore().catalogs[catalogID]
	f.mu.Unlock()
	if !ok {
		notFoundNode(w, catalogID)
		return
	}
	var all []map[string]any
	for _, p := range f.Products(catalogID) {
		all = append(all, map[string]any{"id": p.ID, "retailer_id": p.RetailerID, "name": p.Name,
			"description": p.Description, "price": FormatPrice(p.Price, p.Currency), "currency": p.Currency,
			"url": p.URL, "image_url": p.ImageURL, "availability": p.Availability})
	}
	f.writePage(w, r, all)
}

// FormatPrice formats minor units as the platform's product reads do:
// "$12.50" for USD, "12.50 EUR" otherwise, with "," grouping thousands.
func FormatPrice(minor int64, currency string) string {
	whole := strconv.FormatInt(minor/100, 10)
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	s := fmt.Sprintf("%s.%02d", whole, minor%100)
	if currency == "USD" {
		return "$" + s
	}
	return s + " " + currency
}

// updateProduct answers POST /{product}: the given fields change.
func (f *Fake) updateProduct(w http.ResponseWriter, r *http.Request, id string) {
	var in map[string]any
	if err := json.Unmarshal(readBody(r), &in); err != nil {
		InvalidParameter("Request body is not a JSON object").write(w)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.commerce.products[id]
	for k, v := range in {
		s, _ := v.(string)
		switch k {
		case "name":
			p.Name = s
		case "description":
			p.Description = s
		case "currency":
			p.Currency = s
		case "url":
			p.URL = s
		case "image_url":
			p.ImageURL = s
		case "availability":
			p.Availability = s
		case "retailer_id":
			p.RetailerID = s
		case "price":
			n, ok := v.(float64)
			if !ok || n < 0 {
				InvalidParameter("Param price must be a non-negative integer").write(w)
				return
			}
			p.Price = int64(n)
		default:
			InvalidParameter("Unknown parameter " + k).write(w)
			return
		}
	}
	JSON(http.StatusOK, map[string]any{"success": true}).write(w)
}

// deleteNode answers DELETE /{id} for a catalog (with its products) or a
// product.
func (f *Fake) deleteNode(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	f.mu.Lock()
	st := f.catalogStore()
	_, isCatalog := st.catalogs[id]
	_, isProduct := st.products[id]
	switch {
	case isCatalog:
		delete(st.catalogs, id)
		for waba, c := range st.connected {
			if c == id {
				delete(st.connected, waba)
			}
		}
		for pid, p := range st.products {
			if p.CatalogID == id {
				delete(st.products, pid)
			}
		}
	case isProduct:
		delete(st.products, id)
	}
	f.mu.Unlock()
	if !isCatalog && !isProduct {
		notFoundNode(w, id)
		return
	}
	JSON(http.StatusOK, map[string]any{"success": true}).write(w)
}

// isProduct reports whether id is a product the fake holds.
func (f *Fake) isProduct(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.catalogStore().products[id]
	return ok
}
