package ivr_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/calling/ivr"
)

const (
	teamID  = "11111111-1111-4111-8111-111111111111"
	agentID = "22222222-2222-4222-8222-222222222222"
	flowID  = "33333333-3333-4333-8333-333333333333"
	audioOK = "0123456789abcdef0123456789abcdef.ogg"
)

// MustMenu decodes a JSON menu as the data layer hands it over.
func MustMenu(tb testing.TB, s string) map[string]any {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		tb.Fatalf("menu JSON: %v", err)
	}
	return m
}

// MustParse parses a JSON menu that must be valid.
func MustParse(tb testing.TB, s string) *ivr.Graph {
	tb.Helper()
	g, err := ivr.Parse(MustMenu(tb, s))
	if err != nil {
		tb.Fatalf("Parse: %v", err)
	}
	return g
}

// fullMenu is a version 2 menu using every node type.
const fullMenu = `{
  "version": 2, "entry_node": "hours",
  "nodes": [
    {"id": "hours", "type": "timing", "label": "Open?", "position": {"x": 1, "y": 2},
     "config": {"schedule": [{"day": "monday", "enabled": true, "open": "09:00", "close": "17:00"},
                             {"day": "tuesday", "enabled": true, "start_time": "09:00", "end_time": "17:00"},
                             {"day": "sunday", "enabled": false}]}},
    {"id": "g1", "type": "greeting", "config": {"greeting_text": "Welcome", "audio_file": "` + audioOK + `", "interruptible": true}},
    {"id": "m1", "type": "menu", "label": "Main", "config": {"prompt_text": "Press 1 or 2", "options": {"1": {"label": "Sales"}, "#": {"label": "Back"}},
      "timeout_seconds": 5, "max_retries": 2, "invalid_text": "Not an option"}},
    {"id": "acct", "type": "gather", "config": {"prompt_text": "Account number", "max_digits": 8, "terminator": "*", "store_as": "account"}},
    {"id": "lookup", "type": "http_callback", "config": {"url": "https://crm.example.com/a/{{account}}?p={{caller_phone}}", "method": "post",
      "headers": {"X-Key": "k"}, "body_template": "{\"a\": \"{{account}}\"}", "timeout_seconds": 3, "response_store_as": "crm"}},
    {"id": "sales", "type": "transfer", "config": {"team_id": "` + teamID + `", "agent_id": "` + agentID + `"}},
    {"id": "other", "type": "goto_flow", "config": {"flow_id": "` + flowID + `"}},
    {"id": "bye", "type": "hangup", "config": {"goodbye_text": "Goodbye"}}
  ],
  "edges": [
    {"from": "hours", "to": "g1", "condition": "in_hours"},
    {"from": "hours", "to": "bye", "condition": "out_of_hours"},
    {"from": "g1", "to": "m1", "condition": "default"},
    {"from": "m1", "to": "sales", "condition": "digit:1"},
    {"from": "m1", "to": "acct", "condition": "digit:#"},
    {"from": "m1", "to": "bye", "condition": "max_retries"},
    {"from": "acct", "to": "lookup"},
    {"from": "lookup", "to": "other", "condition": "http:2xx"},
    {"from": "lookup", "to": "bye", "condition": "http:non2xx"},
    {"from": "sales", "to": "bye", "condition": "no_answer"}
  ]
}`

