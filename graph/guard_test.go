package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"

	"switchboard/access"
	"switchboard/graph"
	"switchboard/internal/apitest"
)

// TestOrganizationSettingsNeedSettingsRead: the settings of the
// organization need settings:read however GraphQL reaches them, as GET
// /api/org/settings does; the organization's name does not.
func TestOrganizationSettingsNeedSettingsRead(t *testing.T) {
	env := apitest.New(t)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	for _, q := range []string{
		`{ currentOrganization { name timezone } }`,
		`{ currentOrganization { maskPhoneNumbers } }`,
		`{ viewer { organization { dateFormat } } }`,
		`{ orgSettings { name } }`,
	} {
		if code := agent.GraphQL(q, nil).GraphQLErrorCode(); code != "forbidden" {
			t.Errorf("%s: code %q, want forbidden", q, code)
		}
	}
	res := mustGraphQL(t, agent, `{ currentOrganization { id name } }`, nil)
	if res.String("data.currentOrganization.name") == "" {
		t.Fatalf("the organization's name: %s", res.Raw)
	}
	res = mustGraphQL(t, env.Admin, `{ currentOrganization { timezone } }`, nil)
	if res.String("data.currentOrganization.timezone") == "" {
		t.Fatalf("an Admin reads the settings: %s", res.Raw)
	}
}

// TestReadGuard checks that an entity needs its read permission however it
// is reached: node(id:), nodes(ids:), and edges of readable entities.
func TestReadGuard(t *testing.T) {
	env := newMessagingEnv(t)
	agent := env.NewUser(env.OrgID, "Agent")
	contact := env.newContact(t, "15550109001", true)
	mustGraphQL(t, env.Admin, `mutation($id: ID!, $in: SendMessageInput!) { sendMessage(contactId: $id, input: $in) { id } }`,
		vars{"id": contact.ID.String(), "in": vars{"type": "text", "body": "hello"}})
	contactsOnly := newReader(t, env.Env, "contacts:read")

	const nodeOp = `query($id: ID!) { node(id: $id) { id } }`
	const nodesOp = `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`
	const messagesEdge = `query($id: ID!) { contact(id: $id) { id messages(last: 20) { totalCount edges { node { id } } } } }`
	runErrorCases(t, []errorCase{
		{"agent reads an account by node", agent, nodeOp, vars{"id": env.accountID}, "forbidden"},
		{"agent reads an account by nodes", agent, nodesOp, vars{"ids": []string{contact.ID.String(), env.accountID}}, "forbidden"},
		{"contacts-only role reads a message by node", contactsOnly, nodeOp, vars{"id": messageID(t, env, contact.ID.String())}, "forbidden"},
	})

	// The contact itself is readable; the connection is refused (a
	// MessageConnection!, so its null reaches the root).
	res := contactsOnly.GraphQL(messagesEdge, vars{"id": contact.ID.String()})
	if res.GraphQLErrorCode() != "forbidden" || fmt.Sprint(res.Get("errors.0.path")) != "[contact messages]" || res.Get("data.contact.messages") != nil {
		t.Fatalf("contacts-only role reads messages through the contact: %s", res.Raw)
	}
	res = mustGraphQL(t, contactsOnly, `query($id: ID!) { contact(id: $id) { id } }`, vars{"id": contact.ID.String()})
	if res.String("data.contact.id") != contact.ID.String() {
		t.Fatalf("contacts-only role reads the contact: %s", res.Raw)
	}
	res = mustGraphQL(t, agent, nodeOp, vars{"id": contact.ID.String()})
	if res.String("data.node.id") != contact.ID.String() {
		t.Fatalf("agent reads a contact by node: %s", res.Raw)
	}
	res = mustGraphQL(t, agent, messagesEdge, vars{"id": contact.ID.String()})
	if n := res.Len("data.contact.messages.edges"); n != 1 || res.Number("data.contact.messages.totalCount") != 1 {
		t.Fatalf("agent reads the contact's messages: %d, %s", n, res.Raw)
	}
	res = mustGraphQL(t, env.Admin, nodeOp, vars{"id": env.accountID})
	if res.String("data.node.id") != env.accountID {
		t.Fatalf("admin reads the account by node: %s", res.Raw)
	}
}

func messageID(t *testing.T, env *messagingEnv, contactID string) string {
	t.Helper()
	res := mustGraphQL(t, env.Admin, `query($id: ID!) { messages(contactId: $id) { messages { id } } }`, vars{"id": contactID})
	return res.String("data.messages.messages.0.id")
}

