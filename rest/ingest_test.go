package rest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/ent/inboundevent"
	"switchboard/ent/message"
	"switchboard/ent/rule"
	"switchboard/events"
	"switchboard/internal/apitest"
	"switchboard/internal/testkit"
)

// failingHooks refuses the webhook deliveries of the incoming message
// whose platform id is poison, as a broken dependency would.
type failingHooks struct{ poison string }

func (h failingHooks) WriteDeliveries(_ context.Context, evs []events.HookEvent) error {
	for _, ev := range evs {
		if strings.Contains(string(ev.Data), `"chat_message_id":"`+h.poison+`"`) {
			return errors.New("writing deliveries failed")
		}
	}
	return nil
}

// A delivery that fails every time is set aside after a few attempts; the
// deliveries around it in its lane are stored, in order.
func TestWebhookPoisonDeliverySetAside(t *testing.T) {
	e := newWebhookEnv(t)
	e.App.Messaging.Events = events.New(events.Options{
		Redis: e.App.KV.Client(), Channel: "test:" + uuid.NewString(), Hooks: failingHooks{poison: "wamid.poison"},
	})
	now := time.Now().Unix()
	for _, id := range []string{"wamid.before", "wamid.poison", "wamid.after"} {
		body := messagesPayload("15551230000", "Ann", textMessage("15551230000", id, now, id))
		e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
		now++
	}
	var failed int
	testkit.Eventually(t, "the poison delivery set aside", func() bool {
		evs, err := e.Client().InboundEvent.Query().All(rule.Bypass(e.ctx, "test"))
		if err != nil {
			return false
		}
		failed = 0
		for _, ev := range evs {
			switch ev.Status {
			case inboundevent.StatusPending:
				return false
			case inboundevent.StatusFailed:
				failed++
				if ev.Attempts != 5 || ev.Error == "" {
					t.Fatalf("set aside after %d attempts with error %q", ev.Attempts, ev.Error)
				}
			}
		}
		return true
	})
	if failed != 1 {
		t.Fatalf("%d deliveries set aside, want 1", failed)
	}
	ms := e.messages(t)
	if len(ms) != 2 || *ms[0].ChatMessageID != "wamid.before" || *ms[1].ChatMessageID != "wamid.after" {
		t.Fatalf("stored %d messages", len(ms))
	}
}

// The platform's strings may hold NUL characters, which PostgreSQL cannot
// store in JSON: they are replaced, the message is not lost.
func TestWebhookNULCharacter(t *testing.T) {
	e := newWebhookEnv(t)
	msg := fmt.Sprintf(`{"from":"15551230001","id":"wamid.nul","timestamp":"%d","type":"text","text":{"body":"a\u0000b"}}`, time.Now().Unix())
	body := messagesPayload("15551230001", "Bob", msg)
	e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
	e.drained(t)
	ms := e.messages(t)
	if len(ms) != 1 || ms[0].Content["body"] != "a\uFFFDb" {
		t.Fatalf("stored %v", ms)
	}
}

// The embedded default (SQLite, in-process Redis) runs the same pipeline:
// racing first messages of a new sender make one contact with every
// message counted.
func TestWebhookEmbeddedEngines(t *testing.T) {
	e := newWebhookEnv(t, apitest.Setting{Name: "DATABASE_URL", Value: ""}, apitest.Setting{Name: "REDIS_URL", Value: ""})
	now := time.Now().Unix()
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := messagesPayload("15551230002", "Cy", textMessage("15551230002", "wamid.e"+string(rune('a'+i)), now+int64(i), "hi"))
			e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
		}()
	}
	wg.Wait()
	e.drained(t)
	c := e.contact(t, "15551230002")
	if c.UnreadCount != 10 || c.ProfileName != "Cy" || c.LastMessageAt == nil || c.LastMessageAt.Unix() != now+9 {
		t.Fatalf("contact %+v", c)
	}
	if n := len(e.messages(t)); n != 10 {
		t.Fatalf("%d messages stored, want 10", n)
	}
}

