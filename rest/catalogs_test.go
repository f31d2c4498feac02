package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"switchboard/access"
	"switchboard/ent/message"
	"switchboard/provider/providertest"
)

func TestCatalogsCRUD(t *testing.T) {
	e := newSendEnv(t)
	admin := e.Admin
	agent := e.NewUser(e.OrgID, access.RoleAgent)
	other := e.NewOrg("Elsewhere")
	mustCreateAccount(t, other, acctBody("Main", map[string]any{"phone_id": newPhoneID(), "business_id": "555000111222"}))
	fake := e.fake

	var catalogID, platformCatalog, productID, platformProduct string
	t.Run("CreateCatalog", func(t *testing.T) {
		agent.Do(http.MethodPost, "/api/catalogs", map[string]any{"chat_account": "Main", "name": "Shoes"}).
			ExpectError(t, http.StatusForbidden)
		admin.Do(http.MethodPost, "/api/catalogs", map[string]any{"chat_account": "Main"}).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodPost, "/api/catalogs", map[string]any{"chat_account": "Nope", "name": "Shoes"}).
			ExpectError(t, http.StatusBadRequest)
		res := admin.Do(http.MethodPost, "/api/catalogs", map[string]any{"chat_account": "Main", "name": "Shoes"}).
			ExpectStatus(t, http.StatusCreated)
		catalogID, platformCatalog = res.String("data.id"), res.String("data.provider_catalog_id")
		if platformCatalog == "" || res.String("data.name") != "Shoes" || res.Number("data.product_count") != 0 ||
			res.Get("data.is_active") != true || res.String("data.chat_account") != "Main" {
			t.Fatalf("create: %s", res.Raw)
		}
		owner := fake.Find(http.MethodGet, "/"+providertest.BusinessID)
		if len(owner) != 1 || owner[0].Query.Get("fields") != "owner_business_info" {
			t.Fatalf("owner lookups: %+v", owner)
		}
		reqs := fake.Find(http.MethodPost, "/"+providertest.OwnerBusinessID+"/owned_product_catalogs")
		if len(reqs) != 1 {
			t.Fatalf("%d catalog creates", len(reqs))
		}
		expectBody(t, reqs[0].JSON(t).(map[string]any), `{"name":"Shoes"}`)
		// The new catalog is connected to the account's WhatsApp Business
		// Account, so that product messages can name it.
		conn := fake.Find(http.MethodPost, "/"+providertest.BusinessID+"/product_catalogs")
		if len(conn) != 1 {
			t.Fatalf("%d catalog connections", len(conn))
		}
		expectBody(t, conn[0].JSON(t).(map[string]any), `{"catalog_id":"`+platformCatalog+`"}`)
		if got := fake.ConnectedCatalogs(providertest.BusinessID); len(got) != 1 || got[0] != platformCatalog {
			t.Errorf("connected catalogs %v, want [%s]", got, platformCatalog)
		}
	})
	t.Run("CreateProduct", func(t *testing.T) {
		path := "/api/catalogs/" + catalogID + "/products"
		good := map[string]any{"name": "Runner", "price": 12950, "currency": "eur", "description": "Light",
			"url": "https://shop.example/runner", "image_url": "https://shop.example/runner.jpg", "retailer_id": "SKU-1"}
		agent.Do(http.MethodPost, path, good).ExpectError(t, http.StatusForbidden)
		other.Do(http.MethodPost, path, good).ExpectError(t, http.StatusNotFound)
		for name, body := range map[string]map[string]any{
			"NegativePrice": {"name": "Runner", "price": -1},
			"MissingName":   {"price": 100},
			"MissingPrice":  {"name": "Runner"},
			"FloatPrice":    {"name": "Runner", "price": 12.5},
			"BadCurrency":   {"name": "Runner", "price": 100, "currency": "euro"},
			"BadURL":        {"name": "Runner", "price": 100, "image_url": "ftp://x"},
		} {
			t.Run(name, func(t *testing.T) {
				admin.Do(http.MethodPost, path, body).ExpectError(t, http.StatusBadRequest)
			})
		}
		res := admin.Do(http.MethodPost, path, good).ExpectStatus(t, http.StatusCreated)
		productID, platformProduct = res.String("data.id"), res.String("data.provider_product_id")
		if platformProduct == "" || res.Number("data.price") != 12950 || res.String("data.currency") != "EUR" ||
			res.String("data.retailer_id") != "SKU-1" || res.String("data.catalog_id") != catalogID {
			t.Fatalf("create: %s", res.Raw)
		}
		reqs := fake.Find(http.MethodPost, "/"+platformCatalog+"/products")
		if len(reqs) != 1 {
			t.Fatalf("%d product creates", len(reqs))
		}
		expectBody(t, reqs[0].JSON(t).(map[string]any), `{"retailer_id":"SKU-1","name":"Runner","description":"Light",
			"price":12950,"currency":"EUR","url":"https://shop.example/runner","image_url":"https://shop.example/runner.jpg",
			"availability":"in stock"}`)
		// Without a retailer id the product's own id is the retailer id.
		res = admin.Do(http.MethodPost, path, map[string]any{"name": "Walker", "price": 0}).ExpectStatus(t, http.StatusCreated)
		if res.String("data.retailer_id") != res.String("data.id") || res.String("data.currency") != "USD" {
			t.Errorf("defaults: %s", res.Raw)
		}
	})
	t.Run("Read", func(t *testing.T) {
		agent.Do(http.MethodGet, "/api/catalogs", nil).ExpectStatus(t, http.StatusOK)
		res := admin.Do(http.MethodGet, "/api/catalogs?chat_account=Main", nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.catalogs") != 1 || res.Number("data.catalogs.0.product_count") != 2 || res.Get("data.catalogs.0.products") != nil {
			t.Fatalf("list: %s", res.Raw)
		}
		if n := other.Do(http.MethodGet, "/api/catalogs", nil).ExpectStatus(t, http.StatusOK).Len("data.catalogs"); n != 0 {
			t.Errorf("the other organization sees %d catalogs", n)
		}
		res = agent.Do(http.MethodGet, "/api/catalogs/"+catalogID, nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.products") != 2 || res.Number("data.product_count") != 2 {
			t.Fatalf("get: %s", res.Raw)
		}
		other.Do(http.MethodGet, "/api/catalogs/"+catalogID, nil).ExpectError(t, http.StatusNotFound)
		other.Do(http.MethodGet, "/api/catalogs/"+catalogID+"/products", nil).ExpectError(t, http.StatusNotFound)
		other.Do(http.MethodGet, "/api/products/"+productID, nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodGet, "/api/products/not-a-uuid", nil).ExpectError(t, http.StatusBadRequest)
		if n := agent.Do(http.MethodGet, "/api/catalogs/"+catalogID+"/products", nil).ExpectStatus(t, http.StatusOK).Len("data.products"); n != 2 {
			t.Errorf("%d products", n)
		}
		if got := agent.Do(http.MethodGet, "/api/products/"+productID, nil).ExpectStatus(t, http.StatusOK).String("data.name"); got != "Runner" {
			t.Errorf("product name %q", got)
		}
	})
	t.Run("UpdateProduct", func(t *testing.T) {
		path := "/api/products/" + productID
		agent.Do(http.MethodPut, path, map[string]any{"price": 100}).ExpectError(t, http.StatusForbidden)
		other.Do(http.MethodPut, path, map[string]any{"price": 100}).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodPut, path, map[string]any{"price": -5}).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodPut, path, map[string]any{"name": "  "}).ExpectError(t, http.StatusBadRequest)
		res := admin.Do(http.MethodPut, path, map[string]any{"price": 9900, "is_active": false}).ExpectStatus(t, http.StatusOK)
		if res.Number("data.price") != 9900 || res.Get("data.is_active") != false || res.String("data.name") != "Runner" {
			t.Fatalf("update: %s", res.Raw)
		}
		reqs := fake.Find(http.MethodPost, "/"+platformProduct)
		if len(reqs) != 1 {
			t.Fatalf("%d product updates", len(reqs))
		}
		expectBody(t, reqs[0].JSON(t).(map[string]any), `{"price":9900,"availability":"out of stock"}`)
	})
	t.Run("PlatformErrors", func(t *testing.T) {
		path := "/api/products/" + productID
		fake.Script("POST /{id}", providertest.InvalidParameter("Param image_url is not a valid image"))
		res := admin.Do(http.MethodPut, path, map[string]any{"image_url": "https://shop.example/x.gif"}).ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "Param image_url is not a valid image") {
			t.Errorf("message: %s", res.Raw)
		}
		fake.Script("POST /{id}", providertest.Unavailable(), providertest.Unavailable(), providertest.Unavailable(), providertest.Unavailable())
		res = admin.Do(http.MethodPut, path, map[string]any{"name": "Runner 2"}).ExpectError(t, http.StatusServiceUnavailable)
		if !strings.Contains(res.String("message"), "Service temporarily unavailable") {
			t.Errorf("message: %s", res.Raw)
		}
		fake.Script("POST /{id}")
		if got := admin.Do(http.MethodGet, path, nil).String("data.name"); got != "Runner" {
			t.Errorf("name after refused updates: %q", got)
		}
		fake.Script("POST /{business}/owned_product_catalogs", providertest.GraphError(http.StatusForbidden, 200,
			"(#200) Requires business_management permission to manage the object", ""))
		res = admin.Do(http.MethodPost, "/api/catalogs", map[string]any{"chat_account": "Main", "name": "Hats"}).
			ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "business_management") {
			t.Errorf("message: %s", res.Raw)
		}
		// A catalog the platform refuses to connect is deleted there again
		// and not stored.
		before := len(fake.Catalogs())
		fake.Script("POST /{waba}/product_catalogs", providertest.InvalidParameter("(#100) Invalid parameter"))
		res = admin.Do(http.MethodPost, "/api/catalogs", map[string]any{"chat_account": "Main", "name": "Hats"}).
			ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "Invalid parameter") {
			t.Errorf("message: %s", res.Raw)
		}
		if n := len(fake.Catalogs()); n != before {
			t.Errorf("the platform holds %d catalogs after a refused connection, want %d", n, before)
		}
		if n := admin.Do(http.MethodGet, "/api/catalogs", nil).ExpectStatus(t, http.StatusOK).Len("data.catalogs"); n != 1 {
			t.Errorf("%d catalogs stored after a refused connection", n)
		}
	})
	t.Run("DeleteProduct", func(t *testing.T) {
		path := "/api/products/" + productID
		agent.Do(http.MethodDelete, path, nil).ExpectError(t, http.StatusForbidden)
		other.Do(http.MethodDelete, path, nil).ExpectError(t, http.StatusNotFound)
		res := admin.Do(http.MethodDelete, path, nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.message") == "" {
			t.Errorf("delete: %s", res.Raw)
		}
		if n := len(fake.Find(http.MethodDelete, "/"+platformProduct)); n != 1 {
			t.Errorf("%d product deletes at the platform", n)
		}
		admin.Do(http.MethodGet, path, nil).ExpectError(t, http.StatusNotFound)
	})
	t.Run("DeleteCatalog", func(t *testing.T) {
		path := "/api/catalogs/" + catalogID
		agent.Do(http.MethodDelete, path, nil).ExpectError(t, http.StatusForbidden)
		other.Do(http.MethodDelete, path, nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodDelete, path, nil).ExpectStatus(t, http.StatusOK)
		if n := len(fake.Find(http.MethodDelete, "/"+platformCatalog)); n != 1 {
			t.Errorf("%d catalog deletes at the platform", n)
		}
		admin.Do(http.MethodGet, path, nil).ExpectError(t, http.StatusNotFound)
		if n := len(fake.Catalogs()); n != 0 {
			t.Errorf("the platform still holds %d catalogs", n)
		}
	})
}

