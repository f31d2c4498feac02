package rest

import (
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/swaggest/jsonschema-go"
	"github.com/swaggest/openapi-go"
	"github.com/swaggest/openapi-go/openapi31"

	"switchboard/access"
)

// The OpenAPI document is generated from the route table: each row's
// operation (permission, security), path, and declared request and
// response types. Nothing in it is written by hand, so it cannot drift
// from the routes.

// Security scheme names of the document.
const (
	schemeCookie = "cookieAuth"
	schemeCSRF   = "csrfToken"
	schemeBearer = "bearerAuth"
	schemeAPIKey = "apiKey"
)

// noData is the data of a success that carries none: null.
type noData struct{}

// MarshalJSON implements json.Marshaler.
func (noData) MarshalJSON() ([]byte, error) { return []byte("null"), nil }

// JSONSchema implements jsonschema.Exposer.
func (noData) JSONSchema() (jsonschema.Schema, error) {
	var s jsonschema.Schema
	s.AddType(jsonschema.Null)
	return s, nil
}

// errorEnvelope is the body of every failure.
type errorEnvelope struct {
	Status  string `json:"status" required:"true" enum:"error" example:"error"`
	Message string `json:"message" required:"true" example:"name is required"`
	Data    noData `json:"data" required:"true"`
}

// listOf declares a paginated list payload: the items under key, with
// total, page, limit and total_pages (listPayload writes it).
type listOf struct {
	key  string
	item any
}

func list(key string, item any) listOf { return listOf{key: key, item: item} }

// paged declares a paginated route's query: page and limit (bindPage,
// default limit def) and the route's other parameters, a struct with
// query tags, or nil.
type pagedQuery struct {
	limit int
	extra any
}

func paged(def int, extra any) pagedQuery { return pagedQuery{limit: def, extra: extra} }

// bodies declares a request that takes one of several bodies (JSON or
// a multipart form).
type bodies []any

// isForm reports a multipart form type (formData tags).
func isForm(in any) bool {
	t := reflect.TypeOf(in)
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := range t.NumField() {
		if _, ok := t.Field(i).Tag.Lookup("formData"); ok {
			return true
		}
	}
	return false
}

// rawBody declares a success that is not the JSON envelope: a file, a
// text answer, or a redirect (Status 302, no content).
type rawBody struct {
	ContentType string
	// Format is the string format of the content ("binary" for a file).
	Format      string
	Description string
}

// rateLimitHeaders are sent with every /api answer.
var rateLimitHeaders = []struct{ name, description string }{
	{"X-RateLimit-Limit", "Requests allowed per minute."},
	{"X-RateLimit-Remaining", "Requests left in the current window."},
	{"X-RateLimit-Reset", "Unix time at which the window resets."},
}

// errorResponses are the shared failure answers: component name, status
// (0: default) and example message.
var errorResponses = []struct {
	name    string
	status  int
	message string
}{
	{"BadRequest", http.StatusBadRequest, "name is required"},
	{"Unauthorized", http.StatusUnauthorized, "authentication required"},
	{"Forbidden", http.StatusForbidden, "permission contacts:read required"},
	{"NotFound", http.StatusNotFound, "contact not found"},
	{"Conflict", http.StatusConflict, "a tag with this name already exists"},
	{"Gone", http.StatusGone, "the redirect link has expired or was already used"},
	{"TooManyRequests", http.StatusTooManyRequests, "rate limit exceeded"},
	{"NotImplemented", http.StatusNotImplemented, "Not implemented yet"},
	{"Error", 0, "internal error"},
}

// UndeclaredStatuses are the statuses a route may answer without
// declaring them: the default response's faults of the server (500) or
// of a dependency that is down (503).
var UndeclaredStatuses = []int{http.StatusInternalServerError, http.StatusServiceUnavailable}

