package chatbot_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/chatbot"
)

// fakeEnv records what a flow does.
type fakeEnv struct {
	sent      []string
	calls     []chatbot.HTTPRequest
	fired     []chatbot.HTTPRequest
	transfers []string
	forms     []chatbot.NodeConfig
	formErr   error
	answer    chatbot.HTTPResult
	callErr   error
	inHours   bool
	flows     map[uuid.UUID]*chatbot.Graph
	warnings  []string
}

func (f *fakeEnv) Warn(msg string, args ...any) { f.warnings = append(f.warnings, msg) }

func (f *fakeEnv) Send(_ context.Context, r chatbot.Reply) error {
	s := r.Text
	for _, b := range r.Buttons {
		s += " [" + b.Title + "]"
	}
	f.sent = append(f.sent, s)
	return nil
}

func (f *fakeEnv) Call(_ context.Context, req chatbot.HTTPRequest) (chatbot.HTTPResult, error) {
	f.calls = append(f.calls, req)
	return f.answer, f.callErr
}

func (f *fakeEnv) Fire(_ context.Context, req chatbot.HTTPRequest) { f.fired = append(f.fired, req) }

func (f *fakeEnv) Transfer(_ context.Context, team *uuid.UUID, notes string) error {
	f.transfers = append(f.transfers, notes)
	return nil
}

func (f *fakeEnv) SendForm(_ context.Context, c chatbot.NodeConfig, _ map[string]any) error {
	if f.formErr != nil {
		return f.formErr
	}
	f.forms = append(f.forms, c)
	f.sent = append(f.sent, "form:"+c.FlowID)
	return nil
}

func (f *fakeEnv) InHours([]chatbot.ScheduleDay) bool { return f.inHours }

func (f *fakeEnv) Flow(_ context.Context, id uuid.UUID) (*chatbot.Graph, error) {
	if g, ok := f.flows[id]; ok {
		return g, nil
	}
	return nil, errors.New("no such flow")
}

