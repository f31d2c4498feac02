package rest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"switchboard/ent"
	"switchboard/ent/agenttransfer"
	"switchboard/ent/chatbotsession"
	"switchboard/ent/message"
	"switchboard/internal/testkit"
)

func node(id, typ string, config map[string]any) map[string]any {
	return map[string]any{"id": id, "type": typ, "config": config}
}

func edge(from, to, cond string) map[string]any {
	return map[string]any{"from": from, "to": to, "condition": cond}
}

func (e *botEnv) flow(t *testing.T, name string, triggers []any, nodes, edges []any) string {
	t.Helper()
	return e.Admin.Do(http.MethodPost, "/api/chatbot/flows", map[string]any{"name": name, "trigger_keywords": triggers,
		"graph": map[string]any{"version": 2, "entry_node": "start", "nodes": nodes, "edges": edges}}).
		ExpectStatus(t, http.StatusCreated).String("data.id")
}

func (e *botEnv) session(t *testing.T, phone string) []*ent.ChatbotSession {
	t.Helper()
	ss, err := e.Client().ChatbotSession.Query().Where(chatbotsession.ContactID(e.contactID(t, phone))).
		Order(chatbotsession.ByStartedAt()).All(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

func TestBotFlowButtonsPromptsConditions(t *testing.T) {
	e := newBotEnv(t, nil)
	e.flow(t, "Order", []any{"order"}, []any{
		node("start", "buttons", map[string]any{"body": "Pick one, {{name}}", "buttons": []any{
			map[string]any{"id": "pizza", "title": "Pizza"}, map[string]any{"id": "pasta", "title": "Pasta"}}}),
		node("qty", "prompt", map[string]any{"body": "How many?", "store_as": "qty", "validation_regex": "^[0-9]+$",
			"validation_error": "Digits please", "max_retries": 2}),
		node("big", "condition", map[string]any{"expression": `int(qty) > 5`}),
		node("bigmsg", "message", map[string]any{"message": "Big order of {{qty}}"}),
		node("bye", "end", map[string]any{"message": "Bye {{name}}"}),
		node("small", "end", map[string]any{"message": "Small order of {{qty}}"}),
		node("giveup", "end", map[string]any{"message": "Too many tries"}),
		node("pastaend", "end", map[string]any{"message": "No pasta today"}),
	}, []any{
		edge("start", "qty", "button:pizza"), edge("start", "pastaend", "button:pasta"),
		edge("qty", "big", "default"), edge("qty", "giveup", "max_retries"),
		edge("big", "bigmsg", "true"), edge("big", "small", "false"), edge("bigmsg", "bye", "default"),
	})
	now := time.Now().Unix()

	t.Run("ButtonsRetryTrueBranch", func(t *testing.T) {
		const p = "15551231001"
		e.deliver(t, p, "Ana", "wamid.f1", now, "order")
		rs := e.settled(t, p, 1)
		expectTexts(t, rs, "Pick one, Ana")
		if rs[0].MessageType != "interactive" || *rs[0].BotSource != message.BotSourceFlow {
			t.Fatalf("buttons: %+v", rs[0])
		}
		e.sentTo(t, p, "Pizza")
		e.press(t, p, "wamid.f1-b", "pizza", "Pizza")
		expectTexts(t, e.settled(t, p, 2), "Pick one, Ana", "How many?")
		e.deliver(t, p, "Ana", "wamid.f1-c", now+10, "lots")
		expectTexts(t, e.settled(t, p, 3), "Pick one, Ana", "How many?", "Digits please")
		e.deliver(t, p, "Ana", "wamid.f1-d", now+20, "12")
		expectTexts(t, e.settled(t, p, 4), "Pick one, Ana", "How many?", "Digits please", "Big order of 12", "Bye Ana")
		ss := e.session(t, p)
		if len(ss) != 1 || ss[0].Status != chatbotsession.StatusCompleted || ss[0].Variables["qty"] != "12" {
			t.Fatalf("session: %+v", ss)
		}
		// The session is shown by the listing and detail endpoints.
		res := e.Admin.Do(http.MethodGet, "/api/chatbot/sessions?status=completed", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total") < 1 {
			t.Fatalf("sessions: %s", res.Raw)
		}
		e.Admin.Do(http.MethodGet, "/api/chatbot/sessions/"+ss[0].ID.String(), nil).ExpectStatus(t, http.StatusOK)
	})
	t.Run("FalseBranch", func(t *testing.T) {
		const p = "15551231002"
		e.deliver(t, p, "Bo", "wamid.f2", now, "order")
		e.settled(t, p, 1)
		e.deliver(t, p, "Bo", "wamid.f2-b", now+1, "pizza") // the title typed
		e.settled(t, p, 2)
		e.deliver(t, p, "Bo", "wamid.f2-c", now+2, "3")
		expectTexts(t, e.settled(t, p, 3), "Pick one, Bo", "How many?", "Small order of 3")
	})
	t.Run("MaxRetries", func(t *testing.T) {
		const p = "15551231003"
		e.deliver(t, p, "Cy", "wamid.f3", now, "order")
		e.settled(t, p, 1)
		e.press(t, p, "wamid.f3-b", "pizza", "Pizza")
		e.settled(t, p, 2)
		e.deliver(t, p, "Cy", "wamid.f3-c", now+10, "x", "y")
		expectTexts(t, e.settled(t, p, 4), "Pick one, Cy", "How many?", "Digits please", "Too many tries")
		if ss := e.session(t, p); ss[0].Status != chatbotsession.StatusCompleted {
			t.Fatalf("session %s", ss[0].Status)
		}
	})
}

func TestBotFlowAPICall(t *testing.T) {
	var mu sync.Mutex
	var got []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("X-Key")+" "+string(body))
		mu.Unlock()
		if r.URL.Query().Get("phone") == "15551232002" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"status": "shipped", "items": []any{map[string]any{"sku": "A1"}}}})
	}))
	defer api.Close()
	e := newBotEnv(t, nil)
	e.flow(t, "Track", []any{"track"}, []any{
		node("start", "api_call", map[string]any{"url": api.URL + "/orders?phone={{phone}}", "method": "POST",
			"headers": map[string]any{"X-Key": "k-{{name}}"}, "body": map[string]any{"who": "{{name}}"},
			"response_mapping": map[string]any{"st": "data.status", "sku": "data.items.0.sku"},
			"message_template": "Your order {{sku}} is {{st}}"}),
		node("ok", "end", map[string]any{"message": "Anything else?"}),
		node("fail", "end", map[string]any{"message": "Lookup failed"}),
	}, []any{edge("start", "ok", "http:2xx"), edge("start", "fail", "http:non2xx")})
	now := time.Now().Unix()
	e.deliver(t, "15551232001", "Ana", "wamid.api1", now, "track")
	expectTexts(t, e.settled(t, "15551232001", 1), "Your order A1 is shipped", "Anything else?")
	e.deliver(t, "15551232002", "Bo", "wamid.api2", now, "track")
	expectTexts(t, e.settled(t, "15551232002", 1), "Lookup failed")
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0] != `POST /orders?phone=15551232001 k-Ana {"who":"Ana"}` {
		t.Fatalf("api requests: %q", got)
	}
}