// errorStatuses are the failures rt answers: bad input, an unknown id
// and the rate limit on every route; missing credentials and a
// permission refused on a route that is not public; a conflict with
// existing data on a change of one that is; and the route's own
// (Route.Errors).
func errorStatuses(rt Route) map[int]bool {
	set := map[int]bool{http.StatusBadRequest: true, http.StatusNotFound: true, http.StatusTooManyRequests: true}
	if rt.operation().Perm != access.Public {
		set[http.StatusUnauthorized], set[http.StatusForbidden] = true, true
		if rt.Method != http.MethodGet {
			set[http.StatusConflict] = true
		}
	}
	for _, s := range rt.Errors {
		set[s] = true
	}
	return set
}

// uuidSchema is how a uuid.UUID is documented.
type uuidSchema string

// JSONSchema implements jsonschema.Exposer.
func (uuidSchema) JSONSchema() (jsonschema.Schema, error) {
	var s jsonschema.Schema
	s.AddType(jsonschema.String)
	s.WithFormat("uuid")
	s.WithExamples("0198f0c2-7d3e-7a5b-9c1d-2e3f4a5b6c7d")
	return s, nil
}

// shortDefName drops the "Rest" prefix of this package's schema names,
// unless another type already has the short name.
func shortDefName() func(reflect.Type, string) string {
	owner := map[string]reflect.Type{}
	return func(t reflect.Type, name string) string {
		short, ok := strings.CutPrefix(name, "Rest")
		if !ok {
			return name
		}
		if prev, taken := owner[short]; taken && prev != t {
			return name
		}
		owner[short] = t
		return short
	}
}

// nullableEnum lists null in the enum of a property that may be null
// (a pointer field of a request: null keeps the value): an enum refuses
// every value it does not list, null included.
func nullableEnum(p jsonschema.InterceptPropParams) error {
	s := p.PropertySchema
	if !p.Processed || s == nil || len(s.Enum) == 0 || !s.HasType(jsonschema.Null) || slices.Contains(s.Enum, nil) {
		return nil
	}
	s.Enum = append(s.Enum, nil)
	return nil
}

// requireAnswerFields marks every field of an answer that encoding/json
// always writes (no omitempty) as required, so that a handler leaving
// one out fails the document's validation.
func requireAnswerFields(p jsonschema.InterceptPropParams) error {
	if !p.Processed || p.ParentSchema == nil {
		return nil
	}
	if p.PropertySchema != nil && len(p.PropertySchema.AnyOf) > 0 {
		// jsonschema-go leaves "type": "object" beside a nullable
		// struct's anyOf [null, $ref], which would refuse the null.
		p.PropertySchema.Type = nil
	}
	if oc, ok := openapi.OperationCtx(p.Context); !ok || !oc.IsProcessingResponse() {
		return nil
	}
	tag := p.Field.Tag.Get("json")
	if tag == "" || tag == "-" || strings.Contains(tag, ",omitempty") || slices.Contains(p.ParentSchema.Required, p.Name) {
		return nil
	}
	p.ParentSchema.Required = append(p.ParentSchema.Required, p.Name)
	return nil
}

// OpenAPI is the generated OpenAPI 3.1 document of every /api route, as
// JSON and as YAML; built once.
func (a *API) OpenAPI() (jsonDoc, yamlDoc []byte, err error) {
	openAPIOnce.Do(func() {
		openAPIJSON, openAPIYAML, openAPIErr = BuildOpenAPI(a.Routes())
	})
	return openAPIJSON, openAPIYAML, openAPIErr
}

var (
	openAPIOnce              sync.Once
	openAPIJSON, openAPIYAML []byte
	openAPIErr               error
)

