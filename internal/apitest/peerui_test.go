package apitest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"switchboard/internal/apitest"
)

// browser speaks to the API as the peer's web client does in a browser:
// cookies from login, the CSRF header on writes, no Authorization header.
type browser struct {
	t    *testing.T
	base string
	http *http.Client
}

func newBrowser(t *testing.T, env *apitest.Env) *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, base: env.Server.URL, http: &http.Client{Jar: jar}}
}

func (b *browser) cookie(name string) string {
	u, _ := url.Parse(b.base)
	for _, c := range b.http.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// do sends a request and decodes the envelope; writes carry the CSRF
// header the client copies from the whm_csrf cookie.
func (b *browser) do(method, path string, body any) (int, map[string]any) {
	b.t.Helper()
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, b.base+path, rd)
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if method != http.MethodGet {
		req.Header.Set("X-CSRF-Token", b.cookie("whm_csrf"))
	}
	res, err := b.http.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	var env map[string]any
	if err := json.NewDecoder(res.Body).Decode(&env); err != nil {
		b.t.Fatalf("%s %s: status %d, body is not JSON: %v", method, path, res.StatusCode, err)
	}
	return res.StatusCode, env
}

// ok sends a request the page needs and returns its data, failing on
// anything but a success envelope.
func (b *browser) ok(method, path string, body any) any {
	b.t.Helper()
	status, env := b.do(method, path, body)
	if status >= 300 || env["status"] != "success" {
		b.t.Fatalf("%s %s: status %d, %v", method, path, status, env)
	}
	return env["data"]
}

// at reads a dotted path of decoded JSON.
func at(v any, path string) any {
	for _, p := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			if p != "0" || len(x) == 0 {
				return nil
			}
			v = x[0]
		default:
			return nil
		}
	}
	return v
}

// has checks that the fields the client reads are there.
func has(t *testing.T, what string, v any, fields ...string) {
	t.Helper()
	for _, f := range fields {
		if at(v, f) == nil {
			t.Errorf("%s: no %s in %v", what, f, v)
		}
	}
}