func TestBotFlowTransferSilencesBot(t *testing.T) {
	e := newBotEnv(t, nil)
	e.flow(t, "Agent", []any{"agent"}, []any{
		node("start", "message", map[string]any{"message": "Connecting you, {{name}}"}),
		node("hand", "transfer", map[string]any{"body": "An agent will answer soon", "notes": "asked by {{name}}"}),
	}, []any{edge("start", "hand", "default")})
	const p = "15551233001"
	e.deliver(t, p, "Ana", "wamid.tr1", time.Now().Unix(), "agent")
	expectTexts(t, e.settled(t, p, 1), "Connecting you, Ana", "An agent will answer soon")
	tr, err := e.Client().AgentTransfer.Query().Where(agenttransfer.ContactID(e.contactID(t, p))).Only(e.ctx)
	if err != nil || tr.Status != agenttransfer.StatusActive || tr.Source != "flow" || tr.Notes != "asked by Ana" {
		t.Fatalf("transfer: %+v %v", tr, err)
	}
	if ss := e.session(t, p); ss[0].Status != chatbotsession.StatusCompleted {
		t.Fatalf("session %s", ss[0].Status)
	}
	// While a human has the conversation, the bot is silent.
	e.deliver(t, p, "Ana", "wamid.tr2", time.Now().Unix()+1, "agent")
	expectTexts(t, e.settled(t, p, 2), "Connecting you, Ana", "An agent will answer soon")
	// Resumed: the bot answers again.
	e.Admin.Do(http.MethodPut, "/api/chatbot/transfers/"+tr.ID.String()+"/resume", nil).ExpectStatus(t, http.StatusOK)
	e.deliver(t, p, "Ana", "wamid.tr3", time.Now().Unix()+2, "what")
	expectTexts(t, e.settled(t, p, 3), "Connecting you, Ana", "An agent will answer soon", "Sorry Ana, I did not get that")
}