func TestParseFullMenu(t *testing.T) {
	g := MustParse(t, fullMenu)
	if g.EntryNode != "hours" || len(g.Nodes) != 8 || len(g.Edges) != 10 || g.Implicit {
		t.Fatalf("graph: entry %q, %d nodes, %d edges, implicit %v", g.EntryNode, len(g.Nodes), len(g.Edges), g.Implicit)
	}
	m := g.Node("m1").Menu
	if m.Timeout != 5*time.Second || m.MaxRetries != 2 || m.Options['1'] != "Sales" || m.Options['#'] != "Back" || !m.Prompt.Interruptible {
		t.Errorf("menu config: %+v", m)
	}
	ga := g.Node("acct").Gather
	if ga.MaxDigits != 8 || ga.Terminator != '*' || ga.StoreAs != "account" || ga.Timeout != 10*time.Second || ga.MaxRetries != 3 {
		t.Errorf("gather config: %+v", ga)
	}
	h := g.Node("lookup").HTTP
	if h.Method != "POST" || h.Timeout != 3*time.Second || h.StoreAs != "crm" || h.Headers["X-Key"] != "k" {
		t.Errorf("http config: %+v", h)
	}
	tr := g.Node("sales").Transfer
	if tr.TeamID.String() != teamID || tr.AgentID.String() != agentID {
		t.Errorf("transfer config: %+v", tr)
	}
	sched := g.Node("hours").Timing.Schedule
	if len(sched) != 3 || sched[1].Weekday != time.Tuesday || sched[1].Open != 9*60 || sched[1].Close != 17*60 {
		t.Errorf("schedule: %+v", sched)
	}
	for _, c := range []struct{ from, outcome, want string }{
		{"m1", "digit:1", "sales"}, {"acct", "default", "lookup"}, {"lookup", "http:non2xx", "bye"},
	} {
		if to, ok := g.Next(c.from, c.outcome); !ok || to != c.want {
			t.Errorf("Next(%q, %q) = %q, %v; want %q", c.from, c.outcome, to, ok, c.want)
		}
	}
	if _, ok := g.Next("sales", "completed"); ok {
		t.Error("Next(sales, completed) has no edge")
	}
}

func TestParseMinimalMenu(t *testing.T) {
	// The spec's example: no version, entry_node or edges.
	g := MustParse(t, `{"nodes": [
	  {"id": "a", "type": "greeting", "label": "Hi", "config": {"greeting_text": "Hello"}},
	  {"id": "b", "type": "menu", "config": {"options": {"1": {"label": "One"}}}},
	  {"id": "c", "type": "hangup"}]}`)
	if g.EntryNode != "a" || !g.Implicit {
		t.Fatalf("entry %q implicit %v", g.EntryNode, g.Implicit)
	}
	for _, c := range []struct{ from, outcome, want string }{
		{"a", "default", "b"}, {"b", "digit:1", "c"}, {"b", "timeout", "c"}, {"b", "max_retries", "c"},
	} {
		if to, ok := g.Next(c.from, c.outcome); !ok || to != c.want {
			t.Errorf("Next(%q, %q) = %q, %v; want %q", c.from, c.outcome, to, ok, c.want)
		}
	}
	if g.Node("a").Greeting.Prompt.Text != "Hello" {
		t.Errorf("greeting text %q", g.Node("a").Greeting.Prompt.Text)
	}
}