func TestCatalogSync(t *testing.T) {
	e := newSendEnv(t)
	admin, agent := e.Admin, e.NewUser(e.OrgID, access.RoleAgent)
	e.App.Resolver.Catalogs.PageSize = 2 // two pages of catalogs, two of products
	fake := e.fake
	first := fake.AddCatalog(providertest.Catalog{Name: "Spring"})
	fake.AddCatalog(providertest.Catalog{Name: "Summer"})
	fake.AddCatalog(providertest.Catalog{Name: "Autumn"})
	for i, name := range []string{"Hat", "Scarf", "Gloves"} {
		fake.AddProduct(providertest.Product{CatalogID: first, RetailerID: "R" + name, Name: name, Price: int64(1000*i + 1999)})
	}
	agent.Do(http.MethodPost, "/api/catalogs/sync", map[string]any{"chat_account": "Main"}).ExpectError(t, http.StatusForbidden)
	admin.Do(http.MethodPost, "/api/catalogs/sync", map[string]any{}).ExpectError(t, http.StatusBadRequest)
	admin.Do(http.MethodPost, "/api/catalogs/sync", map[string]any{"chat_account": "Nope"}).ExpectError(t, http.StatusBadRequest)

	res := admin.Do(http.MethodPost, "/api/catalogs/sync", map[string]any{"chat_account": "Main"}).ExpectStatus(t, http.StatusOK)
	if res.Number("data.synced") != 3 || res.Number("data.total") != 3 || res.String("data.message") == "" {
		t.Fatalf("sync: %s", res.Raw)
	}
	lists := fake.Find(http.MethodGet, "/"+providertest.OwnerBusinessID+"/owned_product_catalogs")
	if len(lists) != 2 || lists[0].Query.Get("after") != "" || lists[1].Query.Get("after") == "" || lists[0].Query.Get("limit") != "2" {
		t.Fatalf("catalog pages: %d", len(lists))
	}
	if n := len(fake.Find(http.MethodGet, "/"+first+"/products")); n != 2 {
		t.Errorf("%d product pages of the first catalog", n)
	}
	list := admin.Do(http.MethodGet, "/api/catalogs", nil).ExpectStatus(t, http.StatusOK)
	if list.Len("data.catalogs") != 3 || list.String("data.catalogs.1.name") != "Spring" || list.Number("data.catalogs.1.product_count") != 3 {
		t.Fatalf("after sync: %s", list.Raw)
	}
	spring := admin.Do(http.MethodGet, "/api/catalogs/"+list.String("data.catalogs.1.id"), nil).ExpectStatus(t, http.StatusOK)
	if spring.String("data.products.0.name") != "Gloves" || spring.Number("data.products.0.price") != 3999 ||
		spring.String("data.products.0.retailer_id") != "RGloves" {
		t.Errorf("products: %s", spring.Raw)
	}
	// GraphQL reads the same operations.
	gql := agent.GraphQL(`{ catalogs(chatAccount: "Main") { name productCount products { name } } }`, nil)
	if gql.Len("data.catalogs") != 3 || gql.String("data.catalogs.1.name") != "Spring" ||
		gql.Number("data.catalogs.1.productCount") != 3 || gql.Get("data.catalogs.1.products") != nil {
		t.Errorf("graphql catalogs: %s", gql.Raw)
	}
	gql = agent.GraphQL(`query($id: ID!) { catalog(id: $id) { productCount products { name price retailerID } } }`,
		map[string]any{"id": list.String("data.catalogs.1.id")})
	if gql.Number("data.catalog.productCount") != 3 || gql.Number("data.catalog.products.0.price") != 3999 {
		t.Errorf("graphql catalog: %s", gql.Raw)
	}
	if code := agent.GraphQL(`mutation { syncCatalogs(chatAccount: "Main") { synced } }`, nil).GraphQLErrorCode(); code != "forbidden" {
		t.Errorf("agent sync over GraphQL: %q", code)
	}
	// A second sync updates by platform id instead of adding rows.
	res = admin.Do(http.MethodPost, "/api/catalogs/sync", map[string]any{"chat_account": "Main"}).ExpectStatus(t, http.StatusOK)
	if n := admin.Do(http.MethodGet, "/api/catalogs", nil).Len("data.catalogs"); n != 3 || res.Number("data.synced") != 3 {
		t.Errorf("after a second sync: %d catalogs, %s", n, res.Raw)
	}
	// Another organization whose business lists the same catalogs cannot
	// claim them.
	other := e.NewOrg("Elsewhere")
	mustCreateAccount(t, other, acctBody("Main", map[string]any{"phone_id": newPhoneID(), "business_id": "555000111222"}))
	fake.Script("GET /{id}", providertest.JSON(http.StatusOK, map[string]any{
		"id": "555000111222", "owner_business_info": map[string]any{"id": providertest.OwnerBusinessID}}))
	res = other.Do(http.MethodPost, "/api/catalogs/sync", map[string]any{"chat_account": "Main"}).ExpectStatus(t, http.StatusOK)
	if res.Number("data.synced") != 0 || res.Number("data.total") != 3 {
		t.Errorf("other organization's sync: %s", res.Raw)
	}
	if n := other.Do(http.MethodGet, "/api/catalogs", nil).Len("data.catalogs"); n != 0 {
		t.Errorf("the other organization holds %d catalogs", n)
	}
	// A platform failure while paging stores nothing more and says why.
	fake.Script("GET /{catalog}/products", providertest.InvalidParameter("Invalid after cursor"))
	res = admin.Do(http.MethodPost, "/api/catalogs/sync", map[string]any{"chat_account": "Main"}).ExpectError(t, http.StatusBadRequest)
	if !strings.Contains(res.String("message"), "Invalid after cursor") {
		t.Errorf("message: %s", res.Raw)
	}
}

