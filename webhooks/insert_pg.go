package webhooks

import (
	"context"
	"time"

	"github.com/google/uuid"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/schema"
	"switchboard/outbound"
)

// The deliveries' and the attempts' INSERTs on PostgreSQL: one fixed text
// each whose parameters are arrays, so each is one prepared statement per
// connection whatever the number of rows (ent's bulk builder made a new
// text, kilobytes long, for every number, and those texts were what grew
// the heap over a soak), and no SQL is built per batch. The columns are
// those ent's builders write, every one given; they are the only
// hand-written writes of the two tables.
const (
	insertDeliveriesSQL = `INSERT INTO webhook_deliveries (id, created_at, updated_at, organization_id,
	subscription_id, event_id, event, payload, status, attempts, next_attempt_at, last_error)
SELECT d.id, $1, $1, $2, d.subscription_id, d.event_id, d.event, d.payload, 'pending', 0, $1, ''
FROM unnest($3::uuid[], $4::uuid[], $5::uuid[], $6::text[], $7::bytea[])
	AS d(id, subscription_id, event_id, event, payload)`

	insertAttemptsSQL = `INSERT INTO webhook_delivery_attempts (id, created_at, updated_at, organization_id,
	delivery_id, attempt, status_code, duration_ms, error)
SELECT a.id, $1, $1, $2, a.delivery_id, a.attempt, a.status_code, a.duration_ms, a.error
FROM unnest($3::uuid[], $4::uuid[], $5::bigint[], $6::bigint[], $7::bigint[], $8::text[])
	AS a(id, delivery_id, attempt, status_code, duration_ms, error)`
)

// newDelivery is one delivery WriteDeliveries stores.
type newDelivery struct {
	subscription, event uuid.UUID
	name                string
	body                []byte
}

// pgInsertDeliveries stores rows of the organization with
// insertDeliveriesSQL, due at at.
func pgInsertDeliveries(ctx context.Context, db *ent.Client, org uuid.UUID, at time.Time, rows []newDelivery) error {
	n, size := len(rows), 0
	for _, r := range rows {
		size += 2*len(r.body) + 8
	}
	ids, subs, evs := database.NewArray(37*n), database.NewArray(37*n), database.NewArray(37*n)
	names, bodies := database.NewArray(24*n), database.NewArray(size)
	for _, r := range rows {
		ids.UUID(schema.NewID())
		subs.UUID(r.subscription)
		evs.UUID(r.event)
		names.String(r.name)
		bodies.Bytea(r.body)
	}
	_, err := db.ExecContext(ctx, insertDeliveriesSQL, at, org, ids, subs, evs, names, bodies)
	return err
}

// pgInsertAttempts stores one attempt per delivery of batch (all of the
// organization org) with insertAttemptsSQL.
func pgInsertAttempts(ctx context.Context, db *ent.Client, org uuid.UUID, batch []*ent.WebhookDelivery, outcomes []outbound.Outcome) error {
	n := len(batch)
	ids, dels := database.NewArray(37*n), database.NewArray(37*n)
	attempts, codes, durations, errs := database.NewArray(4*n), database.NewArray(4*n), database.NewArray(6*n), database.NewArray(16*n)
	for i, del := range batch {
		o := outcomes[i]
		ids.UUID(schema.NewID())
		dels.UUID(del.ID)
		attempts.Int(int64(del.Attempts))
		codes.Int(int64(o.StatusCode))
		durations.Int(o.Duration.Milliseconds())
		errs.String(o.Error)
	}
	_, err := db.ExecContext(ctx, insertAttemptsSQL, now(), org, ids, dels, attempts, codes, durations, errs)
	return err
}
