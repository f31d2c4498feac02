package chatbot_test

import (
	"encoding/json"
	"strings"
	"testing"

	"switchboard/chatbot"
)

// validGraph is a flow using every node type that needs no database.
const validGraph = `{
  "version": 2, "entry_node": "start",
  "nodes": [
    {"id": "start", "type": "message", "label": "Hello", "position": {"x": 0, "y": 0}, "config": {"message": "Hi {{name}}"}},
    {"id": "ask", "type": "prompt", "config": {"body": "Your email?", "store_as": "email", "validation_regex": "^[^@]+@[^@]+$", "max_retries": 2}},
    {"id": "menu", "type": "buttons", "config": {"body": "Pick", "buttons": [{"id": "a", "title": "Sales"}, {"id": "b", "title": "Support"}]}},
    {"id": "call", "type": "api_call", "config": {"url": "https://example.com/x?e={{email}}", "method": "post", "headers": {"X-Key": "1"}, "body": {"e": "{{email}}"}, "response_mapping": {"tier": "data.tier"}}},
    {"id": "cond", "type": "condition", "config": {"expression": "tier == \"gold\""}},
    {"id": "hours", "type": "timing", "config": {"schedule": [{"day": 1, "enabled": true, "start_time": "09:00", "end_time": "17:00"}]}},
    {"id": "hook", "type": "webhook", "config": {"url": "http://example.com/hook"}},
    {"id": "human", "type": "transfer", "config": {"body": "One moment"}},
    {"id": "bye", "type": "end", "config": {"message": "Bye"}}
  ],
  "edges": [
    {"from": "start", "to": "ask", "condition": "default"},
    {"from": "ask", "to": "menu"},
    {"from": "ask", "to": "bye", "condition": "max_retries"},
    {"from": "menu", "to": "call", "condition": "button:a"},
    {"from": "menu", "to": "hours", "condition": "button:b"},
    {"from": "call", "to": "cond", "condition": "http:2xx"},
    {"from": "call", "to": "bye", "condition": "http:non2xx"},
    {"from": "cond", "to": "human", "condition": "true"},
    {"from": "cond", "to": "hook", "condition": "false"},
    {"from": "hours", "to": "human", "condition": "in_hours"},
    {"from": "hours", "to": "bye", "condition": "out_of_hours"},
    {"from": "hook", "to": "bye", "condition": "default"}
  ]
}`

