package catalogs_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/catalogs"
	"switchboard/ent"
	"switchboard/ent/product"
	"switchboard/internal/testkit"
	"switchboard/provider/providertest"
	"switchboard/secrets"
)

// fixture is the service on a migrated database and the platform's fake:
// an organization (ctx) with the account Main (the fake's phone number,
// with an access token) and the account Bare (without one), and another
// organization (other) with its account Other.
type fixture struct {
	s     *catalogs.Service
	db    *ent.Client
	fake  *providertest.Fake
	ctx   context.Context
	other context.Context
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	db := testkit.OpenDB(t).Client
	box, err := secrets.NewBox("catalogs-test")
	if err != nil {
		t.Fatal(err)
	}
	fake := providertest.New(t)
	_, ctx := testkit.NewOrg(t, db, "acme")
	_, other := testkit.NewOrg(t, db, "globex")
	account := func(ctx context.Context, name, phoneID string, token bool) {
		c := db.Account.Create().SetName(name).SetPhoneID(phoneID).SetBusinessID(providertest.BusinessID)
		if token {
			c.SetAccessTokenEncrypted(box.Seal([]byte(providertest.AccessToken)))
		}
		if err := c.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	account(ctx, "Main", providertest.PhoneID, true)
	account(ctx, "Bare", "2001", false)
	account(other, "Other", "2002", true)
	return &fixture{s: &catalogs.Service{Client: db, Secrets: box, Provider: fake.Client()}, db: db, fake: fake, ctx: ctx, other: other}
}

func ptr[T any](v T) *T { return &v }

// local stores a catalog of ctx's organization without the platform,
// with products named names.
func (f *fixture) local(t *testing.T, ctx context.Context, account, name, platformID string, names ...string) *ent.Catalog {
	t.Helper()
	c, err := f.db.Catalog.Create().SetChatAccount(account).SetName(name).SetProviderCatalogID(platformID).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := f.db.Product.Create().SetCatalogID(c.ID).SetName(n).SetPrice(100).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func (f *fixture) mustCreate(t *testing.T) *catalogs.View {
	t.Helper()
	v, err := f.s.Create(f.ctx, "Main", "Spring")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestCreate(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name, account, catalog string
		code                   apperr.Code
		msg                    string
	}{
		{"ErrNameRequired", "Main", "  ", apperr.Invalid, "name is required"},
		{"ErrNameTooLong", "Main", strings.Repeat("n", catalogs.MaxNameLength+1), apperr.Invalid, "name must be at most 200 characters"},
		{"ErrNameNUL", "Main", "a\x00", apperr.Invalid, "name must not contain NUL characters"},
		{"ErrAccountRequired", "", "Spring", apperr.Invalid, "chat_account is required"},
		{"ErrUnknownAccount", "Nope", "Spring", apperr.Invalid, `account "Nope" not found`},
		{"ErrAnotherOrganizationsAccount", "Other", "Spring", apperr.Invalid, `account "Other" not found`},
		{"ErrNoAccessToken", "Bare", "Spring", apperr.Invalid, `account "Bare" has no access token`},
		{"OK", " Main ", " Spring ", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := f.s.Create(f.ctx, tt.account, tt.catalog)
			testkit.ExpectError(t, err, tt.code, tt.msg)
			if err != nil {
				return
			}
			if v.Name != "Spring" || v.ChatAccount != "Main" || v.ProviderCatalogID == "" || len(v.Products) != 0 {
				t.Errorf("created %+v", v.Catalog)
			}
			if got := f.fake.ConnectedCatalogs(providertest.BusinessID); !slices.Equal(got, []string{v.ProviderCatalogID}) {
				t.Errorf("connected at the platform: %v, want %s", got, v.ProviderCatalogID)
			}
		})
	}
	if n := len(f.fake.Catalogs()); n != 1 {
		t.Errorf("%d catalogs at the platform, want the one created", n)
	}
}

func TestProducts(t *testing.T) {
	f := newFixture(t)
	c := f.mustCreate(t)
	unplaced := f.local(t, f.ctx, "Main", "Local only", "")
	item := func(change func(*catalogs.ProductInput)) catalogs.ProductInput {
		in := catalogs.ProductInput{Name: ptr("Mug"), Price: ptr(int64(1250))}
		if change != nil {
			change(&in)
		}
		return in
	}
	tests := []struct {
		name    string
		catalog uuid.UUID
		in      catalogs.ProductInput
		code    apperr.Code
		msg     string
	}{
		{"ErrNameRequired", c.ID, item(func(in *catalogs.ProductInput) { in.Name = nil }), apperr.Invalid, "name is required"},
		{"ErrNameBlank", c.ID, item(func(in *catalogs.ProductInput) { in.Name = ptr(" ") }), apperr.Invalid, "name is required"},
		{"ErrPriceRequired", c.ID, item(func(in *catalogs.ProductInput) { in.Price = nil }), apperr.Invalid, "price is required"},
		{"ErrPriceNegative", c.ID, item(func(in *catalogs.ProductInput) { in.Price = ptr(int64(-1)) }), apperr.Invalid, "price must be an integer of at least 0"},
		{"ErrCurrency", c.ID, item(func(in *catalogs.ProductInput) { in.Currency = ptr("dollars") }), apperr.Invalid, "currency must be an ISO 4217 code"},
		{"ErrURL", c.ID, item(func(in *catalogs.ProductInput) { in.URL = ptr("ftp://example.com/mug") }), apperr.Invalid, "url must be an absolute http or https URL"},
		{"ErrImageURL", c.ID, item(func(in *catalogs.ProductInput) { in.ImageURL = ptr("/mug.png") }), apperr.Invalid, "image_url must be an absolute"},
		{"ErrRetailerIDBlank", c.ID, item(func(in *catalogs.ProductInput) { in.RetailerID = ptr(" ") }), apperr.Invalid, "retailer_id is required"},
		{"ErrDescriptionTooLong", c.ID, item(func(in *catalogs.ProductInput) {
			in.Description = ptr(strings.Repeat("d", catalogs.MaxDescriptionLength+1))
		}), apperr.Invalid, "description must be at most 5000 characters"},
		{"NotFoundCatalog", uuid.New(), item(nil), apperr.NotFound, ""},
		{"ErrCatalogNotAtThePlatform", unplaced.ID, item(nil), apperr.Invalid, "the catalog is not at the platform"},
	}
	for _, tt := range tests {
		t.Run("Create"+tt.name, func(t *testing.T) {
			_, err := f.s.CreateProduct(f.ctx, tt.catalog, tt.in)
			testkit.ExpectError(t, err, tt.code, tt.msg)
		})
	}
	if n := len(f.fake.Products(c.ProviderCatalogID)); n != 0 {
		t.Fatalf("refused products reached the platform: %d", n)
	}

	p, err := f.s.CreateProduct(f.ctx, c.ID, item(func(in *catalogs.ProductInput) {
		in.Currency, in.URL = ptr(" eur "), ptr("https://shop.example.com/mug")
	}))
	if err != nil {
		t.Fatal(err)
	}
	if p.Currency != "EUR" || p.RetailerID != p.ID.String() || !p.IsActive || p.Price != 1250 || p.ProviderProductID == "" {
		t.Errorf("created %+v", p)
	}
	at := func() providertest.Product {
		t.Helper()
		ps := f.fake.Products(c.ProviderCatalogID)
		if len(ps) != 1 {
			t.Fatalf("%d products at the platform, want 1", len(ps))
		}
		return ps[0]
	}
	if got := at(); got.Name != "Mug" || got.Price != 1250 || got.Currency != "EUR" || got.RetailerID != p.RetailerID {
		t.Errorf("at the platform %+v", got)
	}

	_, err = f.s.UpdateProduct(f.ctx, p.ID, catalogs.ProductInput{Price: ptr(int64(-5))})
	testkit.ExpectError(t, err, apperr.Invalid, "price must be an integer of at least 0")
	_, err = f.s.UpdateProduct(f.other, p.ID, catalogs.ProductInput{Price: ptr(int64(1))})
	testkit.ExpectError(t, err, apperr.NotFound, "")
	u, err := f.s.UpdateProduct(f.ctx, p.ID, catalogs.ProductInput{Price: ptr(int64(990)), IsActive: ptr(false)})
	if err != nil || u.Price != 990 || u.IsActive || u.Name != "Mug" {
		t.Fatalf("updated %+v, %v", u, err)
	}
	if got := at(); got.Price != 990 || got.Availability != "out of stock" {
		t.Errorf("at the platform after the update %+v", got)
	}

	testkit.ExpectError(t, f.s.DeleteProduct(f.other, p.ID), apperr.NotFound, "")
	testkit.ExpectError(t, f.s.DeleteProduct(f.ctx, p.ID), "", "")
	if n := len(f.fake.Products(c.ProviderCatalogID)); n != 0 {
		t.Errorf("%d products left at the platform", n)
	}
	_, err = f.s.Product(f.ctx, p.ID)
	testkit.ExpectError(t, err, apperr.NotFound, "")
}

// TestListIsTenantIsolated: an organization lists, reads and deletes its
// own catalogs only, each with its product count.
func TestListIsTenantIsolated(t *testing.T) {
	f := newFixture(t)
	f.local(t, f.ctx, "Main", "Summer", "", "a", "b")
	f.local(t, f.ctx, "Bare", "Autumn", "")
	theirs := f.local(t, f.other, "Other", "Winter", "", "c")
	tests := []struct {
		name, account string
		ctx           context.Context
		want          []string // name:count
		code          apperr.Code
	}{
		{"All", "", f.ctx, []string{"Autumn:0", "Summer:2"}, ""},
		{"OfAnAccount", " Main ", f.ctx, []string{"Summer:2"}, ""},
		{"OtherOrganization", "", f.other, []string{"Winter:1"}, ""},
		{"ErrAccountTooLong", strings.Repeat("a", catalogs.MaxNameLength+1), f.ctx, nil, apperr.Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs, err := f.s.List(tt.ctx, tt.account)
			testkit.ExpectError(t, err, tt.code, "")
			var got []string
			for _, v := range vs {
				got = append(got, v.Name+":"+string(rune('0'+v.ProductCount)))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("listed %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("CrossTenantNotFound", func(t *testing.T) {
		_, err := f.s.Get(f.ctx, theirs.ID)
		testkit.ExpectError(t, err, apperr.NotFound, "")
		_, err = f.s.Products(f.ctx, theirs.ID)
		testkit.ExpectError(t, err, apperr.NotFound, "")
		testkit.ExpectError(t, f.s.Delete(f.ctx, theirs.ID), apperr.NotFound, "")
		if v, err := f.s.Get(f.other, theirs.ID); err != nil || len(v.Products) != 1 {
			t.Errorf("the other organization's catalog: %v", err)
		}
	})
}

// TestDelete removes a catalog at the platform (one the platform no
// longer knows counts as deleted) and locally with its products.
func TestDelete(t *testing.T) {
	f := newFixture(t)
	c := f.mustCreate(t)
	if _, err := f.s.CreateProduct(f.ctx, c.ID, catalogs.ProductInput{Name: ptr("Mug"), Price: ptr(int64(1))}); err != nil {
		t.Fatal(err)
	}
	gone := f.local(t, f.ctx, "Main", "Gone already", "799999999999999", "x")
	for _, id := range []uuid.UUID{c.ID, gone.ID} {
		testkit.ExpectError(t, f.s.Delete(f.ctx, id), "", "")
		_, err := f.s.Get(f.ctx, id)
		testkit.ExpectError(t, err, apperr.NotFound, "")
	}
	if n := len(f.fake.Catalogs()); n != 0 {
		t.Errorf("%d catalogs left at the platform", n)
	}
	if n := f.db.Product.Query().CountX(f.ctx); n != 0 {
		t.Errorf("%d products left", n)
	}
}

// TestSync stores the platform's catalogs and products by platform id:
// new ones created, known ones updated, invalid ones and those another
// organization holds skipped.
func TestSync(t *testing.T) {
	f := newFixture(t)
	spring := f.fake.AddCatalog(providertest.Catalog{Name: "Spring"})
	known := f.fake.AddCatalog(providertest.Catalog{Name: "Renamed at the platform"})
	held := f.fake.AddCatalog(providertest.Catalog{Name: "Theirs"})
	f.fake.AddCatalog(providertest.Catalog{Name: "  "}) // no name: skipped
	f.fake.AddProduct(providertest.Product{CatalogID: spring, RetailerID: "mug", Name: "Mug", Price: 1250, Currency: "EUR"})
	f.fake.AddProduct(providertest.Product{CatalogID: spring, RetailerID: "cap", Name: "Cap", Price: 500, Availability: "out of stock"})
	f.fake.AddProduct(providertest.Product{CatalogID: spring, RetailerID: "", Name: "No retailer id", Price: 1})
	f.fake.AddProduct(providertest.Product{CatalogID: known, RetailerID: "pen", Name: "Pen", Price: 100})
	f.fake.AddProduct(providertest.Product{CatalogID: held, RetailerID: "hat", Name: "Hat", Price: 100})
	f.local(t, f.ctx, "Main", "Old name", known)
	f.local(t, f.other, "Other", "Theirs", held)

	_, err := f.s.Sync(f.ctx, "")
	testkit.ExpectError(t, err, apperr.Invalid, "chat_account is required")
	_, err = f.s.Sync(f.ctx, "Bare")
	testkit.ExpectError(t, err, apperr.Invalid, "has no access token")

	res, err := f.s.Sync(f.ctx, "Main")
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 4 || res.Synced != 2 || res.Products != 3 || res.Message != "Synced 2 of 4 catalogs with 3 products" {
		t.Errorf("sync %+v", res)
	}
	vs, err := f.s.List(f.ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, v := range vs {
		got[v.Name] = v.ProductCount
	}
	if len(got) != 2 || got["Spring"] != 2 || got["Renamed at the platform"] != 1 {
		t.Errorf("catalogs after the sync %v", got)
	}
	for _, v := range vs {
		if v.ProviderCatalogID != spring {
			continue
		}
		full, err := f.s.Get(f.ctx, v.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range full.Products {
			if p.Name == "Cap" && p.IsActive || p.Name == "Mug" && (p.Currency != "EUR" || p.Price != 1250 || !p.IsActive) {
				t.Errorf("synced product %+v", p)
			}
		}
	}
	if v, err := f.s.List(f.other, ""); err != nil || len(v) != 1 || v[0].ProductCount != 0 {
		t.Errorf("the other organization's catalog took products: %v", err)
	}
	again, err := f.s.Sync(f.ctx, "Main")
	if err != nil || again.Synced != 2 || again.Products != 3 {
		t.Errorf("a second sync %+v, %v", again, err)
	}
	if n := f.db.Product.Query().CountX(f.ctx); n != 3 {
		t.Errorf("%d products after two syncs, want 3", n)
	}
}

// TestSendRefusals: product messages are refused before anything is
// sent when they name no product, one that is not at the platform, or
// one of another catalog.
func TestSendRefusals(t *testing.T) {
	f := newFixture(t)
	placed := f.local(t, f.ctx, "Main", "Placed", "701")
	unplaced := f.local(t, f.ctx, "Main", "Unplaced", "", "Local")
	other := f.local(t, f.ctx, "Main", "Other", "702")
	mk := func(c *ent.Catalog, retailer string) uuid.UUID {
		p, err := f.db.Product.Create().SetCatalogID(c.ID).SetName("P").SetPrice(1).SetRetailerID(retailer).Save(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		return p.ID
	}
	inPlaced, noRetailer, inOther := mk(placed, "r1"), mk(placed, ""), mk(other, "r2")
	local := f.db.Product.Query().Where(product.CatalogID(unplaced.ID)).OnlyIDX(f.ctx)
	contact := uuid.New()
	singles := []struct {
		name string
		in   catalogs.ProductSend
		code apperr.Code
		msg  string
	}{
		{"ErrIDsRequired", catalogs.ProductSend{ProductID: inPlaced}, apperr.Invalid, "contact_id and product_id are required"},
		{"NotFoundProduct", catalogs.ProductSend{ContactID: contact, ProductID: uuid.New()}, apperr.NotFound, ""},
		{"ErrCatalogNotPlaced", catalogs.ProductSend{ContactID: contact, ProductID: local}, apperr.Invalid, "the product is not at the platform"},
		{"ErrNoRetailerID", catalogs.ProductSend{ContactID: contact, ProductID: noRetailer}, apperr.Invalid, "the product is not at the platform"},
	}
	for _, tt := range singles {
		t.Run("Product"+tt.name, func(t *testing.T) {
			_, err := f.s.SendProduct(f.ctx, tt.in)
			testkit.ExpectError(t, err, tt.code, tt.msg)
		})
	}
	sections := func(n int, ids ...uuid.UUID) []catalogs.SectionSend {
		out := make([]catalogs.SectionSend, n)
		for i := range out {
			out[i] = catalogs.SectionSend{Title: "S", ProductIDs: ids}
		}
		return out
	}
	lists := []struct {
		name string
		in   catalogs.ProductListSend
		code apperr.Code
		msg  string
	}{
		{"ErrIDsRequired", catalogs.ProductListSend{CatalogID: placed.ID}, apperr.Invalid, "contact_id and catalog_id are required"},
		{"ErrTooManySections", catalogs.ProductListSend{ContactID: contact, CatalogID: placed.ID, Sections: sections(11, inPlaced)}, apperr.Invalid, ""},
		{"NotFoundCatalog", catalogs.ProductListSend{ContactID: contact, CatalogID: uuid.New(), Sections: sections(1, inPlaced)}, apperr.NotFound, ""},
		{"ErrCatalogNotPlaced", catalogs.ProductListSend{ContactID: contact, CatalogID: unplaced.ID, Sections: sections(1, local)}, apperr.Invalid, "the catalog is not at the platform"},
		{"ErrProductOfAnotherCatalog", catalogs.ProductListSend{ContactID: contact, CatalogID: placed.ID, Sections: sections(1, inPlaced, inOther)},
			apperr.Invalid, "is not a product of this catalog at the platform"},
	}
	for _, tt := range lists {
		t.Run("List"+tt.name, func(t *testing.T) {
			_, err := f.s.SendProductList(f.ctx, tt.in)
			testkit.ExpectError(t, err, tt.code, tt.msg)
		})
	}
}
