package provider_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"switchboard/provider"
	"switchboard/provider/providertest"
)

func TestReadAll(t *testing.T) {
	errBoom := errors.New("boom")
	// pages maps the after cursor of a request to its answer.
	type answer struct {
		items []int
		after string
		err   error
	}
	tests := []struct {
		name     string
		pages    map[string]answer
		maxPages int
		want     []int
		wantErr  error
		reads    int
	}{
		{name: "OnePage", pages: map[string]answer{"": {items: []int{1, 2}}}, maxPages: 5, want: []int{1, 2}, reads: 1},
		{name: "Empty", pages: map[string]answer{"": {}}, maxPages: 5, want: nil, reads: 1},
		{name: "MultiplePages", maxPages: 5, reads: 3, want: []int{1, 2, 3, 4, 5},
			pages: map[string]answer{"": {items: []int{1, 2}, after: "a"}, "a": {items: []int{3, 4}, after: "b"}, "b": {items: []int{5}}}},
		// The platform may answer an empty page that still has a next.
		{name: "EmptyPageInTheMiddle", maxPages: 5, reads: 3, want: []int{1, 2},
			pages: map[string]answer{"": {items: []int{1}, after: "a"}, "a": {after: "b"}, "b": {items: []int{2}}}},
		{name: "ExactlyTheCap", maxPages: 2, reads: 2, want: []int{1, 2},
			pages: map[string]answer{"": {items: []int{1}, after: "a"}, "a": {items: []int{2}}}},
		{name: "CapReached", maxPages: 2, reads: 2, wantErr: provider.ErrUnexpectedResponse,
			pages: map[string]answer{"": {items: []int{1}, after: "a"}, "a": {items: []int{2}, after: "b"}, "b": {items: []int{3}}}},
		{name: "SameCursorAgain", maxPages: 10, reads: 2, wantErr: provider.ErrUnexpectedResponse,
			pages: map[string]answer{"": {items: []int{1}, after: "a"}, "a": {items: []int{2}, after: "a"}}},
		{name: "EarlierCursorAgain", maxPages: 10, reads: 3, wantErr: provider.ErrUnexpectedResponse,
			pages: map[string]answer{"": {items: []int{1}, after: "a"}, "a": {items: []int{2}, after: "b"}, "b": {items: []int{3}, after: "a"}}},
		{name: "ReadError", maxPages: 10, reads: 2, wantErr: errBoom,
			pages: map[string]answer{"": {items: []int{1}, after: "a"}, "a": {err: errBoom}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reads := 0
			got, err := provider.ReadAll(tt.maxPages, func(after string) (*provider.Page[int], error) {
				reads++
				a, ok := tt.pages[after]
				if !ok {
					t.Fatalf("read of unknown cursor %q", after)
				}
				if a.err != nil {
					return nil, a.err
				}
				return &provider.Page[int]{Items: a.items, After: a.after}, nil
			})
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if reads != tt.reads {
				t.Errorf("%d reads, want %d", reads, tt.reads)
			}
			if err == nil && !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestListPagesFromFake reads each paged list of the fake through the
// client and ReadAll: every item once, in order, one request per page.
func TestListPagesFromFake(t *testing.T) {
	fake := providertest.New(t)
	c, acc, ctx := fake.Client(), fake.Account(), context.Background()
	catalog := fake.AddCatalog(providertest.Catalog{Name: "C0"})
	for i := range 5 {
		fake.AddTemplate(providertest.Template{Name: fmt.Sprintf("t%d", i), Language: "en", Status: "APPROVED", Category: "UTILITY",
			Components: []map[string]any{{"type": "BODY", "text": "x"}}})
		fake.AddFlow(providertest.Flow{Name: fmt.Sprintf("f%d", i), Categories: []string{"OTHER"}})
		fake.AddProduct(providertest.Product{CatalogID: catalog, RetailerID: fmt.Sprintf("r%d", i), Name: fmt.Sprintf("p%d", i), Price: 100})
	}
	for i := 1; i < 5; i++ {
		fake.AddCatalog(providertest.Catalog{Name: fmt.Sprintf("C%d", i)})
	}
	names := func(n int, prefix string) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("%s%d", prefix, i))
		}
		return out
	}
	tests := []struct {
		name     string
		endpoint string
		read     func() ([]string, error)
		want     []string
	}{
		{"Templates", "/" + providertest.BusinessID + "/message_templates", func() ([]string, error) {
			return readNames(func(after string) (*provider.Page[provider.PlatformTemplate], error) {
				return c.ListTemplates(ctx, acc, after, 2)
			}, func(v provider.PlatformTemplate) string { return v.Name })
		}, names(5, "t")},
		{"Flows", "/" + providertest.BusinessID + "/flows", func() ([]string, error) {
			return readNames(func(after string) (*provider.Page[provider.PlatformFlow], error) {
				return c.ListFlows(ctx, acc, after, 2)
			}, func(v provider.PlatformFlow) string { return v.Name })
		}, names(5, "f")},
		{"Catalogs", "/" + providertest.OwnerBusinessID + "/owned_product_catalogs", func() ([]string, error) {
			return readNames(func(after string) (*provider.Page[provider.PlatformCatalog], error) {
				return c.ListCatalogs(ctx, acc, providertest.OwnerBusinessID, after, 2)
			}, func(v provider.PlatformCatalog) string { return v.Name })
		}, names(5, "C")},
		{"Products", "/" + catalog + "/products", func() ([]string, error) {
			return readNames(func(after string) (*provider.Page[provider.PlatformProduct], error) {
				return c.ListProducts(ctx, acc, catalog, after, 2)
			}, func(v provider.PlatformProduct) string { return v.Name })
		}, names(5, "p")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.read()
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
			reqs := fake.Find(http.MethodGet, tt.endpoint)
			if len(reqs) != 3 || reqs[0].Query.Get("after") != "" || reqs[0].Query.Get("limit") != "2" {
				t.Fatalf("%d requests: %+v", len(reqs), reqs)
			}
		})
	}
	// A page cap below the list's length is an error, not a short list.
	_, err := provider.ReadAll(2, func(after string) (*provider.Page[provider.PlatformTemplate], error) {
		return c.ListTemplates(ctx, acc, after, 2)
	})
	if !errors.Is(err, provider.ErrUnexpectedResponse) {
		t.Errorf("two pages of a three-page list: %v", err)
	}
}

// readNames reads a whole list with ReadAll and returns each item's name.
func readNames[T any](read func(after string) (*provider.Page[T], error), name func(T) string) ([]string, error) {
	all, err := provider.ReadAll(10, read)
	var out []string
	for _, v := range all {
		out = append(out, name(v))
	}
	return out, err
}
