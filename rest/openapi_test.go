package rest_test

import (
	"encoding/json"
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

// TestOpenAPIDocumentForIntegrators: what linters and generated clients
// ask of the document (issue 32, points 2-3): every operation has a
// summary, public ones say "security: []", every tag is declared with a
// description, there is a server, and the failures a route really
// answers are declared (login's 401, the webhook verification's 403, the
// 501 of marking a message read).
func TestOpenAPIDocumentForIntegrators(t *testing.T) {
	j, _, err := rest.BuildOpenAPI((&rest.API{}).Routes())
	if err != nil {
		t.Fatal(err)
	}
	type operation struct {
		OperationID string                     `json:"operationId"`
		Summary     string                     `json:"summary"`
		Tags        []string                   `json:"tags"`
		Security    *[]map[string][]string     `json:"security"`
		Responses   map[string]json.RawMessage `json:"responses"`
	}
	var doc struct {
		Servers []struct{ URL string } `json:"servers"`
		Tags    []struct{ Name, Description string }
		Paths   map[string]map[string]operation `json:"paths"`
	}
	if err := json.Unmarshal(j, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Servers) == 0 {
		t.Error("no servers")
	}
	declaredTags := map[string]bool{}
	for _, tag := range doc.Tags {
		declaredTags[tag.Name] = true
		if tag.Description == "" {
			t.Errorf("tag %s: no description", tag.Name)
		}
	}
	ids := map[string]bool{}
	for path, item := range doc.Paths {
		for method, op := range item {
			key := strings.ToUpper(method) + " " + path
			if op.Summary == "" {
				t.Errorf("%s: no summary", key)
			}
			if ids[op.OperationID] {
				t.Errorf("%s: operationId %s is not unique", key, op.OperationID)
			}
			ids[op.OperationID] = true
			if op.Security == nil {
				t.Errorf("%s: no security (a public route says security: [])", key)
			}
			for _, tag := range op.Tags {
				if !declaredTags[tag] {
					t.Errorf("%s: tag %s is not declared", key, tag)
				}
			}
		}
	}
	for _, tc := range []struct {
		method, path, status string
	}{
		{"post", "/api/auth/login", "401"},
		{"post", "/api/auth/refresh", "401"},
		{"get", "/api/webhook", "403"},
		{"put", "/api/messages/{id}/read", "501"},
		{"get", "/api/custom-actions/redirect/{token}", "410"},
		{"post", "/api/tags", "409"},
		{"get", "/api/contacts", "403"},
		{"get", "/api/contacts/{id}", "404"},
		{"get", "/api/contacts", "429"},
	} {
		if _, ok := doc.Paths[tc.path][tc.method].Responses[tc.status]; !ok {
			t.Errorf("%s %s: status %s is not declared", tc.method, tc.path, tc.status)
		}
	}
	if sec := doc.Paths["/api/auth/login"]["post"].Security; sec == nil || len(*sec) != 0 {
		t.Errorf("login: security %v, want []", sec)
	}
}
