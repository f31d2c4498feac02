package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent/chatbotsession"
	"switchboard/internal/apitest"
)

var chatbotFlowKeys = []string{"id", "name", "description", "trigger_keywords", "enabled", "graph", "created_at"}

// flowGraph is a small valid graph: a message, buttons, then an end or a
// transfer; extra nodes are reached from the second button.
func flowGraph(extra ...map[string]any) map[string]any {
	nodes := []any{
		map[string]any{"id": "start", "type": "message", "position": map[string]any{"x": 0, "y": 0}, "config": map[string]any{"message": "Hi"}},
		map[string]any{"id": "menu", "type": "buttons", "config": map[string]any{"body": "Pick", "buttons": []any{
			map[string]any{"id": "a", "title": "Done"}, map[string]any{"id": "b", "title": "More"}}}},
		map[string]any{"id": "bye", "type": "end", "config": map[string]any{"message": "Bye"}},
	}
	edges := []any{
		map[string]any{"from": "start", "to": "menu", "condition": "default"},
		map[string]any{"from": "menu", "to": "bye", "condition": "button:a"},
	}
	for i, n := range extra {
		nodes = append(nodes, n)
		if i == 0 {
			edges = append(edges, map[string]any{"from": "menu", "to": n["id"], "condition": "button:b"})
		}
	}
	return map[string]any{"version": 2, "entry_node": "start", "nodes": nodes, "edges": edges}
}

