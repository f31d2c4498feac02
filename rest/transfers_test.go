package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"switchboard/access"
	"switchboard/ent"
	"switchboard/ent/agenttransfer"
	"switchboard/ent/viewer"
	"switchboard/ent/webhookdelivery"
	"switchboard/events"
	"switchboard/internal/apitest"
	"switchboard/transfers"
)

var transferKeys = []string{
	"id", "contact_id", "contact_name", "phone_number", "chat_account", "status", "source", "agent_id",
	"agent_name", "team_id", "team_name", "notes", "transferred_at",
}

// setChatbot changes the organization's chatbot settings in the database
// (the settings endpoints belong to the chatbot package).
func setChatbot(t *testing.T, env *apitest.Env, orgID uuid.UUID, pickup, sameAgent, currentOnly bool) {
	t.Helper()
	ctx := viewer.SystemContext(context.Background(), orgID)
	c := env.Client()
	cs, err := c.ChatbotSettings.Query().First(ctx)
	if ent.IsNotFound(err) {
		cs, err = c.ChatbotSettings.Create().Save(ctx)
	}
	if err != nil {
		t.Fatalf("chatbot settings: %v", err)
	}
	if err := c.ChatbotSettings.UpdateOne(cs).SetAllowAgentQueuePickup(pickup).SetAssignToSameAgent(sameAgent).
		SetAgentCurrentConversationOnly(currentOnly).Exec(ctx); err != nil {
		t.Fatalf("chatbot settings: %v", err)
	}
}

// newTeam creates a team with the strategy and members (as agents).
func newTeam(t *testing.T, admin *apitest.Client, name, strategy string, members ...*apitest.Client) string {
	t.Helper()
	id := admin.Do(http.MethodPost, "/api/teams", map[string]any{"name": name, "assignment_strategy": strategy}).
		ExpectStatus(t, http.StatusCreated).String("data.team.id")
	for _, m := range members {
		admin.Do(http.MethodPost, "/api/teams/"+id+"/members", map[string]any{"user_id": m.UserID.String(), "role": "agent"}).
			ExpectStatus(t, http.StatusCreated)
	}
	return id
}

func createTransfer(t *testing.T, c *apitest.Client, contactID, teamID string) *apitest.Response {
	t.Helper()
	body := map[string]any{"contact_id": contactID, "chat_account": "Main", "notes": "wants a human", "source": "manual"}
	if teamID != "" {
		body["team_id"] = teamID
	}
	return c.Do(http.MethodPost, "/api/chatbot/transfers", body).ExpectStatus(t, http.StatusCreated)
}