func mustGraph(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(validGraph), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestParseGraphValid(t *testing.T) {
	g, err := chatbot.ParseGraph(mustGraph(t))
	if err != nil {
		t.Fatal(err)
	}
	if g.Version != 2 || len(g.Nodes) != 9 || g.Next("ask", chatbot.CondDefault) != "menu" {
		t.Fatalf("graph read wrongly: %+v", g)
	}
	if n := g.Node("call"); n.Conf.Method != "POST" || n.Conf.ResponseMapping["tier"] != "data.tier" || len(n.Conf.BodyRaw) == 0 {
		t.Fatalf("api_call config read wrongly: %+v", n.Conf)
	}
	if _, err := chatbot.ParseGraph(g.Map()); err != nil {
		t.Fatalf("the stored form does not parse again: %v", err)
	}
}

// TestParseGraphErrors changes the valid graph one way per case and
// expects a 400 that names the node at fault.
func TestParseGraphErrors(t *testing.T) {
	node := func(g map[string]any, id string) map[string]any {
		for _, n := range g["nodes"].([]any) {
			if n.(map[string]any)["id"] == id {
				return n.(map[string]any)
			}
		}
		t.Fatalf("no node %s", id)
		return nil
	}
	conf := func(g map[string]any, id string) map[string]any { return node(g, id)["config"].(map[string]any) }
	addEdge := func(g map[string]any, from, to, cond string) {
		g["edges"] = append(g["edges"].([]any), map[string]any{"from": from, "to": to, "condition": cond})
	}
	cases := []struct {
		name, node, msg string
		change          func(g map[string]any)
	}{
		{"BadVersion", "", "version", func(g map[string]any) { g["version"] = 3 }},
		{"NoNodes", "", "at least one node", func(g map[string]any) { g["nodes"] = []any{}; g["edges"] = []any{} }},
		{"EntryMissing", "nowhere", "entry node does not exist", func(g map[string]any) { g["entry_node"] = "nowhere" }},
		{"DuplicateID", "ask", "used twice", func(g map[string]any) {
			g["nodes"] = append(g["nodes"].([]any), map[string]any{"id": "ask", "type": "end"})
		}},
		{"UnknownType", "bye", "unknown node type", func(g map[string]any) { node(g, "bye")["type"] = "teleport" }},
		{"EdgeFromUnknown", "ghost", "does not exist", func(g map[string]any) { addEdge(g, "ghost", "bye", "default") }},
		{"EdgeToUnknown", "ghost", "does not exist", func(g map[string]any) { addEdge(g, "start", "ghost", "max_retries") }},
		{"WrongCondition", "start", "not an outcome", func(g map[string]any) { addEdge(g, "start", "bye", "true") }},
		{"UnknownButton", "menu", "names no button", func(g map[string]any) { addEdge(g, "menu", "bye", "button:zzz") }},
		{"ConditionOnCondition", "cond", "not an outcome", func(g map[string]any) { addEdge(g, "cond", "bye", "default") }},
		{"HTTPOutcome", "call", "not an outcome", func(g map[string]any) { addEdge(g, "call", "bye", "default") }},
		{"TimingOutcome", "hours", "not an outcome", func(g map[string]any) { addEdge(g, "hours", "bye", "true") }},
		{"DuplicateOutcome", "start", "two edges", func(g map[string]any) { addEdge(g, "start", "bye", "default") }},
		{"TerminalWithEdge", "human", "no outgoing edges", func(g map[string]any) { addEdge(g, "human", "bye", "default") }},
		{"EndWithEdge", "bye", "no outgoing edges", func(g map[string]any) { addEdge(g, "bye", "start", "default") }},
		{"Unreachable", "island", "cannot be reached", func(g map[string]any) {
			g["nodes"] = append(g["nodes"].([]any), map[string]any{"id": "island", "type": "end"})
		}},
		{"FourButtons", "menu", "at most 3 buttons", func(g map[string]any) {
			conf(g, "menu")["buttons"] = []any{
				map[string]any{"id": "a", "title": "1"}, map[string]any{"id": "b", "title": "2"},
				map[string]any{"id": "c", "title": "3"}, map[string]any{"id": "d", "title": "4"}}
		}},
		{"LongButtonTitle", "menu", "more than 20", func(g map[string]any) {
			conf(g, "menu")["buttons"] = []any{map[string]any{"id": "a", "title": strings.Repeat("x", 21)}, map[string]any{"id": "b", "title": "ok"}}
		}},
		{"DuplicateButtonID", "menu", "used twice", func(g map[string]any) {
			conf(g, "menu")["buttons"] = []any{map[string]any{"id": "a", "title": "1"}, map[string]any{"id": "a", "title": "2"}}
		}},
		{"BadRegex", "ask", "validation_regex", func(g map[string]any) { conf(g, "ask")["validation_regex"] = "(unclosed" }},
		{"LongRegex", "ask", "validation_regex", func(g map[string]any) { conf(g, "ask")["validation_regex"] = strings.Repeat("a", 501) }},
		{"BadStoreAs", "ask", "store_as", func(g map[string]any) { conf(g, "ask")["store_as"] = "1bad name" }},
		{"RetriesRange", "ask", "max_retries", func(g map[string]any) { conf(g, "ask")["max_retries"] = 11 }},
		{"BadExpression", "cond", "expression", func(g map[string]any) { conf(g, "cond")["expression"] = "tier ==" }},
		{"NonBoolExpression", "cond", "expression", func(g map[string]any) { conf(g, "cond")["expression"] = `"gold"` }},
		{"BadURLScheme", "call", "config.url", func(g map[string]any) { conf(g, "call")["url"] = "ftp://example.com" }},
		{"MissingURL", "hook", "config.url", func(g map[string]any) { delete(conf(g, "hook"), "url") }},
		{"BadMethod", "call", "config.method", func(g map[string]any) { conf(g, "call")["method"] = "TRACE" }},
		{"HeaderInjection", "call", "config.headers", func(g map[string]any) {
			conf(g, "call")["headers"] = map[string]any{"X": "a\r\nB: c"}
		}},
		{"BadMapping", "call", "response_mapping", func(g map[string]any) {
			conf(g, "call")["response_mapping"] = map[string]any{"not a var": "x"}
		}},
		{"BadSchedule", "hours", "config.schedule", func(g map[string]any) {
			conf(g, "hours")["schedule"] = []any{map[string]any{"day": 1, "enabled": true, "start_time": "18:00", "end_time": "09:00"}}
		}},
		{"MessageRequired", "start", "config.message is required", func(g map[string]any) { conf(g, "start")["message"] = "" }},
		{"MessageTooLong", "start", "at most 4096", func(g map[string]any) { conf(g, "start")["message"] = strings.Repeat("x", 4097) }},
		{"ConfigWrongType", "start", "config", func(g map[string]any) { conf(g, "start")["message"] = 5 }},
		{"GotoWithoutTarget", "bye", "flow_id is required", func(g map[string]any) { node(g, "bye")["type"] = "goto_flow" }},
		{"TransferTeamNotUUID", "human", "team_id", func(g map[string]any) { conf(g, "human")["team_id"] = "sales" }},
		{"TooManyNodes", "", "at most 200 nodes", func(g map[string]any) {
			ns := g["nodes"].([]any)
			for i := 0; i < 200; i++ {
				ns = append(ns, map[string]any{"id": strings.Repeat("n", 1+i%60) + string(rune('a'+i%26)) + string(rune('a'+i/26)), "type": "end"})
			}
			g["nodes"] = ns
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := mustGraph(t)
			c.change(g)
			_, err := chatbot.ParseGraph(g)
			if err == nil {
				t.Fatal("accepted")
			}
			if c.node != "" && !strings.Contains(err.Error(), `node "`+c.node+`"`) {
				t.Fatalf("error %q does not name node %q", err, c.node)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("error %q does not say %q", err, c.msg)
			}
		})
	}
}

// FuzzDecodeGraph: any input is either refused with an error or gives a
// graph whose stored form parses again to the same shape; it never
// panics.
func FuzzDecodeGraph(f *testing.F) {
	f.Add([]byte(validGraph))
	f.Add([]byte(`{"entry_node":"a","nodes":[{"id":"a","type":"end"}],"edges":[]}`))
	f.Add([]byte(`{"entry_node":"a","nodes":[{"id":"a","type":"buttons","config":{"body":"x","buttons":[{"id":"1","title":"t"}]}}],"edges":[{"from":"a","to":"a","condition":"button:1"}]}`))
	f.Add([]byte(`{"nodes":null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := chatbot.DecodeGraph(data)
		if err != nil {
			return
		}
		again, err := chatbot.ParseGraph(g.Map())
		if err != nil {
			t.Fatalf("stored form refused: %v", err)
		}
		if len(again.Nodes) != len(g.Nodes) || len(again.Edges) != len(g.Edges) || again.EntryNode != g.EntryNode {
			t.Fatalf("round trip changed the graph")
		}
	})
}
