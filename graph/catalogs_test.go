package graph_test

import (
	"net/http"
	"testing"

	"switchboard/access"
	"switchboard/provider/providertest"
)

// TestGraphQLCatalogs runs catalogs, products and product messages through
// GraphQL: the same operations as REST, against the fake Graph API.
func TestGraphQLCatalogs(t *testing.T) {
	e := newMessagingEnv(t)
	admin, agent, other := e.Admin, e.NewUser(e.OrgID, access.RoleAgent), e.NewOrg("Other")

	catalogFields := `id providerCatalogID chatAccount name isActive productCount products { id name price currency retailerID }`
	createCatalog := `mutation($a: String!, $n: String!) { createCatalog(chatAccount: $a, name: $n) { ` + catalogFields + ` } }`
	r := mustGraphQL(t, admin, createCatalog, vars{"a": "Main", "n": "Shoes"})
	catalogID, platformCatalog := r.String("data.createCatalog.id"), r.String("data.createCatalog.providerCatalogID")
	if platformCatalog == "" || r.String("data.createCatalog.name") != "Shoes" || r.Number("data.createCatalog.productCount") != 0 {
		t.Fatalf("createCatalog: %s", r.Raw)
	}
	if got := e.fake.ConnectedCatalogs(providertest.BusinessID); len(got) != 1 || got[0] != platformCatalog {
		t.Errorf("connected catalogs %v, want [%s]", got, platformCatalog)
	}

	productFields := `id providerProductID name price currency retailerID isActive`
	createProduct := `mutation($c: ID!, $in: ProductInput!) { createProduct(catalogId: $c, input: $in) { ` + productFields + ` } }`
	r = mustGraphQL(t, admin, createProduct, vars{"c": catalogID, "in": vars{"name": "Runner", "price": 12950, "currency": "eur", "retailerID": "SKU-1"}})
	productID := r.String("data.createProduct.id")
	if r.Number("data.createProduct.price") != 12950 || r.String("data.createProduct.currency") != "EUR" ||
		r.String("data.createProduct.providerProductID") == "" {
		t.Fatalf("createProduct: %s", r.Raw)
	}
	if n := len(e.fake.Products(platformCatalog)); n != 1 {
		t.Errorf("the platform holds %d products", n)
	}

	updateProduct := `mutation($id: ID!, $in: ProductInput!) { updateProduct(id: $id, input: $in) { ` + productFields + ` } }`
	byID := func(op string) string { return `mutation($id: ID!) { ` + op + `(id: $id) }` }
	runErrorCases(t, []errorCase{
		{"AgentCreateCatalogForbidden", agent, createCatalog, vars{"a": "Main", "n": "Hats"}, "forbidden"},
		{"MissingName", admin, createCatalog, vars{"a": "Main", "n": " "}, "invalid"},
		{"UnknownAccount", admin, createCatalog, vars{"a": "Nope", "n": "Hats"}, "invalid"},
		{"NegativePrice", admin, createProduct, vars{"c": catalogID, "in": vars{"name": "X", "price": -1}}, "invalid"},
		{"MissingPrice", admin, createProduct, vars{"c": catalogID, "in": vars{"name": "X"}}, "invalid"},
		{"AgentUpdateForbidden", agent, updateProduct, vars{"id": productID, "in": vars{"price": 1}}, "forbidden"},
		{"CrossTenantCatalog", other, `query($id: ID!) { catalog(id: $id) { id } }`, vars{"id": catalogID}, "not_found"},
		{"CrossTenantProduct", other, `query($id: ID!) { product(id: $id) { id } }`, vars{"id": productID}, "not_found"},
		{"CrossTenantCreateProduct", other, createProduct, vars{"c": catalogID, "in": vars{"name": "X", "price": 1}}, "not_found"},
		{"CrossTenantDeleteCatalog", other, byID("deleteCatalog"), vars{"id": catalogID}, "not_found"},
		{"MalformedID", admin, `query($id: ID!) { product(id: $id) { id } }`, vars{"id": "nope"}, "invalid"},
	})

	t.Run("Read", func(t *testing.T) {
		r := mustGraphQL(t, agent, `query($id: ID!) { catalog(id: $id) { `+catalogFields+` } }`, vars{"id": catalogID})
		if r.Number("data.catalog.productCount") != 1 || r.String("data.catalog.products.0.retailerID") != "SKU-1" {
			t.Fatalf("catalog: %s", r.Raw)
		}
		r = mustGraphQL(t, agent, `{ catalogs(chatAccount: "Main") { id productCount products { id } } }`, nil)
		if r.Len("data.catalogs") != 1 || r.Number("data.catalogs.0.productCount") != 1 || r.Get("data.catalogs.0.products") != nil {
			t.Fatalf("catalogs: %s", r.Raw)
		}
		if n := mustGraphQL(t, other, `{ catalogs { id } }`, nil).Len("data.catalogs"); n != 0 {
			t.Errorf("the other organization sees %d catalogs", n)
		}
		r = mustGraphQL(t, agent, `query($c: ID!) { catalogProducts(catalogId: $c) { id } }`, vars{"c": catalogID})
		if r.Len("data.catalogProducts") != 1 {
			t.Fatalf("catalogProducts: %s", r.Raw)
		}
	})
	t.Run("UpdateProduct", func(t *testing.T) {
		r := mustGraphQL(t, admin, updateProduct, vars{"id": productID, "in": vars{"price": 9900, "isActive": false}})
		if r.Number("data.updateProduct.price") != 9900 || r.Get("data.updateProduct.isActive") != false ||
			r.String("data.updateProduct.name") != "Runner" {
			t.Fatalf("updateProduct: %s", r.Raw)
		}
		if ps := e.fake.Products(platformCatalog); len(ps) != 1 || ps[0].Price != 9900 || ps[0].Availability != "out of stock" {
			t.Errorf("platform product: %+v", ps)
		}
	})
	t.Run("SendProductMessage", func(t *testing.T) {
		contact := e.newContact(t, "15550400001", true)
		send := `mutation($in: SendProductMessageInput!) { sendProductMessage(input: $in) { id status } }`
		r := mustGraphQL(t, agent, send, vars{"in": vars{"contactID": contact.ID, "productID": productID, "body": "Our best seller"}})
		e.waitSent(t, r.String("data.sendProductMessage.id"))
		var action map[string]any
		for _, req := range e.fake.Find(http.MethodPost, "/"+providertest.PhoneID+"/messages") {
			if body, _ := req.JSON(t).(map[string]any); body["to"] == contact.PhoneNumber {
				action, _ = body["interactive"].(map[string]any)["action"].(map[string]any)
			}
		}
		if action["catalog_id"] != platformCatalog || action["product_retailer_id"] != "SKU-1" {
			t.Errorf("sent action %v", action)
		}
		expectCode(t, other.GraphQL(send, vars{"in": vars{"contactID": contact.ID, "productID": productID, "body": "x"}}), "not_found")
	})
	t.Run("Delete", func(t *testing.T) {
		if r := mustGraphQL(t, admin, byID("deleteProduct"), vars{"id": productID}); r.Get("data.deleteProduct") != true {
			t.Fatalf("deleteProduct: %s", r.Raw)
		}
		expectCode(t, admin.GraphQL(`query($id: ID!) { product(id: $id) { id } }`, vars{"id": productID}), "not_found")
		if r := mustGraphQL(t, admin, byID("deleteCatalog"), vars{"id": catalogID}); r.Get("data.deleteCatalog") != true {
			t.Fatalf("deleteCatalog: %s", r.Raw)
		}
		if n := len(e.fake.Catalogs()); n != 0 {
			t.Errorf("the platform still holds %d catalogs", n)
		}
		if got := e.fake.ConnectedCatalogs(providertest.BusinessID); len(got) != 0 {
			t.Errorf("a deleted catalog is still connected: %v", got)
		}
	})
}
