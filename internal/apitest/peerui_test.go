package apitest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"switchboard/access"
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

// TestPeerWebClientRolesAndUsers covers what the web client's roles and
// users pages read beyond the spec: how many members hold each role, and
// the users list filtered by role.
func TestPeerWebClientRolesAndUsers(t *testing.T) {
	env := apitest.New(t)
	env.NewUser(env.OrgID, access.RoleAgent)
	env.NewUser(env.OrgID, access.RoleAgent)
	env.NewUser(env.OrgID, access.RoleManager)
	other := env.NewOrg("Elsewhere")
	other.Do(http.MethodPost, "/api/roles", map[string]any{"name": "Theirs", "permissions": []string{"teams:read"}}).
		ExpectStatus(t, http.StatusCreated)
	env.Admin.Do(http.MethodPost, "/api/roles", map[string]any{"name": "Unused", "permissions": []string{"teams:read"}}).
		ExpectStatus(t, http.StatusCreated)

	// What each role should count: the organization's members holding it.
	holders := map[string]int{}
	members := env.Admin.Do(http.MethodGet, "/api/organizations/members?limit=100", nil).ExpectStatus(t, http.StatusOK)
	for i := range members.Len("data.members") {
		holders[members.String("data.members."+strconv.Itoa(i)+".role_id")]++
	}
	roles := env.Admin.Do(http.MethodGet, "/api/roles", nil).ExpectStatus(t, http.StatusOK)
	roleIDs := map[string]string{}
	for i := range roles.Len("data.roles") {
		roleIDs[roles.String("data.roles."+strconv.Itoa(i)+".name")] = roles.String("data.roles." + strconv.Itoa(i) + ".id")
	}
	want := map[string]int{access.RoleAgent: 2, access.RoleManager: 1, "Unused": 0}
	for name, n := range want {
		if holders[roleIDs[name]] != n {
			t.Fatalf("setup: %d members hold %s, want %d", holders[roleIDs[name]], name, n)
		}
	}

	t.Run("role list counts each role's members", func(t *testing.T) {
		for i := range roles.Len("data.roles") {
			r := "data.roles." + strconv.Itoa(i)
			got, ok := roles.Get(r + ".user_count").(float64)
			if !ok || int(got) != holders[roles.String(r+".id")] {
				t.Errorf("%s user_count = %v, want %d", roles.String(r+".name"), roles.Get(r+".user_count"), holders[roles.String(r+".id")])
			}
		}
	})
	t.Run("single role counts its members", func(t *testing.T) {
		res := env.Admin.Do(http.MethodGet, "/api/roles/"+roleIDs[access.RoleAgent], nil).ExpectStatus(t, http.StatusOK)
		if got, ok := res.Get("data.user_count").(float64); !ok || int(got) != 2 {
			t.Errorf("agent role user_count = %v, want 2", res.Get("data.user_count"))
		}
	})

	for _, tc := range []struct {
		name, role string
		want       int
	}{
		{"users filtered by a role", access.RoleAgent, 2},
		{"users filtered by another role", access.RoleManager, 1},
		{"users filtered by a role nobody holds", "Unused", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Admin.Do(http.MethodGet, "/api/users?role_id="+roleIDs[tc.role], nil).ExpectStatus(t, http.StatusOK)
			if int(res.Number("data.total")) != tc.want || res.Len("data.users") != tc.want {
				t.Fatalf("total %v, %d users, want %d: %s", res.Get("data.total"), res.Len("data.users"), tc.want, res.Raw)
			}
			for i := range res.Len("data.users") {
				if got := res.String("data.users." + strconv.Itoa(i) + ".role_id"); got != roleIDs[tc.role] {
					t.Errorf("user %d has role %s", i, got)
				}
			}
		})
	}
	t.Run("users filtered by another organization's role", func(t *testing.T) {
		theirs := other.Do(http.MethodGet, "/api/roles?search=Theirs", nil).ExpectStatus(t, http.StatusOK).String("data.roles.0.id")
		res := env.Admin.Do(http.MethodGet, "/api/users?role_id="+theirs, nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total") != 0 {
			t.Errorf("another organization's role matched: %s", res.Raw)
		}
	})
	t.Run("users filtered by a malformed role id", func(t *testing.T) {
		env.Admin.Do(http.MethodGet, "/api/users?role_id=not-a-uuid", nil).ExpectError(t, http.StatusBadRequest)
	})
}