func TestChatbotTransfers(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	manager := env.NewUser(env.OrgID, access.RoleManager)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	colleague := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")
	outsider := other.Do(http.MethodGet, "/api/me", nil).String("data.id")
	hook := admin.Do(http.MethodPost, "/api/webhooks", webhookBody("Transfers", "https://hooks.example.com/t", map[string]any{
		"events": []string{"transfer:created", "transfer:assigned", "transfer:resumed"},
	})).ExpectStatus(t, http.StatusCreated).String("data.id")
	live := wsDial(t, env.Server.URL, admin, false)
	teamID := newTeam(t, admin, "Billing", "manual", colleague)
	theirTeam := newTeam(t, other, "Theirs", "manual")
	c1 := newContact(t, admin, "+15550003001")
	c2 := newContact(t, admin, "+15550003002")
	c3 := newContact(t, admin, "+15550003003")
	theirContact := newContact(t, other, "+15550003009")
	foreignLive := wsDial(t, env.Server.URL, other, true)
	const path = "/api/chatbot/transfers"

	var generalID, teamTransferID string
	t.Run("Create", func(t *testing.T) {
		res := createTransfer(t, agent, c1, "")
		expectKeys(t, res, "data", transferKeys...)
		generalID = res.String("data.id")
		if res.String("data.status") != "active" || res.Get("data.agent_id") != nil || res.Get("data.team_id") != nil ||
			res.String("data.contact_id") != c1 || res.String("data.phone_number") != "15550003001" ||
			res.String("data.source") != "manual" || res.String("data.notes") != "wants a human" {
			t.Fatalf("transfer: %s", res.Raw)
		}
		ev := wsWaitFor(t, live, events.FrameAgentTransfer)
		if ev.Payload["id"] != generalID || ev.Payload["status"] != "active" {
			t.Errorf("event: %+v", ev)
		}
		res = createTransfer(t, agent, c2, teamID)
		teamTransferID = res.String("data.id")
		if res.String("data.team_id") != teamID || res.String("data.team_name") != "Billing" || res.Get("data.agent_id") != nil {
			t.Fatalf("manual team transfer: %s", res.Raw)
		}
		t.Run("ErrSecondActiveTransfer", func(t *testing.T) {
			agent.Do(http.MethodPost, path, map[string]any{"contact_id": c1}).ExpectError(t, http.StatusConflict)
		})
		badRequests(t, agent, http.MethodPost, path, map[string]any{
			"ErrMalformedJSON":  "{",
			"ErrEmptyBody":      "",
			"ErrMissingContact": `{}`,
			"ErrContactNotUUID": `{"contact_id": "x"}`,
			"ErrTeamNotUUID":    map[string]any{"contact_id": c3, "team_id": "x"},
			"ErrWrongType":      map[string]any{"contact_id": c3, "notes": 5},
			"ErrNotesTooLong":   map[string]any{"contact_id": c3, "notes": strings.Repeat("n", transfers.MaxNotesLength+1)},
			"ErrSource":         map[string]any{"contact_id": c3, "source": "Flow!"},
			"ErrChatAccount":    map[string]any{"contact_id": c3, "chat_account": strings.Repeat("a", transfers.MaxChatAccountLength+1)},
		})
		t.Run("ErrUnknownContact", func(t *testing.T) {
			agent.Do(http.MethodPost, path, map[string]any{"contact_id": uuid.NewString()}).ExpectError(t, http.StatusNotFound)
		})
		t.Run("ErrAnotherOrganizationsContact", func(t *testing.T) {
			agent.Do(http.MethodPost, path, map[string]any{"contact_id": theirContact}).ExpectError(t, http.StatusNotFound)
		})
		t.Run("ErrAnotherOrganizationsTeam", func(t *testing.T) {
			agent.Do(http.MethodPost, path, map[string]any{"contact_id": c3, "team_id": theirTeam}).ExpectError(t, http.StatusNotFound)
		})
		env.Anonymous().Do(http.MethodPost, path, map[string]any{"contact_id": c3}).ExpectError(t, http.StatusUnauthorized)
	})

	t.Run("List", func(t *testing.T) {
		// The agent is in no team: their view is the general queue.
		res := agent.Do(http.MethodGet, path, nil).ExpectStatus(t, http.StatusOK)
		expectKeys(t, res, "data", "transfers", "general_queue_count", "team_queue_counts", "total_count", "limit", "offset")
		if res.Len("data.transfers") != 1 || res.String("data.transfers.0.id") != generalID ||
			res.Number("data.general_queue_count") != 1 || res.Number("data.total_count") != 1 ||
			len(res.Get("data.team_queue_counts").(map[string]any)) != 0 || res.Number("data.limit") != 20 {
			t.Fatalf("agent's list: %s", res.Raw)
		}
		// A team member sees their team's queue too.
		res = colleague.Do(http.MethodGet, path, nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total_count") != 2 || res.Number("data.team_queue_counts."+teamID) != 1 {
			t.Fatalf("member's list: %s", res.Raw)
		}
		// A manager sees everything; filters apply.
		res = manager.Do(http.MethodGet, path+"?team_id="+teamID+"&status=active&include=team", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total_count") != 1 || res.String("data.transfers.0.team_name") != "Billing" ||
			res.String("data.transfers.0.phone_number") != "" {
			t.Fatalf("team filter: %s", res.Raw)
		}
		res = manager.Do(http.MethodGet, path+"?team_id=general&limit=1&offset=0&include=all", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total_count") != 1 || res.String("data.transfers.0.id") != generalID {
			t.Fatalf("general filter: %s", res.Raw)
		}
		res = manager.Do(http.MethodGet, path+"?status=resumed", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total_count") != 0 {
			t.Fatalf("resumed filter: %s", res.Raw)
		}
		res = other.Do(http.MethodGet, path, nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total_count") != 0 || res.Number("data.general_queue_count") != 0 {
			t.Fatalf("another organization sees: %s", res.Raw)
		}
		for name, q := range map[string]string{
			"ErrStatus": "status=open", "ErrLimit": "limit=0", "ErrOffset": "offset=-1", "ErrHugeOffset": "offset=99999999",
			"ErrTeam": "team_id=sales", "ErrInclude": "include=contact,notes",
		} {
			t.Run(name, func(t *testing.T) { agent.Do(http.MethodGet, path+"?"+q, nil).ExpectError(t, http.StatusBadRequest) })
		}
	})

	t.Run("Pick", func(t *testing.T) {
		t.Run("ErrTeamOfOthers", func(t *testing.T) {
			agent.Do(http.MethodPost, path+"/pick?team_id="+teamID, nil).ExpectError(t, http.StatusForbidden)
		})
		t.Run("ErrAnotherOrganizationsTeam", func(t *testing.T) {
			agent.Do(http.MethodPost, path+"/pick?team_id="+theirTeam, nil).ExpectError(t, http.StatusNotFound)
		})
		agent.Do(http.MethodPost, path+"/pick?team_id=x", nil).ExpectError(t, http.StatusBadRequest)
		res := agent.Do(http.MethodPost, path+"/pick", nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.transfer.id") != generalID || res.String("data.transfer.agent_id") != agent.UserID.String() ||
			res.String("data.transfer.agent_name") != "Agent User" || res.String("data.message") == "" {
			t.Fatalf("pick: %s", res.Raw)
		}
		if ev := wsWaitFor(t, live, events.FrameAgentTransferAssign); ev.Payload["id"] != generalID {
			t.Errorf("event: %+v", ev)
		}
		// The agent's queues are empty now (the team's is not theirs).
		res = agent.Do(http.MethodPost, path+"/pick", nil).ExpectStatus(t, http.StatusOK)
		if res.Get("data.transfer") != nil || res.String("data.message") != "No transfers in queue" {
			t.Fatalf("empty pick: %s", res.Raw)
		}
		t.Run("PickupOff", func(t *testing.T) {
			setChatbot(t, env, env.OrgID, false, true, false)
			defer setChatbot(t, env, env.OrgID, true, true, false)
			colleague.Do(http.MethodPost, path+"/pick?team_id="+teamID, nil).ExpectError(t, http.StatusForbidden)
			res := manager.Do(http.MethodPost, path+"/pick?team_id=general", nil).ExpectStatus(t, http.StatusOK)
			if res.Get("data.transfer") != nil {
				t.Fatalf("general queue should be empty: %s", res.Raw)
			}
		})
		res = colleague.Do(http.MethodPost, path+"/pick?team_id="+teamID, nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.transfer.id") != teamTransferID {
			t.Fatalf("team pick: %s", res.Raw)
		}
	})

	t.Run("Visibility", func(t *testing.T) {
		createTransfer(t, admin, c3, "")
		// The agent sees their own and the general queue, not the
		// colleague's team transfer.
		res := agent.Do(http.MethodGet, path, nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total_count") != 2 || res.Number("data.general_queue_count") != 1 {
			t.Fatalf("agent's view: %s", res.Raw)
		}
		setChatbot(t, env, env.OrgID, true, true, true)
		defer setChatbot(t, env, env.OrgID, true, true, false)
		res = agent.Do(http.MethodGet, path, nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total_count") != 1 || res.String("data.transfers.0.id") != generalID || res.Number("data.general_queue_count") != 0 {
			t.Fatalf("current conversation only: %s", res.Raw)
		}
		res = manager.Do(http.MethodGet, path, nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total_count") != 3 {
			t.Fatalf("manager's view: %s", res.Raw)
		}
	})

	t.Run("Assign", func(t *testing.T) {
		assign := func(c *apitest.Client, id string, body any) *apitest.Response {
			return c.Do(http.MethodPut, path+"/"+id+"/assign", body)
		}
		t.Run("ErrAgentAssignsToSomeoneElse", func(t *testing.T) {
			assign(agent, generalID, map[string]any{"agent_id": colleague.UserID.String()}).ExpectError(t, http.StatusForbidden)
		})
		t.Run("ErrAgentTakesFromSomeoneElse", func(t *testing.T) {
			assign(agent, teamTransferID, map[string]any{"agent_id": agent.UserID.String()}).ExpectError(t, http.StatusForbidden)
		})
		t.Run("ErrNotAMember", func(t *testing.T) {
			assign(manager, generalID, map[string]any{"agent_id": outsider}).ExpectError(t, http.StatusBadRequest)
		})
		t.Run("ErrNotInTheTeam", func(t *testing.T) {
			assign(manager, teamTransferID, map[string]any{"agent_id": agent.UserID.String()}).ExpectError(t, http.StatusBadRequest)
		})
		t.Run("ErrUnknownTransfer", func(t *testing.T) {
			assign(manager, uuid.NewString(), map[string]any{"agent_id": nil}).ExpectError(t, http.StatusNotFound)
		})
		t.Run("ErrAnotherOrganizationsTransfer", func(t *testing.T) {
			assign(other, generalID, map[string]any{"agent_id": nil}).ExpectError(t, http.StatusNotFound)
		})
		assign(manager, "x", map[string]any{}).ExpectError(t, http.StatusBadRequest)
		badRequests(t, manager, http.MethodPut, path+"/"+generalID+"/assign", map[string]any{
			"ErrMalformedJSON": "{", "ErrEmptyBody": "", "ErrAgentNotUUID": `{"agent_id": "x"}`,
			"ErrTeamNotUUID": `{"agent_id": null, "team_id": "x"}`, "ErrWrongType": `{"agent_id": 5}`,
		})
		res := assign(manager, generalID, map[string]any{"agent_id": colleague.UserID.String()}).ExpectStatus(t, http.StatusOK)
		if res.String("data.agent_id") != colleague.UserID.String() || res.String("data.message") == "" {
			t.Fatalf("assign: %s", res.Raw)
		}
		if ev := wsWaitFor(t, live, events.FrameAgentTransferAssign); ev.Payload["agent_id"] != colleague.UserID.String() {
			t.Errorf("event: %+v", ev)
		}
		// Unassigning returns it to the queue; the agent takes it back.
		res = assign(colleague, generalID, map[string]any{"agent_id": nil}).ExpectStatus(t, http.StatusOK)
		if res.Get("data.agent_id") != nil {
			t.Fatalf("unassign: %s", res.Raw)
		}
		assign(agent, generalID, map[string]any{"agent_id": agent.UserID.String()}).ExpectStatus(t, http.StatusOK)
		// A manager moves a transfer to a team.
		res = assign(manager, teamTransferID, map[string]any{"agent_id": nil, "team_id": teamID}).ExpectStatus(t, http.StatusOK)
		if res.Get("data.agent_id") != nil {
			t.Fatalf("unassign: %s", res.Raw)
		}
	})

	t.Run("Resume", func(t *testing.T) {
		resume := func(c *apitest.Client, id string) *apitest.Response {
			return c.Do(http.MethodPut, path+"/"+id+"/resume", nil)
		}
		t.Run("ErrNotTheirs", func(t *testing.T) { resume(colleague, generalID).ExpectError(t, http.StatusForbidden) })
		t.Run("ErrUnknown", func(t *testing.T) { resume(agent, uuid.NewString()).ExpectError(t, http.StatusNotFound) })
		t.Run("ErrAnotherOrganizations", func(t *testing.T) { resume(other, generalID).ExpectError(t, http.StatusNotFound) })
		resume(agent, "x").ExpectError(t, http.StatusBadRequest)
		res := resume(agent, generalID).ExpectStatus(t, http.StatusOK)
		if res.String("data.message") == "" {
			t.Fatalf("resume: %s", res.Raw)
		}
		if ev := wsWaitFor(t, live, events.FrameAgentTransferResume); ev.Payload["id"] != generalID || ev.Payload["status"] != "resumed" {
			t.Errorf("event: %+v", ev)
		}
		t.Run("ErrAlreadyResumed", func(t *testing.T) { resume(agent, generalID).ExpectError(t, http.StatusConflict) })
		t.Run("ErrAssignResumed", func(t *testing.T) {
			manager.Do(http.MethodPut, path+"/"+generalID+"/assign", map[string]any{"agent_id": nil}).ExpectError(t, http.StatusConflict)
		})
		// A manager resumes anyone's; the contact can be transferred again,
		// and goes back to its previous agent (assign_to_same_agent).
		resume(manager, teamTransferID).ExpectStatus(t, http.StatusOK)
		res = createTransfer(t, admin, c1, "")
		if res.String("data.agent_id") != agent.UserID.String() {
			t.Fatalf("same agent: %s", res.Raw)
		}
	})

	t.Run("OutboundWebhooks", func(t *testing.T) {
		ds, err := env.Client().WebhookDelivery.Query().Where(webhookdelivery.SubscriptionID(uuid.MustParse(hook))).
			All(viewer.SystemContext(context.Background(), env.OrgID))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, d := range ds {
			got[d.Event]++
		}
		// Created: c1, c2, c3, c1 again; assigned: two picks, four
		// assignments; resumed: two.
		want := map[string]int{"transfer:created": 4, "transfer:assigned": 6, "transfer:resumed": 2}
		for k, n := range want {
			if got[k] != n {
				t.Errorf("%s deliveries: %d, want %d (all: %v)", k, got[k], n, got)
			}
		}
	})

	t.Run("GraphQL", func(t *testing.T) {
		sub := agent.SubscribeGraphQL(t, `subscription { transferChanged { id status agentId contactId } }`)
		c4 := newContact(t, admin, "+15550003004")
		res := agent.GraphQL(`mutation($c: ID!) { createChatbotTransfer(input: {contactId: $c, notes: "via graphql"}) {
			id status source notes agentId phoneNumber } }`, map[string]any{"c": c4})
		id := res.String("data.createChatbotTransfer.id")
		if res.Get("errors") != nil || res.String("data.createChatbotTransfer.source") != "manual" ||
			res.String("data.createChatbotTransfer.phoneNumber") != "15550003004" {
			t.Fatalf("createChatbotTransfer: %s", res.Raw)
		}
		if got := gqlNext(t, sub); got["id"] != id || got["status"] != "active" {
			t.Fatalf("transferChanged: %v", got)
		}
		res = agent.GraphQL(`mutation($c: ID!) { createChatbotTransfer(input: {contactId: $c}) { id } }`, map[string]any{"c": c4})
		if res.GraphQLErrorCode() != "conflict" {
			t.Errorf("second active transfer: %s", res.Raw)
		}
		res = agent.GraphQL(`query { chatbotTransfers(teamId: "general", status: "active") {
			totalCount generalQueueCount limit offset teamQueueCounts { teamId count } transfers { id agentName } } }`, nil)
		if res.Get("errors") != nil || res.Number("data.chatbotTransfers.generalQueueCount") != 2 {
			t.Fatalf("chatbotTransfers: %s", res.Raw)
		}
		res = agent.GraphQL(`query { chatbotTransfers(limit: 0) { totalCount } }`, nil)
		if res.GraphQLErrorCode() != "invalid" {
			t.Errorf("limit 0: %s", res.Raw)
		}
		// The oldest of the general queue is c3's.
		res = agent.GraphQL(`mutation { pickChatbotTransfer(teamId: "general") { id agentId } }`, nil)
		picked := res.String("data.pickChatbotTransfer.id")
		if res.Get("errors") != nil || picked == "" || picked == id || res.String("data.pickChatbotTransfer.agentId") != agent.UserID.String() {
			t.Fatalf("pickChatbotTransfer: %s", res.Raw)
		}
		if got := gqlNext(t, sub); got["id"] != picked || got["agentId"] != agent.UserID.String() {
			t.Fatalf("transferChanged after pick: %v", got)
		}
		res = agent.GraphQL(`mutation($id: ID!, $a: ID) { assignChatbotTransfer(id: $id, agentId: $a) { id } }`,
			map[string]any{"id": picked, "a": colleague.UserID.String()})
		if res.GraphQLErrorCode() != "forbidden" {
			t.Errorf("agent assigns to someone else: %s", res.Raw)
		}
		res = manager.GraphQL(`mutation($id: ID!) { assignChatbotTransfer(id: $id, agentId: null) { id agentId } }`, map[string]any{"id": id})
		if res.Get("errors") != nil || res.Get("data.assignChatbotTransfer.agentId") != nil {
			t.Fatalf("assignChatbotTransfer: %s", res.Raw)
		}
		res = agent.GraphQL(`mutation($id: ID!) { resumeChatbotTransfer(id: $id) { id status } }`, map[string]any{"id": picked})
		if res.Get("errors") != nil || res.String("data.resumeChatbotTransfer.status") != "resumed" {
			t.Fatalf("resumeChatbotTransfer: %s", res.Raw)
		}
		res = other.GraphQL(`mutation($id: ID!) { resumeChatbotTransfer(id: $id) { id } }`, map[string]any{"id": id})
		if res.GraphQLErrorCode() != "not_found" {
			t.Errorf("another organization's transfer: %s", res.Raw)
		}
	})

	// The other organization's socket saw none of it.
	_ = foreignLive.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, raw, err := foreignLive.ReadMessage(); err == nil {
		t.Fatalf("another organization received %s", raw)
	}
}

var transferPhones atomic.Int64

// assignees creates n transfers of new contacts to the team and returns
// the agent each got ("" for none), in creation order.
func assignees(t *testing.T, admin *apitest.Client, n int, teamID string) []string {
	t.Helper()
	var out []string
	for i := 0; i < n; i++ {
		phone := fmt.Sprintf("+1666%07d", transferPhones.Add(1))
		c := newContact(t, admin, phone)
		res := createTransfer(t, admin, c, teamID)
		id, _ := res.Get("data.agent_id").(string)
		out = append(out, id)
	}
	return out
}

func TestTransferStrategies(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	a := env.NewUser(env.OrgID, access.RoleAgent)
	b := env.NewUser(env.OrgID, access.RoleAgent)
	c := env.NewUser(env.OrgID, access.RoleAgent)
	setChatbot(t, env, env.OrgID, true, false, false)
	count := func(ids []string) map[string]int {
		m := map[string]int{}
		for _, id := range ids {
			m[id]++
		}
		return m
	}

	t.Run("RoundRobin", func(t *testing.T) {
		team := newTeam(t, admin, "RR", "round_robin", a, b, c)
		got := assignees(t, admin, 6, team)
		n := count(got)
		if n[a.UserID.String()] != 2 || n[b.UserID.String()] != 2 || n[c.UserID.String()] != 2 {
			t.Fatalf("round robin: %v", got)
		}
		// Each round gives every member one, in the same order.
		if got[0] == got[1] || got[1] == got[2] || got[0] != got[3] || got[1] != got[4] || got[2] != got[5] {
			t.Fatalf("round robin order: %v", got)
		}
		// An unavailable member is skipped.
		b.Do(http.MethodPut, "/api/me/availability", map[string]any{"is_available": false}).ExpectStatus(t, http.StatusOK)
		defer b.Do(http.MethodPut, "/api/me/availability", map[string]any{"is_available": true})
		n = count(assignees(t, admin, 4, team))
		if n[b.UserID.String()] != 0 || n[a.UserID.String()] != 2 || n[c.UserID.String()] != 2 {
			t.Fatalf("round robin without b: %v", n)
		}
	})

	t.Run("Break", func(t *testing.T) {
		// is_available on, but an open break in this organization.
		team := newTeam(t, admin, "Breaks", "round_robin", a, c)
		ctx := viewer.SystemContext(context.Background(), env.OrgID)
		br, err := env.Client().AgentBreak.Create().SetUserID(a.UserID).SetStartedAt(time.Now()).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := assignees(t, admin, 2, team)
		if got[0] != c.UserID.String() || got[1] != c.UserID.String() {
			t.Fatalf("a on a break got one: %v", got)
		}
		if err := env.Client().AgentBreak.UpdateOne(br).SetEndedAt(time.Now()).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("LoadBalanced", func(t *testing.T) {
		team := newTeam(t, admin, "LB", "load_balanced", a, b)
		ctx := viewer.SystemContext(context.Background(), env.OrgID)
		load := func(u *apitest.Client) int {
			n, err := env.Client().AgentTransfer.Query().
				Where(agenttransfer.AgentID(u.UserID), agenttransfer.StatusEQ(agenttransfer.StatusActive)).Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		la, lb := load(a), load(b)
		if la <= lb {
			t.Fatalf("fixture: a should carry more than b (%d, %d)", la, lb)
		}
		got := assignees(t, admin, la-lb, team)
		for _, id := range got {
			if id != b.UserID.String() {
				t.Fatalf("load balanced gave %v with loads a=%d b=%d", got, la, lb)
			}
		}
		// Equal loads now: they alternate.
		got = assignees(t, admin, 2, team)
		if got[0] == got[1] || load(a) != load(b) {
			t.Fatalf("equal loads: %v (%d, %d)", got, load(a), load(b))
		}
	})

	t.Run("Manual", func(t *testing.T) {
		team := newTeam(t, admin, "Manual", "manual", a, b)
		if got := assignees(t, admin, 2, team); got[0] != "" || got[1] != "" {
			t.Fatalf("manual team assigned: %v", got)
		}
		res := admin.Do(http.MethodGet, "/api/chatbot/transfers?team_id="+team, nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.team_queue_counts."+team) != 2 {
			t.Fatalf("team queue: %s", res.Raw)
		}
	})

	t.Run("NobodyAvailable", func(t *testing.T) {
		team := newTeam(t, admin, "Away", "round_robin", c)
		c.Do(http.MethodPut, "/api/me/availability", map[string]any{"is_available": false}).ExpectStatus(t, http.StatusOK)
		defer c.Do(http.MethodPut, "/api/me/availability", map[string]any{"is_available": true})
		if got := assignees(t, admin, 1, team); got[0] != "" {
			t.Fatalf("assigned to an unavailable agent: %v", got)
		}
	})

	t.Run("SameAgent", func(t *testing.T) {
		contact := newContact(t, admin, "+15550004444")
		first := createTransfer(t, admin, contact, "").String("data.id")
		admin.Do(http.MethodPut, "/api/chatbot/transfers/"+first+"/assign", map[string]any{"agent_id": b.UserID.String()}).
			ExpectStatus(t, http.StatusOK)
		admin.Do(http.MethodPut, "/api/chatbot/transfers/"+first+"/resume", nil).ExpectStatus(t, http.StatusOK)
		// Off: the queue.
		second := createTransfer(t, admin, contact, "")
		if second.Get("data.agent_id") != nil {
			t.Fatalf("assign_to_same_agent off: %s", second.Raw)
		}
		admin.Do(http.MethodPut, "/api/chatbot/transfers/"+second.String("data.id")+"/resume", nil).ExpectStatus(t, http.StatusOK)
		// On: back to b, even through a manual team's transfer.
		setChatbot(t, env, env.OrgID, true, true, false)
		defer setChatbot(t, env, env.OrgID, true, false, false)
		team := newTeam(t, admin, "Same", "manual", a, b)
		third := createTransfer(t, admin, contact, team)
		if third.String("data.agent_id") != b.UserID.String() {
			t.Fatalf("assign_to_same_agent on: %s", third.Raw)
		}
		admin.Do(http.MethodPut, "/api/chatbot/transfers/"+third.String("data.id")+"/resume", nil).ExpectStatus(t, http.StatusOK)
		// b unavailable: the queue.
		b.Do(http.MethodPut, "/api/me/availability", map[string]any{"is_available": false}).ExpectStatus(t, http.StatusOK)
		defer b.Do(http.MethodPut, "/api/me/availability", map[string]any{"is_available": true})
		if fourth := createTransfer(t, admin, contact, ""); fourth.Get("data.agent_id") != nil {
			t.Fatalf("same agent while unavailable: %s", fourth.Raw)
		}
	})
}

// seedQueue puts n unassigned transfers of new contacts in the general
// queue, directly in the database, and returns their ids.
func seedQueue(tb testing.TB, env *apitest.Env, n int) map[string]bool {
	tb.Helper()
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	c := env.Client()
	ids := map[string]bool{}
	base := transferPhones.Add(int64(n))
	for start := 0; start < n; start += 500 {
		end := min(start+500, n)
		cs := make([]*ent.ContactCreate, 0, end-start)
		for i := start; i < end; i++ {
			cs = append(cs, c.Contact.Create().SetPhoneNumber(fmt.Sprintf("1777%08d", base-int64(i))))
		}
		contacts, err := c.Contact.CreateBulk(cs...).Save(ctx)
		if err != nil {
			tb.Fatalf("contacts: %v", err)
		}
		ts := make([]*ent.AgentTransferCreate, len(contacts))
		for i, ct := range contacts {
			ts[i] = c.AgentTransfer.Create().SetContactID(ct.ID).SetSource("manual").
				SetTransferredAt(time.Now().Add(time.Duration(start+i) * time.Microsecond))
		}
		saved, err := c.AgentTransfer.CreateBulk(ts...).Save(ctx)
		if err != nil {
			tb.Fatalf("transfers: %v", err)
		}
		for _, t := range saved {
			ids[t.ID.String()] = true
		}
	}
	return ids
}

// pickResult is what a run of concurrent pickers saw.
type pickResult struct {
	picked  map[string]string // transfer id → the picker's user id
	doubles int               // a transfer handed to a second picker
	picks   int               // answered picks with a transfer
	empties int               // answered picks of an empty queue
	errors  []string          // unanswered or failed picks
}

// pickAll runs pickers concurrently, each picking until its answer is an
// empty queue; pickers[i] picks as its client.
func pickAll(pickers []*apitest.Client) *pickResult {
	type answer struct {
		id, agent string
		err       string
	}
	out := make(chan answer, 1024)
	done := make(chan struct{})
	for _, p := range pickers {
		go func() {
			defer func() { done <- struct{}{} }()
			for {
				res := p.Do(http.MethodPost, "/api/chatbot/transfers/pick?team_id=general", nil)
				if res.Status != http.StatusOK {
					out <- answer{err: fmt.Sprintf("status %d: %s", res.Status, res.Raw)}
					return
				}
				id, _ := res.Get("data.transfer.id").(string)
				agent, _ := res.Get("data.transfer.agent_id").(string)
				out <- answer{id: id, agent: agent}
				if id == "" {
					return
				}
			}
		}()
	}
	go func() {
		for range pickers {
			<-done
		}
		close(out)
	}()
	r := &pickResult{picked: map[string]string{}}
	for a := range out {
		switch {
		case a.err != "":
			r.errors = append(r.errors, a.err)
		case a.id == "":
			r.empties++
		default:
			r.picks++
			if _, dup := r.picked[a.id]; dup {
				r.doubles++
			}
			r.picked[a.id] = a.agent
		}
	}
	return r
}

// pickers returns n clients over agents users (several requests of one
// user run at once, as an agent's open tabs would).
func pickers(env *apitest.Env, users, n int) []*apitest.Client {
	agents := make([]*apitest.Client, users)
	for i := range agents {
		agents[i] = env.NewUser(env.OrgID, access.RoleAgent)
	}
	out := make([]*apitest.Client, n)
	for i := range out {
		out[i] = agents[i%users]
	}
	return out
}

// TestTransferPickConcurrency: 100 concurrent pickers drain 1,000 queued
// transfers (the first wave is 100 concurrent picks against 1,000): every
// pick is answered, no transfer is handed out twice, and the database
// agrees with the answers.
func TestTransferPickConcurrency(t *testing.T) {
	env := apitest.New(t)
	queued := seedQueue(t, env, 1000)
	r := pickAll(pickers(env, 20, 100))
	if len(r.errors) > 0 {
		t.Fatalf("%d picks failed, first: %s", len(r.errors), r.errors[0])
	}
	if r.doubles != 0 || r.picks != 1000 || len(r.picked) != 1000 || r.empties != 100 {
		t.Fatalf("picks %d, distinct %d, doubles %d, empty answers %d", r.picks, len(r.picked), r.doubles, r.empties)
	}
	ts, err := env.Client().AgentTransfer.Query().All(viewer.SystemContext(context.Background(), env.OrgID))
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range ts {
		if !queued[tr.ID.String()] || tr.AgentID == nil || r.picked[tr.ID.String()] != tr.AgentID.String() {
			t.Fatalf("transfer %s: agent %v, answered %q", tr.ID, tr.AgentID, r.picked[tr.ID.String()])
		}
	}
}

// BenchmarkTransferPick: each iteration queues 1,000 transfers and has 100
// concurrent pickers (20 agents) drain the queue through the HTTP stack.
// Reports picks/s, double assignments and unanswered picks (both must be
// 0). Run: TEST_REQUIRE_SERVICES=1 go test -run '^$' -bench TransferPick -benchtime 3x ./rest/
func BenchmarkTransferPick(b *testing.B) {
	env := apitest.New(b)
	ps := pickers(env, 20, 100)
	var picks, doubles, failed int
	var elapsed time.Duration
	for b.Loop() {
		b.StopTimer()
		seedQueue(b, env, 1000)
		b.StartTimer()
		start := time.Now()
		r := pickAll(ps)
		elapsed += time.Since(start)
		picks += r.picks
		doubles += r.doubles
		failed += len(r.errors)
	}
	b.ReportMetric(float64(picks)/elapsed.Seconds(), "picks/s")
	b.ReportMetric(float64(doubles), "double-assignments")
	b.ReportMetric(float64(failed), "unanswered")
}

// gqlNext returns the first field of the next data message.
func gqlNext(t *testing.T, conn *websocket.Conn) map[string]any {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		var m struct {
			Type    string `json:"type"`
			Payload struct {
				Data map[string]map[string]any `json:"data"`
			} `json:"payload"`
		}
		if err := conn.ReadJSON(&m); err != nil {
			t.Fatalf("subscription: %v", err)
		}
		if m.Type != "next" {
			continue
		}
		for _, v := range m.Payload.Data {
			return v
		}
	}
}