// TestAgentRefusedOnEveryGraphQLField walks every query and mutation of the
// schema: an Agent is refused each one whose operation needs a permission
// the Agent role lacks, exactly as the REST route walk refuses the routes
// of those operations (both read access.Operations).
func TestAgentRefusedOnEveryGraphQLField(t *testing.T) {
	env := apitest.New(t)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	held := map[string]bool{}
	for _, sr := range access.SystemRoles() {
		if sr.Name == access.RoleAgent {
			for _, p := range sr.Permissions {
				held[p] = true
			}
		}
	}
	schema := graph.NewExecutableSchema(graph.Config{Resolvers: &graph.Resolver{}}).Schema()
	checked := 0
	for _, root := range []*ast.Definition{schema.Query, schema.Mutation} {
		for _, f := range root.Fields {
			op, ok := access.OperationOf(f.Name)
			if strings.HasPrefix(f.Name, "__") || !ok || op.Perm == access.Public || op.Perm == access.Authenticated || held[op.Perm] {
				continue
			}
			query := minimalOperation(schema, root, f)
			res := agent.GraphQL(query, nil)
			if code := res.GraphQLErrorCode(); code != "forbidden" {
				t.Errorf("%s.%s (%s): code %q, want forbidden; %s\n%s", root.Name, f.Name, op.Perm, code, query, res.Raw)
			}
			checked++
		}
	}
	if checked < 30 {
		t.Fatalf("only %d fields checked", checked)
	}
}

// minimalOperation writes an operation calling f with its required
// arguments filled with valid literals and the smallest selection.
func minimalOperation(schema *ast.Schema, root *ast.Definition, f *ast.FieldDefinition) string {
	var args []string
	for _, a := range f.Arguments {
		if a.Type.NonNull {
			args = append(args, a.Name+": "+literal(schema, a.Type))
		}
	}
	call := f.Name
	if len(args) > 0 {
		call += "(" + strings.Join(args, ", ") + ")"
	}
	if def := schema.Types[f.Type.Name()]; def != nil && (def.Kind == ast.Object || def.Kind == ast.Interface) {
		call += " { __typename }"
	}
	return strings.ToLower(root.Name) + " { " + call + " }"
}

// literal is a valid GraphQL literal of type t.
func literal(schema *ast.Schema, t *ast.Type) string {
	if t.Elem != nil {
		return "[" + literal(schema, t.Elem) + "]"
	}
	def := schema.Types[t.NamedType]
	switch {
	case def.Kind == ast.Enum:
		return def.EnumValues[0].Name
	case def.Kind == ast.InputObject:
		var fields []string
		for _, f := range def.Fields {
			if f.Type.NonNull {
				fields = append(fields, f.Name+": "+literal(schema, f.Type))
			}
		}
		return "{" + strings.Join(fields, ", ") + "}"
	}
	switch t.NamedType {
	case "ID", "UUID":
		return `"` + uuid.NewString() + `"`
	case "Int", "Float":
		return "1"
	case "Boolean":
		return "true"
	case "Time":
		return `"2030-01-01T00:00:00Z"`
	case "Map", "StringMap":
		return "{}"
	}
	return `"x"`
}

// TestConnectionPagesAreBounded: a connection asked without first or last
// returns a page of AssumedListSize (as its cost assumes), not every row;
// a page above MaxPageSize is refused, as REST caps limit.
func TestConnectionPagesAreBounded(t *testing.T) {
	env := apitest.New(t)
	seedLists(t, env)
	res := mustGraphQL(t, env.Admin, `{ contacts { edges { node { id } } pageInfo { hasNextPage } } }`, nil)
	if n := len(res.Get("data.contacts.edges").([]any)); n != graph.AssumedListSize || res.Get("data.contacts.pageInfo.hasNextPage") != true {
		t.Fatalf("unpaged: %d edges: %s", n, res.Raw)
	}
	res = mustGraphQL(t, env.Admin, `{ contacts(last: 3) { edges { node { id } } } }`, nil)
	if n := len(res.Get("data.contacts.edges").([]any)); n != 3 {
		t.Fatalf("last 3: %d edges", n)
	}
	for _, q := range []string{`{ contacts(first: 101) { totalCount } }`, `{ teams(last: 500) { totalCount } }`} {
		if code := env.Admin.GraphQL(q, nil).GraphQLErrorCode(); code != "invalid" {
			t.Errorf("%s: code %q, want invalid", q, code)
		}
	}
}
