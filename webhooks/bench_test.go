package webhooks_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/ent/webhookdelivery"
	"switchboard/events"
	"switchboard/outbound"
)

// BenchmarkDrain measures delivering a backlog of one subscription: each
// op is one delivery claimed, posted to a local receiver that answers 200
// at once, and recorded. The deliveries are stored without a kick, so
// only the benchmark's drains run.
func BenchmarkDrain(b *testing.B) {
	e := newHookEnv(b, nil)
	org, ctx := e.newOrg(b)
	rcv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	b.Cleanup(rcv.Close)
	sub, _ := e.subscribe(b, ctx, rcv.URL, []string{events.HookMessageIncoming}, nil)
	rows := make([]*ent.WebhookDeliveryCreate, b.N)
	for i := range rows {
		id := uuid.New()
		body, err := outbound.Envelope(id.String(), events.HookMessageIncoming, time.Now(), org.String(),
			map[string]any{"id": uuid.NewString(), "content": map[string]string{"body": "a message of a typical length"}})
		if err != nil {
			b.Fatal(err)
		}
		rows[i] = e.Client().WebhookDelivery.Create().SetSubscriptionID(sub.ID).SetEventID(id).
			SetEvent(events.HookMessageIncoming).SetPayload(body).SetNextAttemptAt(time.Now())
	}
	for part := range slices.Chunk(rows, 1000) {
		if err := e.Client().WebhookDelivery.CreateBulk(part...).Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for {
		if err := e.d.Drain(ctx, sub.ID); err != nil {
			b.Fatal(err)
		}
		left, err := e.Client().WebhookDelivery.Query().
			Where(webhookdelivery.SubscriptionID(sub.ID), webhookdelivery.StatusNEQ(webhookdelivery.StatusSucceeded)).Count(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if left == 0 {
			return
		}
	}
}
