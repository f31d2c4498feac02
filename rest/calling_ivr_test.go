package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/access"
)

var ivrFlowKeys = []string{"id", "organization_id", "chat_account", "name", "description", "is_active", "is_call_start",
	"is_outgoing_end", "menu", "welcome_audio_url", "created_by_id", "updated_by_id", "created_at", "updated_at"}

// greetingMenu is a valid menu: a greeting, then goodbye.
func greetingMenu(text string) map[string]any {
	return map[string]any{"nodes": []any{
		map[string]any{"id": "g", "type": "greeting", "label": "Hello", "config": map[string]any{"greeting_text": text}},
		map[string]any{"id": "bye", "type": "hangup", "config": map[string]any{"goodbye_text": "Bye"}},
	}}
}

func TestIVRFlows(t *testing.T) {
	e := newSendEnv(t)
	admin, agent, manager := e.Admin, e.NewUser(e.OrgID, access.RoleAgent), e.NewUser(e.OrgID, access.RoleManager)
	other := e.NewOrg("Elsewhere")
	mustCreateAccount(t, admin, acctBody("Second", map[string]any{"phone_id": newPhoneID()}))

	var firstID, secondID string
	t.Run("Create", func(t *testing.T) {
		res := admin.Do(http.MethodPost, "/api/ivr-flows", map[string]any{
			"chat_account": "Main", "name": "  Front desk ", "description": "Office hours", "is_call_start": true,
			"menu": greetingMenu("Welcome"),
		}).ExpectStatus(t, http.StatusCreated)
		expectKeys(t, res, "data", ivrFlowKeys...)
		firstID = res.String("data.id")
		if res.String("data.name") != "Front desk" || res.Get("data.is_active") != true || res.Get("data.is_call_start") != true ||
			res.Get("data.is_outgoing_end") != false || res.String("data.created_by_id") != admin.UserID.String() ||
			res.String("data.organization_id") != e.OrgID.String() || res.String("data.menu.nodes.0.config.greeting_text") != "Welcome" {
			t.Fatalf("created: %s", res.Raw)
		}
		res = manager.Do(http.MethodPost, "/api/ivr-flows", map[string]any{"chat_account": "Main", "name": "No menu yet"}).
			ExpectStatus(t, http.StatusCreated)
		secondID = res.String("data.id")
		if m, _ := res.Get("data.menu").(map[string]any); m == nil || len(m) != 0 || res.String("data.description") != "" {
			t.Fatalf("defaults: %s", res.Raw)
		}
	})
	t.Run("CreateErrors", func(t *testing.T) {
		long := strings.Repeat("n", 101)
		badRequests(t, admin, http.MethodPost, "/api/ivr-flows", map[string]any{
			"ErrMalformedJSON":    "{",
			"ErrEmptyBody":        "",
			"ErrAccountMissing":   `{"name":"x"}`,
			"ErrAccountUnknown":   `{"chat_account":"Nope","name":"x"}`,
			"ErrNameMissing":      `{"chat_account":"Main"}`,
			"ErrNameBlank":        `{"chat_account":"Main","name":"  "}`,
			"ErrNameTooLong":      `{"chat_account":"Main","name":"` + long + `"}`,
			"ErrIsActiveType":     `{"chat_account":"Main","name":"x","is_active":"yes"}`,
			"ErrMenuNotObject":    `{"chat_account":"Main","name":"x","menu":[1]}`,
			"ErrMenuNoNodes":      `{"chat_account":"Main","name":"x","menu":{"edges":[]}}`,
			"ErrMenuUnknownType":  `{"chat_account":"Main","name":"x","menu":{"nodes":[{"id":"a","type":"dance","config":{}}]}}`,
			"ErrMenuUnknownTeam":  `{"chat_account":"Main","name":"x","menu":{"nodes":[{"id":"t","type":"transfer","config":{"team_id":"` + uuid.NewString() + `"}}]}}`,
			"ErrMenuUnknownFlow":  `{"chat_account":"Main","name":"x","menu":{"nodes":[{"id":"f","type":"goto_flow","config":{"flow_id":"` + uuid.NewString() + `"}}]}}`,
			"ErrMenuUnknownAudio": `{"chat_account":"Main","name":"x","menu":{"nodes":[{"id":"g","type":"greeting","config":{"audio_file":"0123456789abcdef0123456789abcdef.ogg"}}]}}`,
		})
		// Another account's flow is no goto_flow target.
		res := admin.Do(http.MethodPost, "/api/ivr-flows", map[string]any{"chat_account": "Second", "name": "x",
			"menu": map[string]any{"nodes": []any{map[string]any{"id": "f", "type": "goto_flow", "config": map[string]any{"flow_id": firstID}}}}})
		res.ExpectError(t, http.StatusBadRequest)
		other.Do(http.MethodPost, "/api/ivr-flows", map[string]any{"chat_account": "Main", "name": "x"}).ExpectError(t, http.StatusBadRequest)
	})
	t.Run("CreateForbidden", func(t *testing.T) {
		agent.Do(http.MethodPost, "/api/ivr-flows", map[string]any{"chat_account": "Main", "name": "x"}).ExpectError(t, http.StatusForbidden)
		agent.Do(http.MethodPut, "/api/ivr-flows/"+firstID, map[string]any{"name": "x"}).ExpectError(t, http.StatusForbidden)
		agent.Do(http.MethodDelete, "/api/ivr-flows/"+firstID, nil).ExpectError(t, http.StatusForbidden)
	})
	t.Run("GotoFlowAndTransferReferences", func(t *testing.T) {
		team := admin.Do(http.MethodPost, "/api/teams", map[string]any{"name": "Sales"}).ExpectStatus(t, http.StatusCreated)
		teamID := team.String("data.id")
		if teamID == "" {
			teamID = team.String("data.team.id")
		}
		res := admin.Do(http.MethodPost, "/api/ivr-flows", map[string]any{"chat_account": "Main", "name": "Router",
			"menu": map[string]any{"nodes": []any{
				map[string]any{"id": "t", "type": "transfer", "config": map[string]any{"team_id": teamID}},
			}}}).ExpectStatus(t, http.StatusCreated)
		// An agent who is not in the team is refused.
		admin.Do(http.MethodPut, "/api/ivr-flows/"+res.String("data.id"), map[string]any{"menu": map[string]any{"nodes": []any{
			map[string]any{"id": "t", "type": "transfer", "config": map[string]any{"team_id": teamID, "agent_id": agent.UserID.String()}},
		}}}).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodPost, "/api/ivr-flows", map[string]any{"chat_account": "Main", "name": "Jump",
			"menu": map[string]any{"nodes": []any{map[string]any{"id": "f", "type": "goto_flow", "config": map[string]any{"flow_id": firstID}}}}}).
			ExpectStatus(t, http.StatusCreated)
	})
	t.Run("GetAndList", func(t *testing.T) {
		res := agent.Do(http.MethodGet, "/api/ivr-flows/"+firstID, nil).ExpectStatus(t, http.StatusOK)
		expectKeys(t, res, "data", ivrFlowKeys...)
		res = agent.Do(http.MethodGet, "/api/ivr-flows?limit=2", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total") != 4 || res.Len("data.ivr_flows") != 2 || res.Number("data.limit") != 2 || res.Number("data.page") != 1 {
			t.Fatalf("list: %s", res.Raw)
		}
		res = admin.Do(http.MethodGet, "/api/ivr-flows?account=Second", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total") != 0 {
			t.Fatalf("account filter: %s", res.Raw)
		}
		res = admin.Do(http.MethodGet, "/api/ivr-flows", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.limit") != 50 {
			t.Fatalf("default limit: %s", res.Raw)
		}
		admin.Do(http.MethodGet, "/api/ivr-flows?page=0", nil).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodGet, "/api/ivr-flows?limit=x", nil).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodGet, "/api/ivr-flows/not-a-uuid", nil).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodGet, "/api/ivr-flows/"+uuid.NewString(), nil).ExpectError(t, http.StatusNotFound)
		other.Do(http.MethodGet, "/api/ivr-flows/"+firstID, nil).ExpectError(t, http.StatusNotFound)
		if n := other.Do(http.MethodGet, "/api/ivr-flows", nil).ExpectStatus(t, http.StatusOK).Number("data.total"); n != 0 {
			t.Fatalf("another organization lists %v flows", n)
		}
	})
	t.Run("OneCallStartPerAccount", func(t *testing.T) {
		res := admin.Do(http.MethodPut, "/api/ivr-flows/"+secondID, map[string]any{"is_call_start": true, "is_outgoing_end": true}).
			ExpectStatus(t, http.StatusOK)
		if res.Get("data.is_call_start") != true || res.String("data.updated_by_id") != admin.UserID.String() {
			t.Fatalf("update: %s", res.Raw)
		}
		first := admin.Do(http.MethodGet, "/api/ivr-flows/"+firstID, nil).ExpectStatus(t, http.StatusOK)
		if first.Get("data.is_call_start") != false || first.String("data.name") != "Front desk" {
			t.Fatalf("the other flow kept the call start: %s", first.Raw)
		}
		// An inactive flow takes no role from the others.
		admin.Do(http.MethodPut, "/api/ivr-flows/"+firstID, map[string]any{"is_call_start": true, "is_outgoing_end": true, "is_active": false}).
			ExpectStatus(t, http.StatusOK)
		second := admin.Do(http.MethodGet, "/api/ivr-flows/"+secondID, nil).ExpectStatus(t, http.StatusOK)
		if second.Get("data.is_call_start") != true || second.Get("data.is_outgoing_end") != true {
			t.Fatalf("an inactive flow took the roles: %s", second.Raw)
		}
		admin.Do(http.MethodPut, "/api/ivr-flows/"+firstID, map[string]any{"is_active": true}).ExpectStatus(t, http.StatusOK)
		second = admin.Do(http.MethodGet, "/api/ivr-flows/"+secondID, nil).ExpectStatus(t, http.StatusOK)
		if second.Get("data.is_call_start") != false || second.Get("data.is_outgoing_end") != false {
			t.Fatalf("two active call starts: %s", second.Raw)
		}
	})
	t.Run("UpdatePartial", func(t *testing.T) {
		res := admin.Do(http.MethodPut, "/api/ivr-flows/"+firstID, map[string]any{"description": "Nights too"}).ExpectStatus(t, http.StatusOK)
		if res.String("data.description") != "Nights too" || res.String("data.name") != "Front desk" ||
			res.String("data.menu.nodes.0.config.greeting_text") != "Welcome" {
			t.Fatalf("partial update: %s", res.Raw)
		}
		badRequests(t, admin, http.MethodPut, "/api/ivr-flows/"+firstID, map[string]any{
			"ErrName":    `{"name":""}`,
			"ErrAccount": `{"chat_account":"Nope"}`,
			"ErrMenu":    `{"menu":{"nodes":[{"id":"a"}]}}`,
		})
		other.Do(http.MethodPut, "/api/ivr-flows/"+firstID, map[string]any{"name": "x"}).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodPut, "/api/ivr-flows/"+uuid.NewString(), map[string]any{"name": "x"}).ExpectError(t, http.StatusNotFound)
	})
	t.Run("Delete", func(t *testing.T) {
		other.Do(http.MethodDelete, "/api/ivr-flows/"+secondID, nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodDelete, "/api/ivr-flows/"+secondID, nil).ExpectStatus(t, http.StatusOK)
		admin.Do(http.MethodGet, "/api/ivr-flows/"+secondID, nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodPut, "/api/ivr-flows/"+secondID, map[string]any{"name": "x"}).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodDelete, "/api/ivr-flows/"+secondID, nil).ExpectError(t, http.StatusNotFound)
		if n := admin.Do(http.MethodGet, "/api/ivr-flows", nil).ExpectStatus(t, http.StatusOK).Number("data.total"); n != 3 {
			t.Fatalf("a deleted flow is listed: total %v", n)
		}
		// The row stays, soft-deleted.
		flow, err := e.Client().IVRFlow.Get(e.ctx, uuid.MustParse(secondID))
		if err != nil || flow.DeletedAt == nil {
			t.Fatalf("soft delete: %+v, %v", flow, err)
		}
	})
	t.Run("GraphQL", func(t *testing.T) {
		res := manager.GraphQL(`mutation($in: IVRFlowInput!) { createIVRFlow(input: $in) { id name chatAccount isActive isCallStart menu } }`,
			map[string]any{"in": map[string]any{"chatAccount": "Second", "name": "Night line", "isCallStart": true, "menu": greetingMenu("Closed")}})
		if res.Status != http.StatusOK || res.String("data.createIVRFlow.name") != "Night line" || res.Get("data.createIVRFlow.isActive") != true ||
			res.String("data.createIVRFlow.menu.nodes.0.config.greeting_text") != "Closed" {
			t.Fatalf("createIVRFlow: %s", res.Raw)
		}
		id := res.String("data.createIVRFlow.id")
		res = agent.GraphQL(`mutation($id: ID!) { updateIVRFlow(id: $id, input: {name: "x"}) { id } }`, map[string]any{"id": id})
		if res.GraphQLErrorCode() != "forbidden" {
			t.Fatalf("agent update: %s", res.Raw)
		}
		res = manager.GraphQL(`mutation { createIVRFlow(input: {chatAccount: "Nope", name: "x"}) { id } }`, nil)
		if res.GraphQLErrorCode() != "invalid" {
			t.Fatalf("unknown account: %s", res.Raw)
		}
		res = agent.GraphQL(`query { ivrFlows(account: "Second") { total ivrFlows { id name isCallStart } } }`, nil)
		if res.Number("data.ivrFlows.total") != 1 || res.String("data.ivrFlows.ivrFlows.0.id") != id {
			t.Fatalf("ivrFlows: %s", res.Raw)
		}
		res = agent.GraphQL(`query($id: ID!) { ivrFlow(id: $id) { name } }`, map[string]any{"id": id})
		if res.String("data.ivrFlow.name") != "Night line" {
			t.Fatalf("ivrFlow: %s", res.Raw)
		}
		res = manager.GraphQL(`mutation($id: ID!) { deleteIVRFlow(id: $id) }`, map[string]any{"id": id})
		if res.Get("data.deleteIVRFlow") != true {
			t.Fatalf("deleteIVRFlow: %s", res.Raw)
		}
		res = other.GraphQL(`query($id: ID!) { ivrFlow(id: $id) { name } }`, map[string]any{"id": firstID})
		if res.GraphQLErrorCode() != "not_found" {
			t.Fatalf("another organization's flow: %s", res.Raw)
		}
	})
}