func TestBotSessionTimeout(t *testing.T) {
	e := newBotEnv(t, map[string]any{"session_timeout_minutes": 5})
	e.flow(t, "Ask", []any{"ask"}, []any{
		node("start", "prompt", map[string]any{"body": "Your name?", "store_as": "given"}),
		node("done", "end", map[string]any{"message": "Thanks {{given}}"}),
	}, []any{edge("start", "done", "default")})
	now := time.Now().Unix()
	const p, q = "15551234001", "15551234002"
	e.deliver(t, p, "Ana", "wamid.to1", now, "ask")
	e.deliver(t, q, "Bo", "wamid.to2", now, "ask")
	e.settled(t, p, 1)
	e.settled(t, q, 1)
	// Both sessions idle for ten minutes.
	past := time.Now().Add(-10 * time.Minute)
	if err := e.Client().ChatbotSession.Update().SetLastActivity(past).Exec(e.ctx); err != nil {
		t.Fatal(err)
	}
	// The next message after the timeout starts fresh.
	e.deliver(t, p, "Ana", "wamid.to1-b", now+1, "Ana")
	expectTexts(t, e.settled(t, p, 2), "Your name?", "Sorry Ana, I did not get that")
	if ss := e.session(t, p); ss[0].Status != chatbotsession.StatusTimeout {
		t.Fatalf("session %s", ss[0].Status)
	}
	// The sweep times out the other.
	if n, err := e.App.Bot.ExpireSessions(e.ctx); err != nil || n != 1 {
		t.Fatalf("expired %d, %v", n, err)
	}
	res := e.Admin.Do(http.MethodGet, "/api/chatbot/sessions?status=timeout", nil).ExpectStatus(t, http.StatusOK)
	if res.Number("data.total") != 2 {
		t.Fatalf("timed out sessions: %s", res.Raw)
	}
}

// TestBotFlowChatFlow: a chat_flow node sends the published form flow as
// an interactive flow message (the header, body and CTA with the
// session's variables) and the flow goes on; a deprecated form is
// skipped.
func TestBotFlowChatFlow(t *testing.T) {
	e := newBotEnv(t, nil)
	form := e.Admin.Do(http.MethodPost, "/api/flows", flowBody(t, "Signup", nil)).ExpectStatus(t, http.StatusCreated).String("data.flow.id")
	platformID := e.Admin.Do(http.MethodPost, "/api/flows/"+form+"/save-to-provider", nil).ExpectStatus(t, http.StatusOK).
		String("data.flow.provider_flow_id")
	e.Admin.Do(http.MethodPost, "/api/flows/"+form+"/publish", nil).ExpectStatus(t, http.StatusOK)
	e.flow(t, "Form", []any{"signup"}, []any{
		node("start", "chat_flow", map[string]any{"flow_id": platformID, "header": "Hi {{name}}",
			"body": "Tell us about you, {{name}}", "cta": "Open form"}),
		node("done", "end", map[string]any{"message": "Thanks {{name}}"}),
	}, []any{edge("start", "done", "default")})

	const p = "15551234001"
	e.deliver(t, p, "Ana", "wamid.cf1", time.Now().Unix(), "signup")
	rs := e.settled(t, p, 1)
	expectTexts(t, rs, "Tell us about you, Ana", "Thanks Ana")
	f, _ := rs[0].InteractiveData["flow"].(map[string]any)
	if rs[0].MessageType != "interactive" || rs[0].BotSource == nil || *rs[0].BotSource != message.BotSourceFlow ||
		rs[0].InteractiveData["type"] != "flow" || f["flow_id"] != platformID || f["local_flow_id"] != form ||
		f["header"] != "Hi Ana" || f["flow_cta"] != "Open form" || f["screen"] != "WELCOME" {
		t.Fatalf("form message: %s %v %v", rs[0].MessageType, rs[0].BotSource, rs[0].InteractiveData)
	}
	var sent map[string]any
	testkit.Eventually(t, "the platform received the form", func() bool {
		for _, b := range e.fake.Sent() {
			if m, _ := b.(map[string]any); m["to"] == p && m["type"] == "interactive" {
				sent = m
				return true
			}
		}
		return false
	})
	in, _ := sent["interactive"].(map[string]any)
	action, _ := in["action"].(map[string]any)
	params, _ := action["parameters"].(map[string]any)
	if in["type"] != "flow" || params["flow_id"] != platformID || params["flow_cta"] != "Open form" ||
		params["flow_action"] != "navigate" || params["flow_token"] != f["flow_token"] || params["flow_token"] == "" {
		t.Fatalf("sent to the platform: %v", sent)
	}
	if ss := e.session(t, p); len(ss) != 1 || ss[0].Status != chatbotsession.StatusCompleted {
		t.Fatalf("session: %+v", ss)
	}

	// A deprecated form cannot be sent: the node is skipped and the flow
	// goes on.
	e.Admin.Do(http.MethodPost, "/api/flows/"+form+"/deprecate", nil).ExpectStatus(t, http.StatusOK)
	const q = "15551234002"
	e.deliver(t, q, "Bo", "wamid.cf2", time.Now().Unix(), "signup")
	expectTexts(t, e.settled(t, q, 1), "Thanks Bo")
}
