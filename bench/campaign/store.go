package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/lib/pq"
)

// store reads the campaigns' recipients in the server's PostgreSQL.
type store struct{ db *sql.DB }

func openStore(ctx context.Context, url string) (*store, error) {
	db, err := sql.Open("postgres", url)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	db.SetMaxOpenConns(2)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("database: %w", err)
	}
	return &store{db: db}, nil
}

func (s *store) close() { _ = s.db.Close() }

// count is the campaigns' recipients by status.
func (s *store) count(ctx context.Context, ids []string) (map[string]int64, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT status, count(*) FROM campaign_recipients WHERE campaign_id = ANY($1::uuid[]) GROUP BY status`, pq.Array(ids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{"pending": 0, "sending": 0}
	for rows.Next() {
		var st string
		var n int64
		if err := rows.Scan(&st, &n); err != nil {
			return nil, err
		}
		out[st] = n
	}
	return out, rows.Err()
}

// sendingRow is a recipient left sending.
type sendingRow struct {
	campaignID, id string
	attempts       int
}

// callback is the biz_opaque_callback_data its last attempt carried.
func (r sendingRow) callback() string {
	return fmt.Sprintf("cmp:%s:%s:%d", r.campaignID, r.id, r.attempts)
}

func (s *store) sending(ctx context.Context, ids []string) ([]sendingRow, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT campaign_id, id, attempts FROM campaign_recipients WHERE campaign_id = ANY($1::uuid[]) AND status = 'sending'`, pq.Array(ids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []sendingRow
	for rows.Next() {
		var r sendingRow
		if err := rows.Scan(&r.campaignID, &r.id, &r.attempts); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// failReasons counts the failed recipients by their error (its first 80
// characters).
func (s *store) failReasons(ctx context.Context, ids []string) (map[string]int64, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT left(coalesce(error_message, ''), 80), count(*) FROM campaign_recipients
		 WHERE campaign_id = ANY($1::uuid[]) AND status = 'failed' GROUP BY 1`, pq.Array(ids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var reason string
		var n int64
		if err := rows.Scan(&reason, &n); err != nil {
			return nil, err
		}
		out[strings.TrimSpace(reason)] = n
	}
	return out, rows.Err()
}
