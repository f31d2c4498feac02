package rest_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent"
	"switchboard/ent/agenttransfer"
	"switchboard/ent/message"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
	"switchboard/provider/providertest"
)

// analyticsFixture writes a small organization history in the week of
// Monday 2026-01-05 (and a little in the week before) whose numbers the
// tests compute by hand.
func analyticsFixture(t *testing.T, env *apitest.Env, orgID, agent1, agent2 uuid.UUID, prefix string) {
	t.Helper()
	ctx := viewer.SystemContext(context.Background(), orgID)
	c := env.Client()
	at := func(s string) time.Time {
		v, err := time.Parse("2006-01-02 15:04", s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	contact := func(n, created string) *ent.Contact {
		ct, err := c.Contact.Create().SetPhoneNumber(prefix + n).SetName("Contact " + n).SetCreatedAt(at(created)).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return ct
	}
	c1, c2, c3 := contact("1", "2026-01-05 08:00"), contact("2", "2026-01-06 08:00"), contact("3", "2026-01-07 08:00")
	c4 := contact("4", "2026-01-02 08:00")
	msg := func(ct *ent.Contact, dir message.Direction, when, body string, by *uuid.UUID) {
		q := c.Message.Create().SetContactID(ct.ID).SetDirection(dir).SetContent(map[string]any{"body": body}).
			SetCreatedAt(at(when)).SetStatus(message.StatusDelivered)
		if by != nil {
			q.SetSentByUserID(*by)
		}
		if err := q.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	msg(c1, message.DirectionIncoming, "2026-01-05 09:55", "I need a human", nil)
	msg(c1, message.DirectionOutgoing, "2026-01-05 10:30", "Hello, I am here", &agent1)
	msg(c1, message.DirectionOutgoing, "2026-01-05 10:31", "[bot] rate us", nil)
	msg(c1, message.DirectionIncoming, "2026-01-05 10:40", "thanks", nil)
	msg(c4, message.DirectionIncoming, "2026-01-01 10:00", "hi", nil)
	msg(c4, message.DirectionOutgoing, "2026-01-02 10:00", "hello", &agent1)
	tr := func(ct *ent.Contact, agent *uuid.UUID, source, transferred, assigned, firstResponse, resumed string) {
		q := c.AgentTransfer.Create().SetContactID(ct.ID).SetSource(source).SetTransferredAt(at(transferred))
		if agent != nil {
			q.SetAgentID(*agent)
		}
		if assigned != "" {
			q.SetAssignedAt(at(assigned))
		}
		if firstResponse != "" {
			q.SetFirstResponseAt(at(firstResponse))
		}
		if resumed != "" {
			q.SetResumedAt(at(resumed)).SetStatus(agenttransfer.StatusResumed)
		}
		if err := q.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Queue 10 min, first response 20 min (from the agent's message),
	// resolution 60 min.
	tr(c1, &agent1, "flow", "2026-01-05 10:00", "2026-01-05 10:10", "", "2026-01-05 11:00")
	// Queue 0, first response 6 min (stamped), resolution 30 min.
	tr(c2, &agent1, "manual", "2026-01-06 09:00", "2026-01-06 09:00", "2026-01-06 09:06", "2026-01-06 09:30")
	// Active: queue 20 min, no answer yet.
	tr(c3, &agent2, "flow", "2026-01-07 12:00", "2026-01-07 12:20", "", "")
	// Active and queued.
	tr(c4, nil, "ivr", "2026-01-08 12:00", "", "", "")
	for _, b := range [][2]string{{"2026-01-04 23:50", "2026-01-05 00:10"}, {"2026-01-05 12:00", "2026-01-05 12:30"}} {
		if err := c.AgentBreak.Create().SetUserID(agent1).SetStartedAt(at(b[0])).SetEndedAt(at(b[1])).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, ct := range []*ent.Contact{c1, c2} {
		if err := c.ChatbotSession.Create().SetContactID(ct.ID).SetStartedAt(at("2026-01-06 07:00")).
			SetStatus("completed").Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func expectNumbers(t *testing.T, res *apitest.Response, want map[string]float64) {
	t.Helper()
	for path, w := range want {
		if got := res.Number(path); got != w {
			t.Errorf("%s = %v, want %v", path, got, w)
		}
	}
}

const analyticsWeek = "?from=2026-01-05&to=2026-01-11"

func TestAnalyticsReports(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	manager := env.NewUser(env.OrgID, access.RoleManager)
	agent1 := env.NewUser(env.OrgID, access.RoleAgent)
	agent2 := env.NewUser(env.OrgID, access.RoleAgent)
	analyst := env.NewUser(env.OrgID, access.RoleAgent)
	role := admin.Do(http.MethodPost, "/api/roles", map[string]any{"name": "Analyst", "permissions": []string{"analytics:read"}}).
		ExpectStatus(t, http.StatusCreated).String("data.id")
	admin.Do(http.MethodPut, "/api/organizations/members/"+memberIDOf(t, admin, analyst.UserID), map[string]any{"role_id": role}).
		ExpectStatus(t, http.StatusOK)
	other := env.NewOrg("Elsewhere")
	analyticsFixture(t, env, env.OrgID, agent1.UserID, agent2.UserID, "1555000")
	otherAgent := env.NewUser(other.OrgID, access.RoleAgent)
	analyticsFixture(t, env, other.OrgID, otherAgent.UserID, otherAgent.UserID, "1555111")
	// One more message in the other organization: its numbers differ.
	oc, err := env.Client().Contact.Create().SetPhoneNumber("1555222000").Save(viewer.SystemContext(context.Background(), other.OrgID))
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Client().Message.Create().SetContactID(oc.ID).SetDirection(message.DirectionIncoming).
		SetCreatedAt(time.Date(2026, 1, 9, 0, 0, 0, 0, time.UTC)).Exec(viewer.SystemContext(context.Background(), other.OrgID)); err != nil {
		t.Fatal(err)
	}

	t.Run("Dashboard", func(t *testing.T) {
		res := admin.Do(http.MethodGet, "/api/analytics/dashboard"+analyticsWeek, nil).ExpectStatus(t, http.StatusOK)
		expectKeys(t, res, "data.stats", "total_messages", "messages_change", "total_contacts", "contacts_change",
			"chatbot_sessions", "chatbot_change", "campaigns_sent", "campaigns_change")
		expectNumbers(t, res, map[string]float64{
			"data.stats.total_messages": 4, "data.stats.messages_change": 100,
			"data.stats.total_contacts": 3, "data.stats.contacts_change": 200,
			"data.stats.chatbot_sessions": 2, "data.stats.chatbot_change": 100,
			"data.stats.campaigns_sent": 0, "data.stats.campaigns_change": 0,
		})
		if res.Len("data.recent_messages") != 4 || res.String("data.recent_messages.0.content") != "thanks" ||
			res.String("data.recent_messages.0.contact_name") != "Contact 1" || res.String("data.recent_messages.0.direction") != "incoming" {
			t.Errorf("recent messages: %s", res.Raw)
		}
		expectKeys(t, res, "data.recent_messages.0", "id", "contact_name", "content", "direction", "created_at", "status")
		// The other organization counts its own rows only.
		res = other.Do(http.MethodGet, "/api/analytics/dashboard"+analyticsWeek, nil).ExpectStatus(t, http.StatusOK)
		expectNumbers(t, res, map[string]float64{"data.stats.total_messages": 5, "data.stats.total_contacts": 3})
		// The previous week: 2 messages, 1 contact; nothing before it.
		res = manager.Do(http.MethodGet, "/api/analytics/dashboard?from=2025-12-29&to=2026-01-04", nil).ExpectStatus(t, http.StatusOK)
		expectNumbers(t, res, map[string]float64{"data.stats.total_messages": 2, "data.stats.messages_change": 100,
			"data.stats.total_contacts": 1})
		// Defaults: this month up to today.
		admin.Do(http.MethodGet, "/api/analytics/dashboard", nil).ExpectStatus(t, http.StatusOK)
	})

	t.Run("Agents", func(t *testing.T) {
		res := admin.Do(http.MethodGet, "/api/analytics/agents"+analyticsWeek, nil).ExpectStatus(t, http.StatusOK)
		expectKeys(t, res, "data", "summary", "agent_stats", "trend_data", "my_stats")
		expectNumbers(t, res, map[string]float64{
			"data.summary.total_transfers_handled": 2, "data.summary.active_transfers": 2,
			"data.summary.avg_queue_time_mins": 10, "data.summary.avg_first_response_mins": 13,
			"data.summary.avg_resolution_mins": 45, "data.summary.transfers_by_source.flow": 2,
			"data.summary.transfers_by_source.manual": 1, "data.summary.transfers_by_source.ivr": 1,
			"data.summary.total_break_time_mins": 40, "data.summary.break_count": 1,
		})
		if res.Get("data.my_stats") != nil || res.Len("data.trend_data") != 7 {
			t.Errorf("org report: %s", res.Raw)
		}
		expectNumbers(t, res, map[string]float64{"data.trend_data.0.transfers_handled": 1, "data.trend_data.0.avg_response_mins": 20,
			"data.trend_data.1.transfers_handled": 1, "data.trend_data.1.avg_response_mins": 6, "data.trend_data.2.transfers_handled": 0})
		if res.String("data.trend_data.0.date") != "2026-01-05" || res.String("data.trend_data.6.date") != "2026-01-11" {
			t.Errorf("trend dates: %s", res.Raw)
		}
		var a1 map[string]any
		for i := 0; i < res.Len("data.agent_stats"); i++ {
			if s := res.Get("data.agent_stats." + strconv.Itoa(i)).(map[string]any); s["agent_id"] == agent1.UserID.String() {
				a1 = s
			}
		}
		want := map[string]any{"transfers_handled": 2.0, "active_transfers": 0.0, "avg_first_response_mins": 13.0,
			"avg_resolution_mins": 45.0, "messages_sent": 1.0, "total_break_time_mins": 40.0, "break_count": 1.0, "is_available": true}
		for k, v := range want {
			if a1 == nil || a1[k] != v {
				t.Errorf("agent1 %s = %v, want %v (%v)", k, a1[k], v, a1)
			}
		}
		t.Run("Week", func(t *testing.T) {
			res := admin.Do(http.MethodGet, "/api/analytics/agents"+analyticsWeek+"&group_by=week", nil).ExpectStatus(t, http.StatusOK)
			if res.Len("data.trend_data") != 1 || res.String("data.trend_data.0.date") != "2026-01-05" {
				t.Fatalf("weeks: %s", res.Raw)
			}
			expectNumbers(t, res, map[string]float64{"data.trend_data.0.transfers_handled": 2, "data.trend_data.0.avg_response_mins": 13})
		})
		t.Run("AgentFilter", func(t *testing.T) {
			res := manager.Do(http.MethodGet, "/api/analytics/agents"+analyticsWeek+"&agent_id="+agent2.UserID.String(), nil).
				ExpectStatus(t, http.StatusOK)
			expectNumbers(t, res, map[string]float64{"data.summary.total_transfers_handled": 0, "data.summary.active_transfers": 1,
				"data.summary.avg_queue_time_mins": 20, "data.my_stats.active_transfers": 1})
			if res.String("data.my_stats.agent_id") != agent2.UserID.String() || res.Len("data.agent_stats") != 1 {
				t.Errorf("filtered: %s", res.Raw)
			}
		})
		t.Run("OwnNumbersWithoutUsersRead", func(t *testing.T) {
			res := analyst.Do(http.MethodGet, "/api/analytics/agents"+analyticsWeek, nil).ExpectStatus(t, http.StatusOK)
			if res.String("data.my_stats.agent_id") != analyst.UserID.String() || res.Len("data.agent_stats") != 0 {
				t.Errorf("own: %s", res.Raw)
			}
			expectNumbers(t, res, map[string]float64{"data.summary.total_transfers_handled": 0, "data.summary.active_transfers": 0})
			analyst.Do(http.MethodGet, "/api/analytics/agents"+analyticsWeek+"&agent_id="+agent1.UserID.String(), nil).
				ExpectError(t, http.StatusForbidden)
			analyst.Do(http.MethodGet, "/api/analytics/agents/comparison"+analyticsWeek, nil).ExpectError(t, http.StatusForbidden)
			analyst.Do(http.MethodGet, "/api/analytics/agents/"+agent1.UserID.String(), nil).ExpectError(t, http.StatusForbidden)
			analyst.Do(http.MethodGet, "/api/analytics/agents/"+analyst.UserID.String(), nil).ExpectStatus(t, http.StatusOK)
			// An agent with analytics:read only gets their own numbers
			// (agent2: one active transfer queued 20 min, nothing handled).
			admin.Do(http.MethodPut, "/api/organizations/members/"+memberIDOf(t, admin, agent2.UserID), map[string]any{"role_id": role}).
				ExpectStatus(t, http.StatusOK)
			res = agent2.Do(http.MethodGet, "/api/analytics/agents"+analyticsWeek, nil).ExpectStatus(t, http.StatusOK)
			if res.String("data.my_stats.agent_id") != agent2.UserID.String() || res.Len("data.agent_stats") != 0 ||
				res.Len("data.trend_data") != 7 {
				t.Errorf("agent2 own: %s", res.Raw)
			}
			expectNumbers(t, res, map[string]float64{"data.summary.total_transfers_handled": 0, "data.summary.active_transfers": 1,
				"data.summary.avg_queue_time_mins": 20, "data.summary.transfers_by_source.flow": 1,
				"data.my_stats.active_transfers": 1, "data.my_stats.transfers_handled": 0, "data.my_stats.messages_sent": 0})
			agent2.Do(http.MethodGet, "/api/analytics/agents"+analyticsWeek+"&agent_id="+agent2.UserID.String(), nil).
				ExpectError(t, http.StatusForbidden)
		})
		t.Run("Detail", func(t *testing.T) {
			res := admin.Do(http.MethodGet, "/api/analytics/agents/"+agent1.UserID.String()+analyticsWeek, nil).ExpectStatus(t, http.StatusOK)
			expectNumbers(t, res, map[string]float64{"data.agent.transfers_handled": 2, "data.agent.messages_sent": 1})
			if res.Len("data.trend_data") != 7 || res.Get("data.agent.current_break_start") != nil {
				t.Errorf("detail: %s", res.Raw)
			}
			// On break now: the open break's start is shown.
			agent2.Do(http.MethodPut, "/api/me/availability", map[string]any{"is_available": false}).ExpectStatus(t, http.StatusOK)
			res = admin.Do(http.MethodGet, "/api/analytics/agents/"+agent2.UserID.String(), nil).ExpectStatus(t, http.StatusOK)
			if res.Get("data.agent.is_available") != false || res.String("data.agent.current_break_start") == "" {
				t.Errorf("current break: %s", res.Raw)
			}
		})
		t.Run("Comparison", func(t *testing.T) {
			res := manager.Do(http.MethodGet, "/api/analytics/agents/comparison"+analyticsWeek, nil).ExpectStatus(t, http.StatusOK)
			if res.String("data.agents.0.agent_id") != agent1.UserID.String() || res.Number("data.agents.0.transfers_handled") != 2 {
				t.Errorf("comparison: %s", res.Raw)
			}
		})
		t.Run("CrossTenantNotFound", func(t *testing.T) {
			other.Do(http.MethodGet, "/api/analytics/agents/"+agent1.UserID.String(), nil).ExpectError(t, http.StatusNotFound)
			other.Do(http.MethodGet, "/api/analytics/agents?agent_id="+agent1.UserID.String(), nil).ExpectError(t, http.StatusNotFound)
			res := other.Do(http.MethodGet, "/api/analytics/agents"+analyticsWeek, nil).ExpectStatus(t, http.StatusOK)
			expectNumbers(t, res, map[string]float64{"data.summary.total_transfers_handled": 2})
		})
	})

	t.Run("Forbidden", func(t *testing.T) {
		for _, p := range []string{"/api/analytics/dashboard", "/api/analytics/agents", "/api/analytics/agents/comparison",
			"/api/analytics/agents/" + agent1.UserID.String(), "/api/analytics/provider?analytics_type=analytics&start=2026-01-01&end=2026-01-02",
			"/api/analytics/provider/accounts", "/api/analytics/messages", "/api/analytics/chatbot"} {
			agent1.Do(http.MethodGet, p, nil).ExpectError(t, http.StatusForbidden)
			env.Anonymous().Do(http.MethodGet, p, nil).ExpectError(t, http.StatusUnauthorized)
		}
		agent1.Do(http.MethodPost, "/api/analytics/provider/refresh", nil).ExpectError(t, http.StatusForbidden)
		res := agent1.GraphQL(`{ analyticsDashboard { stats { totalMessages } } }`, nil)
		if res.GraphQLErrorCode() != "forbidden" {
			t.Errorf("graphql: %s", res.Raw)
		}
	})

	t.Run("NotImplemented", func(t *testing.T) {
		for _, p := range []string{"/api/analytics/messages", "/api/analytics/chatbot"} {
			res := admin.Do(http.MethodGet, p, nil).ExpectError(t, http.StatusNotImplemented)
			if !strings.Contains(res.String("message"), "Not implemented") {
				t.Errorf("%s: %s", p, res.Raw)
			}
		}
	})

	t.Run("BadInput", func(t *testing.T) {
		for name, q := range map[string]string{
			"ErrBadFrom": "?from=2026-13-01", "ErrBadTo": "?to=yesterday", "ErrToBeforeFrom": "?from=2026-02-01&to=2026-01-01",
			"ErrTooLong": "?from=2024-01-01&to=2026-01-01", "ErrGroupBy": "?group_by=month", "ErrAgentID": "?agent_id=x",
			"ErrShortDate": "?from=2026-1-5",
		} {
			t.Run(name, func(t *testing.T) {
				admin.Do(http.MethodGet, "/api/analytics/agents"+q, nil).ExpectError(t, http.StatusBadRequest)
			})
		}
		admin.Do(http.MethodGet, "/api/analytics/dashboard?from=2026-02-30", nil).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodGet, "/api/analytics/agents/not-a-uuid", nil).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodGet, "/api/analytics/agents/"+uuid.NewString(), nil).ExpectError(t, http.StatusNotFound)
		res := admin.GraphQL(`query($g: String) { agentAnalytics(groupBy: $g) { summary { breakCount } } }`, map[string]any{"g": "year"})
		if res.GraphQLErrorCode() != "invalid" {
			t.Errorf("graphql: %s", res.Raw)
		}
	})

	t.Run("GraphQL", func(t *testing.T) {
		res := admin.GraphQL(`query($a: ID) {
			analyticsDashboard(from: "2026-01-05", to: "2026-01-11") { stats { totalMessages messagesChange } recentMessages { contactName } }
			agentAnalytics(from: "2026-01-05", to: "2026-01-11", agentId: $a) { summary { totalTransfersHandled transfersBySource } myStats { messagesSent } trendData { date } }
			agentComparison(from: "2026-01-05", to: "2026-01-11") { agentID transfersHandled }
		}`, map[string]any{"a": agent1.UserID.String()}).ExpectStatus(t, http.StatusOK)
		if res.Number("data.analyticsDashboard.stats.totalMessages") != 4 || res.Number("data.agentAnalytics.summary.totalTransfersHandled") != 2 ||
			res.Number("data.agentAnalytics.myStats.messagesSent") != 1 || res.Number("data.agentAnalytics.summary.transfersBySource.flow") != 1 {
			t.Errorf("graphql: %s", res.Raw)
		}
	})
}

func TestProviderAnalytics(t *testing.T) {
	env, fake, admin := newTemplateEnv(t)
	other := env.NewOrg("Elsewhere")
	theirs := mustCreateAccount(t, other, acctBody("Main", map[string]any{"phone_id": newPhoneID(), "business_id": "555000111222"}))
	today := time.Now().UTC()
	day := func(d int) string { return today.AddDate(0, 0, d).Format(time.DateOnly) }
	base := "/api/analytics/provider?start=" + day(-6) + "&end=" + day(0)
	count := func() int { return len(fake.AnalyticsRequests()) }

	t.Run("Accounts", func(t *testing.T) {
		res := admin.Do(http.MethodGet, "/api/analytics/provider/accounts", nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.accounts") != 1 || res.String("data.accounts.0.name") != "Main" ||
			res.String("data.accounts.0.phone_id") != providertest.PhoneID {
			t.Fatalf("accounts: %s", res.Raw)
		}
	})
	t.Run("MessagingCached", func(t *testing.T) {
		res := admin.Do(http.MethodGet, base+"&analytics_type=analytics", nil).ExpectStatus(t, http.StatusOK)
		if res.Get("data.cached") != false || res.Len("data.accounts") != 1 || res.String("data.accounts.0.account_name") != "Main" ||
			res.Len("data.accounts.0.data.data_points") != 7 || res.String("data.granularity") != "DAY" {
			t.Fatalf("analytics: %s", res.Raw)
		}
		reqs := fake.AnalyticsRequests()
		if len(reqs) != 1 || reqs[0].BusinessID != providertest.BusinessID || reqs[0].Filters["granularity"] != "DAY" ||
			reqs[0].Filters["start"] != strconv.FormatInt(mustDay(t, day(-6)).Unix(), 10) ||
			reqs[0].Filters["end"] != strconv.FormatInt(mustDay(t, day(1)).Unix(), 10) {
			t.Fatalf("request: %+v", reqs)
		}
		expectAuth(t, []providertest.Request{reqs[0].Request}, "Bearer")
		res = admin.Do(http.MethodGet, base+"&analytics_type=analytics", nil).ExpectStatus(t, http.StatusOK)
		if res.Get("data.cached") != true || count() != 1 || res.Len("data.accounts.0.data.data_points") != 7 {
			t.Fatalf("second read: %d requests, %s", count(), res.Raw)
		}
		// Another organization's identical query is its own.
		res = other.Do(http.MethodGet, base+"&analytics_type=analytics", nil).ExpectStatus(t, http.StatusOK)
		if res.Get("data.cached") != false || count() != 2 || res.String("data.accounts.0.account_id") != theirs {
			t.Fatalf("other tenant: %s", res.Raw)
		}
		// A different query is another cache entry.
		admin.Do(http.MethodGet, base+"&analytics_type=analytics&granularity=MONTH", nil).ExpectStatus(t, http.StatusOK)
		if count() != 3 || fake.AnalyticsRequests()[2].Filters["granularity"] != "MONTH" {
			t.Fatalf("month: %+v", fake.AnalyticsRequests())
		}
	})
	t.Run("Refresh", func(t *testing.T) {
		admin.Do(http.MethodPost, "/api/analytics/provider/refresh", nil).ExpectStatus(t, http.StatusOK)
		res := admin.Do(http.MethodGet, base+"&analytics_type=analytics", nil).ExpectStatus(t, http.StatusOK)
		if res.Get("data.cached") != false || count() != 4 {
			t.Fatalf("after refresh: %s", res.Raw)
		}
		// The other organization's cache is untouched.
		if other.Do(http.MethodGet, base+"&analytics_type=analytics", nil).Get("data.cached") != true {
			t.Error("refresh cleared another organization's cache")
		}
		res = admin.GraphQL(`mutation { refreshProviderAnalytics }`, nil)
		if res.Get("data.refreshProviderAnalytics") != true {
			t.Errorf("graphql refresh: %s", res.Raw)
		}
	})
	t.Run("GranularityRules", func(t *testing.T) {
		before := count()
		admin.Do(http.MethodGet, base+"&analytics_type=pricing_analytics", nil).ExpectStatus(t, http.StatusOK)
		admin.Do(http.MethodGet, base+"&analytics_type=call_analytics&granularity=MONTH", nil).ExpectStatus(t, http.StatusOK)
		res := admin.Do(http.MethodGet, base+"&analytics_type=template_analytics&granularity=HALF_HOUR&template_ids="+`["111","222"]`, nil).
			ExpectStatus(t, http.StatusOK)
		reqs := fake.AnalyticsRequests()[before:]
		if len(reqs) != 3 || reqs[0].Filters["granularity"] != "DAILY" || reqs[1].Filters["granularity"] != "MONTHLY" ||
			reqs[2].Filters["granularity"] != "DAILY" || reqs[2].Filters["template_ids"] != `["111","222"]` ||
			reqs[0].Filters["dimensions"] == "" {
			t.Fatalf("requests: %+v", reqs)
		}
		if res.String("data.granularity") != "DAILY" || res.Len("data.accounts.0.data.data.0.data_points") != 14 {
			t.Errorf("template analytics: %s", res.Raw)
		}
		// No template submitted and none asked: nothing to ask the platform.
		before = count()
		res = admin.Do(http.MethodGet, base+"&analytics_type=template_analytics", nil).ExpectStatus(t, http.StatusOK)
		if count() != before || res.Len("data.accounts") != 1 {
			t.Errorf("no templates: %s", res.Raw)
		}
	})
	t.Run("PlatformError", func(t *testing.T) {
		fake.Script("GET /{id}", providertest.InvalidParameter("Template analytics are not enabled"))
		res := admin.Do(http.MethodGet, base+"&analytics_type=call_analytics", nil).ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "not enabled") {
			t.Errorf("message: %s", res.Raw)
		}
	})
	t.Run("CrossTenantNotFound", func(t *testing.T) {
		admin.Do(http.MethodGet, base+"&analytics_type=analytics&account_id="+theirs, nil).ExpectError(t, http.StatusNotFound)
	})
	t.Run("BadInput", func(t *testing.T) {
		for name, q := range map[string]string{
			"ErrNoType":        "/api/analytics/provider?start=" + day(-1) + "&end=" + day(0),
			"ErrBadType":       base + "&analytics_type=conversations",
			"ErrNoDates":       "/api/analytics/provider?analytics_type=analytics",
			"ErrBadStart":      "/api/analytics/provider?analytics_type=analytics&start=2026-02-31&end=" + day(0),
			"ErrEndBefore":     "/api/analytics/provider?analytics_type=analytics&start=" + day(0) + "&end=" + day(-3),
			"ErrTooOld":        "/api/analytics/provider?analytics_type=analytics&start=" + day(-400) + "&end=" + day(-390),
			"ErrTemplateRange": "/api/analytics/provider?analytics_type=template_analytics&start=" + day(-120) + "&end=" + day(0),
			"ErrGranularity":   base + "&analytics_type=analytics&granularity=HOUR",
			"ErrTemplateIDs":   base + "&analytics_type=template_analytics&template_ids=111",
			"ErrTemplateID":    base + "&analytics_type=template_analytics&template_ids=" + `["abc"]`,
			"ErrAccountID":     base + "&analytics_type=analytics&account_id=main",
		} {
			t.Run(name, func(t *testing.T) { admin.Do(http.MethodGet, q, nil).ExpectError(t, http.StatusBadRequest) })
		}
	})
}

func mustDay(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
