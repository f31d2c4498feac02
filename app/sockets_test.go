package app_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"switchboard/internal/apitest"
	"switchboard/internal/testkit"
)

// expectHTTPRefusal checks a WebSocket dial refused before the upgrade
// with status and the error envelope naming what.
func expectHTTPRefusal(t *testing.T, resp *http.Response, err error, status int, what string) {
	t.Helper()
	if err == nil || resp == nil {
		t.Fatalf("dial succeeded, want HTTP %d", status)
	}
	body := make([]byte, 512)
	n, _ := resp.Body.Read(body)
	if resp.StatusCode != status || !strings.Contains(string(body[:n]), `"status":"error"`) || !strings.Contains(string(body[:n]), what) {
		t.Fatalf("refusal: %d %s", resp.StatusCode, body[:n])
	}
}

// expectGraphQLRefusal is expectHTTPRefusal for /graphql, which refuses
// in GraphQL's error shape ({"errors": [...]}) with the same status.
func expectGraphQLRefusal(t *testing.T, resp *http.Response, err error, status int, what string) {
	t.Helper()
	if err == nil || resp == nil {
		t.Fatalf("dial succeeded, want HTTP %d", status)
	}
	body := make([]byte, 512)
	n, _ := resp.Body.Read(body)
	if resp.StatusCode != status || !strings.Contains(string(body[:n]), `{"errors":[`) || !strings.Contains(string(body[:n]), what) {
		t.Fatalf("refusal: %d %s", resp.StatusCode, body[:n])
	}
}

// expectClose reads until the server closes conn with code.
func expectClose(t *testing.T, conn *websocket.Conn, code int) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		if _, _, err := conn.ReadMessage(); err != nil {
			if !websocket.IsCloseError(err, code) {
				t.Fatalf("closed with %v, want code %d", err, code)
			}
			return
		}
	}
}

func TestWebSocketLimits(t *testing.T) {
	env := apitest.New(t,
		apitest.Setting{Name: "WS_MAX_PER_USER", Value: "2"},
		apitest.Setting{Name: "WS_MAX_PER_ADDRESS", Value: "4"},
	)
	admin := env.Admin
	first := wsConnect(t, env, admin)
	wsConnect(t, env, admin)
	var reopened *websocket.Conn
	t.Cleanup(func() {
		if reopened != nil {
			reopened.Close()
		}
	})

	t.Run("UserLimitBeforeUpgrade", func(t *testing.T) {
		conn, resp, err := wsDial(env, admin)
		if conn != nil {
			conn.Close()
		}
		expectHTTPRefusal(t, resp, err, http.StatusTooManyRequests, "for this user (at most 2)")
	})
	t.Run("FirstMessageAuthCounts", func(t *testing.T) {
		conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(env.Server.URL, "http")+"/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		tok := admin.Do(http.MethodGet, "/api/auth/ws-token", nil).String("data.token")
		if err := conn.WriteJSON(map[string]any{"type": "auth", "payload": map[string]string{"token": tok}}); err != nil {
			t.Fatal(err)
		}
		expectClose(t, conn, websocket.CloseTryAgainLater)
	})
	t.Run("GraphQLWebSocketCounts", func(t *testing.T) {
		conn, resp, err := graphqlWSDial(env)
		if err != nil {
			t.Fatalf("dial /graphql: %v (%v)", err, resp)
		}
		defer conn.Close()
		tok := admin.Do(http.MethodGet, "/api/auth/ws-token", nil).String("data.token")
		if err := conn.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]any{"token": tok}}); err != nil {
			t.Fatal(err)
		}
		expectClose(t, conn, 4429)
	})
	t.Run("ClosingOneFreesASlot", func(t *testing.T) {
		first.Close()
		// The server frees the place when its read of that socket ends.
		testkit.Eventually(t, "a place after closing a socket", func() bool {
			conn, resp, err := wsDial(env, admin)
			if err == nil {
				reopened = conn
				return true
			}
			if resp == nil || resp.StatusCode != http.StatusTooManyRequests {
				t.Fatalf("after closing a socket: %v (%v)", err, resp)
			}
			return false
		})
	})
	t.Run("AddressLimit", func(t *testing.T) {
		// The admin holds 2; another user fills the address's 4.
		other := env.NewUser(env.OrgID, "Agent")
		wsConnect(t, env, other)
		wsConnect(t, env, other)
		third := env.NewUser(env.OrgID, "Agent")
		conn, resp, err := wsDial(env, third)
		if conn != nil {
			conn.Close()
		}
		expectHTTPRefusal(t, resp, err, http.StatusTooManyRequests, "from this address (at most 4)")
		conn, resp, err = graphqlWSDial(env)
		if conn != nil {
			conn.Close()
		}
		expectGraphQLRefusal(t, resp, err, http.StatusTooManyRequests, "from this address (at most 4)")
	})
}

func TestWebSocketUpgradesAreRateLimited(t *testing.T) {
	env := apitest.New(t, apitest.Setting{Name: "RATE_LIMIT_ANON_PER_MINUTE", Value: "5"})
	for i := range 10 {
		conn, resp, err := graphqlWSDial(env)
		if err == nil {
			conn.Close()
			continue
		}
		expectGraphQLRefusal(t, resp, err, http.StatusTooManyRequests, "rate limit")
		if i < 3 {
			t.Fatalf("refused after %d upgrades", i)
		}
		return
	}
	t.Fatal("10 upgrades in a row from one address with a limit of 5 a minute")
}

func TestWebSocketFrameLimits(t *testing.T) {
	env := apitest.New(t)
	// Each just over its socket's limit, so that the write completes
	// before the server closes.
	overWS, overGraphQL := strings.Repeat("x", 5000), strings.Repeat("x", 70<<10)
	t.Run("WS", func(t *testing.T) {
		conn := wsConnect(t, env, env.Admin)
		if err := conn.WriteMessage(websocket.TextMessage, []byte(overWS)); err != nil {
			t.Fatal(err)
		}
		expectClose(t, conn, websocket.CloseMessageTooBig)
	})
	t.Run("WSAuthMessage", func(t *testing.T) {
		conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(env.Server.URL, "http")+"/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if err := conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"auth","payload":{"token":"`+overWS+`"}}`)); err != nil {
			t.Fatal(err)
		}
		expectClose(t, conn, websocket.CloseMessageTooBig)
	})
	t.Run("GraphQL", func(t *testing.T) {
		conn := graphqlWSConnect(t, env, env.Admin)
		if err := conn.WriteJSON(map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{"query": "subscription { contactChanged { id } } # " + overGraphQL}}); err != nil {
			t.Fatal(err)
		}
		expectClose(t, conn, websocket.CloseMessageTooBig)
	})
}
