package provider_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"switchboard/provider"
	"switchboard/provider/providertest"
)

func TestParsePrice(t *testing.T) {
	for in, want := range map[string]int64{
		"$10.00": 1000, "10.00 USD": 1000, "1,234.50": 123450, "1.234,50 €": 123450, "€5": 500, "0": 0,
		"$0.5": 50, "12,99 EUR": 1299, "1 000,00 kr": 100000, "¥1,200": 120000,
	} {
		got, ok := provider.ParsePrice(in)
		if !ok || got != want {
			t.Errorf("ParsePrice(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "free", "-$5.00", "$1.2.3x4"} {
		if got, ok := provider.ParsePrice(in); ok {
			t.Errorf("ParsePrice(%q) = %d, want refusal", in, got)
		}
	}
}

// FuzzParsePrice checks that any formatted price either is refused or
// reads as a non-negative amount, and that the fake's formatting reads
// back exactly.
func FuzzParsePrice(f *testing.F) {
	for _, s := range []string{"$10.00", "1.234,50 €", "12 EUR", "", "-1", "9223372036854775807", "1,2,3.45"} {
		f.Add(s, int64(1999))
	}
	f.Fuzz(func(t *testing.T, s string, minor int64) {
		if got, ok := provider.ParsePrice(s); ok && got < 0 {
			t.Fatalf("ParsePrice(%q) = %d", s, got)
		}
		if minor < 0 || minor > 1<<50 {
			return
		}
		for _, cur := range []string{"USD", "EUR"} {
			f := providertest.FormatPrice(minor, cur)
			if got, ok := provider.ParsePrice(f); !ok || got != minor {
				t.Fatalf("ParsePrice(%q) = %d, %v; want %d", f, got, ok, minor)
			}
		}
	})
}

func TestCatalogCalls(t *testing.T) {
	fake := providertest.New(t)
	c, acc, ctx := fake.Client(), fake.Account(), context.Background()
	business, err := c.OwnerBusinessID(ctx, acc)
	if err != nil || business != providertest.OwnerBusinessID {
		t.Fatalf("owner: %q, %v", business, err)
	}
	id, err := c.CreateCatalog(ctx, acc, business, "Shoes")
	if err != nil {
		t.Fatal(err)
	}
	// The catalog is connected to the WhatsApp Business Account; an
	// unknown catalog is refused with the platform's error.
	if err := c.ConnectCatalog(ctx, acc, id); err != nil {
		t.Fatal(err)
	}
	conn := fake.Find(http.MethodPost, "/"+providertest.BusinessID+"/product_catalogs")
	if len(conn) != 1 || string(conn[0].Body) != `{"catalog_id":"`+id+`"}` {
		t.Fatalf("connect requests: %+v", conn)
	}
	if got := fake.ConnectedCatalogs(providertest.BusinessID); len(got) != 1 || got[0] != id {
		t.Errorf("connected catalogs %v, want [%s]", got, id)
	}
	var pe *provider.Error
	if err := c.ConnectCatalog(ctx, acc, "123"); !errors.As(err, &pe) || pe.Code != 100 {
		t.Errorf("connecting an unknown catalog: %v", err)
	}
	if err := c.ConnectCatalog(ctx, acc, ""); !errors.Is(err, provider.ErrInvalid) {
		t.Errorf("connecting an empty id: %v", err)
	}
	price := int64(250)
	pid, err := c.CreateProduct(ctx, acc, id, provider.ProductFields{RetailerID: "S1", Name: "Sock", Price: &price, Currency: "USD"})
	if err != nil {
		t.Fatal(err)
	}
	page, err := c.ListProducts(ctx, acc, id, "", 10)
	if err != nil || len(page.Items) != 1 || page.After != "" {
		t.Fatalf("list: %+v, %v", page, err)
	}
	if got, ok := page.Items[0].PriceMinor(); !ok || got != 250 || page.Items[0].Price != "$2.50" {
		t.Errorf("price %q → %d", page.Items[0].Price, got)
	}
	if err := c.UpdateProduct(ctx, acc, pid, provider.ProductFields{Name: "Socks"}); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteProduct(ctx, acc, pid); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteCatalog(ctx, acc, id); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateProduct(ctx, acc, id, provider.ProductFields{RetailerID: "S1", Name: "Sock", Currency: "USD"}); err == nil {
		t.Error("a product without price was sent")
	}
	if n := len(fake.Find(http.MethodDelete, "/"+id)); n != 1 {
		t.Errorf("%d catalog deletes", n)
	}
	if got := fake.ConnectedCatalogs(providertest.BusinessID); len(got) != 0 {
		t.Errorf("a deleted catalog is still connected: %v", got)
	}
}
