package rest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/ent/inboundevent"
	"switchboard/ent/rule"
	"switchboard/events"
	"switchboard/internal/apitest"
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
	e.App.Inbound.Events = events.New(events.Options{
		Redis: e.App.KV.Client(), Channel: "test:" + uuid.NewString(), Hooks: failingHooks{poison: "wamid.poison"},
	})
	now := time.Now().Unix()
	for _, id := range []string{"wamid.before", "wamid.poison", "wamid.after"} {
		body := messagesPayload("15551230000", "Ann", textMessage("15551230000", id, now, id))
		e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
		now++
	}
	var failed int
	eventually(t, "the poison delivery set aside", func() bool {
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
	req, _ := http.NewRequest(http.MethodGet, e.Server.URL+"/metrics", nil)
	res := e.Send(req).ExpectStatus(t, http.StatusOK)
	for _, series := range []string{
		"switchboard_inbound_commit_duration_seconds_count 1",
		"switchboard_inbound_commit_deliveries_count 1",
		"switchboard_inbound_drain_duration_seconds_count 1",
		"switchboard_inbound_drain_deliveries_sum 1",
		"switchboard_inbound_lag_seconds_count 1",
	} {
		if !strings.Contains(string(res.Raw), series+"\n") {
			t.Errorf("/metrics lacks %q", series)
		}
	}
}

// A phone number id holding a NUL escape is acknowledged as unknown, not
// refused by the database.
func TestWebhookNULPhoneNumberID(t *testing.T) {
	e := newWebhookEnv(t)
	body := `{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[{"field":"messages","value":{"metadata":{"phone_number_id":"1\u0000"},"messages":[{"from":"1","id":"wamid.x"}]}}]}]}`
	e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
}
