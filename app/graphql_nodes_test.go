package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/database"
	"switchboard/ent/role"
	"switchboard/ent/viewer"
	"switchboard/graph"
	"switchboard/internal/apitest"
)

// nodesQuery looks up $ids with selection.
func nodesQuery(selection string) string {
	return `query($ids: [ID!]!) { nodes(ids: $ids) { ` + selection + ` } }`
}

// contactWithConversation selects a contact with two of its lists: about
// 180 in complexity per node, so 10 nodes fit graph.MaxComplexity and 100
// do not.
const contactWithConversation = `__typename ... on Contact { id name phoneNumber
	messages { id status messageType chatAccount createdAt } notes { id content } }`

// servedStatements serves one GraphQL request in-process and returns its
// answer and the SQL statements it ran.
func servedStatements(t *testing.T, env *apitest.Env, c *apitest.Client, body any) (*httptest.ResponseRecorder, *database.Statements) {
	t.Helper()
	raw, _ := json.Marshal(body)
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Content-Type", "application/json")
	var n database.Statements
	req = req.WithContext(database.CountStatements(req.Context(), &n))
	rec := httptest.NewRecorder()
	env.App.Handler.ServeHTTP(rec, req)
	return rec, &n
}

// mixedNodeIDs returns n ids of the bootstrap organization's objects:
// the organization, the admin, the system roles, then contacts.
func mixedNodeIDs(t *testing.T, env *apitest.Env, n int) []string {
	t.Helper()
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	c := env.Client()
	ids := []string{env.OrgID.String(), env.Admin.UserID.String()}
	roles, err := c.Role.Query().Where(role.IsSystem(true)).IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range roles {
		ids = append(ids, id.String())
	}
	for i := 0; len(ids) < n; i++ {
		ct := c.Contact.Create().SetPhoneNumber(fmt.Sprintf("1555020%04d", i)).SaveX(ctx)
		ids = append(ids, ct.ID.String())
	}
	return ids[:n]
}

// TestNodesIDsAreBounded: nodes(ids:) looks up at most graph.MaxNodeIDs ids
// per operation (one query each), refused before any runs, and each id
// counts in the complexity.
func TestNodesIDsAreBounded(t *testing.T) {
	env := apitest.New(t)
	ids := mixedNodeIDs(t, env, graph.MaxNodeIDs)
	contacts := ids[len(ids)-10:]

	t.Run("MixedTypesAtTheCap", func(t *testing.T) {
		r := env.Admin.GraphQL(nodesQuery("__typename id"), map[string]any{"ids": ids}).ExpectStatus(t, http.StatusOK)
		if r.Get("errors") != nil || r.Len("data.nodes") != len(ids) {
			t.Fatalf("nodes: %.500s", r.Raw)
		}
		types := map[string]bool{}
		for i := range ids {
			if r.String(fmt.Sprintf("data.nodes.%d.id", i)) != ids[i] {
				t.Fatalf("node %d: %.300s", i, r.Raw)
			}
			types[r.String(fmt.Sprintf("data.nodes.%d.__typename", i))] = true
		}
		for _, typ := range []string{"Organization", "User", "Role", "Contact"} {
			if !types[typ] {
				t.Errorf("no %s among the nodes: %v", typ, types)
			}
		}
	})

	over := append(append([]string(nil), ids...), uuid.NewString())
	aliased := `query($a: [ID!]!, $b: [ID!]!) { a: nodes(ids: $a) { id } b: nodes(ids: $b) { id } }`
	for _, tc := range []struct {
		name string
		body map[string]any
	}{
		{"OneMoreThanTheCap", map[string]any{"query": nodesQuery("id"), "variables": map[string]any{"ids": over}}},
		{"SplitOverAliases", map[string]any{"query": aliased, "variables": map[string]any{"a": ids[:60], "b": ids[:41]}}},
		{"Literal", map[string]any{"query": `{ nodes(ids: ["` + strings.Join(over, `", "`) + `"]) { id } }`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, statements := servedStatements(t, env, env.Admin, tc.body)
			r := &apitest.Response{Status: rec.Code, Raw: rec.Body.Bytes()}
			_ = json.Unmarshal(r.Raw, &r.Body)
			expectRefused(t, r, graph.CodeNodesLimit)
			for _, text := range statements.Texts() {
				if strings.Contains(text, "UNION ALL") {
					t.Fatalf("a node lookup ran before the refusal: %.200s", text)
				}
			}
			// As many statements as an operation refused for its depth:
			// authenticating the request, nothing of the operation.
			_, refused := servedStatements(t, env, env.Admin, map[string]any{"query": nested(4)})
			if statements.N() != refused.N() {
				t.Errorf("%d statements, %d for an operation refused for its depth", statements.N(), refused.N())
			}
		})
	}

	t.Run("ComplexityGrowsWithTheIDs", func(t *testing.T) {
		r := env.Admin.GraphQL(nodesQuery(contactWithConversation), map[string]any{"ids": contacts}).ExpectStatus(t, http.StatusOK)
		if r.Get("errors") != nil || r.String("data.nodes.0.__typename") != "Contact" {
			t.Fatalf("10 contacts: %.500s", r.Raw)
		}
		r = env.Admin.GraphQL(nodesQuery(contactWithConversation), map[string]any{"ids": ids})
		expectRefused(t, r, "COMPLEXITY_LIMIT_EXCEEDED")
	})
}
