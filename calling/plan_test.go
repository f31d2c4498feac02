package calling_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/calling"
	"switchboard/ent/viewer"
	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
)

// planCalls is the seeded size of the plan test: the call log of an
// organization that has taken calls for a couple of months.
const planCalls = 100_000

// TestListPlans asserts, on PostgreSQL with 100,000 call logs of one
// organization (a call a minute for 70 days: 60% completed, 25% missed,
// a fifth outgoing, three accounts, 1,000 contacts calling again and
// again from 30,000 numbers, twenty agents) and 1,000 of another, that the call logs list
// reads an index and never scans call_logs nor sorts what it found, for
// a viewer with call_logs:read on the first and a deep page and with
// each filter the list has (status, direction, account, a week's dates,
// part of a phone number, a contact), and for an agent who sees only
// the calls they took; that GraphQL's callLogs reads the page's
// transfers by call log; and that the call transfers list (a tenth of the
// calls transferred) reads its index in its order, for a supervisor
// (first and deep page, a status of the history, the waiting ones) and
// for an agent. The totals are bounded (database.CountUpTo stops at database.CountBound+1 rows) and logged.
func TestListPlans(t *testing.T) {
	if testenv.PostgresURL(t) == "" {
		t.Skip("plans are PostgreSQL's")
	}
	db := testkit.OpenDB(t)
	org, _ := testkit.NewOrg(t, db.Client, "acme")
	other, _ := testkit.NewOrg(t, db.Client, "globex")
	supervisor := testkit.NewMember(t, db.Client, org, "supervisor", calling.AllCallLogsPermission)
	agent := testkit.NewMember(t, db.Client, org, "agent")
	agents := []string{viewer.FromContext(agent).UserID.String()}
	for len(agents) < 20 {
		agents = append(agents, uuid.NewString())
	}
	for _, s := range []struct {
		org uuid.UUID
		n   int
	}{{org, planCalls}, {other, 1_000}} {
		_, err := db.SQL.Exec(`INSERT INTO contacts (id, created_at, updated_at, organization_id, phone_number, name,
			profile_name, avatar_url, status, tags, metadata, unread_count, chat_account, marketing_opt_out, last_message_preview)
			SELECT gen_random_uuid(), now(), now(), $1, '1666' || lpad(i::text, 8, '0'), '', 'Person ' || i, '', 'active',
				'[]', '{}', 0, '', false, ''
			FROM generate_series(1, 1000) AS i`, s.org)
		if err != nil {
			t.Fatal(err)
		}
		_, err = db.SQL.Exec(`INSERT INTO call_logs (id, created_at, updated_at, organization_id, chat_account, contact_id,
			chat_call_id, caller_phone, direction, status, duration, agent_id, started_at, disconnected_by,
			recording_storage_key, recording_duration)
			SELECT gen_random_uuid(), now(), now(), $1, 'line ' || (i % 3), c.ids[1 + i % 1000], 'wacid.' || i,
				'1777' || lpad((i % 30000)::text, 8, '0'),
				(CASE WHEN i % 5 = 0 THEN 'outgoing' ELSE 'incoming' END),
				(CASE WHEN i % 100 < 60 THEN 'completed' WHEN i % 100 < 85 THEN 'missed' WHEN i % 100 < 90 THEN 'rejected'
					WHEN i % 100 < 95 THEN 'failed' ELSE 'answered' END), 60,
				CASE WHEN i % 100 < 60 OR i % 100 >= 95 THEN ($3::uuid[])[1 + i % 20] END,
				now() - make_interval(mins => i), '', '', 0
			FROM generate_series(1, $2) AS i,
				(SELECT array_agg(id) AS ids FROM contacts WHERE organization_id = $1) AS c`,
			s.org, s.n, "{"+strings.Join(agents, ",")+"}")
		if err != nil {
			t.Fatal(err)
		}
	}
	// A tenth of the calls were transferred to a queue: most completed,
	// the newest still waiting.
	_, err := db.SQL.Exec(`INSERT INTO call_transfers (id, created_at, updated_at, organization_id, call_log_id,
		chat_call_id, caller_phone, contact_id, chat_account, status, agent_id, transferred_at, hold_duration, talk_duration)
		SELECT gen_random_uuid(), now(), now(), l.organization_id, l.id, l.chat_call_id, l.caller_phone, l.contact_id,
			l.chat_account, (CASE WHEN l.started_at > now() - interval '1 day' THEN 'waiting'
				WHEN x % 100 < 70 THEN 'completed' WHEN x % 100 < 85 THEN 'abandoned' ELSE 'no_answer' END),
			CASE WHEN l.started_at <= now() - interval '1 day' AND x % 100 < 70 THEN l.agent_id END,
			l.started_at + interval '1 minute', 10, 60
		FROM (SELECT *, row_number() OVER (ORDER BY started_at) AS x FROM call_logs) AS l WHERE x % 10 = 0`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL.Exec(`ANALYZE contacts; ANALYZE call_logs; ANALYZE call_transfers`); err != nil {
		t.Fatal(err)
	}
	var someone uuid.UUID
	if err := db.SQL.QueryRow(`SELECT id FROM contacts WHERE organization_id = $1 AND phone_number = '166600000500'`, org).Scan(&someone); err != nil {
		t.Fatal(err)
	}
	svc := &calling.Service{Client: db.Client}
	day := func(ago int) string { return time.Now().UTC().AddDate(0, 0, -ago).Format(time.DateOnly) }
	started := []string{"call_log_organization_id_started_at_id"}
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		f      calling.CallLogFilter
		offset int
		plan   testkit.ListPlan
	}{
		{"FirstPage", supervisor, calling.CallLogFilter{}, 0, testkit.ListPlan{Indexes: started}},
		{"DeepPage", supervisor, calling.CallLogFilter{}, 20_000, testkit.ListPlan{Indexes: started, IndexOnly: true}},
		{"Missed", supervisor, calling.CallLogFilter{Status: "missed"}, 0, testkit.ListPlan{Indexes: started}},
		{"Outgoing", supervisor, calling.CallLogFilter{Direction: "outgoing"}, 0, testkit.ListPlan{Indexes: started}},
		{"Account", supervisor, calling.CallLogFilter{Account: "line 1"}, 0, testkit.ListPlan{Indexes: started}},
		{"DateRange", supervisor, calling.CallLogFilter{StartDate: day(30), EndDate: day(24)}, 0, testkit.ListPlan{Indexes: started}},
		// The trigram index finds the calls of the number (three or
		// four), and they are sorted: as many as one caller makes, not
		// the organization's.
		{"Phone", supervisor, calling.CallLogFilter{Phone: "00012345"}, 0, testkit.ListPlan{SortOK: true, Indexes: []string{"call_log_caller_phone_trgm"}}},
		{"Contact", supervisor, calling.CallLogFilter{ContactID: &someone}, 0, testkit.ListPlan{Indexes: []string{"call_log_contact_id_started_at"}}},
		{"Agent", agent, calling.CallLogFilter{}, 0, testkit.ListPlan{Indexes: []string{"call_log_organization_id_agent_id_started_at"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plans := testkit.Plans(t, tc.ctx, db.SQL, func(ctx context.Context) error {
				p, err := svc.CallLogs(ctx, tc.f, tc.offset, 20)
				if err == nil && len(p.CallLogs) == 0 {
					t.Error("no call logs")
				}
				return err
			})
			tc.plan.Table = "call_logs"
			tc.plan.Check(t, plans)
		})
	}
	// GraphQL's callLogs with each log's transfers: one query for the
	// page's transfers, by call log.
	t.Run("WithTransfers", func(t *testing.T) {
		plans := testkit.Plans(t, supervisor, db.SQL, func(ctx context.Context) error {
			_, err := svc.CallLogs(ctx, calling.CallLogFilter{}, 0, 20, calling.WithEdges("transfers"))
			return err
		})
		testkit.ListPlan{Table: "call_logs", Indexes: started}.Check(t, plans)
		read := false
		for q, nodes := range plans {
			if strings.Contains(q, `FROM "call_transfers"`) {
				for _, n := range nodes {
					if n.Type == "Seq Scan" {
						t.Errorf("%s\nscans %s: %v", q, n.Relation, nodes)
					}
				}
				read = read || testkit.UsesIndex(nodes, "call_transfers", "call_transfer_call_log_id")
			}
		}
		if !read {
			t.Error("the transfers are not read by call_transfer_call_log_id")
		}
	})
	// The call transfers list (newest first): the history on the
	// organization's index in its order; the waiting transfers (the
	// queues' working set) may be found and sorted; an agent sees the
	// transfers they took and those waiting for them.
	transferred := testkit.ListPlan{Table: "call_transfers", Indexes: []string{"call_transfer_organization_id_transferred_at"}}
	waiting := testkit.ListPlan{Table: "call_transfers", SortOK: true,
		Indexes: []string{"call_transfer_organization_id_transferred_at", "calltransfer_organization_id_status"}}
	for _, tc := range []struct {
		name, status string
		ctx          context.Context
		offset       int
		plan         testkit.ListPlan
	}{
		{"TransfersFirstPage", "", supervisor, 0, transferred},
		{"TransfersDeepPage", "", supervisor, 5_000, testkit.ListPlan{Table: "call_transfers", Indexes: transferred.Indexes, IndexOnly: true}},
		{"TransfersCompleted", "completed", supervisor, 0, transferred},
		{"TransfersWaiting", "waiting", supervisor, 0, waiting},
		{"TransfersAgent", "", agent, 0, transferred},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plans := testkit.Plans(t, tc.ctx, db.SQL, func(ctx context.Context) error {
				p, err := svc.CallTransfers(ctx, tc.status, tc.offset, 20)
				if err == nil && len(p.CallTransfers) == 0 {
					t.Error("no call transfers")
				}
				return err
			})
			tc.plan.Check(t, plans)
		})
	}
}
