package graph_test

import (
	"net/http"
	"testing"

	"switchboard/access"
	"switchboard/internal/apitest"
)

func TestGraphQLTeams(t *testing.T) {
	env := apitest.New(t)
	admin, agent := env.Admin, env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Other")

	create := `mutation($in: CreateTeamInput!) { createTeam(input: $in) { id name assignmentStrategy memberCount } }`
	res := admin.GraphQL(create, map[string]any{"in": map[string]any{"name": "Support", "assignmentStrategy": "manual"}}).ExpectStatus(t, http.StatusOK)
	id := res.String("data.createTeam.id")
	if id == "" || res.String("data.createTeam.assignmentStrategy") != "manual" {
		t.Fatalf("createTeam: %s", res.Raw)
	}
	foreign := other.GraphQL(create, map[string]any{"in": map[string]any{"name": "Theirs"}}).String("data.createTeam.id")

	t.Run("Viewer", func(t *testing.T) {
		r := agent.GraphQL(`{ viewer { user { email } role { name } permissions organizations { roleName } } }`, nil)
		if r.String("data.viewer.role.name") != "Agent" || r.Len("data.viewer.permissions") == 0 {
			t.Fatalf("viewer: %s", r.Raw)
		}
	})
	t.Run("ConnectionWithFilterAndOrder", func(t *testing.T) {
		admin.GraphQL(create, map[string]any{"in": map[string]any{"name": "Billing"}})
		r := agent.GraphQL(`{ teams(first: 10, orderBy: {field: NAME, direction: ASC}, where: {isActive: true}) {
			totalCount edges { node { name } } } }`, nil)
		if r.Number("data.teams.totalCount") != 2 || r.String("data.teams.edges.0.node.name") != "Billing" {
			t.Fatalf("teams: %s", r.Raw)
		}
		r = agent.GraphQL(`{ teams(first: 10, search: "supp") { totalCount } }`, nil)
		if r.Number("data.teams.totalCount") != 1 {
			t.Fatalf("search: %s", r.Raw)
		}
	})
	t.Run("PermissionDenied", func(t *testing.T) {
		r := agent.GraphQL(create, map[string]any{"in": map[string]any{"name": "Nope"}})
		if r.GraphQLErrorCode() != "forbidden" {
			t.Fatalf("agent createTeam: %s", r.Raw)
		}
	})
	t.Run("CrossTenantNotFound", func(t *testing.T) {
		r := admin.GraphQL(`query($id: ID!) { team(id: $id) { name } }`, map[string]any{"id": foreign})
		if r.GraphQLErrorCode() != "not_found" {
			t.Fatalf("foreign team: %s", r.Raw)
		}
		r = admin.GraphQL(`query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": foreign})
		if r.GraphQLErrorCode() != "not_found" {
			t.Fatalf("foreign node: %s", r.Raw)
		}
		r = admin.GraphQL(`mutation($id: ID!) { deleteTeam(id: $id) }`, map[string]any{"id": foreign})
		if r.GraphQLErrorCode() != "not_found" {
			t.Fatalf("foreign delete: %s", r.Raw)
		}
	})
	t.Run("Node", func(t *testing.T) {
		r := admin.GraphQL(`query($id: ID!) { node(id: $id) { id ... on Team { name } } }`, map[string]any{"id": id})
		if r.String("data.node.name") != "Support" {
			t.Fatalf("node: %s", r.Raw)
		}
	})
	t.Run("BadInput", func(t *testing.T) {
		r := admin.GraphQL(create, map[string]any{"in": map[string]any{"name": "X", "assignmentStrategy": "random"}})
		if r.Get("errors") == nil {
			t.Fatalf("unknown enum accepted: %s", r.Raw)
		}
		r = admin.GraphQL(create, map[string]any{"in": map[string]any{"name": " "}})
		if r.GraphQLErrorCode() != "invalid" {
			t.Fatalf("blank name: %s", r.Raw)
		}
	})
	t.Run("Unauthenticated", func(t *testing.T) {
		// Refused before any resolver, in GraphQL's shape with the status.
		r := env.Anonymous().GraphQL(`{ viewer { user { email } } }`, nil).ExpectStatus(t, http.StatusUnauthorized)
		if r.GraphQLErrorCode() != "unauthenticated" {
			t.Fatalf("not a GraphQL error: %s", r.Raw)
		}
	})
	t.Run("MutationIsTransactional", func(t *testing.T) {
		r := admin.GraphQL(`mutation($id: ID!) { updateTeam(id: $id, input: {name: "Renamed", perAgentTimeoutSecs: -5}) { name } }`, map[string]any{"id": id})
		if r.GraphQLErrorCode() != "invalid" {
			t.Fatalf("update: %s", r.Raw)
		}
		got := admin.Do(http.MethodGet, "/api/teams/"+id, nil).ExpectStatus(t, http.StatusOK)
		if got.String("data.team.name") != "Support" {
			t.Fatalf("half-written update: %s", got.Raw)
		}
	})
}

func TestGraphQLUsersAndAdministration(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	agent := env.NewUser(env.OrgID, access.RoleAgent)

	r := admin.GraphQL(`{ members(first: 10) { totalCount edges { node { email fullName roleName isActive } } }
		users(first: 10) { totalCount edges { node { email roleName } } }
		roles(first: 10) { totalCount edges { node { name permissionCount isSystem } } }
		permissions { resource action }
		orgSettings { timezone } ssoConfigs { provider } currentOrganization { name } }`, nil)
	if r.Get("errors") != nil {
		t.Fatalf("queries: %s", r.Raw)
	}
	if r.Number("data.members.totalCount") != 2 || r.Number("data.roles.totalCount") != 3 || r.Len("data.permissions") < 40 {
		t.Fatalf("counts: %s", r.Raw)
	}
	created := admin.GraphQL(`mutation { createUser(input: {email: "new@example.com", fullName: "New", password: "a-long-enough-password"}) { user { email roleName } invitation { email } } }`, nil)
	if created.String("data.createUser.user.email") != "new@example.com" || created.String("data.createUser.user.roleName") != "Agent" {
		t.Fatalf("createUser: %s", created.Raw)
	}
	invited := admin.GraphQL(`mutation { createUser(input: {email: "later@example.com", fullName: "Later"}) { user { id } invitation { email } } }`, nil)
	if invited.String("data.createUser.invitation.email") != "later@example.com" {
		t.Fatalf("invite: %s", invited.Raw)
	}
	key := admin.GraphQL(`mutation { createAPIKey(input: {name: "ci"}) { key apiKey { keyPrefix isActive } } }`, nil)
	if len(key.String("data.createAPIKey.key")) != 36 {
		t.Fatalf("createAPIKey: %s", key.Raw)
	}
	role := admin.GraphQL(`mutation { createRole(input: {name: "Auditor", permissions: ["contacts:read"]}) { name permissionCount } }`, nil)
	if role.Number("data.createRole.permissionCount") != 1 {
		t.Fatalf("createRole: %s", role.Raw)
	}
	denied := agent.GraphQL(`{ users(first: 5) { totalCount } }`, nil)
	if denied.GraphQLErrorCode() != "forbidden" {
		t.Fatalf("agent users: %s", denied.Raw)
	}
	avail := agent.GraphQL(`mutation { setAvailability(isAvailable: false) { isAvailable } }`, nil)
	if avail.Get("data.setAvailability.isAvailable") != false {
		t.Fatalf("availability: %s", avail.Raw)
	}
}
