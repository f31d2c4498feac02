package rest_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/internal/apitest"
	"switchboard/provider/providertest"
	"switchboard/rest"
)

// requestSchema is the part of a request body's schema the conformance
// test reads.
type requestSchema struct {
	Ref         string                    `json:"$ref"`
	Required    []string                  `json:"required"`
	Properties  map[string]*requestSchema `json:"properties"`
	Items       *requestSchema            `json:"items"`
	AnyOf       []*requestSchema          `json:"anyOf"`
	Type        any                       `json:"type"`
	Enum        []any                     `json:"enum"`
	Format      string                    `json:"format"`
	Pattern     string                    `json:"pattern"`
	Description string                    `json:"description"`
	MinLength   *int                      `json:"minLength"`
	MaxLength   *int                      `json:"maxLength"`
	MinItems    *int                      `json:"minItems"`
	MaxItems    *int                      `json:"maxItems"`
	Minimum     *float64                  `json:"minimum"`
	Maximum     *float64                  `json:"maximum"`
	Examples    []any                     `json:"examples"`

	nullable bool // set by link: a null branch of anyOf, or "null" among the types
}

// bodySchemas are the JSON request body schemas of the document's
// operations, by "METHOD /path", with their references resolved.
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
			out[strings.ToUpper(method)+" "+path] = link(s, doc.Components.Schemas, 0)
		}
	}
	return out
}

// link resolves s's references (and those of its properties and items)
// and its anyOf [null, schema] into the schema, marked nullable.
func link(s *requestSchema, components map[string]*requestSchema, depth int) *requestSchema {
	if s == nil || depth > 8 {
		return s
	}
	nullable := false
	if len(s.AnyOf) > 0 {
		var other []*requestSchema
		for _, b := range s.AnyOf {
			if b.Type == "null" {
				nullable = true
			} else {
				other = append(other, b)
			}
		}
		if len(other) == 1 {
			merged := *other[0]
			if merged.Description == "" {
				merged.Description = s.Description
			}
			s = &merged
		}
	}
	if name, ok := strings.CutPrefix(s.Ref, "#/components/schemas/"); ok && components[name] != nil {
		s = components[name]
	}
	out := *s
	if types, ok := s.Type.([]any); ok && slices.Contains(types, any("null")) {
		nullable = true
	}
	out.nullable = nullable
	out.Properties = map[string]*requestSchema{}
	for name, p := range s.Properties {
		out.Properties[name] = link(p, components, depth+1)
	}
	out.Items = link(s.Items, components, depth+1)
	return &out
}

