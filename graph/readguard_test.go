package graph_test

import (
	"os"
	"regexp"
	"testing"

	"switchboard/graph"
)

// TestEveryEntityHasAReadPermission keeps the read guard closed: a new
// entity type must be given its permission before it can be reached.
func TestEveryEntityHasAReadPermission(t *testing.T) {
	src, err := os.ReadFile("../ent.graphql")
	if err != nil {
		t.Fatal(err)
	}
	types := regexp.MustCompile(`(?m)^type (\w+) implements Node`).FindAllSubmatch(src, -1)
	if len(types) < 30 {
		t.Fatalf("found %d entity types in ent.graphql", len(types))
	}
	for _, m := range types {
		if _, ok := graph.ReadPermission(string(m[1])); !ok {
			t.Errorf("entity %s has no read permission in graph.readPermissions", m[1])
		}
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
	const messagesEdge = `query($id: ID!) { contact(id: $id) { id messages { id } } }`
	runErrorCases(t, []errorCase{
		{"agent reads an account by node", agent, nodeOp, vars{"id": env.accountID}, "forbidden"},
		{"agent reads an account by nodes", agent, nodesOp, vars{"ids": []string{contact.ID.String(), env.accountID}}, "forbidden"},
		{"contacts-only role reads a message by node", contactsOnly, nodeOp, vars{"id": messageID(t, env, contact.ID.String())}, "forbidden"},
	})

	// The contact itself is readable; only the edge is refused (null).
	res := contactsOnly.GraphQL(messagesEdge, vars{"id": contact.ID.String()})
	if res.GraphQLErrorCode() != "forbidden" || res.String("data.contact.id") != contact.ID.String() || res.Get("data.contact.messages") != nil {
		t.Fatalf("contacts-only role reads messages through the contact: %s", res.Raw)
	}
	res = mustGraphQL(t, agent, nodeOp, vars{"id": contact.ID.String()})
	if res.String("data.node.id") != contact.ID.String() {
		t.Fatalf("agent reads a contact by node: %s", res.Raw)
	}
	res = mustGraphQL(t, agent, messagesEdge, vars{"id": contact.ID.String()})
	if n := len(res.Get("data.contact.messages").([]any)); n != 1 {
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
