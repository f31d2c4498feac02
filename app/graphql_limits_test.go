package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"switchboard/internal/apitest"
)

// aliased repeats field under n aliases in one query.
func aliased(n int, field string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, " a%d: %s", i, field)
	}
	b.WriteString(" }")
	return b.String()
}

// nested goes k times around the cycle organization -> members -> user's
// membership -> organization, one member at a time (cheap but deep: four
// levels a turn).
func nested(k int) string {
	return "{ viewer { organization { " + strings.Repeat("members(first: 1) { edges { node { organization { ", k) +
		"id" + strings.Repeat(" } } } }", k) + " } } }"
}

// expectRefused checks a GraphQL request error: HTTP 400, an errors list
// with a message, and no data.
func expectRefused(t *testing.T, r *apitest.Response, wantCode string) {
	t.Helper()
	if r.Status != http.StatusBadRequest {
		t.Fatalf("status %d, want 400; body: %.300s", r.Status, r.Raw)
	}
	if r.String("errors.0.message") == "" {
		t.Fatalf("no GraphQL error: %.300s", r.Raw)
	}
	if d, ok := r.Body["data"]; ok && d != nil {
		t.Fatalf("data with a refused request: %.300s", r.Raw)
	}
	if wantCode != "" && r.GraphQLErrorCode() != wantCode {
		t.Fatalf("code %q, want %q: %.300s", r.GraphQLErrorCode(), wantCode, r.Raw)
	}
}

func TestGraphQLLimits(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	for _, tc := range []struct {
		name, query, code string
	}{
		{"ThreeThousandAliases", aliased(3000, "viewer { user { id } }"), ""},
		{"TooManyFields", aliased(1500, "__typename"), "FIELD_LIMIT_EXCEEDED"},
		{"TooDeep", nested(4), "DEPTH_LIMIT_EXCEEDED"},
		{"HeavyAliasedConnections", aliased(30, "contacts(first: 100) { totalCount edges { node { id name phoneNumber } } }"), "COMPLEXITY_LIMIT_EXCEEDED"},
		{"HugeFirst", "{ contacts(first: 1000000) { edges { node { id } } } }", "COMPLEXITY_LIMIT_EXCEEDED"},
		{"UnpagedNestedLists", "{ viewer { organization { teams { members { user { id } } organization { teams { members { user { id } } } } } } } }", "COMPLEXITY_LIMIT_EXCEEDED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := admin.GraphQL(tc.query, nil)
			expectRefused(t, r, tc.code)
			t.Log(r.String("errors.0.message"))
		})
	}
	t.Run("UISizedQueryWorks", func(t *testing.T) {
		r := admin.GraphQL(`query Inbox($n: Int) {
			viewer { user { id email fullName } role { name permissions { resource action } } permissions organizations { roleName isDefault organization { id name } } }
			contacts(first: $n, orderBy: {field: LAST_MESSAGE_AT, direction: DESC}) {
				totalCount pageInfo { hasNextPage endCursor }
				edges { cursor node { id name phoneNumber profileName unreadCount lastMessageAt serviceWindowOpen } }
			}
			teams(first: 50) { totalCount edges { node { id name memberCount members { user { id fullName } } } } }
		}`, map[string]any{"n": 50}).ExpectStatus(t, http.StatusOK)
		if r.Get("errors") != nil || r.Get("data.viewer.user.id") == nil {
			t.Fatalf("UI query: %s", r.Raw)
		}
	})
	t.Run("DeepButWithinLimit", func(t *testing.T) {
		r := admin.GraphQL(nested(2), nil).ExpectStatus(t, http.StatusOK)
		if r.Get("errors") != nil {
			t.Fatalf("query of depth 11: %s", r.Raw)
		}
	})
	t.Run("IntrospectionWorks", func(t *testing.T) {
		r := admin.GraphQL(introspectionQuery, nil).ExpectStatus(t, http.StatusOK)
		if r.Get("errors") != nil || r.Len("data.__schema.types") < 10 {
			t.Fatalf("introspection: %.500s", r.Raw)
		}
	})
}

// introspectionQuery is the query GraphiQL and most clients send.
const introspectionQuery = `query IntrospectionQuery {
  __schema {
    queryType { name } mutationType { name } subscriptionType { name }
    types { ...FullType }
    directives { name description locations args { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description
  fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type {
  kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }
}`

func TestGraphQLBadRequests(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	query := `query($w: ContactWhereInput) { contacts(first: 5, where: $w) { totalCount } }`
	for _, tc := range []struct {
		name string
		body string
	}{
		{"Garbage", `garbage`},
		{"QueryNotAString", `{"query":1}`},
		{"Truncated", `{"query":"{ viewer { user { id } } }"`},
		{"Batch", `[{"query":"{ viewer { user { id } } }"},{"query":"{ viewer { user { id } } }"}]`},
		{"Empty", ``},
		{"TrailingData", `{"query":"{ viewer { user { id } } }"} {}`},
		{"TooLarge", `{"query":"{ viewer { user { id } } }","variables":{"x":"` + strings.Repeat("a", 1<<20) + `"}}`},
		{"NULInVariable", `{"query":` + quote(query) + `,"variables":{"w":{"nameContains":"a\u0000b"}}}`},
		{"NULInLiteral", `{"query":"{ contacts(first: 5, where: {nameContains: \"a\\u0000b\"}) { totalCount } }"}`},
		{"NULInBracedEscape", `{"query":"{ contacts(first: 5, where: {nameContains: \"a\\u{0}b\"}) { totalCount } }"}`},
		{"RawNULByte", "{\"query\":\"{ viewer { user { id } } }\x00\"}"},
		{"ParseError", `{"query":"{ viewer { "}`},
		{"UnknownField", `{"query":"{ nope }"}`},
		{"SubscriptionOverPOST", `{"query":"subscription { contactChanged { id } }"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectRefused(t, admin.Do(http.MethodPost, "/graphql", tc.body), "")
		})
	}
	t.Run("NULInGetQuery", func(t *testing.T) {
		r := admin.Do(http.MethodGet, "/graphql?query="+url.QueryEscape(`{ contacts(first: 5, where: {nameContains: "a\u0000b"}) { totalCount } }`), nil)
		expectRefused(t, r, "")
	})
	t.Run("ValidStillWorks", func(t *testing.T) {
		r := admin.Do(http.MethodPost, "/graphql", `{"query":`+quote(query)+`,"variables":{"w":{"nameContains":"ab"}}}`).ExpectStatus(t, http.StatusOK)
		if r.Get("errors") != nil || r.Get("data.contacts.totalCount") == nil {
			t.Fatalf("valid query: %s", r.Raw)
		}
	})
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
