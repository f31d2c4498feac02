package rest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"switchboard/internal/apitest"
)

// gqlSocket is a graphql-transport-ws connection that runs one operation
// at a time.
type gqlSocket struct {
	t    *testing.T
	conn *websocket.Conn
	n    int
}

// dialGraphQL opens /graphql as a WebSocket and sends init; it fails the
// test when the server refuses it.
func dialGraphQL(t *testing.T, env *apitest.Env, init map[string]any) *gqlSocket {
	t.Helper()
	dialer := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}
	conn, _, err := dialer.Dial("ws"+strings.TrimPrefix(env.Server.URL, "http")+"/graphql", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	s := &gqlSocket{t: t, conn: conn}
	if err := conn.WriteJSON(map[string]any{"type": "connection_init", "payload": init}); err != nil {
		t.Fatal(err)
	}
	if m := s.read(); m["type"] != "connection_ack" {
		t.Fatalf("init answered %v", m)
	}
	return s
}

func (s *gqlSocket) read() map[string]any {
	s.t.Helper()
	for {
		_ = s.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		var m map[string]any
		if err := s.conn.ReadJSON(&m); err != nil {
			s.t.Fatalf("reading: %v", err)
		}
		if m["type"] != "ka" && m["type"] != "ping" {
			return m
		}
	}
}

// do runs one query or mutation and returns its payload (data, errors).
func (s *gqlSocket) do(query string, vars map[string]any) map[string]any {
	s.t.Helper()
	s.n++
	id := string(rune('a' + s.n))
	if err := s.conn.WriteJSON(map[string]any{"id": id, "type": "subscribe", "payload": map[string]any{"query": query, "variables": vars}}); err != nil {
		s.t.Fatal(err)
	}
	for {
		m := s.read()
		switch m["type"] {
		case "next":
			p, _ := m["payload"].(map[string]any)
			if c := s.read(); c["type"] != "complete" {
				s.t.Fatalf("after next: %v", c)
			}
			return p
		case "error":
			return map[string]any{"errors": m["payload"]}
		default:
			s.t.Fatalf("unexpected message %v", m)
		}
	}
}

// errorCode is extensions.code of a payload's first error ("" when none).
func errorCode(p map[string]any) string {
	errs, _ := p["errors"].([]any)
	if len(errs) == 0 {
		return ""
	}
	e, _ := errs[0].(map[string]any)
	ext, _ := e["extensions"].(map[string]any)
	code, _ := ext["code"].(string)
	return code
}

// TestCredentialNeverMintsAStrongerOne: what an API key obtains (a
// ws-token and the sockets it opens) acts as that API key, and an API key
// cannot create API keys, organizations or sessions.
func TestCredentialNeverMintsAStrongerOne(t *testing.T) {
	env := apitest.New(t)
	admin := env.NewUser(env.OrgID, "Admin")
	key := admin.Do(http.MethodPost, "/api/api-keys", map[string]any{"name": "integration"}).
		ExpectStatus(t, http.StatusCreated).String("data.key")
	byKey := env.WithAPIKey(key)
	createKey := `mutation { createAPIKey(input: {name: "minted"}) { key } }`
	createOrg := `mutation { createOrganization(input: {name: "Minted Org"}) { id } }`

	t.Run("APIKeyCannotCreateAPIKeys", func(t *testing.T) {
		byKey.Do(http.MethodPost, "/api/api-keys", map[string]any{"name": "minted"}).ExpectError(t, http.StatusForbidden)
		if code := byKey.GraphQL(createKey, nil).GraphQLErrorCode(); code != "forbidden" {
			t.Errorf("GraphQL createAPIKey by an API key: code %q", code)
		}
	})
	t.Run("APIKeyCannotCreateOrganizations", func(t *testing.T) {
		byKey.Do(http.MethodPost, "/api/organizations", map[string]any{"name": "Minted Org"}).ExpectError(t, http.StatusForbidden)
	})
	t.Run("APIKeyCannotChangeThePassword", func(t *testing.T) {
		byKey.Do(http.MethodPut, "/api/me/password", map[string]any{
			"current_password": apitest.UserPassword, "new_password": "a-new-password-123",
		}).ExpectError(t, http.StatusForbidden)
	})
	t.Run("WSTokenOfAnAPIKeyActsAsTheKey", func(t *testing.T) {
		tok := byKey.Do(http.MethodGet, "/api/auth/ws-token", nil).ExpectStatus(t, http.StatusOK).String("data.token")
		s := dialGraphQL(t, env, map[string]any{"token": tok})
		if code := errorCode(s.do(createKey, nil)); code != "forbidden" {
			t.Errorf("createAPIKey over a key's ws-token: code %q", code)
		}
		if code := errorCode(s.do(createOrg, nil)); code != "forbidden" {
			t.Errorf("createOrganization over a key's ws-token: code %q", code)
		}
		if p := s.do(`{ viewer { user { email } } }`, nil); errorCode(p) != "" {
			t.Errorf("reading over a key's ws-token: %v", p)
		}
	})
	t.Run("WSTokenDiesWithItsKey", func(t *testing.T) {
		tok := byKey.Do(http.MethodGet, "/api/auth/ws-token", nil).ExpectStatus(t, http.StatusOK).String("data.token")
		id := admin.Do(http.MethodGet, "/api/api-keys", nil).ExpectStatus(t, http.StatusOK).String("data.api_keys.0.id")
		admin.Do(http.MethodPut, "/api/api-keys/"+id, map[string]any{"is_active": false}).ExpectStatus(t, http.StatusOK)
		dialer := websocket.Dialer{}
		conn, _, err := dialer.Dial("ws"+strings.TrimPrefix(env.Server.URL, "http")+"/ws?token="+tok, nil)
		if err == nil {
			defer conn.Close()
			_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			var m map[string]any
			if err := conn.ReadJSON(&m); err == nil && m["type"] != "error" {
				t.Errorf("a disabled key's ws-token opened /ws: %v", m)
			}
		}
	})
	t.Run("WSTokenOfALoggedOutSessionIsRefused", func(t *testing.T) {
		person := env.NewUser(env.OrgID, "Agent")
		tok := person.Do(http.MethodGet, "/api/auth/ws-token", nil).ExpectStatus(t, http.StatusOK).String("data.token")
		person.Do(http.MethodPost, "/api/auth/logout", nil).ExpectStatus(t, http.StatusOK)
		dialer := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}
		conn, _, err := dialer.Dial("ws"+strings.TrimPrefix(env.Server.URL, "http")+"/graphql", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]any{"token": tok}})
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		var m map[string]any
		if err := conn.ReadJSON(&m); err == nil && m["type"] == "connection_ack" {
			t.Error("a logged-out session's ws-token opened a GraphQL socket")
		}
	})
}
