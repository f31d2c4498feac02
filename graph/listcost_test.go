package graph_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"switchboard/auth"
	"switchboard/ent"
	"switchboard/ent/role"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
)

// listRows is how many rows of each list the cost test seeds.
const listRows = 24

// seedLists gives the bootstrap organization listRows of each listed
// entity, each with the related data its list shows.
func seedLists(t *testing.T, env *apitest.Env) {
	t.Helper()
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	c := env.Client()
	agent, err := c.Role.Query().Where(role.Name("Agent")).Only(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hash, _ := auth.HashPassword(apitest.UserPassword)
	for i := range listRows {
		u := c.User.Create().SetEmail(fmt.Sprintf("list-%d@example.com", i)).SetFullName(fmt.Sprintf("List %d", i)).
			SetPasswordHash(hash).SaveX(ctx)
		c.OrganizationMember.Create().SetUserID(u.ID).SetRoleID(agent.ID).ExecX(ctx)
		tm := c.Team.Create().SetName(fmt.Sprintf("Team %02d", i)).SetCreatedByID(u.ID).SaveX(ctx)
		c.TeamMember.Create().SetTeamID(tm.ID).SetUserID(u.ID).ExecX(ctx)
		c.Role.Create().SetName(fmt.Sprintf("Role %02d", i)).AddPermissionIDs(agentPermissionIDs(t, c, ctx, agent)...).ExecX(ctx)
		c.APIKey.Create().SetName(fmt.Sprintf("Key %02d", i)).SetKeyPrefix(fmt.Sprintf("%08d", i)).
			SetKeyHash([]byte(uuid.NewString())).SetUserID(u.ID).ExecX(ctx)
		c.CannedResponse.Create().SetName(fmt.Sprintf("Canned %02d", i)).SetContent("x").SetCreatedByID(u.ID).ExecX(ctx)
		c.Contact.Create().SetPhoneNumber(fmt.Sprintf("1555010%04d", i)).SetName(fmt.Sprintf("C %d", i)).ExecX(ctx)
		c.WebhookSubscription.Create().SetName(fmt.Sprintf("Hook %02d", i)).SetURL("https://example.com/h").
			SetEvents([]string{"message:incoming"}).SetCreatedByID(u.ID).ExecX(ctx)
		c.Account.Create().SetName(fmt.Sprintf("Line %02d", i)).SetPhoneID(fmt.Sprintf("9%014d", i)).
			SetBusinessID("1").SetCreatedByID(u.ID).SetUpdatedByID(u.ID).ExecX(ctx)
	}
}

func agentPermissionIDs(t *testing.T, c *ent.Client, ctx context.Context, r *ent.Role) []uuid.UUID {
	t.Helper()
	ids, err := r.QueryPermissions().IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestListCostDoesNotGrowWithPageSize: every list of REST and GraphQL, with
// the related data it shows (counts, names, roles), costs as many SQL
// statements for a page of 20 as for a page of 2 (no query per row).
func TestListCostDoesNotGrowWithPageSize(t *testing.T) {
	env := apitest.New(t)
	seedLists(t, env)
	rest := []string{"/api/teams", "/api/roles", "/api/users", "/api/organizations/members", "/api/api-keys",
		"/api/canned-responses", "/api/contacts", "/api/webhooks", "/api/accounts"}
	for _, path := range rest {
		t.Run("REST "+path, func(t *testing.T) {
			small := env.Admin.FewestStatements(t, http.MethodGet, path+"?limit=2", nil)
			large := env.Admin.FewestStatements(t, http.MethodGet, path+"?limit=20", nil)
			if large != small {
				t.Errorf("%d statements for 2 rows, %d for 20", small, large)
			}
		})
	}
	gql := map[string]string{
		"teams":                `teams(first: $n) { edges { node { name memberCount } } }`,
		"roles":                `roles(first: $n) { edges { node { name permissionCount permissions { resource } } } }`,
		"users":                `users(first: $n) { edges { node { fullName roleName roleID } } }`,
		"members":              `members(first: $n) { edges { node { email fullName isActive roleName } } }`,
		"apiKeys":              `apiKeys(first: $n) { edges { node { name keyPrefix } } }`,
		"cannedResponses":      `cannedResponses(first: $n) { edges { node { name } } }`,
		"contacts":             `contacts(first: $n) { edges { node { name serviceWindowOpen } } }`,
		"webhookSubscriptions": `webhookSubscriptions(first: $n) { edges { node { name hasSecret headers } } }`,
	}
	for name, field := range gql {
		t.Run("GraphQL "+name, func(t *testing.T) {
			q := map[string]any{"query": `query($n: Int) { ` + field + ` }`}
			small := env.Admin.FewestStatements(t, http.MethodPost, "/graphql", withN(q, 2))
			large := env.Admin.FewestStatements(t, http.MethodPost, "/graphql", withN(q, 20))
			if large != small {
				t.Errorf("%d statements for 2 rows, %d for 20", small, large)
			}
		})
	}
}

// TestAccountListCostIsFixed: the accounts list is not paged; with its
// creators' and updaters' names it still costs a fixed number of
// statements for all listRows accounts.
func TestAccountListCostIsFixed(t *testing.T) {
	env := apitest.New(t)
	seedLists(t, env)
	q := map[string]any{"query": `{ accounts { name createdByName updatedByName hasAccessToken } }`}
	if n := env.Admin.FewestStatements(t, http.MethodPost, "/graphql", q); n > 4 {
		t.Errorf("%d statements for %d accounts", n, listRows)
	}
	if n := env.Admin.CountStatements(t, http.MethodGet, "/api/accounts", nil); n > 4 {
		t.Errorf("REST: %d statements for %d accounts", n, listRows)
	}
}

func withN(q map[string]any, n int) map[string]any {
	return map[string]any{"query": q["query"], "variables": map[string]any{"n": n}}
}

// TestConversationListCostIsFixed: a list of contacts with each one's
// newest messages (Contact.messages, an inbox) costs as many statements
// for 50 contacts as for 5: the pages of the list's contacts are one
// read, and their totals are the contacts' counters.
func TestConversationListCostIsFixed(t *testing.T) {
	env := apitest.New(t)
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	c := env.Client()
	for i := range 60 {
		ct := c.Contact.Create().SetPhoneNumber(fmt.Sprintf("1555020%04d", i)).SaveX(ctx)
		seedConversation(t, c, ctx, ct.ID, 4)
	}
	q := map[string]any{"query": `query($n: Int) { contacts(first: $n) { edges { node { id
		messages(last: 3) { totalCount edges { node { id } } pageInfo { hasPreviousPage } } } } } }`}
	small := env.Admin.FewestStatements(t, http.MethodPost, "/graphql", withN(q, 5))
	large := env.Admin.FewestStatements(t, http.MethodPost, "/graphql", withN(q, 50))
	if large != small {
		t.Errorf("%d statements for 5 contacts' conversations, %d for 50", small, large)
	}
}
