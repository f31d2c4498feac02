package rest_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/calling/audio"
	"switchboard/calling/media/mediatest"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/calllog"
	"switchboard/ent/calltransfer"
	"switchboard/events"
	"switchboard/internal/apitest"
	"switchboard/internal/testkit"
	"switchboard/provider/providertest"
)

// callEnv is a bot environment with calling on for account "Main", a
// team with one agent, and a call-start IVR flow: greeting, then a menu
// whose "1" transfers to the team.
type callEnv struct {
	*botEnv
	team  uuid.UUID
	agent *apitest.Client
}

func newCallEnv(t testing.TB) *callEnv {
	t.Helper()
	requireFFmpeg(t) // the IVR's prompt is converted
	e := &callEnv{botEnv: newBotEnvTB(t, map[string]any{"enabled": false})}
	e.Admin.Do(http.MethodPut, "/api/org/settings", map[string]any{"calling_enabled": true, "transfer_timeout_secs": 60}).
		ExpectStatus(t, http.StatusOK)
	db := e.Client()
	if _, err := db.Account.Update().Where(account.Name("Main")).SetBusinessCallingEnabled(true).Save(e.ctx); err != nil {
		t.Fatal(err)
	}
	team, err := db.Team.Create().SetName("Support").Save(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	e.team = team.ID
	e.agent = e.NewUser(e.OrgID, "Agent")
	if err := db.TeamMember.Create().SetTeamID(team.ID).SetUserID(e.agent.UserID).Exec(e.ctx); err != nil {
		t.Fatal(err)
	}
	prompt, err := e.App.Calls.Audio.Save(e.ctx, e.OrgID, mediatest.ToneOgg, audio.IVRFormats)
	if err != nil {
		t.Fatal(err)
	}
	menu := map[string]any{
		"version": 2, "entry_node": "hello",
		"nodes": []any{
			map[string]any{"id": "hello", "type": "greeting", "label": "Hello", "config": map[string]any{"audio_file": prompt.Name}},
			map[string]any{"id": "choose", "type": "menu", "label": "Choose", "config": map[string]any{
				"audio_file": prompt.Name, "options": map[string]any{"1": map[string]any{"label": "Support"}}, "timeout_seconds": 20}},
			map[string]any{"id": "support", "type": "transfer", "label": "Support", "config": map[string]any{"team_id": team.ID.String()}},
		},
		"edges": []any{
			map[string]any{"from": "hello", "to": "choose", "condition": "default"},
			map[string]any{"from": "choose", "to": "support", "condition": "digit:1"},
		},
	}
	if _, err := db.IVRFlow.Create().SetChatAccount("Main").SetName("Main menu").SetIsCallStart(true).SetMenu(menu).Save(e.ctx); err != nil {
		t.Fatal(err)
	}
	return e
}

// ring posts the platform's connect event of a user's call with offer.
func (e *callEnv) ring(t testing.TB, callID, from, offer string) {
	t.Helper()
	e.postTB(t, fmt.Sprintf(`{"object":"whatsapp_business_account","entry":[{"id":%q,"changes":[{"field":"calls","value":{
"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550001111","phone_number_id":%q},
"contacts":[{"profile":{"name":"Caller"},"wa_id":%q}],
"calls":[{"id":%q,"from":%q,"to":"15550001111","event":"connect","direction":"USER_INITIATED","timestamp":"%d",
"session":{"sdp_type":"offer","sdp":%q}}]}}]}]}`, providertest.BusinessID, providertest.PhoneID, from, callID, from,
		time.Now().Unix(), offer))
}

// terminate posts the platform's terminate event.
func (e *callEnv) terminate(t testing.TB, callID, from string) {
	t.Helper()
	e.postTB(t, fmt.Sprintf(`{"object":"whatsapp_business_account","entry":[{"id":%q,"changes":[{"field":"calls","value":{
"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550001111","phone_number_id":%q},
"calls":[{"id":%q,"from":%q,"to":"15550001111","event":"terminate","direction":"USER_INITIATED","timestamp":"%d","status":"Completed","duration":12}]}}]}]}`,
		providertest.BusinessID, providertest.PhoneID, callID, from, time.Now().Unix()))
}

func (e *callEnv) callLog(t *testing.T, callID string) *ent.CallLog {
	t.Helper()
	l, err := e.Client().CallLog.Query().Where(calllog.ChatCallID(callID)).Only(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestCallIVRTransferToAgent plays a whole call: the platform's connect
// event, the SDP answer with pre_accept, accept once the media connected, the IVR greeting and
// menu heard by the caller, the caller's DTMF choice, the transfer to the
// team, the agent's browser connected, audio both ways, hold and resume,
// and the agent's hangup.
func TestCallIVRTransferToAgent(t *testing.T) {
	e := newCallEnv(t)
	ctx := waitCtx(t)
	live := wsDial(t, e.Server.URL, e.agent, false)
	caller := mediatest.NewPeer(t)
	const callID, from = "wacid.HBgLMTU1NTAwMDAwMDEVAgARGBQ", "15550000001"
	offer := caller.Offer()
	e.ring(t, callID, from, offer)

	e.pickUp(t, ctx, callID, caller)
	testkit.Eventually(t, "call answered", func() bool { return e.callLog(t, callID).Status == calllog.StatusAnswered })
	if ev := wsWaitFor(t, live, events.FrameCallIncoming); ev.Payload["chat_call_id"] != callID {
		t.Fatalf("call_incoming = %v", ev.Payload)
	}
	wsWaitFor(t, live, events.FrameCallAnswered)
	// The greeting (51 packets of 20 ms) reaches the caller, then the
	// menu's prompt: a key pressed during the menu's prompt counts (one
	// pressed before it is dropped).
	if err := caller.WaitReceived(ctx, 51+20); err != nil {
		t.Fatalf("greeting and menu not heard: %v", err)
	}
	if err := caller.SendDTMF(ctx, '1'); err != nil {
		t.Fatal(err)
	}
	var transfer *ent.CallTransfer
	testkit.Eventually(t, "transfer waiting", func() bool {
		ts, err := e.Client().CallTransfer.Query().Where(calltransfer.ChatCallID(callID)).All(e.ctx)
		if err != nil || len(ts) != 1 {
			return false
		}
		transfer = ts[0]
		return transfer.Status == calltransfer.StatusWaiting
	})
	if transfer.TeamID == nil || *transfer.TeamID != e.team {
		t.Fatalf("transfer team = %v, want %v", transfer.TeamID, e.team)
	}
	if ev := wsWaitFor(t, live, events.FrameCallTransferWaiting); ev.Payload["id"] != transfer.ID.String() {
		t.Fatalf("call_transfer_waiting = %v", ev.Payload)
	}

	agent := mediatest.NewPeer(t)
	path := "/api/call-transfers/" + transfer.ID.String()
	e.agent.Do(http.MethodPost, path+"/connect", map[string]any{"sdp_offer": ""}).ExpectError(t, http.StatusBadRequest)
	answer := e.agent.Do(http.MethodPost, path+"/connect", map[string]any{"sdp_offer": agent.Offer()}).
		ExpectStatus(t, http.StatusOK).String("data.sdp_answer")
	agent.SetAnswer(answer)
	if err := agent.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	// Audio flows both ways through the bridge.
	caller.Reset()
	agent.Reset()
	go func() { _ = caller.SendAudio(ctx, 50) }()
	if err := agent.WaitReceived(ctx, 30); err != nil {
		t.Fatalf("agent did not hear the caller: %v", err)
	}
	go func() { _ = agent.SendAudio(ctx, 50) }()
	if err := caller.WaitReceived(ctx, 30); err != nil {
		t.Fatalf("caller did not hear the agent: %v", err)
	}

	logID := e.callLog(t, callID).ID.String()
	if got := e.agent.Do(http.MethodPost, "/api/call-logs/"+logID+"/hold", nil).ExpectStatus(t, http.StatusOK).String("data.status"); got != "on_hold" {
		t.Fatalf("hold status = %q", got)
	}
	if got := e.agent.Do(http.MethodPost, "/api/call-logs/"+logID+"/resume", nil).ExpectStatus(t, http.StatusOK).String("data.status"); got != "connected" {
		t.Fatalf("resume status = %q", got)
	}
	if got := e.agent.Do(http.MethodPost, path+"/hangup", nil).ExpectStatus(t, http.StatusOK).String("data.status"); got != "completed" {
		t.Fatalf("hangup status = %q", got)
	}
	e.fake.WaitCallAction(t, callID, "terminate", 10*time.Second)
	testkit.Eventually(t, "call completed", func() bool {
		l := e.callLog(t, callID)
		return l.Status == calllog.StatusCompleted && l.DisconnectedBy == "agent" && l.AgentID != nil && *l.AgentID == e.agent.UserID
	})
	tr, err := e.Client().CallTransfer.Get(e.ctx, transfer.ID)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Status != calltransfer.StatusCompleted || tr.AgentID == nil || tr.ConnectedAt == nil {
		t.Fatalf("transfer = %+v, want completed with the agent", tr)
	}
	wsWaitFor(t, live, events.FrameCallEnded)
	// Both legs were recorded and mixed into one file, served by a signed
	// link.
	testkit.Eventually(t, "recording stored", func() bool {
		l := e.callLog(t, callID)
		return l.RecordingStorageKey != "" && l.RecordingDuration > 0
	})
	link := e.Admin.Do(http.MethodGet, "/api/call-logs/"+logID+"/recording", nil).ExpectStatus(t, http.StatusOK).String("data.url")
	rec := e.Anonymous().Do(http.MethodGet, strings.TrimPrefix(link, e.App.Cfg.PublicURL), nil)
	if rec.Status != http.StatusOK || !bytes.HasPrefix(rec.Raw, []byte("OggS")) {
		t.Fatalf("recording download: %d, %d bytes", rec.Status, len(rec.Raw))
	}
	// A redelivered connect event starts nothing again.
	n := len(e.fake.CallActions())
	e.ring(t, callID, from, offer)
	e.drained(t)
	if got := len(e.fake.CallActions()); got != n {
		t.Fatalf("a redelivered connect made %d more call actions", got-n)
	}
}

// TestCallMissedAndRejected: a call whose caller leaves before the answer
// is missed; with calling off the call is rejected at the platform.
func TestCallRejectedWhenCallingOff(t *testing.T) {
	e := newCallEnv(t)
	e.Admin.Do(http.MethodPut, "/api/org/settings", map[string]any{"calling_enabled": false}).ExpectStatus(t, http.StatusOK)
	caller := mediatest.NewPeer(t)
	const callID, from = "wacid.rejected", "15550000002"
	e.ring(t, callID, from, caller.Offer())
	e.fake.WaitCallAction(t, callID, "reject", 10*time.Second)
	testkit.Eventually(t, "call rejected", func() bool { return e.callLog(t, callID).Status == calllog.StatusRejected })
	e.terminate(t, callID, from)
	e.drained(t)
	if l := e.callLog(t, callID); l.Status != calllog.StatusRejected {
		t.Fatalf("status after terminate = %s, want rejected kept", l.Status)
	}
}

// TestCallControlRefusals: bad input 400, another organization's ids 404,
// a call that has ended 409.
func TestCallControlRefusals(t *testing.T) {
	e := newCallEnv(t)
	other := e.NewOrg("Other")
	unknown := uuid.NewString()
	e.Admin.Do(http.MethodPost, "/api/call-transfers/initiate", map[string]any{"team_id": e.team}).ExpectError(t, http.StatusBadRequest)
	e.Admin.Do(http.MethodPost, "/api/call-transfers/initiate", map[string]any{"call_log_id": unknown, "team_id": e.team}).ExpectError(t, http.StatusNotFound)
	e.Admin.Do(http.MethodPost, "/api/call-transfers/"+unknown+"/connect", map[string]any{"sdp_offer": "v=0"}).ExpectError(t, http.StatusNotFound)
	e.Admin.Do(http.MethodPost, "/api/call-logs/not-a-uuid/hold", nil).ExpectError(t, http.StatusBadRequest)
	e.Admin.Do(http.MethodPost, "/api/calls/outgoing", map[string]any{"chat_account": "Main", "sdp_offer": "v=0"}).ExpectError(t, http.StatusBadRequest)

	ended, err := e.Client().CallLog.Create().SetChatAccount("Main").SetChatCallID("wacid.ended").SetDirection(calllog.DirectionIncoming).
		SetStatus(calllog.StatusCompleted).SetEndedAt(time.Now()).Save(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	e.Admin.Do(http.MethodPost, "/api/call-logs/"+ended.ID.String()+"/hold", nil).ExpectError(t, http.StatusConflict)
	other.Do(http.MethodPost, "/api/call-logs/"+ended.ID.String()+"/hold", nil).ExpectError(t, http.StatusNotFound)
	other.Do(http.MethodPost, "/api/calls/outgoing/"+ended.ID.String()+"/hangup", nil).ExpectError(t, http.StatusNotFound)
}

// TestCallControlGraphQL: the live call mutations are the same operations
// over GraphQL.
func TestCallControlGraphQL(t *testing.T) {
	e := newCallEnv(t)
	ended, err := e.Client().CallLog.Create().SetChatAccount("Main").SetChatCallID("wacid.gql").SetDirection(calllog.DirectionIncoming).
		SetStatus(calllog.StatusCompleted).SetEndedAt(time.Now()).Save(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, query string
		vars        map[string]any
		code        string
	}{
		{"HoldEnded", `mutation($id: ID!) { holdCall(callLogId: $id) }`, map[string]any{"id": ended.ID}, "conflict"},
		{"ConnectUnknown", `mutation($id: ID!) { connectCallTransfer(id: $id, sdpOffer: "v=0") }`, map[string]any{"id": uuid.New()}, "not_found"},
		{"InitiateUnknown", `mutation($id: ID!, $team: ID!) { initiateCallTransfer(callLogId: $id, teamId: $team) }`,
			map[string]any{"id": uuid.New(), "team": e.team}, "not_found"},
		{"OutgoingWithoutPermission", `mutation($c: ID!) { startOutgoingCall(contactId: $c, chatAccount: "Main", sdpOffer: "v=0") { sdpAnswer } }`,
			map[string]any{"c": e.contactFor(t, "15550000077")}, "invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if code := e.agent.GraphQL(tt.query, tt.vars).GraphQLErrorCode(); code != tt.code {
				t.Fatalf("error code = %q, want %q", code, tt.code)
			}
		})
	}
}

func (e *callEnv) contactFor(t *testing.T, phone string) uuid.UUID {
	t.Helper()
	c, err := e.Client().Contact.Create().SetPhoneNumber(phone).SetName("Someone").Save(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// answeredCall rings a call, answers it as the platform would and waits
// until the caller hears the menu; it returns the caller's peer.
func (e *callEnv) answeredCall(t *testing.T, ctx context.Context, callID, from string) *mediatest.Peer {
	t.Helper()
	caller := mediatest.NewPeer(t)
	e.ring(t, callID, from, caller.Offer())
	e.pickUp(t, ctx, callID, caller)
	if err := caller.WaitReceived(ctx, 51+20); err != nil {
		t.Fatalf("greeting and menu not heard: %v", err)
	}
	return caller
}

func (e *callEnv) onlyTransfer(t *testing.T, callID string, status calltransfer.Status) *ent.CallTransfer {
	t.Helper()
	var tr *ent.CallTransfer
	testkit.Eventually(t, "transfer "+string(status), func() bool {
		ts, err := e.Client().CallTransfer.Query().Where(calltransfer.ChatCallID(callID)).All(e.ctx)
		if err != nil || len(ts) != 1 {
			return false
		}
		tr = ts[0]
		return tr.Status == status
	})
	return tr
}

// TestCallTransferEnds: a caller who hangs up while waiting abandons the
// transfer; a transfer nobody answers in transfer_timeout_secs is
// no_answer and the call is hung up; a call longer than max_call_duration
// is hung up.
func TestCallTransferEnds(t *testing.T) {
	t.Run("Abandoned", func(t *testing.T) {
		e := newCallEnv(t)
		ctx := waitCtx(t)
		const callID, from = "wacid.abandoned", "15550000011"
		caller := e.answeredCall(t, ctx, callID, from)
		if err := caller.SendDTMF(ctx, '1'); err != nil {
			t.Fatal(err)
		}
		e.onlyTransfer(t, callID, calltransfer.StatusWaiting)
		e.terminate(t, callID, from)
		tr := e.onlyTransfer(t, callID, calltransfer.StatusAbandoned)
		if tr.CompletedAt == nil {
			t.Fatal("abandoned transfer without its end time")
		}
		l := e.callLog(t, callID)
		if l.Status != calllog.StatusCompleted || l.DisconnectedBy != "contact" || l.Duration != 12 {
			t.Fatalf("log = %s by %q duration %d", l.Status, l.DisconnectedBy, l.Duration)
		}
	})
	t.Run("NoAnswer", func(t *testing.T) {
		e := newCallEnv(t)
		e.Admin.Do(http.MethodPut, "/api/org/settings", map[string]any{"transfer_timeout_secs": 1}).ExpectStatus(t, http.StatusOK)
		ctx := waitCtx(t)
		const callID, from = "wacid.noanswer", "15550000012"
		caller := e.answeredCall(t, ctx, callID, from)
		if err := caller.SendDTMF(ctx, '1'); err != nil {
			t.Fatal(err)
		}
		e.onlyTransfer(t, callID, calltransfer.StatusNoAnswer)
		e.fake.WaitCallAction(t, callID, "terminate", 10*time.Second)
		testkit.Eventually(t, "call ended", func() bool { return e.callLog(t, callID).EndedAt != nil })
	})
	t.Run("MaxDuration", func(t *testing.T) {
		e := newCallEnv(t)
		e.Admin.Do(http.MethodPut, "/api/org/settings", map[string]any{"max_call_duration": 2}).ExpectStatus(t, http.StatusOK)
		ctx := waitCtx(t)
		const callID, from = "wacid.maxduration", "15550000013"
		e.answeredCall(t, ctx, callID, from)
		e.fake.WaitCallAction(t, callID, "terminate", 10*time.Second)
		testkit.Eventually(t, "call ended by the system", func() bool {
			l := e.callLog(t, callID)
			return l.Status == calllog.StatusCompleted && l.DisconnectedBy == "system"
		})
	})
}