// BuildOpenAPI generates the document of routes.
func BuildOpenAPI(routes []Route) ([]byte, []byte, error) {
	r := openapi31.NewReflector()
	r.AddTypeMapping(uuid.UUID{}, uuidSchema(""))
	r.InlineDefinition(uuidSchema(""))
	r.DefaultOptions = append(r.DefaultOptions, jsonschema.InterceptDefName(shortDefName()),
		jsonschema.InterceptProp(requireAnswerFields), jsonschema.InterceptProp(nullableEnum),
		// A nil pointer to a struct is null: anyOf [null, $ref].
		func(rc *jsonschema.ReflectContext) { rc.EnvelopNullability = true })
	spec := r.SpecEns()
	spec.Info.WithTitle("Switchboard API").WithVersion("1").
		WithDescription("Every /api route of Switchboard. Success: {status: \"success\", data}; failure: {status: \"error\", message, data: null}. " +
			"Authenticate with the whm_access cookie (plus X-CSRF-Token equal to the whm_csrf cookie on POST, PUT, PATCH and DELETE), " +
			"an Authorization: Bearer access token, or an X-API-Key. X-Organization-ID selects the organization of a user in several.")
	spec.Info.WithContact(openapi31.Contact{Name: ptr("Switchboard")})
	spec.SetAPIKeySecurity(schemeCookie, cookieAccess, openapi.InCookie, "Session cookie set by login.")
	spec.SetAPIKeySecurity(schemeCSRF, headerCSRF, openapi.InHeader, "The whm_csrf cookie's value; required with the cookie on POST, PUT, PATCH and DELETE.")
	spec.SetHTTPBearerTokenSecurity(schemeBearer, "JWT", "Access token from login or refresh.")
	spec.SetAPIKeySecurity(schemeAPIKey, headerAPIKey, openapi.InHeader, "An API key: whm_ followed by 32 hex digits.")

	if err := addErrorComponents(r); err != nil {
		return nil, nil, err
	}
	spec.WithServers(openapi31.Server{URL: "/", Description: ptr("This server: every path starts with /api.")})
	ids := map[string]bool{}
	for _, rt := range routes {
		if err := addRoute(r, rt, ids); err != nil {
			return nil, nil, err
		}
	}
	if err := addTags(spec, routes); err != nil {
		return nil, nil, err
	}
	addRateLimitHeaders(spec)
	j, err := spec.MarshalJSON()
	if err != nil {
		return nil, nil, err
	}
	y, err := spec.MarshalYAML()
	if err != nil {
		return nil, nil, err
	}
	return j, y, nil
}

// ginParam matches gin's :name and *name path parameters.
var ginParam = regexp.MustCompile(`[:*]([A-Za-z_][A-Za-z0-9_]*)`)

// OpenAPIPath is the document's path of a gin route path.
func OpenAPIPath(p string) string { return ginParam.ReplaceAllString(p, "{$1}") }

func addRoute(r *openapi31.Reflector, rt Route, ids map[string]bool) error {
	path := OpenAPIPath(rt.Path)
	oc, err := r.NewOperationContext(rt.Method, path)
	if err != nil {
		return err
	}
	op := access.MustOperation(rt.Op)
	id := rt.Op
	if ids[id] {
		// One operation served by two methods (the dashboard layout).
		id += "_" + strings.ToLower(rt.Method)
	}
	ids[id] = true
	oc.SetID(id)
	oc.SetTags(tagOf(rt.Path))
	oc.SetSummary(summaryOf(rt))
	oc.SetDescription(permissionText(op.Perm))
	o := oc.(openapi31.OperationExposer).Operation()
	o.WithMapOfAnythingItem("x-permission", op.Requirement())
	o.Security = securityOf(op.Perm, rt.Method)
	if o.Security == nil {
		// Public, said explicitly: "security: []" (the field itself
		// omits an empty list).
		o.WithMapOfAnythingItem("security", []any{})
	}

	oc.AddReqStructure(requestParams(rt))
	ins, ok := rt.In.(bodies)
	if !ok && rt.In != nil {
		ins = bodies{rt.In}
	}
	for _, in := range ins {
		if isForm(in) {
			// A file field makes it multipart/form-data.
			oc.AddReqStructure(in)
		} else {
			oc.AddReqStructure(in, openapi.WithContentType("application/json"))
		}
	}
	addSuccess(oc, rt)
	answers := errorStatuses(rt)
	for _, e := range errorResponses {
		if e.status != 0 && !answers[e.status] {
			continue
		}
		ref := openapi.WithReference("#/components/responses/" + e.name)
		if e.status == 0 {
			oc.AddRespStructure(nil, ref, func(cu *openapi.ContentUnit) { cu.IsDefault = true })
		} else {
			oc.AddRespStructure(nil, ref, openapi.WithHTTPStatus(e.status))
		}
	}
	return r.AddOperation(oc)
}

