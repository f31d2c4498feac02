package webhooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/ent/webhookdelivery"
	"switchboard/ent/webhookdeliveryattempt"
	"switchboard/events"
	"switchboard/outbound"
	"switchboard/webhooks"
)

// storeAged stores a delivery created age ago in status, with attempts.
func (e *hookEnv) storeAged(t *testing.T, ctx context.Context, sub *ent.WebhookSubscription, age time.Duration, status webhookdelivery.Status, attempts int) uuid.UUID {
	t.Helper()
	created := time.Now().Add(-age)
	eventID := uuid.New()
	body, err := outbound.Envelope(eventID.String(), events.HookContactCreated, created, sub.OrganizationID.String(), map[string]any{"id": "c1"})
	if err != nil {
		t.Fatal(err)
	}
	c := e.Client().WebhookDelivery.Create().SetSubscriptionID(sub.ID).SetEventID(eventID).
		SetEvent(events.HookContactCreated).SetPayload(body).SetCreatedAt(created).
		SetStatus(status).SetAttempts(attempts)
	if status == webhookdelivery.StatusSucceeded || status == webhookdelivery.StatusFailed {
		c.SetCompletedAt(created.Add(time.Minute))
	} else {
		c.SetNextAttemptAt(time.Now().Add(time.Hour))
	}
	del, err := c.Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= attempts; n++ {
		if _, err := e.Client().WebhookDeliveryAttempt.Create().SetDeliveryID(del.ID).SetAttempt(n).
			SetStatusCode(503).Save(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return del.ID
}

func TestPruneFinished(t *testing.T) {
	const retention = 30 * 24 * time.Hour
	e := newHookEnv(t, func(o *webhooks.Options) { o.Retention = retention })
	rcv := newReceiver(t)
	_, ctx := e.newOrg(t)
	sub, _ := e.subscribe(t, ctx, rcv.URL, []string{events.HookContactCreated}, nil)
	_, otherCtx := e.newOrg(t)
	otherSub, _ := e.subscribe(t, otherCtx, rcv.URL, []string{events.HookContactCreated}, nil)

	old := retention + time.Hour
	pruned := []uuid.UUID{
		e.storeAged(t, ctx, sub, old, webhookdelivery.StatusSucceeded, 2),
		e.storeAged(t, ctx, sub, old, webhookdelivery.StatusFailed, 10),
		e.storeAged(t, otherCtx, otherSub, old, webhookdelivery.StatusSucceeded, 1), // every organization
	}
	kept := []uuid.UUID{
		e.storeAged(t, ctx, sub, old, webhookdelivery.StatusRetrying, 9), // still waiting, however old
		e.storeAged(t, ctx, sub, old, webhookdelivery.StatusPending, 0),
		e.storeAged(t, ctx, sub, retention-time.Hour, webhookdelivery.StatusSucceeded, 1), // within the retention
	}
	exists := func(id uuid.UUID) (delivery bool, attempts int) {
		t.Helper()
		for _, c := range []context.Context{ctx, otherCtx} {
			n, err := e.Client().WebhookDelivery.Query().Where(webhookdelivery.ID(id)).Count(c)
			if err != nil {
				t.Fatal(err)
			}
			a, err := e.Client().WebhookDeliveryAttempt.Query().Where(webhookdeliveryattempt.DeliveryID(id)).Count(c)
			if err != nil {
				t.Fatal(err)
			}
			delivery, attempts = delivery || n > 0, attempts+a
		}
		return delivery, attempts
	}

	forever := webhooks.New(webhooks.Options{Client: e.Client(), Postgres: e.App.DB.Postgres()})
	if n, err := forever.PruneFinished(context.Background()); err != nil || n != 0 {
		t.Fatalf("PruneFinished without a retention = %d, %v; want 0", n, err)
	}
	if ok, _ := exists(pruned[0]); !ok {
		t.Fatal("a dispatcher without a retention deleted a delivery")
	}

	n, err := e.d.PruneFinished(context.Background())
	if err != nil || n < len(pruned) {
		t.Fatalf("PruneFinished = %d, %v; want at least %d", n, err, len(pruned))
	}
	for _, id := range pruned {
		if ok, a := exists(id); ok || a != 0 {
			t.Errorf("delivery %s past its retention: still stored %v with %d attempts", id, ok, a)
		}
	}
	for _, id := range kept {
		if ok, _ := exists(id); !ok {
			t.Errorf("delivery %s was deleted; it is waiting or within the retention", id)
		}
	}
	if _, a := exists(kept[0]); a != 9 {
		t.Errorf("a kept delivery has %d attempts, want 9", a)
	}
	if n, err := e.d.PruneFinished(context.Background()); err != nil || n != 0 {
		t.Errorf("a second PruneFinished = %d, %v; want 0", n, err)
	}
}
