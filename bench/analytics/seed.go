// Package analyticsbench seeds an organization with the volume the
// analytics reports must answer fast at (100,000 contacts and 1,000,000
// messages by default, with transfers, chatbot sessions and agents'
// breaks), and measures the analytics endpoints' latency through the HTTP
// stack (bench_test.go). The rows are generated inside PostgreSQL
// (INSERT ... SELECT over generate_series with the agents as an array
// parameter), so seeding sends no row over the wire.
package analyticsbench

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
)

// Sizes is how much Seed writes.
type Sizes struct {
	Contacts, Messages, Transfers, Sessions, Breaks int
	// Days spreads the rows over the days before Now.
	Days int
}

// DefaultSizes is the volume of the brief: 100,000 contacts and
// 1,000,000 messages over half a year.
var DefaultSizes = Sizes{Contacts: 100_000, Messages: 1_000_000, Transfers: 20_000, Sessions: 50_000, Breaks: 2_000, Days: 180}

// Seed writes the rows of org in db: contacts with deterministic ids
// (md5 of their ordinal, so messages and transfers point at them without
// a join), messages in both directions (a quarter sent by the agents),
// transfers mostly resolved by the agents, completed chatbot sessions and
// 15-minute breaks, all spread over sz.Days days before now. It marks
// the seeded days' rollups stale and ends with VACUUM ANALYZE so that
// counts use index-only scans, as on a settled database.
func Seed(ctx context.Context, db *sql.DB, org uuid.UUID, agents []uuid.UUID, sz Sizes, now time.Time) error {
	if len(agents) == 0 {
		return fmt.Errorf("seed: at least one agent")
	}
	secs := sz.Days * 86400
	ag := pq.Array(uuidStrings(agents))
	steps := []struct {
		what  string
		query string
		args  []any
	}{
		{"contacts", `INSERT INTO contacts (id, created_at, updated_at, phone_number, name, profile_name, avatar_url, status,
			tags, metadata, last_message_preview, unread_count, chat_account, marketing_opt_out, organization_id)
			SELECT md5($1::uuid::text || 'c' || i)::uuid, $2::timestamptz - make_interval(secs => (i::bigint * 7919) % $3),
			       $2::timestamptz - make_interval(secs => (i::bigint * 7919) % $3), '1555' || lpad(i::text, 8, '0'),
			       'Contact ' || i, '', '', 'active', '[]', '{}', '', 0, 'Main', false, $1
			FROM generate_series(0, $4 - 1) AS i`, []any{org, now, secs, sz.Contacts}},
		{"messages", `INSERT INTO messages (id, created_at, updated_at, direction, message_type, content, status, chat_account,
			media_url, media_mime_type, media_filename, error_message, sent_by_user_id, contact_id, organization_id)
			SELECT gen_random_uuid(), t, t, CASE WHEN i % 2 = 0 THEN 'incoming' ELSE 'outgoing' END, 'text',
			       jsonb_build_object('body', 'message ' || i), CASE WHEN i % 2 = 0 THEN 'read' ELSE 'delivered' END, 'Main',
			       '', '', '', '', CASE WHEN i % 4 = 1 THEN ($5::uuid[])[1 + (i / 4) % cardinality($5::uuid[])] END,
			       md5($1::uuid::text || 'c' || (i % $6))::uuid, $1
			FROM (SELECT i, $2::timestamptz - make_interval(secs => (i::bigint * 104729) % $3) AS t
			      FROM generate_series(0, $4 - 1) AS i) s`, []any{org, now, secs, sz.Messages, ag, sz.Contacts}},
		{"transfers", `INSERT INTO agent_transfers (id, created_at, updated_at, chat_account, status, source, agent_id, notes,
			transferred_at, assigned_at, resumed_at, first_response_at, organization_id, contact_id)
			SELECT gen_random_uuid(), t, t, 'Main', CASE WHEN i < $6 THEN 'active' ELSE 'resumed' END,
			       (ARRAY['flow', 'manual', 'ivr'])[1 + i % 3],
			       CASE WHEN i % 10 <> 0 THEN ($5::uuid[])[1 + i % cardinality($5::uuid[])] END, '', t,
			       CASE WHEN i % 10 <> 0 THEN t + make_interval(secs => i % 600) END,
			       CASE WHEN i >= $6 THEN t + make_interval(secs => 600 + i % 7200) END,
			       CASE WHEN i % 10 <> 0 THEN t + make_interval(secs => i % 600 + i % 900) END,
			       $1, md5($1::uuid::text || 'c' || (i % $7))::uuid
			FROM (SELECT i, $2::timestamptz - make_interval(secs => (i::bigint * 7919) % $3) AS t
			      FROM generate_series(0, $4 - 1) AS i) s`,
			[]any{org, now, secs, sz.Transfers, ag, sz.Transfers / 100, sz.Contacts}},
		{"chatbot sessions", `INSERT INTO chatbot_sessions (id, created_at, updated_at, chat_account, status, current_step,
			variables, started_at, last_activity, completed_at, organization_id, contact_id)
			SELECT gen_random_uuid(), t, t, 'Main', 'completed', '', '{}', t, t + interval '5 minutes',
			       t + interval '5 minutes', $1, md5($1::uuid::text || 'c' || (i % $5))::uuid
			FROM (SELECT i, $2::timestamptz - make_interval(secs => (i::bigint * 7919) % $3) AS t
			      FROM generate_series(0, $4 - 1) AS i) s`, []any{org, now, secs, sz.Sessions, sz.Contacts}},
		{"breaks", `INSERT INTO agent_breaks (id, created_at, updated_at, user_id, started_at, ended_at, organization_id)
			SELECT gen_random_uuid(), t, t, ($5::uuid[])[1 + i % cardinality($5::uuid[])], t, t + interval '15 minutes', $1
			FROM (SELECT i, $2::timestamptz - make_interval(secs => 3600 + (i::bigint * 7919) % $3) AS t
			      FROM generate_series(0, $4 - 1) AS i) s`, []any{org, now, secs, sz.Breaks, ag}},
	}
	for _, s := range steps {
		if _, err := db.ExecContext(ctx, s.query, s.args...); err != nil {
			return fmt.Errorf("seed %s: %w", s.what, err)
		}
	}
	// Plain SQL moves no rollup's version (analytics/rollup.go): bump
	// those of the seeded days, so that a rollup a periodic task built
	// while seeding is not used.
	if _, err := db.ExecContext(ctx, `INSERT INTO analytics_days (id, organization_id, day, version, created_at, updated_at)
		SELECT gen_random_uuid(), $1, d, 1, now(), now()
		FROM generate_series(date_trunc('day', $2::timestamptz AT TIME ZONE 'UTC') - make_interval(days => $3 + 2),
			date_trunc('day', $2::timestamptz AT TIME ZONE 'UTC'), interval '1 day') AS d
		ON CONFLICT (organization_id, day) DO UPDATE SET version = analytics_days.version + 1, updated_at = now()`,
		org, now, sz.Days); err != nil {
		return fmt.Errorf("seed: rollup versions: %w", err)
	}
	for _, t := range []string{"contacts", "messages", "agent_transfers", "chatbot_sessions", "agent_breaks"} {
		if _, err := db.ExecContext(ctx, "VACUUM ANALYZE "+t); err != nil {
			return fmt.Errorf("seed: vacuum %s: %w", t, err)
		}
	}
	return nil
}

func uuidStrings(ids []uuid.UUID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}