// The pipeline's own metrics show on /metrics once a delivery went
// through: group commits, drainer batches and the processing lag.
func TestWebhookPipelineMetrics(t *testing.T) {
	e := newWebhookEnv(t)
	body := messagesPayload("15551230002", "Cy", textMessage("15551230002", "wamid.metrics", time.Now().Unix(), "hi"))
	e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
	e.drained(t)
	series := []string{
		"switchboard_inbound_commit_duration_seconds_count 1",
		"switchboard_inbound_commit_deliveries_count 1",
		"switchboard_inbound_drain_duration_seconds_count 1",
		"switchboard_inbound_drain_deliveries_sum 1",
		"switchboard_inbound_lag_seconds_count 1",
	}
	// The batch is observed just after its commit, which drained sees.
	var raw string
	testkit.Eventually(t, "the pipeline's metrics", func() bool {
		req, _ := http.NewRequest(http.MethodGet, e.Server.URL+"/metrics", nil)
		raw = string(e.Send(req).ExpectStatus(t, http.StatusOK).Raw)
		for _, s := range series {
			if !strings.Contains(raw, s+"\n") {
				return false
			}
		}
		return true
	})
}

// A phone number id holding a NUL escape is acknowledged as unknown, not
// refused by the database.
func TestWebhookNULPhoneNumberID(t *testing.T) {
	e := newWebhookEnv(t)
	body := `{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[{"field":"messages","value":{"metadata":{"phone_number_id":"1\u0000"},"messages":[{"from":"1","id":"wamid.x"}]}}]}]}`
	e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
}