func TestChatbotFlows(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")
	fx := chatbotFixtures{t, env}
	const path = "/api/chatbot/flows"
	db := env.Client()
	if err := db.Account.Create().SetName("Main").SetPhoneID("1001").SetBusinessID("2001").Exec(fx.ctx(env.OrgID)); err != nil {
		t.Fatal(err)
	}
	form, err := db.FormFlow.Create().SetChatAccount("Main").SetName("Signup").SetProviderFlowID("prov-77").Save(fx.ctx(env.OrgID))
	if err != nil {
		t.Fatal(err)
	}
	team, err := db.Team.Create().SetName("Sales").Save(fx.ctx(env.OrgID))
	if err != nil {
		t.Fatal(err)
	}
	theirFlow := other.Do(http.MethodPost, path, map[string]any{"name": "Theirs", "trigger_keywords": []any{"start"}}).
		ExpectStatus(t, http.StatusCreated).String("data.id")

	var targetID, flowID string
	t.Run("Create", func(t *testing.T) {
		res := admin.Do(http.MethodPost, path, map[string]any{"name": "Target", "description": "where goto leads",
			"trigger_keywords": []any{"support"}, "graph": flowGraph()}).ExpectStatus(t, http.StatusCreated)
		expectKeys(t, res, "data", chatbotFlowKeys...)
		targetID = res.String("data.id")
		if res.Number("data.graph.version") != 2 || res.String("data.graph.entry_node") != "start" || res.Len("data.graph.nodes") != 3 {
			t.Fatalf("flow: %s", res.Raw)
		}
		g := map[string]any{"version": 2, "entry_node": "start", "nodes": []any{
			map[string]any{"id": "start", "type": "message", "config": map[string]any{"message": "Hi {{name}}"}},
			map[string]any{"id": "menu", "type": "buttons", "config": map[string]any{"body": "Pick", "buttons": []any{
				map[string]any{"id": "a", "title": "People"}, map[string]any{"id": "b", "title": "Form"}}}},
			map[string]any{"id": "human", "type": "transfer", "config": map[string]any{"team_id": team.ID.String(), "body": "Wait"}},
			map[string]any{"id": "form", "type": "chat_flow", "config": map[string]any{"flow_id": form.ID.String(), "body": "Fill it", "cta": "Open"}},
			map[string]any{"id": "form2", "type": "chat_flow", "config": map[string]any{"flow_id": "prov-77"}},
			map[string]any{"id": "jump", "type": "goto_flow", "config": map[string]any{"flow_id": targetID}},
		}, "edges": []any{
			map[string]any{"from": "start", "to": "menu", "condition": "default"},
			map[string]any{"from": "menu", "to": "human", "condition": "button:a"},
			map[string]any{"from": "menu", "to": "form", "condition": "button:b"},
			map[string]any{"from": "form", "to": "form2", "condition": "default"},
			map[string]any{"from": "form2", "to": "jump"}, // no condition: default
		}}
		res = admin.Do(http.MethodPost, path, map[string]any{"name": "Welcome", "trigger_keywords": []any{"Start", "hello"},
			"graph": g, "chat_account": "Main"}).ExpectStatus(t, http.StatusCreated)
		flowID = res.String("data.id")
		if res.Len("data.graph.nodes") != 6 || res.String("data.chat_account") != "Main" {
			t.Fatalf("flow: %s", res.Raw)
		}
		// Created empty, drawn later in the builder.
		admin.Do(http.MethodPost, path, map[string]any{"name": "Draft", "graph": map[string]any{}}).ExpectStatus(t, http.StatusCreated)
	})

	t.Run("GraphErrorsNameTheNode", func(t *testing.T) {
		node := func(id, typ string, cfg map[string]any) map[string]any {
			return map[string]any{"id": id, "type": typ, "config": cfg}
		}
		withEdge := func(from, to, cond string) map[string]any {
			g := flowGraph()
			g["edges"] = append(g["edges"].([]any), map[string]any{"from": from, "to": to, "condition": cond})
			return g
		}
		cases := map[string]struct {
			node  string
			graph map[string]any
		}{
			"ErrEntryMissing":   {"nope", func() map[string]any { g := flowGraph(); g["entry_node"] = "nope"; return g }()},
			"ErrDuplicateID":    {"bye", flowGraph(node("bye", "end", nil))},
			"ErrUnknownType":    {"x", flowGraph(node("x", "teleport", nil))},
			"ErrEdgeToNowhere":  {"ghost", withEdge("menu", "ghost", "button:b")},
			"ErrEdgeFromNobody": {"ghost", withEdge("ghost", "bye", "default")},
			"ErrWrongCondition": {"start", withEdge("start", "bye", "http:2xx")},
			"ErrUnknownButton":  {"menu", withEdge("menu", "bye", "button:zz")},
			"ErrTerminalEdge":   {"bye", withEdge("bye", "start", "default")},
			"ErrUnreachable": {"island", func() map[string]any {
				g := flowGraph()
				g["nodes"] = append(g["nodes"].([]any), node("island", "end", nil))
				return g
			}()},
			"ErrFourButtons": {"more", flowGraph(node("more", "buttons", map[string]any{"body": "b", "buttons": []any{
				map[string]any{"id": "1", "title": "a"}, map[string]any{"id": "2", "title": "b"},
				map[string]any{"id": "3", "title": "c"}, map[string]any{"id": "4", "title": "d"}}}))},
			"ErrLongButtonTitle": {"more", flowGraph(node("more", "buttons", map[string]any{"body": "b", "buttons": []any{
				map[string]any{"id": "1", "title": strings.Repeat("t", 21)}}}))},
			"ErrPromptRegex":     {"ask", flowGraph(node("ask", "prompt", map[string]any{"body": "?", "validation_regex": "a{2,1}"}))},
			"ErrExpression":      {"if", flowGraph(node("if", "condition", map[string]any{"expression": "a &&"}))},
			"ErrAPIURL":          {"api", flowGraph(node("api", "api_call", map[string]any{"url": "file:///etc/passwd"}))},
			"ErrWebhookMethod":   {"hook", flowGraph(node("hook", "webhook", map[string]any{"url": "https://x.example", "method": "TRACE"}))},
			"ErrSchedule":        {"hours", flowGraph(node("hours", "timing", map[string]any{"schedule": []any{map[string]any{"day": 9}}}))},
			"ErrGotoUnknown":     {"jump", flowGraph(node("jump", "goto_flow", map[string]any{"flow_id": uuid.NewString()}))},
			"ErrGotoOtherTenant": {"jump", flowGraph(node("jump", "goto_flow", map[string]any{"flow_id": theirFlow}))},
			"ErrGotoNotUUID":     {"jump", flowGraph(node("jump", "goto_flow", map[string]any{"flow_id": "welcome"}))},
			"ErrChatFlowUnknown": {"form", flowGraph(node("form", "chat_flow", map[string]any{"flow_id": "prov-404"}))},
			"ErrTransferTeam":    {"human", flowGraph(node("human", "transfer", map[string]any{"team_id": uuid.NewString()}))},
			"ErrMessageTooLong": {"start", func() map[string]any {
				g := flowGraph()
				g["nodes"].([]any)[0].(map[string]any)["config"] = map[string]any{"message": strings.Repeat("x", 4097)}
				return g
			}()},
			"ErrConfigWrongType": {"start", func() map[string]any {
				g := flowGraph()
				g["nodes"].([]any)[0].(map[string]any)["config"] = map[string]any{"message": []any{1}}
				return g
			}()},
			"ErrVersion":         {"", func() map[string]any { g := flowGraph(); g["version"] = 1; return g }()},
			"ErrNoNodes":         {"", map[string]any{"version": 2, "entry_node": "a", "nodes": []any{}, "edges": []any{}}},
			"ErrNodesNotAnArray": {"", map[string]any{"entry_node": "a", "nodes": "a"}},
		}
		for name, c := range cases {
			t.Run(name, func(t *testing.T) {
				res := admin.Do(http.MethodPost, path, map[string]any{"name": "Broken", "graph": c.graph}).
					ExpectError(t, http.StatusBadRequest)
				if c.node != "" && !strings.Contains(res.String("message"), `node "`+c.node+`"`) {
					t.Fatalf("message %q does not name node %q", res.String("message"), c.node)
				}
			})
		}
		badRequests(t, admin, http.MethodPost, path, map[string]any{
			"ErrEmptyBody":      "",
			"ErrNoName":         map[string]any{"graph": flowGraph()},
			"ErrGraphNotObj":    `{"name": "x", "graph": [1]}`,
			"ErrUnknownAccount": map[string]any{"name": "x", "chat_account": "Nope"},
			"ErrLongDesc":       map[string]any{"name": "x", "description": strings.Repeat("d", 2001)},
		})
		// A goto_flow to a flow limited to another account.
		admin.Do(http.MethodPost, path, map[string]any{"name": "Jumper", "chat_account": "",
			"graph": flowGraph(node("jump", "goto_flow", map[string]any{"flow_id": flowID}))}).ExpectError(t, http.StatusBadRequest)
	})

	t.Run("TriggerKeywordsUnique", func(t *testing.T) {
		res := admin.Do(http.MethodPost, path, map[string]any{"name": "Dup", "trigger_keywords": []any{"HELLO"}}).
			ExpectError(t, http.StatusConflict)
		if !strings.Contains(res.String("message"), "Welcome") {
			t.Fatalf("message: %s", res.Raw)
		}
		// A disabled flow may share a keyword; enabling it then conflicts.
		id := admin.Do(http.MethodPost, path, map[string]any{"name": "Dup", "enabled": false, "trigger_keywords": []any{"hello"}}).
			ExpectStatus(t, http.StatusCreated).String("data.id")
		admin.Do(http.MethodPut, path+"/"+id, map[string]any{"enabled": true}).ExpectError(t, http.StatusConflict)
		// Another organization's flows do not count.
		other.Do(http.MethodPost, path, map[string]any{"name": "Hello", "trigger_keywords": []any{"hello"}}).
			ExpectStatus(t, http.StatusCreated)
	})

	t.Run("ListGetUpdate", func(t *testing.T) {
		res := agent.Do(http.MethodGet, path+"?search=goto", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total") != 1 || res.String("data.flows.0.id") != targetID {
			t.Fatalf("search: %s", res.Raw)
		}
		expectKeys(t, res, "data.flows.0", chatbotFlowKeys...)
		if res := agent.Do(http.MethodGet, path, nil); res.Number("data.total") != 4 || res.Number("data.limit") != 20 {
			t.Fatalf("list: %s", res.Raw)
		}
		if res := agent.Do(http.MethodGet, path+"?search=SUPPORT", nil); res.Number("data.total") != 1 {
			t.Fatalf("search keywords: %s", res.Raw)
		}
		got := agent.Do(http.MethodGet, path+"/"+flowID, nil).ExpectStatus(t, http.StatusOK)
		if got.String("data.name") != "Welcome" {
			t.Fatalf("get: %s", got.Raw)
		}
		other.Do(http.MethodGet, path+"/"+flowID, nil).ExpectError(t, http.StatusNotFound)
		upd := admin.Do(http.MethodPut, path+"/"+targetID, map[string]any{"description": "changed"}).ExpectStatus(t, http.StatusOK)
		if upd.String("data.description") != "changed" || upd.Len("data.graph.nodes") != 3 {
			t.Fatalf("partial update: %s", upd.Raw)
		}
		admin.Do(http.MethodPut, path+"/"+targetID, map[string]any{"graph": map[string]any{"entry_node": "x"}}).
			ExpectError(t, http.StatusBadRequest)
		agent.Do(http.MethodPut, path+"/"+targetID, map[string]any{"enabled": false}).ExpectError(t, http.StatusForbidden)
		agent.Do(http.MethodPost, path, map[string]any{"name": "x"}).ExpectError(t, http.StatusForbidden)
		other.Do(http.MethodPut, path+"/"+targetID, map[string]any{"enabled": false}).ExpectError(t, http.StatusNotFound)
	})

	t.Run("Delete", func(t *testing.T) {
		agent.Do(http.MethodDelete, path+"/"+targetID, nil).ExpectError(t, http.StatusForbidden)
		other.Do(http.MethodDelete, path+"/"+targetID, nil).ExpectError(t, http.StatusNotFound)
		// Welcome jumps to Target.
		admin.Do(http.MethodDelete, path+"/"+targetID, nil).ExpectError(t, http.StatusConflict)
		admin.Do(http.MethodDelete, path+"/"+flowID, nil).ExpectStatus(t, http.StatusOK)
		admin.Do(http.MethodDelete, path+"/"+targetID, nil).ExpectStatus(t, http.StatusOK)
		admin.Do(http.MethodGet, path+"/"+targetID, nil).ExpectError(t, http.StatusNotFound)
	})
}

