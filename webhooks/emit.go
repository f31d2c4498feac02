package webhooks

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/viewer"
	"switchboard/ent/webhooksubscription"
	"switchboard/outbound"
)

// Emit stores one delivery of event for every active subscription of the
// organization that subscribes to it, all with the same event id and the
// same body, and queues them once the transaction of ctx commits (at once
// without one). The body is built here, once, and stored: every attempt
// sends exactly those bytes. An organization without such subscriptions
// costs no query while its subscriptions are cached (DefaultCacheTTL). It
// fails only when the subscriptions cannot be read, data cannot be encoded
// as a JSON object, or the deliveries cannot be stored.
func (d *Dispatcher) Emit(ctx context.Context, orgID uuid.UUID, event string, data any) error {
	octx := orgContext(ctx, orgID)
	targets, err := d.subscribers(octx, orgID, event)
	if err != nil || len(targets) == 0 {
		return err
	}
	eventID, at := uuid.New(), now()
	body, err := outbound.Envelope(eventID.String(), event, at, orgID.String(), data)
	if err != nil {
		return fmt.Errorf("webhooks: %s: %w", event, err)
	}
	builders := make([]*ent.WebhookDeliveryCreate, len(targets))
	for i, sub := range targets {
		builders[i] = d.db(ctx).WebhookDelivery.Create().
			SetSubscriptionID(sub).SetEventID(eventID).SetEvent(event).SetPayload(body).SetNextAttemptAt(at)
	}
	created, err := d.db(ctx).WebhookDelivery.CreateBulk(builders...).Save(octx)
	if err != nil {
		return fmt.Errorf("webhooks: store %s deliveries: %w", event, err)
	}
	qctx := context.WithoutCancel(ctx)
	database.AfterCommit(ctx, func() {
		for _, del := range created {
			d.enqueue(qctx, orgID, del.ID, 1, at)
		}
	})
	return nil
}

// subscribers returns the ids of the organization's active subscriptions
// to event: from the cache, then checked in the caller's transaction when
// there are any.
func (d *Dispatcher) subscribers(ctx context.Context, orgID uuid.UUID, event string) ([]uuid.UUID, error) {
	subs, err := d.cache.get(ctx, orgID)
	if err != nil {
		return nil, fmt.Errorf("webhooks: read subscriptions: %w", err)
	}
	var ids []uuid.UUID
	for _, s := range subs {
		if s.wants(event) {
			ids = append(ids, s.ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	return stillActive(ctx, d.db(ctx), ids)
}

// stillActive narrows cached subscription ids to those still active, in
// the caller's transaction. The cache may hold a subscription another node
// has just deleted; inserting a delivery for it would fail the caller's
// whole transaction (the inbound batch). On PostgreSQL the rows are locked
// FOR KEY SHARE, so a delete waits until the deliveries are committed and
// then removes them with the subscription.
func stillActive(ctx context.Context, db *ent.Client, ids []uuid.UUID) ([]uuid.UUID, error) {
	ids, err := db.WebhookSubscription.Query().
		Where(webhooksubscription.IDIn(ids...), webhooksubscription.IsActive(true)).
		Modify(func(s *sql.Selector) {
			if s.Dialect() == dialect.Postgres {
				s.For(sql.LockKeyShare)
			}
		}).
		IDs(ctx)
	if err != nil {
		return nil, fmt.Errorf("webhooks: check subscriptions: %w", err)
	}
	return ids, nil
}

// loadActive reads the organization's active subscriptions for the cache
// shared by every caller.
func (d *Dispatcher) loadActive(ctx context.Context, orgID uuid.UUID) ([]activeSubscription, error) {
	// The caller's transaction, when there is one: on SQLite it holds the
	// only connection.
	rows, err := d.db(ctx).WebhookSubscription.Query().
		Where(webhooksubscription.IsActive(true)).
		Select(webhooksubscription.FieldID, webhooksubscription.FieldEvents).
		All(viewer.SystemContext(ctx, orgID))
	if err != nil {
		return nil, err
	}
	subs := make([]activeSubscription, len(rows))
	for i, r := range rows {
		subs[i] = activeSubscription{ID: r.ID, Events: r.Events}
	}
	return subs, nil
}