// settled waits (up to two minutes: a large delivery takes a while under
// the race detector) until no stored delivery is pending, and fails if
// one was set aside.
func (e *webhookEnv) settled(t *testing.T) {
	t.Helper()
	bctx := rule.Bypass(e.ctx, "test")
	var pending int
	// A liveness bound: 12 s alone, over 2 min under -race on a loaded machine.
	if !testkit.Poll(5*time.Minute, func() bool {
		n, err := e.Client().InboundEvent.Query().Where(inboundevent.StatusEQ(inboundevent.StatusPending)).Count(bctx)
		if err != nil {
			t.Fatal(err)
		}
		pending = n
		return n == 0
	}) {
		t.Fatalf("%d deliveries still pending", pending)
	}
	failed, err := e.Client().InboundEvent.Query().Where(inboundevent.StatusEQ(inboundevent.StatusFailed)).All(bctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range failed {
		t.Errorf("delivery set aside after %d attempts: %s", ev.Attempts, ev.Error)
	}
}

// Nothing acknowledged is dropped: one signed delivery of 10,000 messages
// from 10,000 new senders (about 1.7 MB; the platform webhook's body cap
// is maxWebhookBody, 4 MiB), and one of 10,000 status reports, are stored
// completely, however many bind parameters their rows need together.
func TestWebhookLargeDeliveries(t *testing.T) {
	const n = 10000
	e := newWebhookEnv(t)
	hook := newHookReceiver(t)
	hook.answer(http.StatusGone) // the first attempt disables it: 20,000 deliveries are stored, not sent
	mustCreateWebhook(t, e.Admin, webhookBody("CRM", hook.URL, map[string]any{
		"events": []string{"message:incoming", "contact:created"}}))
	now := time.Now().Unix()
	value := func(parts ...string) string {
		return `{"object":"whatsapp_business_account","entry":[{"id":"987654321","changes":[{"field":"messages","value":{
"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550001111","phone_number_id":"` + testPhoneID + `"},` +
			strings.Join(parts, ",") + `}}]}]}`
	}

	t.Run("TenThousandMessages", func(t *testing.T) {
		contacts, messages := make([]string, n), make([]string, n)
		for i := range n {
			from := fmt.Sprintf("1555%07d", i)
			contacts[i] = fmt.Sprintf(`{"profile":{"name":"Sender %d"},"wa_id":%q}`, i, from)
			messages[i] = textMessage(from, fmt.Sprintf("wamid.big-%05d", i), now, fmt.Sprint("m", i))
		}
		body := value(`"contacts":[`+strings.Join(contacts, ",")+`]`, `"messages":[`+strings.Join(messages, ",")+`]`)
		if len(body) > 4<<20 {
			t.Fatalf("the delivery is %d bytes, over the webhook's body cap", len(body))
		}
		e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
		e.settled(t)
		if got, err := e.Client().Message.Query().Count(e.ctx); err != nil || got != n {
			t.Fatalf("%d messages stored (%v), want %d", got, err, n)
		}
		if got, err := e.Client().Contact.Query().Count(e.ctx); err != nil || got != n {
			t.Fatalf("%d contacts stored (%v), want %d", got, err, n)
		}
		if got, err := e.Client().WebhookDelivery.Query().Count(e.ctx); err != nil || got != 2*n {
			t.Fatalf("%d outbound deliveries stored (%v), want %d", got, err, 2*n)
		}
	})

	t.Run("TenThousandStatuses", func(t *testing.T) {
		// Half of them report on stored outgoing messages, half on messages
		// not stored yet (parked for the send path).
		c, err := e.Client().Contact.Query().First(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		creates := make([]*ent.MessageCreate, n/2)
		statuses := make([]string, n)
		for i := range n {
			id := fmt.Sprintf("wamid.out-%05d", i)
			if i < n/2 {
				creates[i] = e.Client().Message.Create().SetContactID(c.ID).SetDirection(message.DirectionOutgoing).
					SetMessageType("text").SetStatus(message.StatusSent).SetChatMessageID(id)
			}
			statuses[i] = fmt.Sprintf(`{"id":%q,"status":"delivered","timestamp":"%d","recipient_id":%q}`, id, now, c.PhoneNumber)
		}
		for i := 0; i < len(creates); i += 1000 {
			if err := e.Client().Message.CreateBulk(creates[i : i+1000]...).Exec(e.ctx); err != nil {
				t.Fatal(err)
			}
		}
		body := value(`"statuses":[` + strings.Join(statuses, ",") + `]`)
		e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
		e.settled(t)
		delivered, err := e.Client().Message.Query().
			Where(message.DirectionEQ(message.DirectionOutgoing), message.StatusEQ(message.StatusDelivered)).Count(e.ctx)
		if err != nil || delivered != n/2 {
			t.Fatalf("%d messages delivered (%v), want %d", delivered, err, n/2)
		}
		if parked, err := e.Client().ParkedStatus.Query().Count(e.ctx); err != nil || parked != n/2 {
			t.Fatalf("%d statuses parked (%v), want %d", parked, err, n/2)
		}
	})
}

// The ack path parses a delivery whole and hands the parse to the
// drainers; a delivery that is JSON with the platform's envelope but
// whose messages or statuses have another shape is still acknowledged
// and stored, and the drainers skip what they cannot read and go on. A
// body without a Content-Length is read as well; one over the cap, or not
// JSON, is refused.
func TestWebhookDeliveryShapes(t *testing.T) {
	e := newWebhookEnv(t)
	now := time.Now().Unix()
	odd := strings.Replace(statusPayload("wamid.none", "failed", now), `"code":131026`, `"code":"131026"`, 1)
	for _, tc := range []struct {
		name    string
		body    string
		chunked bool
		status  int
		stored  string // the platform id stored, if any
	}{
		{"status of another shape", odd, false, http.StatusOK, ""},
		{"sender not a string", messagesPayload("15551230010", "Dee", `{"from":15551230010,"id":"wamid.num","type":"text","text":{"body":"x"}}`), false, http.StatusOK, ""},
		{"without Content-Length", messagesPayload("15551230011", "Eve", textMessage("15551230011", "wamid.chunked", now, "hi")), true, http.StatusOK, "wamid.chunked"},
		{"after the odd ones", messagesPayload("15551230012", "Fay", textMessage("15551230012", "wamid.after-odd", now, "hi")), false, http.StatusOK, "wamid.after-odd"},
		{"not JSON", `{"object":`, false, http.StatusBadRequest, ""},
		{"over the cap", `{"object":"` + strings.Repeat("x", 4<<20) + `"}`, false, http.StatusBadRequest, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body io.Reader = strings.NewReader(tc.body)
			if tc.chunked {
				body = io.MultiReader(body) // no length known: sent chunked
			}
			req, _ := http.NewRequest(http.MethodPost, e.Server.URL+"/api/webhook", body)
			req.Header.Set("X-Hub-Signature-256", sign(tc.body))
			e.Send(req).ExpectStatus(t, tc.status)
			e.drained(t)
			if tc.stored == "" {
				return
			}
			n, err := e.Client().Message.Query().Where(message.ChatMessageID(tc.stored)).Count(e.ctx)
			if err != nil || n != 1 {
				t.Fatalf("%d messages %s stored (%v)", n, tc.stored, err)
			}
		})
	}
}
