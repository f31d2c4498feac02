package rest_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/ent/message"
	"switchboard/ent/rule"
	"switchboard/internal/testkit"
	"switchboard/provider/providertest"
)

// eventTally counts what reached the consumers of domain events: /ws
// frames by type, GraphQL subscription payloads by field, and outbound
// webhook deliveries stored by event name.
type eventTally struct {
	WS, GraphQL, Hooks map[string]int
}

func (a eventTally) equal(b eventTally) bool {
	return maps.Equal(a.WS, b.WS) && maps.Equal(a.GraphQL, b.GraphQL) && maps.Equal(a.Hooks, b.Hooks)
}

// covers reports whether a holds at least the counts of b.
func (a eventTally) covers(b eventTally) bool {
	for _, p := range [][2]map[string]int{{a.WS, b.WS}, {a.GraphQL, b.GraphQL}, {a.Hooks, b.Hooks}} {
		for k, n := range p[1] {
			if p[0][k] < n {
				return false
			}
		}
	}
	return true
}

// eventWatch listens on /ws and on the three GraphQL subscriptions of one
// organization, and reads the outbound deliveries it stored.
type eventWatch struct {
	env *sendEnv
	mu  sync.Mutex
	ws  map[string]int
	gql map[string]int
}

func newEventWatch(t *testing.T, e *sendEnv) *eventWatch {
	t.Helper()
	w := &eventWatch{env: e, ws: map[string]int{}, gql: map[string]int{}}
	ws := wsDial(t, e.Server.URL, e.Admin, true)
	_ = ws.SetReadDeadline(time.Time{})
	go func() {
		for {
			var m wsMsg
			if err := ws.ReadJSON(&m); err != nil {
				return
			}
			w.mu.Lock()
			w.ws[m.Type]++
			w.mu.Unlock()
		}
	}()

	gql := e.Admin.GraphQLSocket(t)
	fields := map[string]string{
		"1": `subscription { messageAdded { id } }`,
		"2": `subscription { messageStatusChanged { id } }`,
		"3": `subscription { contactChanged { id } }`,
	}
	for id, q := range fields {
		e.Admin.Subscribe(t, gql, id, q)
	}
	go func() {
		for {
			var m struct {
				Type    string `json:"type"`
				Payload struct {
					Data map[string]any `json:"data"`
				} `json:"payload"`
			}
			if err := gql.ReadJSON(&m); err != nil {
				return
			}
			if m.Type != "next" {
				continue
			}
			w.mu.Lock()
			for field := range m.Payload.Data {
				w.gql[field]++
			}
			w.mu.Unlock()
		}
	}()
	return w
}

