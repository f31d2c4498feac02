package chatbot_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"

	"switchboard/chatbot"
	"switchboard/database"
	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
)

// planSessions is the seeded size of the plan test: the chatbot sessions
// of an organization whose bot has answered for a while.
const planSessions = 100_000

// TestListPlans asserts, on PostgreSQL with 100,000 chatbot sessions of
// one organization (2% active, the newest; 70% completed, 25% timed out,
// 3% cancelled) and 1,000 of another, that the sessions list
// (ListSessions, most recently active first) reads an index in its order
// and never scans chatbot_sessions nor sorts the organization's sessions:
// the first page, a deep page, each status; and that GraphQL's connection
// (SessionsQuery paged by ent, in id order) reads an index. The total
// is bounded (database.CountUpTo stops at database.CountBound+1 rows) and logged.
func TestListPlans(t *testing.T) {
	if testenv.PostgresURL(t) == "" {
		t.Skip("plans are PostgreSQL's")
	}
	db := testkit.OpenDB(t)
	org, ctx := testkit.NewOrg(t, db.Client, "acme")
	other, _ := testkit.NewOrg(t, db.Client, "globex")
	seedSessions(t, db, org, planSessions)
	seedSessions(t, db, other, 1_000)
	if _, err := db.SQL.Exec(`ANALYZE contacts; ANALYZE chatbot_sessions`); err != nil {
		t.Fatal(err)
	}
	svc := &chatbot.Service{Client: db.Client}
	list := func(status string, offset int) func(context.Context) error {
		return func(ctx context.Context) error {
			p, err := svc.ListSessions(ctx, status, chatbot.Page{Offset: offset, Limit: 20})
			if err == nil && len(p.Sessions) != 20 {
				t.Errorf("%d sessions, want 20", len(p.Sessions))
			}
			return err
		}
	}
	connection := func(ctx context.Context) error {
		q, err := svc.SessionsQuery(ctx, "")
		if err != nil {
			return err
		}
		first := 20
		_, err = q.Paginate(edgesOnly(ctx), nil, &first, nil, nil)
		return err
	}
	// activity is the plan of the list of every session, or of a status
	// of the history (completed, timed out, cancelled): the index in the
	// list's order, the page cut under the LIMIT.
	activity := testkit.ListPlan{Table: "chatbot_sessions", Indexes: []string{"chatbot_session_organization_id_last_activity"}}
	// open is the plan of the active sessions: the bot's working set,
	// in the list's order in the partial index the timeout sweep reads.
	open := testkit.ListPlan{Table: "chatbot_sessions", Indexes: []string{database.ActiveSessionsIndex}}
	for _, tc := range []struct {
		name string
		op   func(context.Context) error
		plan testkit.ListPlan
	}{
		{"FirstPage", list("", 0), activity},
		{"DeepPage", list("", 20_000), testkit.ListPlan{Table: "chatbot_sessions", Indexes: activity.Indexes, IndexOnly: true}},
		{"Active", list("active", 0), open},
		{"Completed", list("completed", 0), activity},
		{"TimedOut", list("timeout", 0), activity},
		{"Cancelled", list("cancelled", 0), activity},
		{"GraphQLFirst", connection, testkit.ListPlan{Table: "chatbot_sessions", Indexes: []string{"chatbot_session_organization_id_id"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.plan.Check(t, testkit.Plans(t, ctx, db.SQL, tc.op))
		})
	}
}

// seedSessions gives org 1,000 contacts and n chatbot sessions: 2% active
// (the newest, idle from 5 minutes on), 70% completed, 25% timed out, 3%
// cancelled, one a minute further back.
func seedSessions(t *testing.T, db *database.DB, org uuid.UUID, n int) {
	t.Helper()
	_, err := db.SQL.Exec(`INSERT INTO contacts (id, created_at, updated_at, organization_id, phone_number, name,
		profile_name, avatar_url, status, tags, metadata, unread_count, chat_account, marketing_opt_out, last_message_preview)
		SELECT gen_random_uuid(), now(), now(), $1, '1666' || lpad(i::text, 8, '0'), '', 'Person ' || i, '', 'active',
			'[]', '{}', 0, '', false, ''
		FROM generate_series(1, 1000) AS i`, org)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.SQL.Exec(`INSERT INTO chatbot_sessions (id, created_at, updated_at, organization_id, contact_id,
		chat_account, status, current_step, variables, started_at, last_activity, completed_at)
		SELECT gen_random_uuid(), now(), now(), $1, c.ids[1 + i % 1000], 'acme line',
			(CASE WHEN i <= $2 / 50 THEN 'active' WHEN i % 100 < 70 THEN 'completed' WHEN i % 100 < 97 THEN 'timeout'
				ELSE 'cancelled' END), '', '{}',
			now() - make_interval(mins => i + 5), now() - make_interval(mins => i),
			CASE WHEN i > $2 / 50 THEN now() - make_interval(mins => i) END
		FROM generate_series(1, $2) AS i,
			(SELECT array_agg(id) AS ids FROM contacts WHERE organization_id = $1) AS c`, org, n)
	if err != nil {
		t.Fatal(err)
	}
}

// edgesOnly is ctx as a GraphQL field selecting edges { node { id } } and
// no totalCount (the transport hides it from ent's Paginate, which would
// count every row).
func edgesOnly(ctx context.Context) context.Context {
	leaf := func(name string, sel ...ast.Selection) *ast.Field {
		return &ast.Field{Name: name, Alias: name, SelectionSet: sel}
	}
	ctx = graphql.WithOperationContext(ctx, &graphql.OperationContext{Variables: map[string]any{}})
	return graphql.WithFieldContext(ctx, &graphql.FieldContext{Field: graphql.CollectedField{
		Field: leaf("chatbotSessions"), Selections: ast.SelectionSet{leaf("edges", leaf("node", leaf("id")))},
	}})
}

// TestExpirePlan asserts, on PostgreSQL with 100,000 chatbot sessions of
// one organization and 1,000 of another (2% of each active), 40 more
// organizations with the same timeout and none of their own, that the
// minute's timeout sweep (ExpireSessions) finds the idle active sessions
// through the partial index of active sessions, never scanning the
// history of finished ones, which grows with every conversation the bot
// had.
func TestExpirePlan(t *testing.T) {
	if testenv.PostgresURL(t) == "" {
		t.Skip("plans are PostgreSQL's")
	}
	db := testkit.OpenDB(t)
	for i := range 42 {
		org, ctx := testkit.NewOrg(t, db.Client, fmt.Sprintf("org %d", i))
		if _, err := db.Client.ChatbotSettings.Create().SetSessionTimeoutMinutes(30).Save(ctx); err != nil {
			t.Fatal(err)
		}
		switch i {
		case 0:
			seedSessions(t, db, org, planSessions)
		case 1:
			seedSessions(t, db, org, 1_000)
		}
	}
	if _, err := db.SQL.Exec(`ANALYZE contacts; ANALYZE chatbot_sessions; ANALYZE chatbot_settings`); err != nil {
		t.Fatal(err)
	}
	bot := &chatbot.Bot{Client: db.Client}
	expired := 0
	plans := testkit.WritePlans(t, context.Background(), db.SQL, func(ctx context.Context) error {
		n, err := bot.ExpireSessions(ctx)
		expired = n
		return err
	})
	// The first organization's active sessions are idle from 1 to 2,000
	// minutes: all but the 29 most recent time out; the second's, idle
	// from 1 to 20 minutes, all stay.
	if want := planSessions/50 - 29; expired != want {
		t.Errorf("%d sessions timed out, want %d", expired, want)
	}
	if len(plans) != 1 {
		t.Fatalf("%d updates, want one per distinct timeout: %v", len(plans), plans)
	}
	testkit.AssertReadsIndex(t, plans, "chatbot_sessions", database.ActiveSessionsIndex)
}
