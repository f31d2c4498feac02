package transfers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent/viewer"
	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
	"switchboard/transfers"
)

// planTransfers is the seeded size of the plan test: the transfers of an
// organization that has handed conversations to agents for a year or
// two, where the planner's choice is the one it makes on a large one.
const planTransfers = 100_000

// TestListPlans asserts, on PostgreSQL with 100,000 transfers of one
// organization (2% active, a fifth never assigned, a third of the
// general queue, twenty agents, four teams) and 1,000 of another, that
// the transfers list reads an index and never scans agent_transfers: a
// manager's list (every transfer, by status, by queue) and an agent's
// (their own and the unassigned ones of their queues), first and deep
// pages; and that the first page of the history does not sort what it
// found. The total is bounded (database.CountUpTo stops at 10,001 rows) and logged.
func TestListPlans(t *testing.T) {
	if testenv.PostgresURL(t) == "" {
		t.Skip("plans are PostgreSQL's")
	}
	db := testkit.OpenDB(t)
	org, sys := testkit.NewOrg(t, db.Client, "acme")
	other, _ := testkit.NewOrg(t, db.Client, "globex")
	manager := testkit.NewMember(t, db.Client, org, "manager", access.ManageTransfers)
	agent := testkit.NewMember(t, db.Client, org, "agent")
	agentID := viewer.FromContext(agent).UserID
	teams := make([]uuid.UUID, 4)
	for i := range teams {
		tm, err := db.Client.Team.Create().SetName("team " + string(rune('A'+i))).Save(sys)
		if err != nil {
			t.Fatal(err)
		}
		teams[i] = tm.ID
		if i < 2 {
			if err := db.Client.TeamMember.Create().SetTeamID(tm.ID).SetUserID(agentID).Exec(sys); err != nil {
				t.Fatal(err)
			}
		}
	}
	agents := []string{agentID.String()}
	for len(agents) < 20 {
		agents = append(agents, uuid.NewString())
	}
	teamIDs := make([]string, len(teams))
	for i, id := range teams {
		teamIDs[i] = id.String()
	}
	for _, s := range []struct {
		org uuid.UUID
		n   int
	}{{org, planTransfers}, {other, 1_000}} {
		_, err := db.SQL.Exec(`INSERT INTO contacts (id, created_at, updated_at, organization_id, phone_number, name,
			profile_name, avatar_url, status, tags, metadata, unread_count, chat_account, marketing_opt_out, last_message_preview)
			SELECT gen_random_uuid(), now(), now(), $1, '1666' || lpad(i::text, 8, '0'), '', 'Person ' || i, '', 'active',
				'[]', '{}', 0, '', false, ''
			FROM generate_series(1, 1000) AS i`, s.org)
		if err != nil {
			t.Fatal(err)
		}
		_, err = db.SQL.Exec(`INSERT INTO agent_transfers (id, created_at, updated_at, organization_id, contact_id,
			chat_account, status, source, agent_id, team_id, notes, transferred_at, resumed_at)
			SELECT gen_random_uuid(), now(), now(), $1, c.ids[1 + i % 1000], '',
				CASE WHEN i <= $2 / 50 THEN 'active' ELSE 'resumed' END, 'flow',
				CASE WHEN i % 5 <> 0 THEN ($3::uuid[])[1 + i % 20] END,
				CASE WHEN i % 3 <> 0 THEN ($4::uuid[])[1 + i % 4] END, '',
				now() - make_interval(mins => i),
				CASE WHEN i > $2 / 50 THEN now() - make_interval(mins => i - 30) END
			FROM generate_series(1, $2) AS i,
				(SELECT array_agg(id) AS ids FROM contacts WHERE organization_id = $1) AS c`,
			s.org, s.n, pqArray(agents), pqArray(teamIDs))
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.SQL.Exec(`ANALYZE contacts; ANALYZE agent_transfers`); err != nil {
		t.Fatal(err)
	}
	svc := &transfers.Service{Client: db.Client}
	all := transfers.Queue{All: true}
	// history is the plan of a list over the transfers' history (every
	// status, or resumed): the (organization_id, transferred_at, id)
	// index read backwards, newest first, the page cut under the LIMIT;
	// a deep page's ids from the index alone (database.PageAt).
	history := testkit.ListPlan{Indexes: []string{"agent_transfer_organization_id_transferred_at_id"}}
	deep := history
	deep.IndexOnly = true
	// open is the plan of a list of the active transfers: they are the
	// working set of the queues (what is handed over and not yet
	// resumed), bounded by the agents' load and not by the history, so
	// the planner may sort what the status indexes found.
	open := testkit.ListPlan{SortOK: true, Indexes: []string{"agent_transfer_organization_id_transferred_at_id",
		"agenttransfer_organization_id_status_team_id", "agenttransfer_organization_id_agent_id_status"}}
	for _, tc := range []struct {
		name string
		ctx  context.Context
		in   transfers.ListInput
		plan testkit.ListPlan
	}{
		{"ManagerFirstPage", manager, transfers.ListInput{Queue: all}, history},
		{"ManagerDeepPage", manager, transfers.ListInput{Queue: all, Offset: 20_000}, deep},
		{"ManagerResumed", manager, transfers.ListInput{Queue: all, Status: transfers.StatusResumed}, history},
		{"ManagerTeamQueue", manager, transfers.ListInput{Queue: transfers.Queue{TeamID: teams[2]}}, history},
		{"ManagerActive", manager, transfers.ListInput{Queue: all, Status: transfers.StatusActive}, open},
		{"ManagerGeneralQueueActive", manager, transfers.ListInput{Queue: transfers.Queue{General: true}, Status: transfers.StatusActive}, open},
		{"AgentFirstPage", agent, transfers.ListInput{Queue: all}, history},
		{"AgentActive", agent, transfers.ListInput{Queue: all, Status: transfers.StatusActive}, open},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Include = transfers.Include{Contact: true, Agent: true, Team: true}
			tc.in.Limit = 20
			plans := testkit.Plans(t, tc.ctx, db.SQL, func(ctx context.Context) error {
				_, err := svc.List(ctx, tc.in)
				return err
			})
			tc.plan.Table = "agent_transfers"
			tc.plan.Check(t, plans)
		})
	}
}

// pqArray is ids as a PostgreSQL array literal.
func pqArray(ids []string) string { return "{" + strings.Join(ids, ",") + "}" }