// addSuccess declares the route's success answer.
func addSuccess(oc openapi.OperationContext, rt Route) {
	status := rt.Status
	if status == 0 {
		status = http.StatusOK
	}
	if rb, ok := rt.Out.(rawBody); ok {
		oc.AddRespStructure(nil, openapi.WithHTTPStatus(status), func(cu *openapi.ContentUnit) {
			cu.ContentType, cu.Format, cu.Description = rb.ContentType, rb.Format, rb.Description
		}, openapi.WithCustomize(func(cor openapi.ContentOrReference) {
			ror, ok := cor.(*openapi31.ResponseOrReference)
			if !ok || ror.Response == nil || rb.ContentType != "application/json" {
				return
			}
			ror.Response.Content[rb.ContentType] = openapi31.MediaType{Schema: map[string]any{"type": "object"}}
		}))
		if rb.Format == "binary" {
			// Files are served with http.ServeContent: ranges and
			// conditional requests.
			oc.AddRespStructure(nil, openapi.WithHTTPStatus(http.StatusPartialContent), func(cu *openapi.ContentUnit) {
				cu.ContentType, cu.Format, cu.Description = rb.ContentType, rb.Format, "A range of the file."
			})
			oc.AddRespStructure(nil, openapi.WithHTTPStatus(http.StatusNotModified))
		}
		return
	}
	oc.AddRespStructure(successEnvelope(rt.Out), openapi.WithHTTPStatus(status))
}

// successEnvelope is an exemplar of {status: "success", data: out}.
func successEnvelope(out any) any {
	data := reflect.TypeFor[any]()
	switch o := out.(type) {
	case nil:
	case listOf:
		data = listType(o)
	default:
		data = reflect.TypeOf(out)
	}
	return reflect.New(reflect.StructOf([]reflect.StructField{
		{Name: "Status", Type: reflect.TypeFor[string](), Tag: `json:"status" required:"true" enum:"success" example:"success"`},
		{Name: "Data", Type: data, Tag: `json:"data" required:"true"`},
	})).Elem().Interface()
}

// listType is the type of a listOf payload.
func listType(l listOf) reflect.Type {
	intField := func(name, tag string) reflect.StructField {
		return reflect.StructField{Name: name, Type: reflect.TypeFor[int](), Tag: reflect.StructTag(tag)}
	}
	return reflect.StructOf([]reflect.StructField{
		{Name: "Items", Type: reflect.SliceOf(reflect.TypeOf(l.item)), Tag: reflect.StructTag(fmt.Sprintf(`json:%q required:"true" nullable:"false"`, l.key))},
		intField("Total", `json:"total" required:"true" minimum:"0" example:"42"`),
		intField("Page", `json:"page" required:"true" minimum:"1" example:"1"`),
		intField("Limit", `json:"limit" required:"true" minimum:"1" example:"20"`),
		intField("TotalPages", `json:"total_pages" required:"true" minimum:"0" example:"3"`),
	})
}

