package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"

	"switchboard/internal/apitest"
	"switchboard/rest"
)

// TestOpenAPIDocumentIsValid: the generated document builds as an OpenAPI
// 3.1 model and validates against the specification's schema.
func TestOpenAPIDocumentIsValid(t *testing.T) {
	j, y, err := rest.BuildOpenAPI((&rest.API{}).Routes())
	if err != nil {
		t.Fatal(err)
	}
	for name, raw := range map[string][]byte{"json": j, "yaml": y} {
		doc, err := libopenapi.NewDocument(raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if v := doc.GetVersion(); !strings.HasPrefix(v, "3.1") {
			t.Errorf("%s: version %q, want 3.1", name, v)
		}
		if _, err := doc.BuildV3Model(); err != nil {
			t.Errorf("%s: building the v3 model: %v", name, err)
		}
	}
	if ok, errs := apitest.OpenAPIValidator(t).ValidateDocument(); !ok {
		for _, e := range errs {
			t.Errorf("document: %s: %s", e.Message, e.Reason)
		}
	}
}

// TestOpenAPIDocumentListsEveryRoute: each route of the table is in the
// document with its method, path, operation id and security, and nothing
// else is.
func TestOpenAPIDocumentListsEveryRoute(t *testing.T) {
	j, _, err := rest.BuildOpenAPI((&rest.API{}).Routes())
	if err != nil {
		t.Fatal(err)
	}
	doc, err := libopenapi.NewDocument(j)
	if err != nil {
		t.Fatal(err)
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]string{} // "METHOD /path" → operationId
	publicOps := map[string]bool{}
	for path, item := range model.Model.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			key := strings.ToUpper(method) + " " + path
			documented[key] = op.OperationId
			if len(op.Security) == 0 {
				publicOps[key] = true
			}
			if op.Responses.Default == nil {
				t.Errorf("%s: no default (error) response", key)
			}
		}
	}
	want := map[string]bool{}
	for _, r := range (&rest.API{}).Routes() {
		key := r.Method + " " + rest.OpenAPIPath(r.Path)
		want[key] = true
		id, ok := documented[key]
		switch {
		case !ok:
			t.Errorf("%s: not in the document", key)
			continue
		case id != r.Op && !strings.HasPrefix(id, r.Op+"_"):
			t.Errorf("%s: operationId %q, want %q", key, id, r.Op)
		}
		if public := reviewedPublic[r.Method+" "+r.Path]; public != publicOps[key] {
			t.Errorf("%s: public %v, but the document's security says public %v", key, public, publicOps[key])
		}
	}
	for key := range documented {
		if !want[key] {
			t.Errorf("%s: documented but not a route", key)
		}
	}
	if len(documented) != len(want) {
		t.Errorf("%d documented operations, %d routes", len(documented), len(want))
	}
}

// TestOpenAPIServed: the document is served, publicly, as JSON and YAML.
func TestOpenAPIServed(t *testing.T) {
	env := apitest.New(t)
	for _, tc := range []struct{ path, contentType, start string }{
		{"/api/openapi.json", "application/json", `{"openapi":"3.1`},
		{"/api/openapi.yaml", "application/yaml", "openapi: 3.1"},
	} {
		res := env.Anonymous().Do(http.MethodGet, tc.path, nil)
		if res.Status != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), tc.contentType) {
			t.Errorf("%s: status %d, content type %q", tc.path, res.Status, res.Header.Get("Content-Type"))
		}
		if !strings.HasPrefix(string(res.Raw), tc.start) {
			t.Errorf("%s: starts %.40q, want %q", tc.path, res.Raw, tc.start)
		}
		if res.Header.Get("X-RateLimit-Limit") == "" {
			t.Errorf("%s: no rate limit headers", tc.path)
		}
	}
}

// TestEveryRouteDeclaresItsAnswer: each row says what its success carries
// (Out), so the document describes every answer.
func TestEveryRouteDeclaresItsAnswer(t *testing.T) {
	for _, r := range (&rest.API{}).Routes() {
		if r.Out == nil {
			t.Errorf("%s %s: no Out", r.Method, r.Path)
		}
	}
}
