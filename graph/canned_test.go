package graph_test

import (
	"testing"

	"switchboard/access"
	"switchboard/internal/apitest"
)

func TestGraphQLCannedResponses(t *testing.T) {
	env := apitest.New(t)
	admin, agent, other := env.Admin, env.NewUser(env.OrgID, access.RoleAgent), env.NewOrg("Other")
	fields := `id name shortcut content category isActive usageCount buttons`
	create := `mutation($in: CreateCannedResponseInput!) { createCannedResponse(input: $in) { ` + fields + ` } }`
	r := mustGraphQL(t, admin, create, vars{"in": vars{
		"name": "Greeting", "content": "Hi {{contact_name}} ({{phone_number}})", "shortcut": "/hi", "category": "Greetings",
		"buttons": []vars{{"id": "yes", "title": "Yes"}, {"id": "web", "title": "Our site", "type": "url", "url": "https://example.com"}},
	}})
	if r.String("data.createCannedResponse.buttons.0.type") != "reply" || r.String("data.createCannedResponse.buttons.1.url") != "https://example.com" ||
		r.Get("data.createCannedResponse.isActive") != true {
		t.Fatalf("createCannedResponse: %s", r.Raw)
	}
	id := r.String("data.createCannedResponse.id")
	mustGraphQL(t, admin, create, vars{"in": vars{"name": "Goodbye", "content": "Bye", "category": "Closing"}})
	foreignID := mustGraphQL(t, other, create, vars{"in": vars{"name": "Theirs", "content": "x"}}).String("data.createCannedResponse.id")
	contactID := mustGraphQL(t, admin, `mutation { createContact(input: {phoneNumber: "15550300001", profileName: "Dana"}) { id } }`, nil).
		String("data.createContact.id")
	foreignContact := mustGraphQL(t, other, `mutation { createContact(input: {phoneNumber: "15550300002"}) { id } }`, nil).
		String("data.createContact.id")

	t.Run("ConnectionFilters", func(t *testing.T) {
		list := `query($search: String, $category: String, $active: Boolean) { cannedResponses(first: 10, search: $search,
			category: $category, activeOnly: $active, orderBy: {field: NAME, direction: ASC}) { totalCount edges { node { name } } } }`
		for _, tc := range []struct {
			name  string
			vars  vars
			total float64
			first string
		}{
			{"All", nil, 2, "Goodbye"},
			{"SearchShortcut", vars{"search": "/HI"}, 1, "Greeting"},
			{"SearchContent", vars{"search": "bye"}, 1, "Goodbye"},
			{"CategoryFold", vars{"category": "closing"}, 1, "Goodbye"},
			{"ActiveOnly", vars{"active": true}, 2, "Goodbye"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := mustGraphQL(t, agent, list, tc.vars)
				if r.Number("data.cannedResponses.totalCount") != tc.total || r.String("data.cannedResponses.edges.0.node.name") != tc.first {
					t.Fatalf("cannedResponses: %s", r.Raw)
				}
			})
		}
	})
	t.Run("UseRendersContent", func(t *testing.T) {
		r := mustGraphQL(t, agent, `mutation($id: ID!, $c: ID) { useCannedResponse(id: $id, contactId: $c) }`, vars{"id": id, "c": contactID})
		if r.String("data.useCannedResponse") != "Hi Dana (15550300001)" {
			t.Fatalf("useCannedResponse: %s", r.Raw)
		}
		r = mustGraphQL(t, agent, `query($id: ID!) { cannedResponse(id: $id) { usageCount } }`, vars{"id": id})
		if r.Number("data.cannedResponse.usageCount") != 1 {
			t.Fatalf("usage not counted: %s", r.Raw)
		}
	})

	update := `mutation($id: ID!, $in: UpdateCannedResponseInput!) { updateCannedResponse(id: $id, input: $in) { ` + fields + ` } }`
	use := `mutation($id: ID!, $c: ID) { useCannedResponse(id: $id, contactId: $c) }`
	del := `mutation($id: ID!) { deleteCannedResponse(id: $id) }`
	runErrorCases(t, []errorCase{
		{"ErrNameBlank", admin, create, vars{"in": vars{"name": " ", "content": "x"}}, "invalid"},
		{"ErrShortcutTaken", admin, create, vars{"in": vars{"name": "Again", "content": "x", "shortcut": "/HI"}}, "invalid"},
		{"ErrButtonType", admin, create, vars{"in": vars{"name": "B", "content": "x", "buttons": []vars{{"id": "a", "title": "A", "type": "nope"}}}}, "invalid"},
		{"AgentCreateForbidden", agent, create, vars{"in": vars{"name": "Mine", "content": "x"}}, "forbidden"},
		{"AgentUpdateForbidden", agent, update, vars{"id": id, "in": vars{"name": "Mine"}}, "forbidden"},
		{"AgentDeleteForbidden", agent, del, vars{"id": id}, "forbidden"},
		{"CrossTenantGet", admin, `query($id: ID!) { cannedResponse(id: $id) { id } }`, vars{"id": foreignID}, "not_found"},
		{"CrossTenantUpdate", admin, update, vars{"id": foreignID, "in": vars{"name": "X"}}, "not_found"},
		{"CrossTenantUse", admin, use, vars{"id": foreignID}, "not_found"},
		{"CrossTenantContact", admin, use, vars{"id": id, "c": foreignContact}, "not_found"},
		{"CrossTenantDelete", admin, del, vars{"id": foreignID}, "not_found"},
	})

	t.Run("UpdateDeactivateDelete", func(t *testing.T) {
		r := mustGraphQL(t, admin, update, vars{"id": id, "in": vars{"isActive": false, "buttons": []vars{}}})
		if r.Get("data.updateCannedResponse.isActive") != false || r.Len("data.updateCannedResponse.buttons") != 0 ||
			r.String("data.updateCannedResponse.name") != "Greeting" {
			t.Fatalf("updateCannedResponse: %s", r.Raw)
		}
		expectCode(t, agent.GraphQL(use, vars{"id": id}), "invalid")
		if r := mustGraphQL(t, admin, del, vars{"id": id}); r.Get("data.deleteCannedResponse") != true {
			t.Fatalf("deleteCannedResponse: %s", r.Raw)
		}
		expectCode(t, admin.GraphQL(`query($id: ID!) { cannedResponse(id: $id) { id } }`, vars{"id": id}), "not_found")
	})
}