// addErrorComponents declares the error envelope schema, the rate limit
// headers and one shared response per error status.
func addErrorComponents(r *openapi31.Reflector) error {
	comp := r.SpecEns().ComponentsEns()
	sch, err := r.Reflect(errorEnvelope{}, jsonschema.RootRef,
		jsonschema.DefinitionsPrefix("#/components/schemas/"),
		jsonschema.CollectDefinitions(func(name string, s jsonschema.Schema) {
			if m, err := s.ToSchemaOrBool().ToSimpleMap(); err == nil {
				comp.WithSchemasItem(name, m)
			}
		}))
	if err != nil {
		return err
	}
	ref, err := sch.ToSchemaOrBool().ToSimpleMap()
	if err != nil {
		return err
	}
	for _, h := range rateLimitHeaders {
		comp.WithHeadersItem(h.name, openapi31.HeaderOrReference{Header: (&openapi31.Header{}).
			WithDescription(h.description).WithSchema(map[string]any{"type": "integer"})})
	}
	for _, e := range errorResponses {
		desc := http.StatusText(e.status)
		if e.status == 0 {
			desc = "A fault of the server (500) or of a dependency that is down (503)."
		}
		var example any = errorEnvelope{Status: "error", Message: e.message}
		comp.WithResponsesItem(e.name, openapi31.ResponseOrReference{Response: &openapi31.Response{
			Description: desc,
			Content:     map[string]openapi31.MediaType{"application/json": {Schema: ref, Example: &example}},
		}})
	}
	return nil
}

// addRateLimitHeaders adds the rate limit headers to every response.
func addRateLimitHeaders(spec *openapi31.Spec) {
	withHeaders := func(ror openapi31.ResponseOrReference) {
		if ror.Response == nil {
			return
		}
		if ror.Response.Headers == nil {
			ror.Response.Headers = map[string]openapi31.HeaderOrReference{}
		}
		for _, h := range rateLimitHeaders {
			ror.Response.Headers[h.name] = openapi31.HeaderOrReference{
				Reference: &openapi31.Reference{Ref: "#/components/headers/" + h.name}}
		}
	}
	for _, ror := range spec.Components.Responses {
		withHeaders(ror)
	}
	for _, item := range spec.Paths.MapOfPathItemValues {
		for _, o := range []*openapi31.Operation{item.Get, item.Put, item.Post, item.Delete, item.Patch} {
			if o == nil {
				continue
			}
			for _, ror := range o.Responses.MapOfResponseOrReferenceValues {
				withHeaders(ror)
			}
		}
	}
}

// requestParams is an exemplar struct of the route's path and query
// parameters.
func requestParams(rt Route) any {
	var fields []reflect.StructField
	for _, m := range ginParam.FindAllStringSubmatch(rt.Path, -1) {
		name := m[1]
		tag := fmt.Sprintf(`path:%q required:"true"`, name)
		if name == "id" || strings.HasSuffix(name, "_id") || strings.HasSuffix(name, "Id") {
			tag += ` format:"uuid"`
		}
		fields = append(fields, reflect.StructField{Name: "P" + name, Type: reflect.TypeFor[string](), Tag: reflect.StructTag(tag)})
	}
	query := rt.Query
	if p, ok := rt.Query.(pagedQuery); ok {
		fields = append(fields,
			reflect.StructField{Name: "QPage", Type: reflect.TypeFor[int](), Tag: reflect.StructTag(fmt.Sprintf(
				`query:"page" minimum:"1" maximum:"%d" default:"1" description:"Page number, from 1."`, maxPage))},
			reflect.StructField{Name: "QLimit", Type: reflect.TypeFor[int](), Tag: reflect.StructTag(fmt.Sprintf(
				`query:"limit" minimum:"1" default:"%d" description:"Items per page; values above %d are capped at %d."`, p.limit, maxPageSize, maxPageSize))})
		query = p.extra
	}
	if query != nil {
		t := reflect.TypeOf(query)
		for i := range t.NumField() {
			f := t.Field(i)
			f.Name = "Q" + f.Name
			if f.Type == uuidPointer { // a parameter is absent, never null
				f.Type = reflect.TypeFor[string]()
			}
			fields = append(fields, f)
		}
	}
	if access.MustOperation(rt.Op).Perm != access.Public {
		fields = append(fields, reflect.StructField{Name: "HOrg", Type: reflect.TypeFor[string](),
			Tag: `header:"X-Organization-ID" format:"uuid" description:"The organization to act in, for a user in several."`})
	}
	return reflect.New(reflect.StructOf(fields)).Elem().Interface()
}