func TestParseErrors(t *testing.T) {
	greeting := `{"id": "g", "type": "greeting"}`
	menuNode := func(cfg string) string {
		return `{"nodes": [{"id": "m1", "type": "menu", "config": ` + cfg + `}]}`
	}
	many := make([]string, ivr.MaxNodes+1)
	for i := range many {
		many[i] = `{"id": "n` + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + `", "type": "hangup"}`
	}
	cases := []struct {
		name, menu, want string
	}{
		{"NoNodes", `{}`, `menu: nodes is required`},
		{"EmptyNodes", `{"nodes": []}`, `menu: nodes must have at least one node`},
		{"BadVersion", `{"version": 3, "nodes": [` + greeting + `]}`, `menu: version must be 2`},
		{"TooManyNodes", `{"nodes": [` + strings.Join(many, ",") + `]}`, `at most 200 nodes`},
		{"EmptyID", `{"nodes": [{"id": "", "type": "greeting"}]}`, `menu: nodes[0]: id must be a non-empty string`},
		{"LongID", `{"nodes": [{"id": "` + strings.Repeat("a", 65) + `", "type": "greeting"}]}`, `id must be at most 64 characters`},
		{"DuplicateID", `{"nodes": [` + greeting + `,` + greeting + `]}`, `menu node "g": id: used by two nodes`},
		{"UnknownType", `{"nodes": [{"id": "x", "type": "dance"}]}`, `menu node "x": type must be one of`},
		{"LabelType", `{"nodes": [{"id": "x", "type": "hangup", "label": 5}]}`, `menu node "x": label must be a string`},
		{"ConfigType", `{"nodes": [{"id": "x", "type": "hangup", "config": []}]}`, `menu node "x": config must be an object`},
		{"UnknownKey", `{"nodes": [{"id": "g", "type": "greeting", "config": {"greting_text": "hi"}}]}`, `menu node "g": greting_text: is not a setting of a greeting node`},
		{"TextType", `{"nodes": [{"id": "g", "type": "greeting", "config": {"greeting_text": 7}}]}`, `menu node "g": greeting_text: must be a string`},
		{"TextTooLong", `{"nodes": [{"id": "g", "type": "greeting", "config": {"greeting_text": "` + strings.Repeat("é", 1001) + `"}}]}`, `greeting_text: must be at most 1000 characters`},
		{"BoolType", `{"nodes": [{"id": "g", "type": "greeting", "config": {"interruptible": "yes"}}]}`, `interruptible: must be true or false`},
		{"AudioPath", `{"nodes": [{"id": "g", "type": "greeting", "config": {"audio_file": "../../etc/passwd"}}]}`, `audio_file: must be the name of an uploaded audio file`},
		{"MenuNoOptions", menuNode(`{}`), `menu node "m1": options: at least one option is required`},
		{"MenuEmptyOptions", menuNode(`{"options": {}}`), `options: at least one option is required`},
		{"MenuBadDigit", menuNode(`{"options": {"x": {"label": "X"}}}`), `menu node "m1": options: digit "x" is not a key`},
		{"MenuTwoCharDigit", menuNode(`{"options": {"12": {}}}`), `options: digit "12" is not a key`},
		{"MenuOptionKey", menuNode(`{"options": {"1": {"label": "A", "go": "x"}}}`), `digit "1": "go" is not a setting of an option`},
		{"MenuTimeoutRange", menuNode(`{"options": {"1": {}}, "timeout_seconds": 61}`), `timeout_seconds: must be a number of seconds from 1 to 60`},
		{"MenuTimeoutType", menuNode(`{"options": {"1": {}}, "timeout_seconds": "5"}`), `timeout_seconds: must be a number`},
		{"MenuRetriesRange", menuNode(`{"options": {"1": {}}, "max_retries": 0}`), `max_retries: must be a whole number from 1 to 10`},
		{"MenuRetriesFraction", menuNode(`{"options": {"1": {}}, "max_retries": 1.5}`), `max_retries: must be a whole number`},
		{"GatherDigits", `{"nodes": [{"id": "g", "type": "gather", "config": {"max_digits": 33}}]}`, `max_digits: must be a whole number from 1 to 32`},
		{"GatherTerminator", `{"nodes": [{"id": "g", "type": "gather", "config": {"terminator": "1"}}]}`, `terminator: must be "#" or "*"`},
		{"GatherStoreAs", `{"nodes": [{"id": "g", "type": "gather", "config": {"store_as": "Account-No"}}]}`, `store_as: must be a variable name`},
		{"HTTPNoURL", `{"nodes": [{"id": "h", "type": "http_callback"}]}`, `menu node "h": url: a URL is required`},
		{"HTTPScheme", `{"nodes": [{"id": "h", "type": "http_callback", "config": {"url": "ftp://x.example.com"}}]}`, `url: invalid URL: the scheme "ftp" is not allowed`},
		{"HTTPMethod", `{"nodes": [{"id": "h", "type": "http_callback", "config": {"url": "https://x.example.com", "method": "DELETE"}}]}`, `method: must be one of GET, POST, PUT, PATCH`},
		{"HTTPTimeout", `{"nodes": [{"id": "h", "type": "http_callback", "config": {"url": "https://x.example.com", "timeout_seconds": 31}}]}`, `timeout_seconds: must be a number of seconds from 1 to 30`},
		{"HTTPHeader", `{"nodes": [{"id": "h", "type": "http_callback", "config": {"url": "https://x.example.com", "headers": {"X": "a\r\nB: c"}}}]}`, `headers: the value of X is too long or holds a line break`},
		{"TransferNoTeam", `{"nodes": [{"id": "t", "type": "transfer"}]}`, `menu node "t": team_id: is required`},
		{"TransferBadAgent", `{"nodes": [{"id": "t", "type": "transfer", "config": {"team_id": "` + teamID + `", "agent_id": "bob"}}]}`, `agent_id: must be an id (uuid)`},
		{"GotoNoFlow", `{"nodes": [{"id": "f", "type": "goto_flow", "config": {}}]}`, `menu node "f": flow_id: is required`},
		{"TimingDay", `{"nodes": [{"id": "t", "type": "timing", "config": {"schedule": [{"day": "funday", "enabled": true}]}}]}`, `schedule: [0]: day must be monday to sunday`},
		{"TimingClock", `{"nodes": [{"id": "t", "type": "timing", "config": {"schedule": [{"day": "monday", "enabled": true, "open": "9", "close": "17:00"}]}}]}`, `open and close must be times HH:MM`},
		{"TimingOrder", `{"nodes": [{"id": "t", "type": "timing", "config": {"schedule": [{"day": "monday", "enabled": true, "open": "17:00", "close": "09:00"}]}}]}`, `open must be before close`},
		{"TimingTwice", `{"nodes": [{"id": "t", "type": "timing", "config": {"schedule": [{"day": "monday"}, {"day": "Monday"}]}}]}`, `[1]: monday is listed twice`},
		{"EntryMissing", `{"entry_node": "zz", "nodes": [` + greeting + `], "edges": []}`, `menu: entry_node "zz" is no node of the menu`},
		{"EdgeFromMissing", `{"nodes": [` + greeting + `], "edges": [{"from": "q", "to": "g"}]}`, `menu: edges[0]: from "q" is no node of the menu`},
		{"EdgeToMissing", `{"nodes": [` + greeting + `], "edges": [{"from": "g", "to": "q"}]}`, `menu node "g": edges[0]: to "q" is no node of the menu`},
		{"EdgeCondition", `{"nodes": [` + greeting + `, {"id": "h", "type": "hangup"}], "edges": [{"from": "g", "to": "h", "condition": "digit:1"}]}`,
			`menu node "g": edges[0]: condition "digit:1" is not an outcome of a greeting node`},
		{"EdgeFromTerminal", `{"nodes": [{"id": "h", "type": "hangup"}, ` + greeting + `], "edges": [{"from": "h", "to": "g"}]}`,
			`menu node "h": edges[0]: a hangup node ends the IVR`},
		{"EdgeTwice", `{"nodes": [` + greeting + `, {"id": "h", "type": "hangup"}], "edges": [{"from": "g", "to": "h"}, {"from": "g", "to": "h", "condition": "default"}]}`,
			`menu node "g": edges[1]: two edges handle the outcome "default"`},
		{"Unreachable", `{"version": 2, "entry_node": "g", "nodes": [` + greeting + `, {"id": "h", "type": "hangup"}], "edges": []}`,
			`menu node "h": not reachable from the entry node "g"`},
		{"EdgesType", `{"nodes": [` + greeting + `], "edges": {}}`, `menu: edges must be an array`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ivr.Parse(MustMenu(t, c.menu))
			if err == nil {
				t.Fatalf("Parse accepted the menu; want %q", c.want)
			}
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Code != apperr.Invalid {
				t.Fatalf("error %v is not apperr invalid", err)
			}
			if !strings.Contains(ae.Message, c.want) {
				t.Errorf("message %q does not contain %q", ae.Message, c.want)
			}
		})
	}
}