// tally is everything counted so far.
func (w *eventWatch) tally(t *testing.T) eventTally {
	t.Helper()
	ds, err := w.env.Client().WebhookDelivery.Query().All(w.env.ctx)
	if err != nil {
		t.Fatal(err)
	}
	hooks := map[string]int{}
	for _, d := range ds {
		hooks[d.Event]++
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return eventTally{WS: maps.Clone(w.ws), GraphQL: maps.Clone(w.gql), Hooks: hooks}
}

// since is what was counted after before.
func (w *eventWatch) since(t *testing.T, before eventTally) eventTally {
	t.Helper()
	now := w.tally(t)
	diff := func(a, b map[string]int) map[string]int {
		out := map[string]int{}
		for k, n := range a {
			if d := n - b[k]; d != 0 {
				out[k] = d
			}
		}
		return out
	}
	return eventTally{WS: diff(now.WS, before.WS), GraphQL: diff(now.GraphQL, before.GraphQL), Hooks: diff(now.Hooks, before.Hooks)}
}

// expect runs op and checks that it yields exactly want: once want has
// arrived, a moment more brings nothing else.
func (w *eventWatch) expect(t *testing.T, want eventTally, op func()) {
	t.Helper()
	before := w.tally(t)
	op()
	testkit.Poll(15*time.Second, func() bool { return w.since(t, before).covers(want) })
	// Anything extra arrives meanwhile: that nothing more comes of the
	// operation (work it queued included) is what is checked, and no event
	// marks it, so time passes.
	time.Sleep(400 * time.Millisecond)
	if got := w.since(t, before); !got.equal(want) {
		t.Fatalf("the operation yielded\n %+v\nwant\n %+v", got, want)
	}
}

// inbound posts a signed platform delivery for the send environment's
// account (the fake's phone number id and acctSecret).
func (w *eventWatch) inbound(t *testing.T, value string) {
	t.Helper()
	body := `{"object":"whatsapp_business_account","entry":[{"id":"` + providertest.BusinessID + `","changes":[{"field":"messages","value":{
"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550001111","phone_number_id":"` + providertest.PhoneID + `"},` + value + `}}]}]}`
	mac := hmac.New(sha256.New, []byte(acctSecret))
	mac.Write([]byte(body))
	req, _ := http.NewRequest(http.MethodPost, w.env.Server.URL+"/api/webhook", strings.NewReader(body))
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	w.env.Send(req).ExpectStatus(t, http.StatusOK)
}

func incomingText(from, name, wamid, text string) string {
	return fmt.Sprintf(`"contacts":[{"profile":{"name":%q},"wa_id":%q}],"messages":[{"from":%q,"id":%q,"timestamp":"%d","type":"text","text":{"body":%q}}]`,
		name, from, from, wamid, time.Now().Unix(), text)
}

// tallyOf builds an expected tally: ws frames, GraphQL fields and hook
// events, each "name" or "name*count".
func tallyOf(ws, gql, hooks []string) eventTally {
	count := func(list []string) map[string]int {
		out := map[string]int{}
		for _, s := range list {
			name, n := s, 1
			if i := strings.IndexByte(s, '*'); i > 0 {
				name = s[:i]
				_, _ = fmt.Sscan(s[i+1:], &n)
			}
			out[name] += n
		}
		return out
	}
	return eventTally{WS: count(ws), GraphQL: count(gql), Hooks: count(hooks)}
}

// TestOneEventPath checks, for every domain event and every operation that
// causes it (REST, GraphQL, the platform's webhook, the send worker), that
// the operation yields exactly one /ws frame of each type it causes, one
// payload on each GraphQL subscription that follows it, and one outbound
// delivery per matching subscription: "all" subscribes to every event,
// "contacts" to contact:created, "inactive" is switched off.
func TestOneEventPath(t *testing.T) {
	e := newSendEnv(t)
	rcv := newHookReceiver(t)
	mustCreateWebhook(t, e.Admin, webhookBody("all", rcv.URL+"/all", map[string]any{
		"events": []string{"message:incoming", "message:sent", "contact:created"}}))
	mustCreateWebhook(t, e.Admin, webhookBody("contacts", rcv.URL+"/contacts", map[string]any{
		"events": []string{"contact:created"}}))
	mustCreateWebhook(t, e.Admin, webhookBody("inactive", rcv.URL+"/inactive", map[string]any{
		"events": []string{"message:incoming", "message:sent", "contact:created"}, "is_active": false}))
	e.newTemplate(t, "welcome", func(c *ent.TemplateCreate) { c.SetBodyContent("Welcome to our shop!") })
	w := newEventWatch(t, e)

	var (
		contactID string // the contact the cases share
		sent      string // an outgoing message's platform id
	)
	created := tallyOf([]string{"contact:new"}, []string{"contactChanged"}, []string{"contact:created*2"})
	updated := tallyOf([]string{"contact:updated"}, []string{"contactChanged"}, nil)
	send := tallyOf([]string{"message:new", "contact:updated", "message:status"},
		[]string{"messageAdded", "contactChanged", "messageStatusChanged"}, []string{"message:sent"})
	sendToNew := tallyOf([]string{"message:new", "contact:new", "message:status"},
		[]string{"messageAdded", "contactChanged", "messageStatusChanged"}, []string{"message:sent", "contact:created*2"})
	waitSent := func(t *testing.T, id string) {
		m := e.waitStatus(t, id, message.StatusSent)
		sent = *m.ChatMessageID
	}
	gqlOK := func(t *testing.T, res interface{ GraphQLErrorCode() string }, raw []byte) {
		t.Helper()
		if code := res.GraphQLErrorCode(); code != "" {
			t.Fatalf("GraphQL error %s: %s", code, raw)
		}
	}
	cases := []struct {
		name string
		want eventTally
		op   func(t *testing.T)
	}{
		{"ContactCreated/REST", created, func(t *testing.T) {
			contactID = mustCreateContact(t, e.Admin, map[string]any{"phone_number": "+1 555 300 0001"})
		}},
		{"ContactCreated/GraphQL", created, func(t *testing.T) {
			res := e.Admin.GraphQL(`mutation { createContact(input: {phoneNumber: "+1 555 300 0002"}) { id } }`, nil)
			gqlOK(t, res, res.Raw)
		}},
		{"ContactUpdated/REST", updated, func(t *testing.T) {
			e.Admin.Do(http.MethodPut, "/api/contacts/"+contactID, map[string]any{"profile_name": "Ada"}).ExpectStatus(t, http.StatusOK)
		}},
		{"ContactUpdated/GraphQL", updated, func(t *testing.T) {
			res := e.Admin.GraphQL(`mutation($id: ID!) { updateContact(id: $id, input: {profileName: "Ada L."}) { id } }`,
				map[string]any{"id": contactID})
			gqlOK(t, res, res.Raw)
		}},
		{"ContactAssigned/REST", updated, func(t *testing.T) {
			e.Admin.Do(http.MethodPut, "/api/contacts/"+contactID+"/assign", map[string]any{"user_id": e.Admin.UserID}).
				ExpectStatus(t, http.StatusOK)
		}},
		{"ContactAssigned/GraphQL", updated, func(t *testing.T) {
			res := e.Admin.GraphQL(`mutation($id: ID!) { assignContact(id: $id, userId: null) { id } }`, map[string]any{"id": contactID})
			gqlOK(t, res, res.Raw)
		}},
		{"ContactRead/REST", updated, func(t *testing.T) {
			e.Admin.Do(http.MethodPost, "/api/contacts/"+contactID+"/mark-read", nil).ExpectStatus(t, http.StatusOK)
		}},
		{"ContactRead/GraphQL", updated, func(t *testing.T) {
			res := e.Admin.GraphQL(`mutation($id: ID!) { markContactRead(id: $id) }`, map[string]any{"id": contactID})
			gqlOK(t, res, res.Raw)
		}},
		{"ContactTagged/REST", updated, func(t *testing.T) {
			e.Admin.Do(http.MethodPut, "/api/contacts/"+contactID+"/tags", map[string]any{"tags": []string{"vip"}}).ExpectStatus(t, http.StatusOK)
		}},
		{"TagRenamed/REST", updated, func(t *testing.T) {
			// Renaming a tag rewrites the contacts that carry it.
			e.Admin.Do(http.MethodPost, "/api/tags", map[string]any{"name": "vip"}).ExpectStatus(t, http.StatusCreated)
			e.Admin.Do(http.MethodPut, "/api/tags/vip", map[string]any{"name": "gold"}).ExpectStatus(t, http.StatusOK)
		}},
		{"TagDeleted/GraphQL", updated, func(t *testing.T) {
			res := e.Admin.GraphQL(`mutation { deleteTag(name: "gold") }`, nil)
			gqlOK(t, res, res.Raw)
		}},
		{"MessageReceived/NewSender/Webhook",
			tallyOf([]string{"message:new", "contact:new"}, []string{"messageAdded", "contactChanged"},
				[]string{"message:incoming", "contact:created*2"}),
			func(t *testing.T) { w.inbound(t, incomingText("15553000003", "Bea", "wamid.path1", "hello")) }},
		{"MessageReceived/KnownSender/Webhook",
			tallyOf([]string{"message:new", "contact:updated"}, []string{"messageAdded", "contactChanged"}, []string{"message:incoming"}),
			func(t *testing.T) { w.inbound(t, incomingText("15553000001", "Ada", "wamid.path2", "again")) }},
		{"MessageSent/REST", send, func(t *testing.T) {
			res := e.Admin.Do(http.MethodPost, "/api/contacts/"+contactID+"/messages",
				map[string]any{"type": "text", "content": map[string]any{"body": "hi"}}).ExpectStatus(t, http.StatusCreated)
			waitSent(t, res.String("data.id"))
		}},
		{"MessageSent/GraphQL", send, func(t *testing.T) {
			res := e.Admin.GraphQL(`mutation($id: ID!) { sendMessage(contactId: $id, input: {type: "text", body: "hi"}) { id } }`,
				map[string]any{"id": contactID})
			gqlOK(t, res, res.Raw)
			waitSent(t, res.String("data.sendMessage.id"))
		}},
		{"MessageSent/Media/REST", send, func(t *testing.T) {
			res := postForm(t, e.Env, e.Admin, "/api/messages/media", map[string]string{"contact_id": contactID},
				&formFileSpec{field: "file", name: "photo.png", data: tinyPNG(t), contentType: "image/png"}).
				ExpectStatus(t, http.StatusCreated)
			waitSent(t, res.String("data.id"))
		}},
		{"MessageSentToNewContact/REST", sendToNew, func(t *testing.T) {
			res := e.Admin.Do(http.MethodPost, "/api/messages/template",
				map[string]any{"phone_number": "+1 555 300 0004", "template_name": "welcome"}).ExpectStatus(t, http.StatusCreated)
			waitSent(t, res.String("data.id"))
		}},
		{"MessageSentToNewContact/GraphQL", sendToNew, func(t *testing.T) {
			res := e.Admin.GraphQL(`mutation { sendTemplateMessage(input: {phoneNumber: "+1 555 300 0005", templateName: "welcome"}) { id } }`, nil)
			gqlOK(t, res, res.Raw)
			waitSent(t, res.String("data.sendTemplateMessage.id"))
		}},
		{"MessageFailed/SendWorker",
			tallyOf([]string{"message:new", "contact:updated", "message:status"},
				[]string{"messageAdded", "contactChanged", "messageStatusChanged"}, nil),
			func(t *testing.T) {
				e.fake.Script("POST /{phone}/messages", providertest.NotAllowedRecipient())
				res := e.Admin.Do(http.MethodPost, "/api/contacts/"+contactID+"/messages",
					map[string]any{"type": "text", "content": map[string]any{"body": "refused"}}).ExpectStatus(t, http.StatusCreated)
				e.waitStatus(t, res.String("data.id"), message.StatusFailed)
			}},
		{"MessageStatus/Webhook", tallyOf([]string{"message:status"}, []string{"messageStatusChanged"}, nil), func(t *testing.T) {
			w.inbound(t, `"statuses":[{"id":"`+sent+`","status":"delivered","timestamp":"`+fmt.Sprint(time.Now().Unix())+`","recipient_id":"15553000001"}]`)
		}},
		{"MessageStatusOlder/Webhook", tallyOf(nil, nil, nil), func(t *testing.T) {
			// A status behind the message's changes nothing and announces nothing.
			w.inbound(t, `"statuses":[{"id":"`+sent+`","status":"sent","timestamp":"`+fmt.Sprint(time.Now().Unix())+`","recipient_id":"15553000001"}]`)
			testkit.Eventually(t, "the delivery processed", func() bool {
				n, err := e.Client().InboundEvent.Query().Count(rule.Bypass(e.ctx, "test"))
				return err == nil && n == 0
			})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { w.expect(t, c.want, func() { c.op(t) }) })
	}
	if _, err := uuid.Parse(contactID); err != nil {
		t.Fatal("no contact was created")
	}
}