// securityOf is the security requirement of a permission: none for a
// public route; otherwise the cookie (with the CSRF header on a change),
// a bearer token or an API key.
func securityOf(perm, method string) []map[string][]string {
	if perm == access.Public {
		return nil
	}
	cookie := map[string][]string{schemeCookie: {}}
	if method != http.MethodGet && method != http.MethodHead {
		cookie[schemeCSRF] = []string{}
	}
	return []map[string][]string{cookie, {schemeBearer: {}}, {schemeAPIKey: {}}}
}

func permissionText(perm string) string {
	switch perm {
	case access.Public:
		return "Public: no credentials."
	case access.Authenticated:
		return "Any signed-in user or API key."
	}
	return "Requires permission `" + perm + "`."
}

// tagOf groups a route by its first path segment after /api, less a
// file extension (openapi.json and openapi.yaml are one group).
func tagOf(path string) string {
	seg, _, _ := strings.Cut(strings.TrimPrefix(path, "/api/"), "/")
	seg, _, _ = strings.Cut(seg, ".")
	return seg
}

// tagDescriptions describe the document's groups of routes (tagOf).
var tagDescriptions = map[string]string{
	"accounts":         "WhatsApp Business accounts of the organization: credentials, phone numbers, business profile, subscriptions.",
	"analytics":        "Message, agent, campaign and platform statistics.",
	"api-keys":         "API keys of the organization (X-API-Key).",
	"auth":             "Login, registration, token refresh, logout, organization switch and single sign-on.",
	"call-logs":        "Logs of voice calls.",
	"call-recordings":  "Recorded calls' audio files.",
	"call-transfers":   "Transfers of live calls between agents.",
	"calls":            "Voice calls: outgoing calls, call permission requests, answers and ICE servers.",
	"campaigns":        "Bulk template campaigns, their recipients and sending.",
	"canned-responses": "Saved replies agents insert into conversations.",
	"catalogs":         "Product catalogs of the WhatsApp Business account.",
	"chatbot":          "Chatbot settings, keyword rules, flows, AI contexts and transfers to agents.",
	"contacts":         "Contacts, their conversations, tags, notes and assignment.",
	"custom-actions":   "Custom actions agents run on a contact (webhooks, URLs, JavaScript) and their redirects.",
	"flows":            "WhatsApp form flows.",
	"ivr-flows":        "Interactive voice response menus of incoming calls.",
	"me":               "The signed-in user: profile, password, availability and settings.",
	"media":            "Uploaded media files and their download.",
	"messages":         "Sending messages (text, media, templates, products) and their state.",
	"openapi":          "This OpenAPI document.",
	"org":              "Settings of the current organization.",
	"organizations":    "Organizations and their members.",
	"permissions":      "The catalogue of permissions roles are made of.",
	"products":         "Products of catalogs.",
	"roles":            "Roles: named sets of permissions.",
	"settings":         "Organization settings: single sign-on providers.",
	"tags":             "Tags given to contacts.",
	"teams":            "Teams of agents and their assignment strategy.",
	"templates":        "Message templates: drafts, publishing, sync and media.",
	"users":            "Users of the organization.",
	"webhook":          "The messaging platform's webhook: verification and deliveries.",
	"webhooks":         "Outgoing webhook subscriptions of the organization.",
	"widgets":          "Dashboard widgets and their layout.",
}

// addTags declares the document's tags, each with its description, in
// the order of their names; a route group without one is an error.
func addTags(spec *openapi31.Spec, routes []Route) error {
	var names []string
	for _, rt := range routes {
		if name := tagOf(rt.Path); !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		desc, ok := tagDescriptions[name]
		if !ok {
			return fmt.Errorf("openapi: tag %q has no description (tagDescriptions)", name)
		}
		spec.Tags = append(spec.Tags, openapi31.Tag{Name: name, Description: &desc})
	}
	return nil
}

