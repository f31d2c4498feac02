package webhooks

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/viewer"
	"switchboard/ent/webhookdelivery"
	"switchboard/ent/webhooksubscription"
	"switchboard/events"
	"switchboard/outbound"
)

// WriteDeliveries stores one delivery of each event for every active
// subscription of its organization that subscribes to it, and queues a
// drain of each such subscription once the transaction of ctx commits (at
// once without one). It implements events.HookWriter: operations record domain events with
// events.Bus.Record, which calls it. Every delivery of an event has the
// same event id and body, built here once and stored: every attempt sends
// exactly those bytes. An organization without such subscriptions costs
// no query while its subscriptions are cached (DefaultCacheTTL). It fails
// only when the subscriptions cannot be read, data is not a JSON object,
// or the deliveries cannot be stored.
func (d *Dispatcher) WriteDeliveries(ctx context.Context, evs []events.HookEvent) error {
	byOrg := map[uuid.UUID][]events.HookEvent{}
	var orgs []uuid.UUID
	for _, ev := range evs {
		if byOrg[ev.OrgID] == nil {
			orgs = append(orgs, ev.OrgID)
		}
		byOrg[ev.OrgID] = append(byOrg[ev.OrgID], ev)
	}
	for _, org := range orgs {
		if err := d.writeOrgDeliveries(ctx, org, byOrg[org]); err != nil {
			return err
		}
	}
	return nil
}

// writeOrgDeliveries is WriteDeliveries for the events of one
// organization: one query checks the subscriptions they need, and the
// deliveries are inserted in as few statements as the parameter limit
// allows.
func (d *Dispatcher) writeOrgDeliveries(ctx context.Context, orgID uuid.UUID, evs []events.HookEvent) error {
	octx := orgContext(ctx, orgID)
	subs, err := d.cache.get(octx, orgID)
	if err != nil {
		return fmt.Errorf("webhooks: read subscriptions: %w", err)
	}
	targets := make([][]uuid.UUID, len(evs))
	var wanted []uuid.UUID
	for i, ev := range evs {
		for _, s := range subs {
			if s.wants(ev.Name) {
				targets[i] = append(targets[i], s.ID)
				wanted = append(wanted, s.ID)
			}
		}
	}
	if len(wanted) == 0 {
		return nil
	}
	active, err := stillActive(octx, d.db(ctx), slices.Compact(slices.SortedFunc(slices.Values(wanted), compareIDs)))
	if err != nil {
		return err
	}
	at := now()
	var rows []newDelivery
	for i, ev := range evs {
		eventID := uuid.New()
		body, err := outbound.Envelope(eventID.String(), ev.Name, at, orgID.String(), ev.Data)
		if err != nil {
			return fmt.Errorf("webhooks: %s: %w", ev.Name, err)
		}
		for _, sub := range targets[i] {
			if slices.Contains(active, sub) {
				rows = append(rows, newDelivery{subscription: sub, event: eventID, name: ev.Name, body: body})
			}
		}
	}
	if len(rows) == 0 {
		return nil
	}
	if err := d.insertDeliveries(octx, orgID, at, rows); err != nil {
		return fmt.Errorf("webhooks: store deliveries: %w", err)
	}
	written := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		written[i] = r.subscription
	}
	written = slices.Compact(slices.SortedFunc(slices.Values(written), compareIDs))
	qctx := context.WithoutCancel(ctx)
	database.AfterCommit(ctx, func() {
		for _, sub := range written {
			d.kick(qctx, orgID, sub, at)
		}
	})
	return nil
}

// insertDeliveries stores rows of the organization, due at at, in the
// transaction of ctx when there is one.
func (d *Dispatcher) insertDeliveries(ctx context.Context, orgID uuid.UUID, at time.Time, rows []newDelivery) error {
	db := d.db(ctx)
	if d.postgres {
		return pgInsertDeliveries(ctx, db, orgID, at, rows)
	}
	builders := make([]*ent.WebhookDeliveryCreate, len(rows))
	for i, r := range rows {
		builders[i] = db.WebhookDelivery.Create().SetSubscriptionID(r.subscription).SetEventID(r.event).
			SetEvent(r.name).SetPayload(r.body).SetNextAttemptAt(at)
	}
	return database.InChunks(builders, len(webhookdelivery.Columns), func(part []*ent.WebhookDeliveryCreate) error {
		return db.WebhookDelivery.CreateBulk(part...).Exec(ctx)
	})
}

func compareIDs(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) }

// stillActive narrows cached subscription ids to those still active, in
// the caller's transaction. The cache may hold a subscription another node
// has just deleted; inserting a delivery for it would fail the caller's
// whole transaction (the inbound batch). On PostgreSQL the rows are locked
// FOR KEY SHARE, so a delete waits until the deliveries are committed and
// then removes them with the subscription.
func stillActive(ctx context.Context, db *ent.Client, ids []uuid.UUID) ([]uuid.UUID, error) {
	ids, err := db.WebhookSubscription.Query().
		Where(database.AnyOfIDs(webhooksubscription.FieldID, ids), webhooksubscription.IsActive(true)).
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