func flowGraph(tb testing.TB, entry string, nodes []map[string]any, edges [][3]string) *chatbot.Graph {
	tb.Helper()
	ns := make([]any, len(nodes))
	for i, n := range nodes {
		ns[i] = n
	}
	es := make([]any, len(edges))
	for i, e := range edges {
		es[i] = map[string]any{"from": e[0], "to": e[1], "condition": e[2]}
	}
	g, err := chatbot.ParseGraph(map[string]any{"version": 2, "entry_node": entry, "nodes": ns, "edges": es})
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

func n(id, typ string, config map[string]any) map[string]any {
	return map[string]any{"id": id, "type": typ, "config": config}
}

// orderGraph asks for a quantity with validation and branches on it.
func orderGraph(tb testing.TB) *chatbot.Graph {
	return flowGraph(tb, "ask", []map[string]any{
		n("ask", "prompt", map[string]any{"body": "How many, {{name}}?", "store_as": "qty", "validation_regex": "^[0-9]+$",
			"validation_error": "Digits please", "max_retries": 3}),
		n("check", "condition", map[string]any{"expression": "int(qty) > 5"}),
		n("big", "message", map[string]any{"message": "Big: {{qty}}"}),
		n("small", "message", map[string]any{"message": "Small: {{qty}}"}),
		n("again", "prompt", map[string]any{"body": "Another?", "store_as": "more"}),
		n("stop", "end", map[string]any{"message": "Too many tries"}),
	}, [][3]string{{"ask", "check", "default"}, {"ask", "stop", "max_retries"}, {"check", "big", "true"},
		{"check", "small", "false"}, {"big", "again", "default"}, {"small", "again", "default"}})
}

func TestFlowPromptRetriesAndCondition(t *testing.T) {
	ctx := context.Background()
	env := &fakeEnv{}
	st := &chatbot.FlowState{Graph: orderGraph(t), Vars: map[string]any{"name": "Ana"}}
	if err := chatbot.Start(ctx, env, st); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"lots", "7"} {
		if err := chatbot.Continue(ctx, env, st, chatbot.Input{Text: in}); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(env.sent, "|"); got != "How many, Ana?|Digits please|Big: 7|Another?" {
		t.Fatalf("sent %q", got)
	}
	if st.Step != "again" || st.Status != chatbot.SessionActive || st.Vars["qty"] != "7" {
		t.Fatalf("state %+v", st)
	}
	// Three failed answers follow max_retries.
	env2 := &fakeEnv{}
	st2 := &chatbot.FlowState{Graph: orderGraph(t), Vars: map[string]any{}}
	_ = chatbot.Start(ctx, env2, st2)
	for _, in := range []string{"a", "b", "c"} {
		_ = chatbot.Continue(ctx, env2, st2, chatbot.Input{Text: in})
	}
	if got := strings.Join(env2.sent, "|"); got != "How many, ?|Digits please|Digits please|Too many tries" || st2.Status != chatbot.SessionCompleted {
		t.Fatalf("sent %q, status %s", got, st2.Status)
	}
}

func TestFlowAPICallTimingTransferGoto(t *testing.T) {
	ctx := context.Background()
	other := uuid.New()
	env := &fakeEnv{answer: chatbot.HTTPResult{Status: 200, Body: []byte(`{"order":{"state":"sent","lines":[{"sku":"X9"}]}}`)},
		flows: map[uuid.UUID]*chatbot.Graph{other: flowGraph(t, "h", []map[string]any{
			n("h", "transfer", map[string]any{"body": "Agent coming", "notes": "order {{sku}}"})}, nil)}}
	g := flowGraph(t, "call", []map[string]any{
		n("call", "api_call", map[string]any{"url": "https://api.example.com/o/{{id}}", "method": "post",
			"headers": map[string]any{"Authorization": "Bearer {{token}}"}, "body": map[string]any{"q": "{{id}}"},
			"response_mapping": map[string]any{"state": "order.state", "sku": "$.order.lines.0.sku"},
			"message_template": "Order is {{state}}"}),
		n("hook", "webhook", map[string]any{"url": "https://hooks.example.com/x", "body": "id={{id}}"}),
		n("hours", "timing", map[string]any{"schedule": []any{}}),
		n("jump", "goto_flow", map[string]any{"flow_id": other.String()}),
		n("closed", "end", map[string]any{"message": "Closed"}),
		n("failed", "end", map[string]any{"message": "Failed"}),
	}, [][3]string{{"call", "hook", "http:2xx"}, {"call", "failed", "http:non2xx"}, {"hook", "hours", "default"},
		{"hours", "jump", "in_hours"}, {"hours", "closed", "out_of_hours"}})
	env.inHours = true
	st := &chatbot.FlowState{Graph: g, Vars: map[string]any{"id": "42", "token": "t"}}
	if err := chatbot.Start(ctx, env, st); err != nil {
		t.Fatal(err)
	}
	if len(env.calls) != 1 || env.calls[0].Method != "POST" || env.calls[0].URL != "https://api.example.com/o/42" ||
		env.calls[0].Headers["Authorization"] != "Bearer t" || string(env.calls[0].Body) != `{"q":"42"}` {
		t.Fatalf("call %+v", env.calls)
	}
	if len(env.fired) != 1 || string(env.fired[0].Body) != "id=42" {
		t.Fatalf("fired %+v", env.fired)
	}
	if got := strings.Join(env.sent, "|"); got != "Order is sent|Agent coming" || strings.Join(env.transfers, ",") != "order X9" {
		t.Fatalf("sent %q transfers %q", got, env.transfers)
	}
	if st.Status != chatbot.SessionCompleted || st.FlowID != other {
		t.Fatalf("state %+v", st)
	}
	// A failed call and closed hours take the other edges.
	env2 := &fakeEnv{answer: chatbot.HTTPResult{Status: 503}}
	st2 := &chatbot.FlowState{Graph: g, Vars: map[string]any{}}
	_ = chatbot.Start(ctx, env2, st2)
	if strings.Join(env2.sent, "|") != "Failed" {
		t.Fatalf("sent %q", env2.sent)
	}
}

func TestFlowButtonsAndChatFlow(t *testing.T) {
	ctx := context.Background()
	g := flowGraph(t, "menu", []map[string]any{
		n("menu", "buttons", map[string]any{"body": "Pick", "buttons": []any{
			map[string]any{"id": "a", "title": "Form"}, map[string]any{"id": "b", "title": "Bye"}}}),
		n("form", "chat_flow", map[string]any{"flow_id": "prov-1", "header": "Hi", "body": "Fill", "cta": "Open"}),
		n("bye", "end", map[string]any{"message": "Bye"}),
	}, [][3]string{{"menu", "form", "button:a"}, {"menu", "bye", "button:b"}, {"form", "bye", "default"}})
	env := &fakeEnv{}
	st := &chatbot.FlowState{Graph: g}
	_ = chatbot.Start(ctx, env, st)
	_ = chatbot.Continue(ctx, env, st, chatbot.Input{Text: "what?"})
	if strings.Join(env.sent, "|") != "Pick [Form] [Bye]|Pick [Form] [Bye]" || st.Step != "menu" {
		t.Fatalf("sent %q step %q", env.sent, st.Step)
	}
	// The form is sent with the node's texts and the flow goes on by its
	// default edge without waiting.
	if err := chatbot.Continue(ctx, env, st, chatbot.Input{ButtonID: "a"}); err != nil {
		t.Fatalf("chat_flow: %v", err)
	}
	if strings.Join(env.sent[2:], "|") != "form:prov-1|Bye" || st.Status != chatbot.SessionCompleted {
		t.Fatalf("sent %q status %s", env.sent, st.Status)
	}
	if len(env.forms) != 1 || env.forms[0].Header != "Hi" || env.forms[0].Body != "Fill" || env.forms[0].CTA != "Open" {
		t.Fatalf("forms %+v", env.forms)
	}
	// A bot without the form flows service stops at the node.
	env = &fakeEnv{formErr: chatbot.ErrFormFlowsUnavailable}
	st = &chatbot.FlowState{Graph: g}
	_ = chatbot.Start(ctx, env, st)
	if err := chatbot.Continue(ctx, env, st, chatbot.Input{ButtonID: "a"}); !errors.Is(err, chatbot.ErrFormFlowsUnavailable) {
		t.Fatalf("chat_flow without forms: %v", err)
	}
	env = &fakeEnv{}
	st = &chatbot.FlowState{Graph: g}
	_ = chatbot.Start(ctx, env, st)
	_ = chatbot.Continue(ctx, env, st, chatbot.Input{Text: "bye"})
	if st.Status != chatbot.SessionCompleted {
		t.Fatalf("status %s", st.Status)
	}
}

// BenchmarkFlowStep measures one contact message through a flow in
// process: a prompt's answer validated and stored, a condition, a message
// and the next prompt sent (the FlowEnv records, no I/O).
func BenchmarkFlowStep(b *testing.B) {
	ctx := context.Background()
	g := orderGraph(b)
	env := &fakeEnv{}
	b.ReportAllocs()
	for b.Loop() {
		st := &chatbot.FlowState{Graph: g, Step: "ask", Status: chatbot.SessionActive, Vars: map[string]any{"name": "Ana"}}
		if err := chatbot.Continue(ctx, env, st, chatbot.Input{Text: "7"}); err != nil {
			b.Fatal(err)
		}
		env.sent = env.sent[:0]
	}
}
