package main

import (
	"context"
	"database/sql"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"switchboard/bench/internal/benchkit"
)

// store reads what the servers stored, in their PostgreSQL. Its queries
// are retried by the caller: PostgreSQL restarts during a run.
type store struct {
	db *sql.DB
	p  *payloads
}

func openStore(ctx context.Context, dsn string, p *payloads) (*store, error) {
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(3)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return &store{db: db, p: p}, nil
}

// countStored counts the run's message rows (cheap: the drain's poll).
func (s *store) countStored(ctx context.Context) (int, error) {
	lo, hi, like := benchkit.PrefixRange(s.p.wamidPrefix)
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM messages
WHERE chat_message_id >= $1 AND chat_message_id < $2 AND chat_message_id LIKE $3`, lo, hi, like).Scan(&n)
	return n, err
}

// storedMsg is what the database holds of one message of the run.
type storedMsg struct {
	rows int   // more than 1: a duplicate
	at   int64 // unix nanos of its insert (updated_at: the server's clock when it stored it)
}

// storedRows reads the run's message rows, by seq.
func (s *store) storedRows(ctx context.Context) (map[int]storedMsg, error) {
	lo, hi, like := benchkit.PrefixRange(s.p.wamidPrefix)
	rows, err := s.db.QueryContext(ctx, `SELECT chat_message_id, updated_at FROM messages
WHERE chat_message_id >= $1 AND chat_message_id < $2 AND chat_message_id LIKE $3`, lo, hi, like)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int]storedMsg{}
	for rows.Next() {
		var id string
		var at time.Time
		if err := rows.Scan(&id, &at); err != nil {
			return nil, err
		}
		if seq, ok := s.p.seqOf(id); ok {
			m := out[seq]
			m.rows++
			if m.at == 0 || at.UnixNano() < m.at {
				m.at = at.UnixNano()
			}
			out[seq] = m
		}
	}
	return out, rows.Err()
}

// deliveryRow is a webhook_deliveries row of the run's subscription.
type deliveryRow struct {
	EventID  uuid.UUID
	Seq      int // the message it is about (from its stored payload)
	Status   string
	Attempts int
}

// deliveries lists the subscription's deliveries.
func (s *store) deliveries(ctx context.Context, subscriptionID string) ([]deliveryRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT event_id, status, attempts,
coalesce(convert_from(payload, 'UTF8')::jsonb #>> '{data,chat_message_id}', '')
FROM webhook_deliveries WHERE subscription_id = $1`, subscriptionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []deliveryRow
	for rows.Next() {
		var d deliveryRow
		var wamid string
		if err := rows.Scan(&d.EventID, &d.Status, &d.Attempts, &wamid); err != nil {
			return nil, err
		}
		d.Seq, _ = s.p.seqOf(wamid)
		out = append(out, d)
	}
	return out, rows.Err()
}

// waitingDeliveries counts the subscription's deliveries not final yet.
func (s *store) waitingDeliveries(ctx context.Context, subscriptionID string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM webhook_deliveries
WHERE subscription_id = $1 AND status IN ('pending', 'retrying')`, subscriptionID).Scan(&n)
	return n, err
}

// recipients counts the campaign's recipients by status.
func (s *store) recipients(ctx context.Context, campaignID string) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT status, count(*) FROM campaign_recipients WHERE campaign_id = $1 GROUP BY status`, campaignID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{"pending": 0, "sending": 0}
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, err
		}
		out[st] = n
	}
	return out, rows.Err()
}

// sendingCallbacks lists the biz_opaque_callback_data of the last attempt
// of the recipients left sending (cmp:<campaign>:<recipient>:<attempts>).
func (s *store) sendingCallbacks(ctx context.Context, campaignID string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT 'cmp:' || campaign_id || ':' || id || ':' || attempts
FROM campaign_recipients WHERE campaign_id = ANY($1::uuid[]) AND status = 'sending'`, pq.Array([]string{campaignID}))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var cb string
		if err := rows.Scan(&cb); err != nil {
			return nil, err
		}
		out = append(out, cb)
	}
	return out, rows.Err()
}
