package inbound

import (
	"context"
	"time"

	"switchboard/database"
	"switchboard/ent/schema"
)

// insertDeliveriesSQL is the group commit's INSERT on PostgreSQL: one
// fixed text whose parameters are arrays, so it is prepared once per
// connection and serves every batch size, and no SQL is built per commit
// (ent's bulk builder made a new text for every number of rows). It is
// the only hand-written write of inbound_events; the rows are what ent's
// builder wrote (insert on SQLite), every column given. A payload already
// stored (same dedupe key) is skipped.
const insertDeliveriesSQL = `INSERT INTO inbound_events (id, created_at, updated_at, organization_id, payload,
	account_phone_id, lane, status, attempts, error, dedupe_key)
SELECT d.id, $1, $1, d.organization_id, d.payload, d.account_phone_id, d.lane, 'pending', 0, '', d.dedupe_key
FROM unnest($2::uuid[], $3::uuid[], $4::bytea[], $5::text[], $6::bigint[], $7::text[])
	AS d(id, organization_id, payload, account_phone_id, lane, dedupe_key)
ON CONFLICT (dedupe_key) DO NOTHING`

// pgInsert stores deliveries (distinct, in dedupe-key order) with
// insertDeliveriesSQL. Their ids, UUIDv7 made in this order, keep the
// order the drainers read them in.
func (s *Service) pgInsert(ctx context.Context, batch []*delivery) error {
	n := len(batch)
	size := 0
	for _, d := range batch {
		size += 2*len(d.payload) + 8
	}
	ids, orgs, payloads := database.NewArray(37*n), database.NewArray(37*n), database.NewArray(size)
	phones, lanes, keys := database.NewArray(24*n), database.NewArray(4*n), database.NewArray(67*n)
	for _, d := range batch {
		ids.UUID(schema.NewID())
		orgs.UUID(d.org)
		payloads.Bytea(d.payload)
		phones.String(d.phoneID)
		lanes.Int(int64(d.lane))
		keys.String(d.key)
	}
	_, err := s.Client.ExecContext(ctx, insertDeliveriesSQL, time.Now().UTC(), ids, orgs, payloads, phones, lanes, keys)
	return err
}