var chatbotSessionKeys = []string{"id", "contact_id", "current_flow_id", "current_step", "variables", "started_at",
	"last_activity", "status"}

func TestChatbotSessions(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")
	fx := chatbotFixtures{t, env}
	const path = "/api/chatbot/sessions"
	c1 := newContact(t, admin, "+15550013001")
	active := fx.session(env.OrgID, c1, chatbotsession.StatusActive)
	fx.session(env.OrgID, c1, chatbotsession.StatusTimeout)
	fx.session(env.OrgID, c1, chatbotsession.StatusCompleted)
	theirs := fx.session(other.OrgID, newContact(t, other, "+15550013002"), chatbotsession.StatusActive)

	res := agent.Do(http.MethodGet, path, nil).ExpectStatus(t, http.StatusOK)
	if res.Len("data.sessions") != 3 || res.Number("data.total") != 3 {
		t.Fatalf("list: %s", res.Raw)
	}
	expectKeys(t, res, "data.sessions.0", chatbotSessionKeys...)
	res = agent.Do(http.MethodGet, path+"?status=active", nil).ExpectStatus(t, http.StatusOK)
	if res.Number("data.total") != 1 || res.String("data.sessions.0.id") != active.ID.String() ||
		res.String("data.sessions.0.variables.email") != "a@example.com" {
		t.Fatalf("active: %s", res.Raw)
	}
	if res := agent.Do(http.MethodGet, path+"?status=timeout&limit=1", nil); res.Number("data.total") != 1 || res.Number("data.limit") != 1 {
		t.Fatalf("timeout: %s", res.Raw)
	}
	agent.Do(http.MethodGet, path+"?status=sleeping", nil).ExpectError(t, http.StatusBadRequest)
	agent.Do(http.MethodGet, path+"?page=0", nil).ExpectError(t, http.StatusBadRequest)

	one := agent.Do(http.MethodGet, path+"/"+active.ID.String(), nil).ExpectStatus(t, http.StatusOK)
	expectKeys(t, one, "data", chatbotSessionKeys...)
	if one.String("data.contact_id") != c1 || one.String("data.current_step") != "ask" {
		t.Fatalf("get: %s", one.Raw)
	}
	agent.Do(http.MethodGet, path+"/"+theirs.ID.String(), nil).ExpectError(t, http.StatusNotFound)
	agent.Do(http.MethodGet, path+"/"+uuid.NewString(), nil).ExpectError(t, http.StatusNotFound)
	agent.Do(http.MethodGet, path+"/nope", nil).ExpectError(t, http.StatusBadRequest)
	env.Anonymous().Do(http.MethodGet, path, nil).ExpectError(t, http.StatusUnauthorized)
}

