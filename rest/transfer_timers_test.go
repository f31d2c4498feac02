package rest_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent"
	"switchboard/ent/transfertimer"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/internal/apitest"
	"switchboard/transfers"
)

// setTimers turns the organization's SLA and client timers on with the
// given notify ids (the settings endpoints belong to the chatbot package).
func setTimers(t *testing.T, env *apitest.Env, orgID uuid.UUID, notify ...string) {
	t.Helper()
	ctx := viewer.SystemContext(context.Background(), orgID)
	c := env.Client()
	cs, err := c.ChatbotSettings.Query().First(ctx)
	if ent.IsNotFound(err) {
		cs, err = c.ChatbotSettings.Create().Save(ctx)
	}
	if err != nil {
		t.Fatalf("chatbot settings: %v", err)
	}
	if notify == nil {
		notify = []string{}
	}
	if err := c.ChatbotSettings.UpdateOne(cs).SetSLAEnabled(true).SetSLAResponseMinutes(15).
		SetSLAEscalationMinutes(30).SetSLAResolutionMinutes(60).SetSLAAutoCloseHours(24).
		SetSLAWarningMessage("Sorry for the wait").SetSLAEscalationNotifyIds(notify).
		SetClientReminderEnabled(true).SetClientReminderMinutes(10).SetClientAutoCloseMinutes(20).
		SetClientReminderMessage("Still there?").Exec(ctx); err != nil {
		t.Fatalf("chatbot settings: %v", err)
	}
}

// timersOf returns a transfer's timers by kind (the latest of each).
func timersOf(t *testing.T, env *apitest.Env, orgID uuid.UUID, transferID string) map[transfertimer.Kind]*ent.TransferTimer {
	t.Helper()
	ctx := viewer.SystemContext(context.Background(), orgID)
	ts, err := env.Client().TransferTimer.Query().Where(transfertimer.TransferID(uuid.MustParse(transferID))).
		Order(ent.Asc(transfertimer.FieldCreatedAt), ent.Asc(transfertimer.FieldID)).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[transfertimer.Kind]*ent.TransferTimer{}
	for _, tm := range ts {
		out[tm.Kind] = tm
	}
	return out
}

// makeDue moves a timer's due time into the past, as the clock would
// (the row is what a worker reads).
func makeDue(t *testing.T, env *apitest.Env, id uuid.UUID) {
	t.Helper()
	if _, err := env.App.DB.SQL.ExecContext(context.Background(),
		"UPDATE transfer_timers SET due_at = $1 WHERE id = $2", time.Now().Add(-time.Second).UTC(), id); err != nil {
		t.Fatal(err)
	}
}

func fire(t *testing.T, svc *transfers.Service, orgID, id uuid.UUID) bool {
	t.Helper()
	ok, err := svc.FireTimer(context.Background(), orgID, id)
	if err != nil {
		t.Fatalf("FireTimer: %v", err)
	}
	return ok
}

