package app_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

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
// 230 in complexity per node (a page of 20 messages, 20 notes), so 10
// nodes fit graph.MaxComplexity and 100 do not.
const contactWithConversation = `__typename ... on Contact { id name phoneNumber
	messages(last: 20) { edges { node { id status messageType chatAccount createdAt } } } notes { id content } }`

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
			r, statements := env.Admin.Statements(t, http.MethodPost, "/graphql", tc.body)
			expectRefused(t, r, graph.CodeNodesLimit)
			for _, text := range statements.Texts() {
				if strings.Contains(text, "UNION ALL") {
					t.Fatalf("a node lookup ran before the refusal: %.200s", text)
				}
			}
			// As many statements as an operation refused for its depth:
			// authenticating the request, nothing of the operation.
			_, refused := env.Admin.Statements(t, http.MethodPost, "/graphql", map[string]any{"query": nested(4)})
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