func TestChatbotGraphQL(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")

	res := admin.GraphQL(`mutation($in: UpdateChatbotSettingsInput!) { updateChatbotSettings(input: $in) {
		settings { greetingMessage aiProvider hasAIAPIKey greetingButtons businessHours } stats { keywordsCount } } }`,
		map[string]any{"in": map[string]any{"greetingMessage": "Hey", "aiProvider": "google", "aiAPIKey": "gk-1",
			"greetingButtons": []any{map[string]any{"id": "a", "title": "A"}},
			"businessHours":   []any{map[string]any{"day": 2, "enabled": true, "startTime": "08:00", "endTime": "12:00"}}}})
	if res.String("data.updateChatbotSettings.settings.greetingMessage") != "Hey" ||
		res.Get("data.updateChatbotSettings.settings.hasAIAPIKey") != true ||
		res.String("data.updateChatbotSettings.settings.businessHours.0.start_time") != "08:00" {
		t.Fatalf("update settings: %s", res.Raw)
	}
	if res := admin.GraphQL(`mutation { updateChatbotSettings(input: {aiProvider: "cohere"}) { stats { flowsCount } } }`, nil); res.GraphQLErrorCode() != "invalid" {
		t.Fatalf("bad provider: %s", res.Raw)
	}
	if res := agent.GraphQL(`mutation { updateChatbotSettings(input: {enabled: true}) { stats { flowsCount } } }`, nil); res.GraphQLErrorCode() != "forbidden" {
		t.Fatalf("agent update: %s", res.Raw)
	}

	res = admin.GraphQL(`mutation { createKeywordRule(input: {keywords: ["price"], matchType: "contains", responseContent: {body: "Cheap"}, priority: 2}) { id name matchType enabled } }`, nil)
	if res.String("data.createKeywordRule.name") != "price" || res.String("data.createKeywordRule.matchType") != "contains" {
		t.Fatalf("create rule: %s", res.Raw)
	}
	ruleID := res.String("data.createKeywordRule.id")
	if res := admin.GraphQL(`mutation { createKeywordRule(input: {keywords: ["(x"], matchType: "regex", responseContent: {body: "x"}}) { id } }`, nil); res.GraphQLErrorCode() != "invalid" {
		t.Fatalf("bad regex: %s", res.Raw)
	}
	res = admin.GraphQL(`mutation($id: ID!) { updateKeywordRule(id: $id, input: {enabled: false}) { enabled priority } }`, map[string]any{"id": ruleID})
	if res.Get("data.updateKeywordRule.enabled") != false || res.Number("data.updateKeywordRule.priority") != 2 {
		t.Fatalf("update rule: %s", res.Raw)
	}
	if res := other.GraphQL(`mutation($id: ID!) { deleteKeywordRule(id: $id) }`, map[string]any{"id": ruleID}); res.GraphQLErrorCode() != "not_found" {
		t.Fatalf("cross-tenant delete: %s", res.Raw)
	}

	res = admin.GraphQL(`mutation { createAIContext(input: {name: "FAQ", contextType: "api", apiConfig: {url: "https://faq.example/x"}}) { id contextType } }`, nil)
	if res.String("data.createAIContext.contextType") != "api" {
		t.Fatalf("create context: %s", res.Raw)
	}
	res = admin.GraphQL(`mutation($g: Map!) { createChatbotFlow(input: {name: "GQL", triggerKeywords: ["go"], graph: $g}) { id name graph } }`,
		map[string]any{"g": flowGraph()})
	if res.String("data.createChatbotFlow.name") != "GQL" {
		t.Fatalf("create flow: %s", res.Raw)
	}
	bad := flowGraph()
	bad["entry_node"] = "nowhere"
	res = admin.GraphQL(`mutation($g: Map!) { createChatbotFlow(input: {name: "Bad", graph: $g}) { id } }`, map[string]any{"g": bad})
	if res.GraphQLErrorCode() != "invalid" || !strings.Contains(res.String("errors.0.message"), `node "nowhere"`) {
		t.Fatalf("bad flow: %s", res.Raw)
	}

	fx := chatbotFixtures{t, env}
	fx.session(env.OrgID, newContact(t, admin, "+15550014001"), chatbotsession.StatusActive)
	res = agent.GraphQL(`{
		chatbotSettings { settings { greetingMessage hasAIAPIKey } stats { totalSessions activeSessions keywordsCount flowsCount aiContextsCount } }
		keywordRules(first: 10, search: "PRI") { totalCount edges { node { name } } }
		aiContexts(first: 10) { totalCount }
		chatbotFlows(first: 10, search: "gql") { totalCount edges { node { name } } }
		chatbotSessions(first: 10, status: "active") { totalCount edges { node { currentStep status } } }
	}`, nil)
	d := "data."
	if res.Number(d+"chatbotSettings.stats.totalSessions") != 1 || res.Number(d+"chatbotSettings.stats.keywordsCount") != 1 ||
		res.Number(d+"chatbotSettings.stats.flowsCount") != 1 || res.Number(d+"chatbotSettings.stats.aiContextsCount") != 1 ||
		res.Number(d+"keywordRules.totalCount") != 1 || res.Number(d+"aiContexts.totalCount") != 1 ||
		res.String(d+"chatbotFlows.edges.0.node.name") != "GQL" || res.Number(d+"chatbotSessions.totalCount") != 1 {
		t.Fatalf("reads: %s", res.Raw)
	}
	if res := agent.GraphQL(`{ chatbotSessions(first: 1, status: "asleep") { totalCount } }`, nil); res.GraphQLErrorCode() != "invalid" {
		t.Fatalf("bad status: %s", res.Raw)
	}
	if res := other.GraphQL(`{ keywordRules(first: 10) { totalCount } chatbotFlows(first: 10) { totalCount } }`, nil); res.Number("data.keywordRules.totalCount") != 0 ||
		res.Number("data.chatbotFlows.totalCount") != 0 {
		t.Fatalf("other organization sees: %s", res.Raw)
	}
}
