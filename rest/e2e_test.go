package rest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"switchboard/internal/testkit"
)

// TestInboundEndToEnd follows one message from the platform to every
// consumer: a signed webhook is stored once, announced on /ws and on a
// GraphQL subscription, and delivered signed to an outbound subscription
// (message:incoming, and contact:created for the new sender).
func TestInboundEndToEnd(t *testing.T) {
	e := newWebhookEnv(t)
	hook := newHookReceiver(t)
	_, secret := mustCreateWebhook(t, e.Admin, webhookBody("CRM", hook.URL,
		map[string]any{"events": []string{"message:incoming", "contact:created"}}))
	ws := wsDial(t, e.Server.URL, e.Admin, true)
	gql := graphqlSubscribe(t, e, `subscription { messageAdded { id content chatMessageID } }`)

	body := messagesPayload("15557770001", "Eve", textMessage("15557770001", "wamid.e2e", time.Now().Unix(), "hello all"))
	e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
	e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK) // redelivered

	ev := wsWaitFor(t, ws, "message:new")
	if ev.Payload["chat_message_id"] != "wamid.e2e" || ev.Payload["content"].(map[string]any)["body"] != "hello all" {
		t.Fatalf("/ws message:new %v", ev.Payload)
	}
	if got := gql(); got["chatMessageID"] != "wamid.e2e" || got["id"] != ev.Payload["id"] {
		t.Fatalf("GraphQL messageAdded %v, /ws %v", got, ev.Payload)
	}

	var events []string
	testkit.Eventually(t, "both outbound deliveries", func() bool { return len(hook.requests()) >= 2 })
	for _, r := range hook.requests() {
		expectHookSigned(t, secret, r)
		var env struct {
			ID    string         `json:"id"`
			Event string         `json:"event"`
			Data  map[string]any `json:"data"`
		}
		if err := json.Unmarshal(r.body, &env); err != nil {
			t.Fatal(err)
		}
		if env.ID != r.header.Get("webhook-id") || env.Event != r.header.Get("X-Webhook-Event") {
			t.Errorf("envelope %s / headers %v", r.body, r.header)
		}
		if env.Event == "message:incoming" && env.Data["chat_message_id"] != "wamid.e2e" {
			t.Errorf("message:incoming data %v", env.Data)
		}
		events = append(events, env.Event)
	}
	if strings.Join(events, ",") != "message:incoming,contact:created" && strings.Join(events, ",") != "contact:created,message:incoming" {
		t.Fatalf("delivered %v", events)
	}
	e.drained(t)
	if n := len(e.messages(t)); n != 1 {
		t.Fatalf("%d messages stored, want 1", n)
	}
	if n, err := e.Client().WebhookDelivery.Query().Count(e.ctx); err != nil || n != 2 {
		t.Fatalf("%d outbound deliveries stored (%v), want 2: the redelivery emits nothing", n, err)
	}
}

// graphqlSubscribe starts a subscription over graphql-transport-ws and
// returns a function that waits for its next result's single field.
func graphqlSubscribe(t *testing.T, e *webhookEnv, query string) func() map[string]any {
	t.Helper()
	conn := e.Admin.SubscribeGraphQL(t, query)
	read := func() map[string]any {
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		var m map[string]any
		if err := conn.ReadJSON(&m); err != nil {
			t.Fatalf("reading: %v", err)
		}
		return m
	}
	return func() map[string]any {
		for {
			m := read()
			if m["type"] != "next" {
				continue
			}
			for _, v := range m["payload"].(map[string]any)["data"].(map[string]any) {
				return v.(map[string]any)
			}
		}
	}
}
