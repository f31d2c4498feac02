package apitest

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"switchboard/internal/testkit"
)

// GraphQLSocket opens the GraphQL WebSocket (graphql-transport-ws) of the
// test server as c: connection_init with a WebSocket token of c's, and
// connection_ack read. The connection is closed when the test ends.
func (c *Client) GraphQLSocket(tb testing.TB) *websocket.Conn {
	tb.Helper()
	tok := c.Do(http.MethodGet, "/api/auth/ws-token", nil).ExpectStatus(tb, http.StatusOK).String("data.token")
	dialer := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}
	conn, resp, err := dialer.Dial("ws"+strings.TrimPrefix(c.env.Server.URL, "http")+"/graphql", nil)
	if err != nil {
		tb.Fatalf("dial /graphql: %v (%v)", err, resp)
	}
	tb.Cleanup(func() { _ = conn.Close() })
	if err := conn.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]any{"token": tok}}); err != nil {
		tb.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(testkit.Deadline))
	var ack map[string]any
	if err := conn.ReadJSON(&ack); err != nil || ack["type"] != "connection_ack" {
		tb.Fatalf("connection_init: %v %v", ack, err)
	}
	_ = conn.SetReadDeadline(time.Time{})
	return conn
}

// Subscribe starts the subscription query as operation id on conn (a
// GraphQLSocket of c's) and returns once the server has opened it on the
// event bus, so that an event recorded next reaches it: graphql-transport-ws
// does not acknowledge a subscription. Subscriptions are opened one at a
// time.
func (c *Client) Subscribe(tb testing.TB, conn *websocket.Conn, id, query string) {
	tb.Helper()
	bus := c.env.App.Events
	before := bus.Subscribed()
	if err := conn.WriteJSON(map[string]any{"id": id, "type": "subscribe", "payload": map[string]any{"query": query}}); err != nil {
		tb.Fatal(err)
	}
	testkit.Eventually(tb, "the subscription "+id+" to open", func() bool { return bus.Subscribed() > before })
}

// SubscribeGraphQL opens a GraphQLSocket as c and starts one subscription
// (operation id "1") on it.
func (c *Client) SubscribeGraphQL(tb testing.TB, query string) *websocket.Conn {
	tb.Helper()
	conn := c.GraphQLSocket(tb)
	c.Subscribe(tb, conn, "1", query)
	return conn
}