// summaryOf is the route's summary, or its operation's name in words
// ("createAPIKey": "Create API key").
func summaryOf(rt Route) string {
	if rt.Summary != "" {
		return rt.Summary
	}
	words := camelWords(rt.Op)
	for i, w := range words {
		switch {
		case acronyms[strings.ToUpper(w)]:
			words[i] = strings.ToUpper(w)
		case strings.ToUpper(w) != w || len(w) == 1:
			words[i] = strings.ToLower(w)
		}
	}
	s := strings.Join(words, " ")
	return strings.ToUpper(s[:1]) + s[1:]
}

// acronyms are written in capitals in a summary, however an operation's
// name spells them ("ssoProviders": "SSO providers").
var acronyms = map[string]bool{"AI": true, "API": true, "IVR": true, "SSO": true, "URL": true}

// camelWords splits a camelCase name into its words, an acronym being
// one word ("createAPIKey": create, API, Key).
func camelWords(name string) []string {
	var words []string
	start := 0
	r := []rune(name)
	for i := 1; i < len(r); i++ {
		lowerToUpper := unicode.IsLower(r[i-1]) && unicode.IsUpper(r[i])
		acronymEnd := unicode.IsUpper(r[i-1]) && unicode.IsUpper(r[i]) && i+1 < len(r) && unicode.IsLower(r[i+1])
		if lowerToUpper || acronymEnd {
			words = append(words, string(r[start:i]))
			start = i
		}
	}
	return append(words, string(r[start:]))
}

func ptr[T any](v T) *T { return &v }

// serveOpenAPI answers the document as JSON or YAML.
func (a *API) serveOpenAPI(yaml bool) handlerFunc {
	return func(c *gin.Context) (int, any, error) {
		j, y, err := a.OpenAPI()
		if err != nil {
			return 0, nil, err
		}
		if yaml {
			c.Data(http.StatusOK, "application/yaml", y)
		} else {
			c.Data(http.StatusOK, "application/json", j)
		}
		return http.StatusOK, nil, nil
	}
}

func (a *API) openAPIRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/openapi.json", Op: "openAPIDocument", Handle: a.serveOpenAPI(false),
			Summary: "This OpenAPI 3.1 document, as JSON", Out: rawBody{ContentType: "application/json", Description: "The OpenAPI document."}},
		{Method: get, Path: "/api/openapi.yaml", Op: "openAPIDocumentYAML", Handle: a.serveOpenAPI(true),
			Summary: "This OpenAPI 3.1 document, as YAML", Out: rawBody{ContentType: "application/yaml", Description: "The OpenAPI document."}},
	}
}

// JSONSchema implements jsonschema.Exposer: a UUID or null.
func (nullableUUID) JSONSchema() (jsonschema.Schema, error) {
	var s jsonschema.Schema
	s.AddType(jsonschema.String)
	s.AddType(jsonschema.Null)
	s.WithFormat("uuid")
	return s, nil
}

// JSONSchema implements jsonschema.Exposer: "resource:action" keys or
// {resource, action} objects.
func (permissionKeys) JSONSchema() (jsonschema.Schema, error) {
	var key, part, obj, item, s jsonschema.Schema
	key.AddType(jsonschema.String)
	key.WithExamples("contacts:read")
	part.AddType(jsonschema.String)
	obj.AddType(jsonschema.Object)
	obj.WithRequired("resource", "action")
	obj.WithProperties(map[string]jsonschema.SchemaOrBool{"resource": part.ToSchemaOrBool(), "action": part.ToSchemaOrBool()})
	item.WithAnyOf(key.ToSchemaOrBool(), obj.ToSchemaOrBool())
	s.AddType(jsonschema.Array)
	s.AddType(jsonschema.Null)
	s.WithItems(*(&jsonschema.Items{}).WithSchemaOrBool(item.ToSchemaOrBool()))
	return s, nil
}
