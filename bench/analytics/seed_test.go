package analyticsbench_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	analyticsbench "switchboard/bench/analytics"
	"switchboard/internal/apitest"
)

// TestSeedSmall runs the benchmark's seeding end to end at a hundredth of
// its size and checks, through the analytics endpoints, that the reports
// count exactly the rows Seed wrote (the benchmark itself measures time
// only).
func TestSeedSmall(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	var agents []uuid.UUID
	for i := 0; i < 4; i++ {
		agents = append(agents, env.NewUser(env.OrgID, access.RoleAgent).UserID)
	}
	sz := analyticsbench.Sizes{Contacts: 1_000, Messages: 10_000, Transfers: 200, Sessions: 500, Breaks: 20, Days: 180}
	now := time.Now().UTC()
	if err := analyticsbench.Seed(context.Background(), env.App.DB.SQL, env.OrgID, agents, sz, now); err != nil {
		t.Fatal(err)
	}
	year := "?from=" + now.AddDate(0, 0, -365).Format(time.DateOnly) + "&to=" + now.Format(time.DateOnly)

	res := admin.Do(http.MethodGet, "/api/analytics/dashboard"+year, nil).ExpectStatus(t, http.StatusOK)
	for path, want := range map[string]float64{
		"data.stats.total_messages": 10_000, "data.stats.messages_change": 100,
		"data.stats.total_contacts": 1_000, "data.stats.chatbot_sessions": 500, "data.stats.campaigns_sent": 0,
	} {
		if got := res.Number(path); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	if res.Len("data.recent_messages") != 10 {
		t.Errorf("recent messages: %d", res.Len("data.recent_messages"))
	}

	// Transfers: i < 2 active, the rest resumed; every tenth has no agent.
	// Handled = resumed with an agent: 198 minus the 19 agentless ones
	// among i = 10..190. Messages sent by agents: i % 4 == 1, 2,500.
	// Breaks: 20 of 15 minutes, all in the period.
	res = admin.Do(http.MethodGet, "/api/analytics/agents"+year+"&group_by=week", nil).ExpectStatus(t, http.StatusOK)
	for path, want := range map[string]float64{
		"data.summary.total_transfers_handled": 179, "data.summary.active_transfers": 2,
		"data.summary.transfers_by_source.flow": 67, "data.summary.transfers_by_source.manual": 67,
		"data.summary.transfers_by_source.ivr": 66, "data.summary.break_count": 20,
		"data.summary.total_break_time_mins": 300,
	} {
		if got := res.Number(path); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	var sent, handled float64
	for i := 0; i < res.Len("data.agent_stats"); i++ {
		sent += res.Number("data.agent_stats." + strconv.Itoa(i) + ".messages_sent")
		handled += res.Number("data.agent_stats." + strconv.Itoa(i) + ".transfers_handled")
	}
	if sent != 2_500 || handled != 179 {
		t.Errorf("agents' messages sent %v (want 2500), handled %v (want 179)", sent, handled)
	}
	var trend float64
	for i := 0; i < res.Len("data.trend_data"); i++ {
		trend += res.Number("data.trend_data." + strconv.Itoa(i) + ".transfers_handled")
	}
	if trend != 179 {
		t.Errorf("trend handled %v, want 179", trend)
	}
	res = admin.Do(http.MethodGet, "/api/analytics/agents/comparison"+year, nil).ExpectStatus(t, http.StatusOK)
	if res.Len("data.agents") != len(agents)+1 { // the agents and the admin
		t.Errorf("comparison: %s", res.Raw)
	}
}