func TestProductMessages(t *testing.T) {
	e := newSendEnv(t)
	admin, agent := e.Admin, e.NewUser(e.OrgID, access.RoleAgent)
	other := e.NewOrg("Elsewhere")
	catalog := admin.Do(http.MethodPost, "/api/catalogs", map[string]any{"chat_account": "Main", "name": "Shoes"}).
		ExpectStatus(t, http.StatusCreated)
	catalogID, platformCatalog := catalog.String("data.id"), catalog.String("data.provider_catalog_id")
	var products []string
	for _, sku := range []string{"A1", "B2", "C3"} {
		products = append(products, admin.Do(http.MethodPost, "/api/catalogs/"+catalogID+"/products",
			map[string]any{"name": "Shoe " + sku, "price": 5000, "retailer_id": sku}).ExpectStatus(t, http.StatusCreated).String("data.id"))
	}
	contact := e.newContact(t, true)
	closed := e.newContact(t, false)

	t.Run("Single", func(t *testing.T) {
		body := map[string]any{"contact_id": contact.ID, "product_id": products[0], "body": "Our best seller", "footer": "Free shipping"}
		other.Do(http.MethodPost, "/api/messages/product", body).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodPost, "/api/messages/product", map[string]any{"contact_id": contact.ID, "product_id": products[0]}).
			ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodPost, "/api/messages/product", map[string]any{"product_id": products[0], "body": "x"}).
			ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodPost, "/api/messages/product", map[string]any{"contact_id": closed.ID, "product_id": products[0], "body": "x"}).
			ExpectError(t, http.StatusBadRequest)
		res := agent.Do(http.MethodPost, "/api/messages/product", body).ExpectStatus(t, http.StatusCreated)
		if res.String("data.message_type") != "interactive" || res.String("data.status") != "pending" ||
			res.String("data.interactive_data.type") != "product" {
			t.Fatalf("send: %s", res.Raw)
		}
		e.waitStatus(t, res.String("data.id"), message.StatusSent)
		got := e.sentTo(t, contact.PhoneNumber)
		expectBody(t, got, `{"messaging_product":"whatsapp","recipient_type":"individual","to":"`+contact.PhoneNumber+`",
			"type":"interactive","interactive":{"type":"product","body":{"text":"Our best seller"},"footer":{"text":"Free shipping"},
			"action":{"catalog_id":"`+platformCatalog+`","product_retailer_id":"A1"}}}`)
	})
	t.Run("List", func(t *testing.T) {
		body := map[string]any{"contact_id": contact.ID, "catalog_id": catalogID, "header": "New in", "body": "Pick yours",
			"sections": []map[string]any{{"title": "Running", "product_ids": products[:2]}, {"title": "Walking", "product_ids": products[2:]}}}
		other.Do(http.MethodPost, "/api/messages/product-list", body).ExpectError(t, http.StatusNotFound)
		res := agent.Do(http.MethodPost, "/api/messages/product-list", body).ExpectStatus(t, http.StatusCreated)
		e.waitStatus(t, res.String("data.id"), message.StatusSent)
		expectBody(t, e.sentTo(t, contact.PhoneNumber), `{"messaging_product":"whatsapp","recipient_type":"individual",
			"to":"`+contact.PhoneNumber+`","type":"interactive","interactive":{"type":"product_list",
			"header":{"type":"text","text":"New in"},"body":{"text":"Pick yours"},
			"action":{"catalog_id":"`+platformCatalog+`","sections":[
				{"title":"Running","product_items":[{"product_retailer_id":"A1"},{"product_retailer_id":"B2"}]},
				{"title":"Walking","product_items":[{"product_retailer_id":"C3"}]}]}}}`)
	})
	t.Run("ListErrors", func(t *testing.T) {
		section := func(title string, ids ...string) map[string]any {
			return map[string]any{"title": title, "product_ids": ids}
		}
		many := make([]map[string]any, 11)
		for i := range many {
			many[i] = section("S", products[0])
		}
		thirtyOne := make([]string, 31)
		for i := range thirtyOne {
			thirtyOne[i] = products[i%3]
		}
		for name, b := range map[string]map[string]any{
			"NoHeader":        {"body": "b", "sections": []any{section("S", products[0])}},
			"NoSections":      {"header": "h", "body": "b", "sections": []any{}},
			"ElevenSections":  {"header": "h", "body": "b", "sections": many},
			"ThirtyOneItems":  {"header": "h", "body": "b", "sections": []any{section("S", thirtyOne...)}},
			"UnknownProduct":  {"header": "h", "body": "b", "sections": []any{section("S", contact.ID.String())}},
			"DuplicateItem":   {"header": "h", "body": "b", "sections": []any{section("S", products[0], products[0])}},
			"LongSectionName": {"header": "h", "body": "b", "sections": []any{section(strings.Repeat("x", 25), products[0])}},
		} {
			t.Run(name, func(t *testing.T) {
				b["contact_id"], b["catalog_id"] = contact.ID, catalogID
				admin.Do(http.MethodPost, "/api/messages/product-list", b).ExpectError(t, http.StatusBadRequest)
			})
		}
	})
}