// TestPeerWebClientSequence replays what the peer product's web client
// asks on a full page load and on its main pages, logged in with cookies,
// and checks the fields it reads; then its live channel.
func TestPeerWebClientSequence(t *testing.T) {
	env := apitest.New(t)
	b := newBrowser(t, env)

	login := b.ok(http.MethodPost, "/api/auth/login", map[string]any{"email": "admin@example.com", "password": apitest.AdminPassword})
	has(t, "login", login, "user.id", "user.organization_id", "user.role.permissions.0.resource")
	if b.cookie("whm_access") == "" || b.cookie("whm_csrf") == "" {
		t.Fatal("login set no session cookies")
	}

	// A full page load restores the session from /api/me: the user itself.
	me := b.ok(http.MethodGet, "/api/me", nil)
	has(t, "me", me, "id", "email", "full_name", "role_id", "role.id", "role.name", "role.is_system",
		"role.permissions.0.id", "role.permissions.0.resource", "role.permissions.0.action",
		"organization_id", "organization_name", "settings.new_message_alerts", "is_available", "is_super_admin")
	if at(me, "id") != at(login, "user.id") {
		t.Fatalf("me is not the logged-in user: %v", me)
	}
	mine := b.ok(http.MethodGet, "/api/me/organizations", nil)
	has(t, "organization switcher", mine, "organizations.0.organization_id", "organizations.0.name",
		"organizations.0.role_name", "organizations.0.is_default")

	// Something for the inbox to show.
	contact := b.ok(http.MethodPost, "/api/contacts", map[string]any{"phone_number": "+15550004001", "tags": []string{"vip"}})
	contactID, _ := at(contact, "id").(string)
	b.ok(http.MethodPost, "/api/tags", map[string]any{"name": "vip", "color": "purple"})

	// The live channel: a ws token, the socket, the auth message first.
	token, _ := at(b.ok(http.MethodGet, "/api/auth/ws-token", nil), "token").(string)
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(env.Server.URL, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for _, m := range []map[string]any{
		{"type": "auth", "payload": map[string]string{"token": token}},
		{"type": "ping", "payload": map[string]any{}},
		{"type": "set_contact", "payload": map[string]string{"contact_id": contactID}},
	} {
		if err := ws.WriteJSON(m); err != nil {
			t.Fatal(err)
		}
	}
	read := func() map[string]any {
		t.Helper()
		_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
		var m map[string]any
		if err := ws.ReadJSON(&m); err != nil {
			t.Fatalf("reading /ws: %v", err)
		}
		return m
	}
	if m := read(); m["type"] != "connected" {
		t.Fatalf("first /ws message: %v", m)
	}

	today := time.Now().UTC().Format(time.DateOnly)
	for _, page := range []struct {
		name, path string
		fields     []string
	}{
		{"dashboard widgets", "/api/widgets", []string{"widgets"}},
		{"dashboard data sources", "/api/widgets/data-sources", []string{"data_sources.0.name", "metrics", "display_types", "operators.0.value"}},
		{"dashboard data", "/api/widgets/data?from=" + today + "&to=" + today, []string{"data"}},
		{"chat contacts", "/api/contacts?page=1&limit=50", []string{"contacts.0.id", "contacts.0.tags", "total"}},
		{"chat messages", "/api/contacts/" + contactID + "/messages?limit=50", []string{"messages", "total"}},
		{"chat notes", "/api/contacts/" + contactID + "/notes?limit=30", []string{"notes", "has_more"}},
		{"chat info panel", "/api/contacts/" + contactID + "/session-data", []string{"session_data", "panel_config.sections"}},
		{"chat canned responses", "/api/canned-responses?active_only=true", []string{"canned_responses"}},
		{"tags", "/api/tags", []string{"tags.0.name", "tags.0.color"}},
		{"settings", "/api/org/settings", []string{"name", "settings.timezone"}},
		{"accounts", "/api/accounts", []string{"accounts"}},
		{"users", "/api/users", []string{"users.0.id", "users.0.role.name"}},
		{"roles", "/api/roles", []string{"roles.0.name", "roles.0.is_system"}},
		{"permissions", "/api/permissions", []string{"permissions.0.resource"}},
		{"teams", "/api/teams", []string{"teams"}},
		{"api keys", "/api/api-keys", []string{"api_keys"}},
		{"webhooks", "/api/webhooks", []string{"webhooks", "available_events.0.value"}},
		{"sso", "/api/settings/sso", nil},
		{"organizations", "/api/organizations", []string{"organizations.0.id"}},
		{"current organization", "/api/organizations/current", []string{"id", "name"}},
		{"members", "/api/organizations/members", []string{"members.0.user_id", "members.0.role_name"}},
	} {
		t.Run(page.name, func(t *testing.T) {
			has(t, page.name, b.ok(http.MethodGet, page.path, nil), page.fields...)
		})
	}

	// Writes as the pages make them, with the CSRF header.
	settings := b.ok(http.MethodPut, "/api/me/settings", map[string]any{
		"email_notifications": true, "new_message_alerts": false, "campaign_updates": true,
	})
	if at(settings, "new_message_alerts") != false {
		t.Errorf("settings: %v", settings)
	}
	b.ok(http.MethodPut, "/api/contacts/"+contactID+"/tags", map[string]any{"tags": []string{"vip", "new"}})
	note := b.ok(http.MethodPost, "/api/contacts/"+contactID+"/notes", map[string]any{"content": "Asked for a callback"})
	has(t, "note", note, "id", "contact_id", "created_by_id", "created_by_name", "content", "created_at")
	for {
		m := read()
		if m["type"] == "contact_note:created" {
			if at(m, "payload.id") != at(note, "id") {
				t.Errorf("note event: %v", m)
			}
			break
		}
	}
	if status, _ := b.do(http.MethodPost, "/api/auth/logout", nil); status != http.StatusOK {
		t.Errorf("logout: %d", status)
	}
	if status, _ := b.do(http.MethodGet, "/api/me", nil); status != http.StatusUnauthorized {
		t.Errorf("/api/me after logout: %d", status)
	}
}