func TestParseNil(t *testing.T) {
	if _, err := ivr.Parse(nil); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("Parse(nil) = %v; want invalid", err)
	}
}

// fakeChecker answers from sets; err fails every lookup.
type fakeChecker struct {
	teams, flows, files map[string]bool
	members             map[string]bool // team/agent
	err                 error
	calls               int
}

func (c *fakeChecker) TeamExists(_ context.Context, id uuid.UUID) (bool, error) {
	c.calls++
	return c.teams[id.String()], c.err
}

func (c *fakeChecker) AgentInTeam(_ context.Context, team, agent uuid.UUID) (bool, error) {
	c.calls++
	return c.members[team.String()+"/"+agent.String()], c.err
}

func (c *fakeChecker) FlowExists(_ context.Context, id uuid.UUID) (bool, error) {
	c.calls++
	return c.flows[id.String()], c.err
}

func (c *fakeChecker) AudioExists(_ context.Context, name string) (bool, error) {
	c.calls++
	return c.files[name], c.err
}

// privateChecker is a Checker that lets URLs name private addresses.
type privateChecker struct{ *fakeChecker }

func (privateChecker) AllowPrivateURLs() bool { return true }

func goodChecker() *fakeChecker {
	return &fakeChecker{
		teams:   map[string]bool{teamID: true},
		flows:   map[string]bool{flowID: true},
		files:   map[string]bool{audioOK: true},
		members: map[string]bool{teamID + "/" + agentID: true},
	}
}

