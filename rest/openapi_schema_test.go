package rest_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/internal/apitest"
	"switchboard/rest"
)

// requestSchema is the part of a request body's schema the conformance
// test reads.
type requestSchema struct {
	Ref        string                    `json:"$ref"`
	Required   []string                  `json:"required"`
	Properties map[string]*requestSchema `json:"properties"`
	Type       any                       `json:"type"`
	Enum       []any                     `json:"enum"`
	Format     string                    `json:"format"`
	MinLength  *int                      `json:"minLength"`
	MaxLength  *int                      `json:"maxLength"`
	Examples   []any                     `json:"examples"`
}

// bodySchemas are the JSON request body schemas of the document's
// operations, by "METHOD /path".
func bodySchemas(t *testing.T) map[string]*requestSchema {
	t.Helper()
	j, _, err := rest.BuildOpenAPI((&rest.API{}).Routes())
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody *struct {
				Content map[string]struct {
					Schema *requestSchema `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]*requestSchema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(j, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]*requestSchema{}
	for path, item := range doc.Paths {
		for method, op := range item {
			if op.RequestBody == nil || op.RequestBody.Content["application/json"].Schema == nil {
				continue
			}
			s := op.RequestBody.Content["application/json"].Schema
			if name, ok := strings.CutPrefix(s.Ref, "#/components/schemas/"); ok {
				s = doc.Components.Schemas[name]
			}
			out[strings.ToUpper(method)+" "+path] = s
		}
	}
	return out
}

// sample is a value the property's schema accepts.
func sample(p *requestSchema) any {
	switch {
	case len(p.Enum) > 0:
		return p.Enum[0]
	case len(p.Examples) > 0:
		return p.Examples[0]
	case p.Format == "uuid":
		return uuid.NewString()
	case p.Format == "email":
		return "conformance-" + uuid.NewString()[:8] + "@example.com"
	}
	n := 1
	if p.MinLength != nil {
		n = max(*p.MinLength, 1)
	}
	return strings.Repeat("x", n)
}

// minimalBody holds the schema's required properties, each with a value
// its schema accepts.
func minimalBody(s *requestSchema) map[string]any {
	body := map[string]any{}
	for _, name := range s.Required {
		body[name] = sample(s.Properties[name])
	}
	return body
}

// invalidBodies break one declared constraint each: a required property
// left out, a value outside an enum, a string longer than maxLength or
// shorter than minLength.
func invalidBodies(s *requestSchema) map[string]map[string]any {
	out := map[string]map[string]any{}
	with := func(name string, v any) map[string]any {
		b := minimalBody(s)
		b[name] = v
		return b
	}
	for _, name := range s.Required {
		b := minimalBody(s)
		delete(b, name)
		out["without "+name] = b
	}
	for name, p := range s.Properties {
		switch {
		case len(p.Enum) > 0:
			out[name+" outside its enum"] = with(name, "bogus-value")
		case p.MaxLength != nil:
			out[name+" too long"] = with(name, strings.Repeat("x", *p.MaxLength+1))
		case p.MinLength != nil && *p.MinLength > 1:
			out[name+" too short"] = with(name, strings.Repeat("x", *p.MinLength-1))
		}
	}
	return out
}

// schemaRefusal is a 400 message that refuses a constraint the schema
// could declare: a field required, or limited to a set of values.
var schemaRefusal = regexp.MustCompile(`(?i)\b([a-z_.]+) is required|\b([a-z_.]+) must be one of|\b([a-z_.]+) must be (?:[a-z_]+(?:, | or ))+[a-z_]+\b`)

// constrainedBodies are the request bodies whose types declare the
// constraints their handlers validate; the others (the rest of the 59)
// do not yet.
var constrainedBodies = map[string]bool{
	"POST /api/auth/login":    true,
	"POST /api/auth/register": true,
	"POST /api/contacts":      true,
}

// TestRequestSchemasAgreeWithValidation: for every JSON body of a route
// without path parameters (and the message send, given a contact), the
// body the document calls invalid is refused with 400 and the error
// envelope, and the minimal body the document calls valid is not refused
// for a constraint the document does not declare (issue 32, point 1).
func TestRequestSchemasAgreeWithValidation(t *testing.T) {
	env := apitest.New(t)
	env.SkipOpenAPI = true // the invalid bodies are invalid on purpose
	contact := env.Admin.Do(http.MethodPost, "/api/contacts", map[string]any{"phone_number": "15550001111"})
	if contact.Status != http.StatusCreated {
		t.Fatalf("contact: %d %s", contact.Status, contact.Raw)
	}
	pathOf := map[string]string{"/api/contacts/{id}/messages": "/api/contacts/" + contact.Get("data.id").(string) + "/messages"} // for when the send is listed
	schemas := bodySchemas(t)
	var keys []string
	for key := range schemas {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	covered := 0
	for _, key := range keys {
		if !constrainedBodies[key] {
			continue
		}
		method, path, _ := strings.Cut(key, " ")
		if p, ok := pathOf[path]; ok {
			path = p
		}
		s := schemas[key]
		covered++
		t.Run(key, func(t *testing.T) {
			for name, body := range invalidBodies(s) {
				res := env.Admin.Do(method, path, body)
				if res.Status != http.StatusBadRequest || res.Get("status") != "error" || res.Get("message") == "" {
					t.Errorf("%s: %d %s, want 400 with the error envelope", name, res.Status, res.Raw)
				}
			}
			res := env.Admin.Do(method, path, minimalBody(s))
			if res.Status != http.StatusBadRequest {
				return
			}
			if msg, _ := res.Get("message").(string); schemaRefusal.MatchString(msg) {
				t.Errorf("minimal body %v: refused %q, a constraint the schema does not declare", minimalBody(s), msg)
			}
		})
	}
	if covered != len(constrainedBodies) {
		t.Errorf("%d of the %d constrained bodies are in the document", covered, len(constrainedBodies))
	}
	t.Logf("%d of %d JSON bodies checked", covered, len(schemas))
}
