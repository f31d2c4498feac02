package rest_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"switchboard/events"
	"switchboard/internal/apitest"
)

// wsDial opens /ws on server base with a fresh ws token of c, given in the
// query or as the first message.
func wsDial(t *testing.T, base string, c *apitest.Client, viaQuery bool) *websocket.Conn {
	t.Helper()
	tok := c.Do(http.MethodGet, "/api/auth/ws-token", nil).ExpectStatus(t, http.StatusOK).String("data.token")
	url := "ws" + strings.TrimPrefix(base, "http") + "/ws"
	if viaQuery {
		url += "?token=" + tok
	}
	conn, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if !viaQuery {
		if err := conn.WriteJSON(map[string]any{"type": "auth", "payload": map[string]string{"token": tok}}); err != nil {
			t.Fatal(err)
		}
	}
	if m := wsRead(t, conn); m.Type != "connected" {
		t.Fatalf("first message %q", m.Type)
	}
	return conn
}

type wsMsg struct {
	Type    string         `json:"type"`
	Payload map[string]any `json:"payload"`
}

func wsRead(t *testing.T, conn *websocket.Conn) wsMsg {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, raw, err := conn.ReadMessage()
	if err != nil {
		t.Fatalf("reading /ws: %v", err)
	}
	var m wsMsg
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// wsWaitFor reads until a message of type typ arrives.
func wsWaitFor(t *testing.T, conn *websocket.Conn, typ string) wsMsg {
	t.Helper()
	for {
		if m := wsRead(t, conn); m.Type == typ {
			return m
		}
	}
}

func TestWebSocketEvents(t *testing.T) {
	e := newWebhookEnv(t)
	now := time.Now().Unix()
	byQuery := wsDial(t, e.Server.URL, e.Admin, true)
	byMessage := wsDial(t, e.Server.URL, e.Admin, false)
	foreign := wsDial(t, e.Server.URL, e.NewOrg("Elsewhere"), true)

	body := messagesPayload("15559990001", "Wanda", textMessage("15559990001", "wamid.ws1", now, "ping"))
	e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
	for _, conn := range []*websocket.Conn{byQuery, byMessage} {
		m := wsWaitFor(t, conn, "message:new")
		if m.Payload["direction"] != "incoming" || m.Payload["type"] != "text" || m.Payload["contact_id"] == nil ||
			m.Payload["id"] == nil || m.Payload["timestamp"] == nil || m.Payload["content"].(map[string]any)["body"] != "ping" {
			t.Fatalf("message:new payload: %v", m.Payload)
		}
		if c := wsWaitFor(t, conn, "contact:new"); c.Payload["phone_number"] != "15559990001" {
			t.Fatalf("contact:new payload: %v", c.Payload)
		}
	}
	// The other organization's socket saw nothing of it.
	_ = foreign.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, raw, err := foreign.ReadMessage(); err == nil {
		t.Fatalf("another organization received %s", raw)
	}

	t.Run("TokenWorksOnce", func(t *testing.T) {
		tok := e.Admin.Do(http.MethodGet, "/api/auth/ws-token", nil).String("data.token")
		url := "ws" + strings.TrimPrefix(e.Server.URL, "http") + "/ws?token=" + tok
		first, _, err := websocket.DefaultDialer.Dial(url, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer first.Close()
		if m := wsRead(t, first); m.Type != "connected" {
			t.Fatalf("first use: %v", m)
		}
		second, _, err := websocket.DefaultDialer.Dial(url, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer second.Close()
		_ = second.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, _, err = second.ReadMessage()
		if !websocket.IsCloseError(err, websocket.ClosePolicyViolation) {
			t.Fatalf("second use of a token: %v", err)
		}
	})
	t.Run("AccessTokenRefused", func(t *testing.T) {
		url := "ws" + strings.TrimPrefix(e.Server.URL, "http") + "/ws?token=" + e.Admin.Token
		conn, _, err := websocket.DefaultDialer.Dial(url, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, _, err := conn.ReadMessage(); !websocket.IsCloseError(err, websocket.ClosePolicyViolation) {
			t.Fatalf("access token on /ws: %v", err)
		}
	})
}

// TestEventsCrossNodes runs two server instances on one database and Redis:
// a webhook processed by one reaches a /ws client of the other.
func TestEventsCrossNodes(t *testing.T) {
	e := newWebhookEnv(t)
	_, peer := e.Peer()
	conn := wsDial(t, e.Server.URL, e.Admin, true)

	body := messagesPayload("15559990002", "Nils", textMessage("15559990002", "wamid.node2", time.Now().Unix(), "from node 2"))
	req, _ := http.NewRequest(http.MethodPost, peer.URL+"/api/webhook", strings.NewReader(body))
	req.Header.Set("X-Hub-Signature-256", sign(body))
	e.Send(req).ExpectStatus(t, http.StatusOK)
	m := wsWaitFor(t, conn, "message:new")
	if m.Payload["content"].(map[string]any)["body"] != "from node 2" {
		t.Fatalf("payload: %v", m.Payload)
	}
}

// TestWebSocketResync: when the node may have missed events (its Redis
// subscription was lost, or another node died), a /ws client is closed
// with 1012 and a "resync" reason: it reconnects and reloads, and the new
// socket receives events again.
func TestWebSocketResync(t *testing.T) {
	e := newWebhookEnv(t)
	conn := wsDial(t, e.Server.URL, e.Admin, true)
	e.App.Events.Resync()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, _, err := conn.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseServiceRestart || !strings.HasPrefix(ce.Text, "resync") {
		t.Fatalf("read %v, want close 1012 with a resync reason", err)
	}
	again := wsDial(t, e.Server.URL, e.Admin, true)
	body := messagesPayload("15559990003", "Ola", textMessage("15559990003", "wamid.after-resync", time.Now().Unix(), "after"))
	req, _ := http.NewRequest(http.MethodPost, e.Server.URL+"/api/webhook", strings.NewReader(body))
	req.Header.Set("X-Hub-Signature-256", sign(body))
	e.Send(req).ExpectStatus(t, http.StatusOK)
	wsWaitFor(t, again, "message:new")
}

// TestGraphQLSubscription subscribes over graphql-transport-ws and sees a
// webhook's message arrive.
func TestGraphQLSubscription(t *testing.T) {
	e := newWebhookEnv(t)
	conn := e.Admin.SubscribeGraphQL(t, `subscription { messageAdded { id messageType content direction } }`)
	read := func() map[string]any {
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		var m map[string]any
		if err := conn.ReadJSON(&m); err != nil {
			t.Fatalf("reading: %v", err)
		}
		return m
	}
	body := messagesPayload("15559990003", "Gia", textMessage("15559990003", "wamid.gql1", time.Now().Unix(), "over graphql"))
	e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
	for {
		m := read()
		if m["type"] == "ka" || m["type"] == "ping" {
			continue
		}
		if m["type"] != "next" {
			t.Fatalf("unexpected: %v", m)
		}
		got := m["payload"].(map[string]any)["data"].(map[string]any)["messageAdded"].(map[string]any)
		if got["messageType"] != "text" || got["content"].(map[string]any)["body"] != "over graphql" {
			t.Fatalf("messageAdded: %v", got)
		}
		return
	}
}

// TestGraphQLSubscriptionRefusesBadToken closes the socket with 4403.
func TestGraphQLSubscriptionRefusesBadToken(t *testing.T) {
	env := apitest.New(t)
	dialer := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}
	conn, _, err := dialer.Dial("ws"+strings.TrimPrefix(env.Server.URL, "http")+"/graphql", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]any{"token": "nope"}})
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		_, _, err := conn.ReadMessage()
		if err != nil {
			if !websocket.IsCloseError(err, 4403) {
				t.Fatalf("close: %v", err)
			}
			return
		}
	}
}

// TestWebSocketBurst publishes more events at once than one corked write
// carries: every one arrives, in order, and the socket still answers pings.
func TestWebSocketBurst(t *testing.T) {
	env := apitest.New(t)
	conn := wsDial(t, env.Server.URL, env.Admin, true)
	const n = 700
	evs := make([]events.Event, n)
	for i := range evs {
		evs[i] = events.Event{Type: events.ContactUpdated, OrgID: env.OrgID, Payload: map[string]int{"seq": i}}
	}
	if err := env.App.Events.Record(context.Background(), evs...); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		m := wsRead(t, conn)
		if m.Type != events.FrameContactUpdated || m.Payload["seq"] != float64(i) {
			t.Fatalf("event %d: %+v", i, m)
		}
	}
	pong := make(chan struct{}, 1)
	conn.SetPongHandler(func(string) error { pong <- struct{}{}; return nil })
	if err := conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	go func() { _, _, _ = conn.ReadMessage() }() // pongs are handled while reading
	select {
	case <-pong:
	case <-time.After(5 * time.Second):
		t.Fatal("no pong after the burst")
	}
}