// TestTransferAgentTimeoutReassigns: an agent who does not answer within
// the team's per_agent_timeout_secs loses the transfer to another
// available member (through the real queue and worker), and the new
// agent's first message stops the timeout.
func TestTransferAgentTimeoutReassigns(t *testing.T) {
	e := newSendEnv(t)
	a1 := e.NewUser(e.OrgID, access.RoleAgent)
	a2 := e.NewUser(e.OrgID, access.RoleAgent)
	live := wsDial(t, e.Server.URL, e.Admin, false)
	teamID := newTeam(t, e.Admin, "Fast", "round_robin", a1, a2)
	ctx := viewer.SystemContext(context.Background(), e.OrgID)
	timeout := func(secs int) {
		if err := e.Client().Team.UpdateOneID(uuid.MustParse(teamID)).SetPerAgentTimeoutSecs(secs).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	timeout(2)
	contact := e.newContact(t, true)
	res := createTransfer(t, e.Admin, contact.ID.String(), teamID)
	id, first := res.String("data.id"), res.String("data.agent_id")
	if first == "" {
		t.Fatalf("not assigned: %s", res.Raw)
	}
	// The first agent's timeout runs 2 s; the next agent gets an hour, so
	// the transfer does not move again during the test.
	timeout(3600)
	if tm := timersOf(t, e.Env, e.OrgID, id)[transfertimer.KindAgentTimeout]; tm == nil || tm.AgentID.String() != first {
		t.Fatalf("agent timeout: %+v", tm)
	}
	ev := wsWaitFor(t, live, events.FrameAgentTransferAssign)
	second, _ := ev.Payload["agent_id"].(string)
	if ev.Payload["id"] != id || second == first || second == "" {
		t.Fatalf("reassignment event: %+v (first agent %s)", ev, first)
	}
	got := e.Admin.Do(http.MethodGet, "/api/chatbot/transfers?include=all", nil).ExpectStatus(t, http.StatusOK)
	if got.String("data.transfers.0.agent_id") != second {
		t.Fatalf("transfer after the timeout: %s", got.Raw)
	}
	ts := timersOf(t, e.Env, e.OrgID, id)
	if tm := ts[transfertimer.KindAgentTimeout]; tm.AgentID.String() != second {
		t.Fatalf("no timeout for the new agent: %+v", tm)
	}
	// The new agent answers: first_response_at, and their timeout is
	// cancelled (or already fired, if the machine was slow).
	next := a1
	if a2.UserID.String() == second {
		next = a2
	}
	text := map[string]any{"type": "text", "content": map[string]any{"body": "Hello, I am here"}}
	next.Do(http.MethodPost, "/api/contacts/"+contact.ID.String()+"/messages", text).ExpectStatus(t, http.StatusCreated)
	got = e.Admin.Do(http.MethodGet, "/api/chatbot/transfers?include=all", nil).ExpectStatus(t, http.StatusOK)
	if got.String("data.transfers.0.first_response_at") == "" {
		t.Fatalf("first_response_at not recorded: %s", got.Raw)
	}
	if tm := timersOf(t, e.Env, e.OrgID, id)[transfertimer.KindAgentTimeout]; tm.Status != transfertimer.StatusCancelled {
		t.Fatalf("the answering agent's timeout: %+v", tm)
	}
}

// TestTransferSLABreachEscalates: the SLA timers of a transfer, the
// response breach escalating to the configured people and teams, the
// auto-close resuming it and cancelling the rest.
func TestTransferSLABreachEscalates(t *testing.T) {
	e := newSendEnv(t)
	manager := e.NewUser(e.OrgID, access.RoleManager)
	member := e.NewUser(e.OrgID, access.RoleAgent)
	live := wsDial(t, e.Server.URL, e.Admin, false)
	teamID := newTeam(t, e.Admin, "Escalations", "manual", member)
	other := e.NewOrg("Elsewhere")
	foreignLive := wsDial(t, e.Server.URL, other, true)
	outsider := other.Do(http.MethodGet, "/api/me", nil).String("data.id")
	setTimers(t, e.Env, e.OrgID, manager.UserID.String(), teamID, outsider, "not-a-uuid")
	svc := e.App.Resolver.Transfers
	contact := e.newContact(t, true)
	id := createTransfer(t, e.Admin, contact.ID.String(), "").String("data.id")
	ts := timersOf(t, e.Env, e.OrgID, id)
	for _, k := range []transfertimer.Kind{transfertimer.KindSLAResponse, transfertimer.KindSLAEscalation,
		transfertimer.KindSLAResolution, transfertimer.KindSLAAutoClose} {
		if ts[k] == nil || ts[k].Status != transfertimer.StatusPending {
			t.Fatalf("%s timer: %+v", k, ts[k])
		}
	}
	if ts[transfertimer.KindAgentTimeout] != nil {
		t.Fatalf("an agent timeout without an agent")
	}
	if d := ts[transfertimer.KindSLAResponse].DueAt.Sub(ts[transfertimer.KindSLAResolution].DueAt); d != -45*time.Minute {
		t.Fatalf("response vs resolution due: %s", d)
	}

	t.Run("NotDueYet", func(t *testing.T) {
		if _, err := svc.FireTimer(context.Background(), e.OrgID, ts[transfertimer.KindSLAResponse].ID); err == nil {
			t.Fatal("a timer fired before its due time")
		}
	})
	t.Run("OtherOrganizationFiresNothing", func(t *testing.T) {
		makeDue(t, e.Env, ts[transfertimer.KindSLAResponse].ID)
		if fire(t, svc, other.OrgID, ts[transfertimer.KindSLAResponse].ID) {
			t.Fatal("fired under another organization")
		}
	})
	t.Run("ResponseBreach", func(t *testing.T) {
		if !fire(t, svc, e.OrgID, ts[transfertimer.KindSLAResponse].ID) {
			t.Fatal("not fired")
		}
		ev := wsWaitFor(t, live, events.FrameAgentTransferEscalated)
		tr, _ := ev.Payload["transfer"].(map[string]any)
		if ev.Payload["reason"] != "response_time" || tr["id"] != id {
			t.Fatalf("escalation: %+v", ev)
		}
		notify := map[string]bool{}
		for _, n := range ev.Payload["notify_user_ids"].([]any) {
			notify[n.(string)] = true
		}
		if len(notify) != 2 || !notify[manager.UserID.String()] || !notify[member.UserID.String()] {
			t.Fatalf("notified %v, want the manager and the team's member", notify)
		}
		if fire(t, svc, e.OrgID, ts[transfertimer.KindSLAResponse].ID) {
			t.Fatal("fired twice")
		}
		if tm := timersOf(t, e.Env, e.OrgID, id)[transfertimer.KindSLAResponse]; tm.Status != transfertimer.StatusFired ||
			tm.Outcome != "escalated" || tm.FiredAt == nil {
			t.Fatalf("fired timer: %+v", tm)
		}
	})
	t.Run("UnassignedEscalation", func(t *testing.T) {
		makeDue(t, e.Env, ts[transfertimer.KindSLAEscalation].ID)
		fire(t, svc, e.OrgID, ts[transfertimer.KindSLAEscalation].ID)
		if ev := wsWaitFor(t, live, events.FrameAgentTransferEscalated); ev.Payload["reason"] != "unassigned" {
			t.Fatalf("escalation: %+v", ev)
		}
	})
	t.Run("AutoCloseCancelsTheRest", func(t *testing.T) {
		makeDue(t, e.Env, ts[transfertimer.KindSLAAutoClose].ID)
		fire(t, svc, e.OrgID, ts[transfertimer.KindSLAAutoClose].ID)
		if ev := wsWaitFor(t, live, events.FrameAgentTransferResume); ev.Payload["id"] != id || ev.Payload["status"] != "resumed" {
			t.Fatalf("resume: %+v", ev)
		}
		if tm := timersOf(t, e.Env, e.OrgID, id)[transfertimer.KindSLAResolution]; tm.Status != transfertimer.StatusCancelled {
			t.Fatalf("resolution timer after the close: %+v", tm)
		}
		makeDue(t, e.Env, ts[transfertimer.KindSLAResolution].ID)
		if fire(t, svc, e.OrgID, ts[transfertimer.KindSLAResolution].ID) {
			t.Fatal("a cancelled timer fired")
		}
	})
	t.Run("NothingReachesAnotherOrganization", func(t *testing.T) {
		_ = foreignLive.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		if _, raw, err := foreignLive.ReadMessage(); err == nil {
			t.Fatalf("another organization received %s", raw)
		}
	})
}

// TestTransferTimersCancelledWhenAgentResponds: the assigned agent's first
// message records first_response_at and cancels the response and
// escalation timers (the resolution timer runs on); a manager's message
// records nothing; messages restart the client timers, and the client's
// reply keeps the reminder from firing.
func TestTransferTimersCancelledWhenAgentResponds(t *testing.T) {
	e := newSendEnv(t)
	agent := e.NewUser(e.OrgID, access.RoleAgent)
	manager := e.NewUser(e.OrgID, access.RoleManager)
	setTimers(t, e.Env, e.OrgID)
	svc := e.App.Resolver.Transfers
	contact := e.newContact(t, true)
	id := createTransfer(t, e.Admin, contact.ID.String(), "").String("data.id")
	agent.Do(http.MethodPost, "/api/chatbot/transfers/pick", nil).ExpectStatus(t, http.StatusOK)
	text := map[string]any{"type": "text", "content": map[string]any{"body": "On it"}}
	send := "/api/contacts/" + contact.ID.String() + "/messages"

	manager.Do(http.MethodPost, send, text).ExpectStatus(t, http.StatusCreated)
	got := agent.Do(http.MethodGet, "/api/chatbot/transfers", nil).ExpectStatus(t, http.StatusOK)
	if got.Get("data.transfers.0.first_response_at") != nil {
		t.Fatalf("a manager's message counted as the agent's response: %s", got.Raw)
	}
	before := timersOf(t, e.Env, e.OrgID, id)
	if before[transfertimer.KindClientReminder] == nil || before[transfertimer.KindClientAutoClose] == nil {
		t.Fatalf("client timers not started: %+v", before)
	}

	agent.Do(http.MethodPost, send, text).ExpectStatus(t, http.StatusCreated)
	got = agent.Do(http.MethodGet, "/api/chatbot/transfers", nil).ExpectStatus(t, http.StatusOK)
	first, err := time.Parse(time.RFC3339Nano, got.String("data.transfers.0.first_response_at"))
	if err != nil || time.Since(first) > time.Minute {
		t.Fatalf("first_response_at: %s", got.Raw)
	}
	ts := timersOf(t, e.Env, e.OrgID, id)
	for k, want := range map[transfertimer.Kind]transfertimer.Status{
		transfertimer.KindSLAResponse: transfertimer.StatusCancelled, transfertimer.KindSLAEscalation: transfertimer.StatusCancelled,
		transfertimer.KindSLAResolution: transfertimer.StatusPending, transfertimer.KindClientReminder: transfertimer.StatusPending,
	} {
		if ts[k].Status != want {
			t.Errorf("%s: %s, want %s", k, ts[k].Status, want)
		}
	}
	if old := before[transfertimer.KindClientReminder]; old.ID == ts[transfertimer.KindClientReminder].ID {
		t.Error("the agent's message did not restart the client reminder")
	}
	makeDue(t, e.Env, ts[transfertimer.KindSLAResponse].ID)
	if fire(t, svc, e.OrgID, ts[transfertimer.KindSLAResponse].ID) {
		t.Fatal("a cancelled response timer fired")
	}
	// A second message keeps the first response time.
	agent.Do(http.MethodPost, send, text).ExpectStatus(t, http.StatusCreated)
	if again := agent.Do(http.MethodGet, "/api/chatbot/transfers", nil).String("data.transfers.0.first_response_at"); again != got.String("data.transfers.0.first_response_at") {
		t.Fatalf("first_response_at moved: %s", again)
	}

	t.Run("ClientReplyStopsTheReminder", func(t *testing.T) {
		rem := timersOf(t, e.Env, e.OrgID, id)[transfertimer.KindClientReminder]
		if err := e.Client().Contact.UpdateOneID(contact.ID).SetLastInboundAt(time.Now().UTC()).Exec(e.ctx); err != nil {
			t.Fatal(err)
		}
		makeDue(t, e.Env, rem.ID)
		fire(t, svc, e.OrgID, rem.ID)
		if tm := timersOf(t, e.Env, e.OrgID, id)[transfertimer.KindClientReminder]; tm.Outcome != "client_replied" {
			t.Fatalf("reminder: %+v", tm)
		}
	})
	t.Run("ResumeCancelsEverything", func(t *testing.T) {
		agent.Do(http.MethodPut, "/api/chatbot/transfers/"+id+"/resume", nil).ExpectStatus(t, http.StatusOK)
		for k, tm := range timersOf(t, e.Env, e.OrgID, id) {
			if tm.Status == transfertimer.StatusPending {
				t.Errorf("%s still pending after resume", k)
			}
		}
	})
}

// TestTransferTimersFireOnceAcrossNodes: two nodes on one database and
// Redis, each with two goroutines, fire the same due timers at once:
// every timer fires exactly once.
func TestTransferTimersFireOnceAcrossNodes(t *testing.T) {
	e := newSendEnv(t)
	peer, _ := e.Peer()
	setTimers(t, e.Env, e.OrgID)
	nodes := []*transfers.Service{e.App.Resolver.Transfers, peer.Resolver.Transfers}
	var ids []uuid.UUID
	for range 20 {
		c := e.newContact(t, true)
		id := createTransfer(t, e.Admin, c.ID.String(), "").String("data.id")
		tm := timersOf(t, e.Env, e.OrgID, id)[transfertimer.KindSLAResolution]
		makeDue(t, e.Env, tm.ID)
		ids = append(ids, tm.ID)
	}
	var wg sync.WaitGroup
	wins := make([]atomic.Int32, len(ids))
	for _, svc := range nodes {
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i, id := range ids {
					ok, err := svc.FireTimer(context.Background(), e.OrgID, id)
					if err != nil {
						t.Errorf("FireTimer: %v", err)
					}
					if ok {
						wins[i].Add(1)
					}
				}
			}()
		}
	}
	wg.Wait()
	for i := range wins {
		if n := wins[i].Load(); n != 1 {
			t.Errorf("timer %s fired %d times", ids[i], n)
		}
	}
	// The recovery sweep of either node queues nothing twice and fires
	// nothing again.
	if _, err := peer.Resolver.Transfers.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
}