// typeOf is the schema's type other than null ("" when it declares none).
func typeOf(p *requestSchema) string {
	switch t := p.Type.(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if x != "null" {
				return fmt.Sprint(x)
			}
		}
	}
	return ""
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
	case p.Format == "date-time":
		return time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)
	}
	switch typeOf(p) {
	case "object":
		return minimalBody(p)
	case "array":
		items := []any{}
		if p.MinItems != nil && p.Items != nil {
			for range *p.MinItems {
				items = append(items, sample(p.Items))
			}
		}
		return items
	case "integer", "number":
		v := 1.0
		if p.Minimum != nil {
			v = *p.Minimum
		} else if p.Maximum != nil && *p.Maximum < v {
			v = *p.Maximum
		}
		return v
	case "boolean":
		return false
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
// left out (or null when its schema refuses null), and each property's
// own invalid values (invalidValues).
func invalidBodies(s *requestSchema, base func() map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	with := func(name string, v any) map[string]any {
		b := base()
		b[name] = v
		return b
	}
	for _, name := range s.Required {
		b := base()
		delete(b, name)
		out["without "+name] = b
		if p := s.Properties[name]; p != nil && !p.nullable {
			out[name+" null"] = with(name, nil)
		}
	}
	for name, p := range s.Properties {
		for label, v := range invalidValues(p) {
			out[name+" "+label] = with(name, v)
		}
	}
	return out
}

// invalidValues are values p's schema refuses, one per constraint: a
// value outside its enum, a string over maxLength or under minLength, a
// malformed uuid, email or date-time, a number past a bound, an array
// with too many or too few items; for an object (or an array of objects),
// each of its invalid bodies.
func invalidValues(p *requestSchema) map[string]any {
	out := map[string]any{}
	if len(p.Enum) > 0 {
		out["outside its enum"] = "bogus-value"
	}
	if p.MaxLength != nil {
		out["too long"] = strings.Repeat("x", *p.MaxLength+1)
	}
	if p.MinLength != nil && *p.MinLength > 0 {
		out["too short"] = strings.Repeat("x", *p.MinLength-1)
	}
	switch p.Format {
	case "uuid", "email", "date-time":
		out["not a "+p.Format] = "not-a-" + p.Format
	}
	if p.Pattern != "" && !regexp.MustCompile(p.Pattern).MatchString(offPattern) {
		out["off its pattern"] = offPattern
	}
	if p.Minimum != nil {
		out["below its minimum"] = *p.Minimum - 1
	}
	if p.Maximum != nil {
		out["above its maximum"] = *p.Maximum + 1
	}
	switch typeOf(p) {
	case "array":
		if p.Items == nil {
			break
		}
		if p.MaxItems != nil {
			out["with too many items"] = slices.Repeat([]any{sample(p.Items)}, *p.MaxItems+1)
		}
		if p.MinItems != nil && *p.MinItems > 0 {
			out["with too few items"] = slices.Repeat([]any{sample(p.Items)}, *p.MinItems-1)
		}
		for label, v := range invalidValues(p.Items) {
			out["item "+label] = []any{v}
		}
	case "object":
		if len(p.Properties) > 0 {
			for label, v := range invalidBodies(p, func() map[string]any { return minimalBody(p) }) {
				out["."+label] = v
			}
		}
	}
	return out
}

// offPattern is a string a pattern of the document refuses.
const offPattern = "not valid!"

// boundary is a body with one property at one of its declared bounds
// (or one of its enum's values), the same body with that property inside
// them (at the enum's first value), and what a refusal of the bound says.
type boundary struct {
	at, inside map[string]any
	refusal    func(msg string) bool
}

// boundaryBodies put one property at each of its declared bounds (a
// string of exactly maxLength characters, a number at its minimum or
// maximum, an array of maxItems items) and at each value of its enum:
// the document calls them valid, so the server must not refuse them for
// that bound or value, as it would not refuse a value inside them (one
// character, one item, a number between the bounds, the enum's first
// value).
func boundaryBodies(s *requestSchema, base func() map[string]any) map[string]boundary {
	out := map[string]boundary{}
	for name, p := range s.Properties {
		bound := func(msg string) bool { return boundRefusal.MatchString(msg) }
		with := func(at, inside any) boundary {
			a, b := base(), base()
			a[name], b[name] = at, inside
			return boundary{at: a, inside: b, refusal: bound}
		}
		for _, v := range p.Enum {
			if v != nil && v != p.Enum[0] {
				b := with(v, p.Enum[0])
				b.refusal = func(msg string) bool { return strings.Contains(msg, name) && valueRefusal.MatchString(msg) }
				out[fmt.Sprintf("%s = %v", name, v)] = b
			}
		}
		if len(p.Enum) > 0 || p.Format != "" || p.Pattern != "" {
			continue // a string of x's is off the format
		}
		if p.MaxLength != nil && *p.MaxLength > 1 {
			out[name+" at its maxLength"] = with(strings.Repeat("x", *p.MaxLength), "x")
		}
		switch {
		case p.Minimum != nil && p.Maximum != nil:
			mid := math.Floor((*p.Minimum + *p.Maximum) / 2)
			out[name+" at its minimum"] = with(*p.Minimum, mid)
			out[name+" at its maximum"] = with(*p.Maximum, mid)
		case p.Minimum != nil:
			out[name+" at its minimum"] = with(*p.Minimum, *p.Minimum+1)
		case p.Maximum != nil:
			out[name+" at its maximum"] = with(*p.Maximum, *p.Maximum-1)
		}
		if p.MaxItems != nil && *p.MaxItems > 1 && p.Items != nil {
			out[name+" at its maxItems"] = with(slices.Repeat([]any{sample(p.Items)}, *p.MaxItems), []any{sample(p.Items)})
		}
	}
	return out
}

// schemaRefusal is a 400 message that refuses a constraint the schema
// could declare: a field required, or limited to a set of values.
var schemaRefusal = regexp.MustCompile(`(?i)\b([a-z_.]+) is required|\b([a-z_.]+) must be one of|\b([a-z_.]+) must be (?:[a-z_]+(?:, | or ))+[a-z_]+\b`)

// boundRefusal is a 400 message that refuses a length, count or range;
// valueRefusal one that refuses a value.
var (
	boundRefusal = regexp.MustCompile(`(?i)at most|at least|too long|too short|too many|too few|between|must be from`)
	valueRefusal = regexp.MustCompile(`(?i)must be|one of|not supported|unknown|not a valid`)
)

// declaredInProse reports whether the schema's description of field (a
// dotted path) or of a property on the way to it says when it is
// required: a requirement that depends on another field's value
// (content.body for a text message) is described, not declared.
func declaredInProse(s *requestSchema, field string) bool {
	cur := s
	for _, part := range strings.Split(field, ".") {
		p := cur.Properties[part]
		if p == nil {
			return false
		}
		if strings.Contains(strings.ToLower(p.Description), "required") {
			return true
		}
		cur = p
		if p.Items != nil {
			cur = p.Items
		}
	}
	return false
}

// target is where a checked body is sent: path is the document's path
// with its parameters filled from fixtures ({name} is the id of the
// fixture of that name; a name no fixture has is a fresh UUID), with
// overrides the minimal body's values of some properties (a fixture's id
// where the operation looks an object up before it checks the rest).
type target struct{ path, with string }

// constrainedBodies are the request bodies whose types declare the
// constraints their handlers validate, by "METHOD /path" of the
// document, and where each is sent ("" for the document's own path).
var constrainedBodies = map[string]target{
	"POST /api/accounts":                         {},
	"PUT /api/accounts/{id}":                     {path: "/api/accounts/{account2}"},
	"PUT /api/accounts/{id}/business_profile":    {path: "/api/accounts/{main}/business_profile"},
	"POST /api/api-keys":                         {},
	"PUT /api/api-keys/{id}":                     {path: "/api/api-keys/{apikey}"},
	"POST /api/auth/login":                       {},
	"POST /api/auth/logout":                      {},
	"POST /api/auth/refresh":                     {},
	"POST /api/auth/register":                    {},
	"POST /api/auth/switch-org":                  {},
	"POST /api/call-transfers/initiate":          {},
	"POST /api/call-transfers/{id}/connect":      {path: "/api/call-transfers/{unknown}/connect"}, // the offer is checked first
	"POST /api/calls/outgoing":                   {with: `{"contact_id":"{contact}"}`},
	"POST /api/calls/permission-request":         {with: `{"contact_id":"{contact}"}`},
	"POST /api/campaigns":                        {with: `{"template_id":"{template}"}`},
	"PUT /api/campaigns/{id}":                    {path: "/api/campaigns/{campaign}"},
	"POST /api/campaigns/{id}/recipients/import": {path: "/api/campaigns/{campaign}/recipients/import"},
	"POST /api/canned-responses":                 {},
	"PUT /api/canned-responses/{id}":             {path: "/api/canned-responses/{canned}"},
	"POST /api/canned-responses/{id}/use":        {path: "/api/canned-responses/{canned}/use"},
	"POST /api/catalogs":                         {},
	"POST /api/catalogs/sync":                    {},
	"POST /api/catalogs/{id}/products":           {path: "/api/catalogs/{catalog}/products"},
	"POST /api/chatbot/ai-contexts":              {},
	"PUT /api/chatbot/ai-contexts/{id}":          {path: "/api/chatbot/ai-contexts/{aicontext}"},
	"POST /api/chatbot/flows":                    {},
	"PUT /api/chatbot/flows/{id}":                {path: "/api/chatbot/flows/{chatbotflow}"},
	"POST /api/chatbot/keywords":                 {},
	"PUT /api/chatbot/keywords/{id}":             {path: "/api/chatbot/keywords/{keyword}"},
	"PUT /api/chatbot/settings":                  {},
	"POST /api/chatbot/transfers":                {},
	"PUT /api/chatbot/transfers/{id}/assign":     {path: "/api/chatbot/transfers/{transfer}/assign"},
	"POST /api/contacts":                         {},
	"PUT /api/contacts/{id}":                     {path: "/api/contacts/{contact}"},
	"PUT /api/contacts/{id}/assign":              {path: "/api/contacts/{contact}/assign"},
	"POST /api/contacts/{id}/messages":           {path: "/api/contacts/{contact}/messages"},
	"POST /api/contacts/{id}/notes":              {path: "/api/contacts/{contact}/notes"},
	"PUT /api/contacts/{id}/notes/{note_id}":     {path: "/api/contacts/{contact}/notes/{note}"},
	"PUT /api/contacts/{id}/tags":                {path: "/api/contacts/{contact}/tags"},
	"POST /api/custom-actions":                   {},
	"PUT /api/custom-actions/{id}":               {path: "/api/custom-actions/{customaction}"},
	"POST /api/custom-actions/{id}/execute":      {path: "/api/custom-actions/{customaction}/execute"},
	"POST /api/flows":                            {},
	"POST /api/flows/sync":                       {},
	"PUT /api/flows/{id}":                        {path: "/api/flows/{formflow}"},
	"POST /api/ivr-flows":                        {},
	"PUT /api/ivr-flows/{id}":                    {path: "/api/ivr-flows/{ivrflow}"},
	"PUT /api/me/availability":                   {},
	"PUT /api/me/password":                       {},
	"PUT /api/me/settings":                       {},
	"POST /api/messages/product":                 {with: `{"contact_id":"{contact}","product_id":"{product}"}`},
	"POST /api/messages/product-list":            {with: `{"contact_id":"{contact}","catalog_id":"{catalog}"}`},
	"POST /api/messages/template":                {},
	"PUT /api/org/settings":                      {},
	"POST /api/organizations":                    {},
	"POST /api/organizations/members":            {},
	"PUT /api/organizations/members/{id}":        {path: "/api/organizations/members/{unknown}"}, // the role is checked first
	"PUT /api/products/{id}":                     {path: "/api/products/{product}"},
	"POST /api/roles":                            {},
	"PUT /api/roles/{id}":                        {path: "/api/roles/{role}"},
	"PUT /api/settings/sso/{provider}":           {path: "/api/settings/sso/google"},
	"POST /api/tags":                             {},
	"PUT /api/tags/{name}":                       {path: "/api/tags/fixture-tag"},
	"POST /api/teams":                            {},
	"PUT /api/teams/{id}":                        {path: "/api/teams/{team}"},
	"POST /api/teams/{id}/members":               {path: "/api/teams/{team}/members"},
	"POST /api/templates":                        {},
	"POST /api/templates/sync":                   {},
	"PUT /api/templates/{id}":                    {path: "/api/templates/{draft}"},
	"POST /api/users":                            {},
	"PUT /api/users/{id}":                        {path: "/api/users/{user}"},
	"POST /api/webhook":                          {}, // the platform's delivery: nothing declared, its signature checked first
	"POST /api/webhooks":                         {},
	"PUT /api/webhooks/{id}":                     {path: "/api/webhooks/{webhook}"},
	"POST /api/widgets":                          {},
	"POST /api/widgets/layout":                   {},
	"PUT /api/widgets/layout":                    {},
	"PUT /api/widgets/{id}":                      {path: "/api/widgets/{widget}"},
}

// schemaFixtures are created, in order, before the bodies are checked
// (besides the Main account, an approved template "template" of it and a
// contact "contact" whose service window is open): the objects the routes
// of constrainedBodies act on. A body's {name} is the id of an earlier
// fixture; id is where the answer holds the new object's id (data.id when
// empty).
var schemaFixtures = []struct{ name, method, path, body, id string }{
	{"main", http.MethodGet, "/api/accounts", "", "data.accounts.0.id"},
	{"account2", http.MethodPost, "/api/accounts", `{"name":"Second","phone_id":"100200301","business_id":"` + providertest.BusinessID + `","access_token":"token"}`, ""},
	{"apikey", http.MethodPost, "/api/api-keys", `{"name":"Fixture"}`, ""},
	{"campaign", http.MethodPost, "/api/campaigns", `{"name":"Fixture","chat_account":"Main","template_id":"{template}"}`, ""},
	{"canned", http.MethodPost, "/api/canned-responses", `{"name":"Fixture","content":"Hello"}`, ""},
	{"catalog", http.MethodPost, "/api/catalogs", `{"chat_account":"Main","name":"Fixture"}`, ""},
	{"product", http.MethodPost, "/api/catalogs/{catalog}/products", `{"name":"Fixture","price":100,"retailer_id":"SKU-FIXTURE"}`, ""},
	{"aicontext", http.MethodPost, "/api/chatbot/ai-contexts", `{"name":"Fixture","static_content":"Open 9 to 5."}`, ""},
	{"chatbotflow", http.MethodPost, "/api/chatbot/flows", `{"name":"Fixture"}`, ""},
	{"keyword", http.MethodPost, "/api/chatbot/keywords", `{"keywords":["fixture"],"response_content":{"body":"Hello"}}`, ""},
	{"transfer", http.MethodPost, "/api/chatbot/transfers", `{"contact_id":"{contact}"}`, ""},
	{"note", http.MethodPost, "/api/contacts/{contact}/notes", `{"content":"Fixture"}`, ""},
	{"customaction", http.MethodPost, "/api/custom-actions", `{"name":"Fixture","action_type":"url","config":{"url":"https://example.com/"}}`, ""},
	{"formflow", http.MethodPost, "/api/flows", `{"chat_account":"Main","name":"Fixture"}`, "data.flow.id"},
	{"ivrflow", http.MethodPost, "/api/ivr-flows", `{"chat_account":"Main","name":"Fixture"}`, ""},
	{"role", http.MethodPost, "/api/roles", `{"name":"Fixture","permissions":[]}`, ""},
	{"tag", http.MethodPost, "/api/tags", `{"name":"fixture-tag"}`, ""},
	{"team", http.MethodPost, "/api/teams", `{"name":"Fixture"}`, "data.team.id"},
	{"draft", http.MethodPost, "/api/templates", `{"chat_account":"Main","name":"fixture_draft","language":"en_US","category":"UTILITY","body_content":"Hello"}`, ""},
	{"user", http.MethodPost, "/api/users", `{"email":"fixture@example.com","full_name":"Fixture","password":"fixture-password-1"}`, ""},
	{"webhook", http.MethodPost, "/api/webhooks", `{"name":"Fixture","url":"http://127.0.0.1:9/hook","events":["message:incoming"],"is_active":false}`, ""},
	{"widget", http.MethodPost, "/api/widgets", `{"name":"Fixture","data_source":"messages"}`, ""},
}

// ownSession are the routes that end or change the session they are
// sent with: each is sent with a session of its own.
var ownSession = map[string]bool{
	"POST /api/auth/logout": true,
	"PUT /api/me/password":  true,
}

// fixtureRef is a {name} of a target or fixture.
var fixtureRef = regexp.MustCompile(`\{([a-z0-9_]+)\}`)

// TestRequestSchemasAgreeWithValidation: for every JSON body of
// constrainedBodies, each body the document calls invalid is refused
// with 400 and the error envelope; the minimal body the document calls
// valid is not refused for a constraint the document does not declare;
// a property at one of its declared bounds is not refused for that bound
// (issue 32, point 1).
func TestRequestSchemasAgreeWithValidation(t *testing.T) {
	e := newSendEnv(t)
	e.SkipOpenAPI = true // the invalid bodies are invalid on purpose
	ids := map[string]string{
		"contact":  e.newContact(t, true).ID.String(),
		"template": e.newTemplate(t, "fixture_template", nil).ID.String(),
	}
	fill := func(s string) string {
		return fixtureRef.ReplaceAllStringFunc(s, func(m string) string {
			if id, ok := ids[m[1:len(m)-1]]; ok {
				return id
			}
			return uuid.NewString()
		})
	}
	for _, f := range schemaFixtures {
		var body any
		if f.body != "" {
			body = fill(f.body)
		}
		res := e.Admin.Do(f.method, fill(f.path), body)
		idPath := cmp.Or(f.id, "data.id")
		id, _ := res.Get(idPath).(string)
		if res.Status >= 300 || id == "" {
			t.Fatalf("fixture %s: %d %s", f.name, res.Status, res.Raw)
		}
		ids[f.name] = id
	}
	schemas := bodySchemas(t)
	var keys []string
	for key := range schemas {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	covered := 0
	for _, key := range keys {
		tg, ok := constrainedBodies[key]
		if !ok {
			continue
		}
		method, path, _ := strings.Cut(key, " ")
		if tg.path != "" {
			path = fill(tg.path)
		}
		var with map[string]any
		if tg.with != "" {
			if err := json.Unmarshal([]byte(fill(tg.with)), &with); err != nil {
				t.Fatalf("%s: %v", key, err)
			}
		}
		s := schemas[key]
		covered++
		t.Run(key, func(t *testing.T) {
			client := e.Admin
			if ownSession[key] {
				client = e.Login("admin@example.com", apitest.AdminPassword)
			}
			base := func() map[string]any {
				b := minimalBody(s)
				for k, v := range with {
					b[k] = v
				}
				return b
			}
			for name, body := range invalidBodies(s, base) {
				res := client.Do(method, path, body)
				if res.Status != http.StatusBadRequest || res.Get("status") != "error" || res.Get("message") == "" {
					t.Errorf("%s %.200v: %d %s, want 400 with the error envelope", name, body, res.Status, res.Raw)
				}
			}
			for name, b := range boundaryBodies(s, base) {
				res := client.Do(method, path, b.at)
				msg, _ := res.Get("message").(string)
				if res.Status != http.StatusBadRequest || !b.refusal(msg) {
					continue
				}
				// Refused for a bound: for this one, unless a value
				// inside it is refused the same way.
				if in := client.Do(method, path, b.inside); in.Get("message") != msg {
					t.Errorf("%s: refused %q, a value the schema allows (inside the bound: %d %s)", name, msg, in.Status, in.Raw)
				}
			}
			res := client.Do(method, path, base())
			if res.Status != http.StatusBadRequest {
				return
			}
			msg, _ := res.Get("message").(string)
			if m := schemaRefusal.FindStringSubmatch(msg); m != nil {
				field := strings.Join(m[1:], "")
				if !declaredInProse(s, field) {
					t.Errorf("minimal body %v: refused %q, a constraint the schema does not declare", base(), msg)
				}
			}
		})
	}
	if covered != len(constrainedBodies) {
		t.Errorf("%d of the %d constrained bodies are in the document", covered, len(constrainedBodies))
	}
	t.Logf("%d of %d JSON bodies checked", covered, len(schemas))
}