func TestValidate(t *testing.T) {
	ctx := context.Background()
	local := `{"nodes": [{"id": "h", "type": "http_callback", "config": {"url": "http://127.0.0.1:8080/x"}}]}`
	cases := []struct {
		name  string
		menu  string
		check func() ivr.Checker
		want  string // empty: valid
	}{
		{"OK", fullMenu, func() ivr.Checker { return goodChecker() }, ""},
		{"NilChecker", fullMenu, func() ivr.Checker { return nil }, ""},
		{"TeamMissing", fullMenu, func() ivr.Checker { c := goodChecker(); c.teams = nil; return c },
			`menu node "sales": team_id: team ` + teamID + ` not found`},
		{"AgentNotMember", fullMenu, func() ivr.Checker { c := goodChecker(); c.members = nil; return c },
			`menu node "sales": agent_id: agent ` + agentID + ` is not a member of team ` + teamID},
		{"FlowMissing", fullMenu, func() ivr.Checker { c := goodChecker(); c.flows = nil; return c },
			`menu node "other": flow_id: no IVR flow ` + flowID},
		{"AudioMissing", fullMenu, func() ivr.Checker { c := goodChecker(); c.files = nil; return c },
			`menu node "g1": audio file "` + audioOK + `" not found`},
		{"PrivateURLRefused", local, func() ivr.Checker { return nil }, `menu node "h": url: destination address 127.0.0.1 is not allowed`},
		{"PrivateURLWithoutPolicy", local, func() ivr.Checker { return goodChecker() }, `url: destination address 127.0.0.1 is not allowed`},
		{"PrivateURLAllowed", local, func() ivr.Checker { return privateChecker{goodChecker()} }, ""},
		{"LocalhostRefused", `{"nodes": [{"id": "h", "type": "http_callback", "config": {"url": "http://localhost/{{x}}"}}]}`,
			func() ivr.Checker { return nil }, `url: destination localhost is not allowed`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := MustParse(t, c.menu).Validate(ctx, c.check())
			if c.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Validate = %v; want invalid containing %q", err, c.want)
			}
		})
	}
}

func TestValidateLookupError(t *testing.T) {
	boom := errors.New("database down")
	c := goodChecker()
	c.err = boom
	err := MustParse(t, fullMenu).Validate(context.Background(), c)
	if !errors.Is(err, boom) {
		t.Fatalf("Validate = %v; want the checker's error", err)
	}
}

func TestValidateAsksOncePerTarget(t *testing.T) {
	menu := `{"nodes": [
	  {"id": "a", "type": "greeting", "config": {"audio_file": "` + audioOK + `"}},
	  {"id": "b", "type": "greeting", "config": {"audio_file": "` + audioOK + `"}},
	  {"id": "t", "type": "transfer", "config": {"team_id": "` + teamID + `"}}]}`
	c := goodChecker()
	if err := MustParse(t, menu).Validate(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if c.calls != 2 {
		t.Errorf("%d lookups; want 2 (one audio file, one team)", c.calls)
	}
}
