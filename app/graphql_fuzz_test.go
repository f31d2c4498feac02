package app_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"switchboard/internal/apitest"
)

// graphqlAnswer is the shape every /graphql answer must have.
type graphqlAnswer struct {
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

// postGraphQL sends body to /graphql as the admin through the real
// handler and checks the answer: never a 5xx, always a JSON GraphQL
// response, errors (each with a message) on any 4xx.
func postGraphQL(t *testing.T, env *apitest.Env, body []byte) {
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+env.Admin.Token)
	w := httptest.NewRecorder()
	env.App.Handler.ServeHTTP(w, req)
	if w.Code >= 500 {
		t.Fatalf("%q: %d %s", body, w.Code, w.Body)
	}
	var a graphqlAnswer
	if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil {
		t.Fatalf("%q: %d, not JSON: %s", body, w.Code, w.Body)
	}
	if w.Code != http.StatusOK && len(a.Errors) == 0 {
		t.Fatalf("%q: %d without errors: %s", body, w.Code, w.Body)
	}
	if w.Code == http.StatusOK && len(a.Errors) == 0 && len(a.Data) == 0 {
		t.Fatalf("%q: neither data nor errors: %s", body, w.Body)
	}
	for _, e := range a.Errors {
		if e.Message == "" {
			t.Fatalf("%q: error without a message: %s", body, w.Body)
		}
		if e.Extensions["code"] == "internal" {
			t.Fatalf("%q: internal error: %s", body, w.Body)
		}
	}
}

// graphqlSeeds are operations of every kind: reads, lists, mutations,
// limits, NUL characters, bad variables.
var graphqlSeeds = []struct{ query, variables string }{
	{`{ viewer { user { id email } permissions } }`, ``},
	{`query($n: Int) { contacts(first: $n) { totalCount edges { node { id name } } } }`, `{"n": 5}`},
	{`query($w: ContactWhereInput) { contacts(first: 5, where: $w) { totalCount } }`, `{"w": {"nameContains": "a\u0000"}}`},
	{`{ contacts(first: -1) { totalCount } }`, ``},
	{`{ teams(first: 2147483647) { totalCount } }`, ``},
	{`{ messages(contactId: "0190f1d2-0000-7000-8000-000000000001", limit: -5) { total } }`, ``},
	{`mutation($in: CreateTeamInput!) { createTeam(input: $in) { id } }`, `{"in": {"name": "Fuzz"}}`},
	{`mutation($in: CreateTeamInput!) { createTeam(input: $in) { id } }`, `{"in": {"name": 5}}`},
	{`mutation($in: CreateContactInput!) { createContact(input: $in) { id } }`, `{"in": {"phoneNumber": "+1555"}}`},
	{`{ node(id: "nope") { id } }`, ``},
	{`{ a: viewer { user { id } } b: viewer { user { id } } }`, ``},
	{`fragment F on Query { viewer { user { id } } } { ...F ...F }`, ``},
	{`subscription { contactChanged { id } }`, ``},
	{`{ __schema { types { name } } }`, ``},
	{`{ __type(name: "Contact") { fields { name } } }`, ``},
	{`query Q { viewer { user { id } } } query R { viewer { user { id } } }`, ``},
	{`{ contacts(where: {nameContains: "\u{0}"}) { totalCount } }`, ``},
	{`{ viewer { user { id } }`, ``},
	{`{ nope }`, ``},
	{``, `[]`},
	{`{ contacts(after: "!!!", first: 1) { totalCount } }`, ``},
	{`{ teams(orderBy: {field: NAME, direction: UP}) { totalCount } }`, ``},
}

// FuzzGraphQLBody posts arbitrary bodies to /graphql.
// Run longer with: go test -run '^$' -fuzz FuzzGraphQLBody ./app/
func FuzzGraphQLBody(f *testing.F) {
	for _, s := range graphqlSeeds {
		body, _ := json.Marshal(map[string]any{"query": s.query, "variables": json.RawMessage(orNull(s.variables))})
		f.Add(body)
	}
	for _, s := range []string{``, `garbage`, `{"query":1}`, `{"query":"{ viewer { user { id } } }"`, `[{"query":"{ viewer { user { id } } }"}]`,
		`{"query":"{ viewer { user { id } } }","variables":[]}`, `{"query":null}`, `{}`, `{"query":"{ viewer { user { id } } }"} x`,
		`{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"00"}}}`, "{\"query\":\"\x00\"}", `{"operationName":5}`} {
		f.Add([]byte(s))
	}
	env := apitest.New(f)
	f.Fuzz(func(t *testing.T, body []byte) { postGraphQL(t, env, body) })
}

// FuzzGraphQLOperation posts arbitrary query texts and variables as a
// well-formed request, so the fuzzer works on the operation itself.
func FuzzGraphQLOperation(f *testing.F) {
	for _, s := range graphqlSeeds {
		f.Add(s.query, s.variables)
	}
	env := apitest.New(f)
	f.Fuzz(func(t *testing.T, query, variables string) {
		vars := json.RawMessage(orNull(variables))
		if !json.Valid(vars) {
			vars = json.RawMessage("null")
		}
		body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
		if err != nil {
			t.Skip() // not valid UTF-8 text for a JSON string
		}
		postGraphQL(t, env, body)
	})
}

func orNull(s string) string {
	if strings.TrimSpace(s) == "" {
		return "null"
	}
	return s
}
