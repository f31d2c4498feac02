package rest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"switchboard/calling/media/mediatest"
	"switchboard/ent"
	"switchboard/ent/calllog"
	"switchboard/ent/calltransfer"
	"switchboard/internal/testkit"
	"switchboard/provider/providertest"
)

// doAt calls path on the server at base with the client's token.
func doAt(t *testing.T, base, token, method, path string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, base+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

// TestCallControlAcrossNodes: the call's media lives on the node that
// answered it; the agent's connect, hold and hangup sent to the other node
// are routed there and answered.
func TestCallControlAcrossNodes(t *testing.T) {
	e := newCallEnv(t)
	peerApp, peerSrv := e.Peer()
	ctx := waitCtx(t)
	caller := mediatest.NewPeer(t)
	const callID, from = "wacid.twonodes", "15550000003"
	e.ring(t, callID, from, caller.Offer())
	e.pickUp(t, ctx, callID, caller)
	l := e.callLog(t, callID)
	// The other node of the one holding the call.
	base := peerSrv.URL
	if peerApp.Calls.Holds(l.ID) {
		base = e.Server.URL
	} else if !e.App.Calls.Holds(l.ID) {
		t.Fatal("no node holds the call")
	}
	logPath := "/api/call-logs/" + l.ID.String()
	if status, body := doAt(t, base, e.Admin.Token, http.MethodPost, "/api/call-transfers/initiate",
		map[string]any{"call_log_id": l.ID, "team_id": e.team}); status != http.StatusOK {
		t.Fatalf("initiate on the other node: %d %v", status, body)
	}
	var tr *ent.CallTransfer
	testkit.Eventually(t, "transfer waiting", func() bool {
		var err error
		tr, err = e.Client().CallTransfer.Query().Where(calltransfer.CallLogID(l.ID), calltransfer.StatusEQ(calltransfer.StatusWaiting)).Only(e.ctx)
		return err == nil
	})
	agent := mediatest.NewPeer(t)
	status, body := doAt(t, base, e.agent.Token, http.MethodPost, "/api/call-transfers/"+tr.ID.String()+"/connect",
		map[string]any{"sdp_offer": agent.Offer()})
	if status != http.StatusOK {
		t.Fatalf("connect on the other node: %d %v", status, body)
	}
	agent.SetAnswer(body["data"].(map[string]any)["sdp_answer"].(string))
	if err := agent.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	agent.Reset()
	go func() { _ = caller.SendAudio(ctx, 40) }()
	if err := agent.WaitReceived(ctx, 20); err != nil {
		t.Fatalf("agent connected through the other node hears nothing: %v", err)
	}
	if status, body := doAt(t, base, e.agent.Token, http.MethodPost, logPath+"/hold", nil); status != http.StatusOK {
		t.Fatalf("hold on the other node: %d %v", status, body)
	}
	if status, body := doAt(t, base, e.agent.Token, http.MethodPost, logPath+"/resume", nil); status != http.StatusOK {
		t.Fatalf("resume on the other node: %d %v", status, body)
	}
	if status, body := doAt(t, base, e.agent.Token, http.MethodPost, "/api/calls/outgoing/"+l.ID.String()+"/hangup", nil); status != http.StatusOK {
		t.Fatalf("hangup on the other node: %d %v", status, body)
	}
	e.fake.WaitCallAction(t, callID, "terminate", 10*time.Second)
	testkit.Eventually(t, "call completed", func() bool { return e.callLog(t, callID).Status == calllog.StatusCompleted })
}

// TestCallsOfADeadNodeEnd: a call no node claims any more (its node died:
// answered, a transfer waiting, no claim in Redis) is ended by the sweep
// of any node, its transfer abandoned; control requests on it are refused.
func TestCallsOfADeadNodeEnd(t *testing.T) {
	e := newCallEnv(t)
	db := e.Client()
	long := time.Now().Add(-time.Minute)
	l, err := db.CallLog.Create().SetChatAccount("Main").SetChatCallID("wacid.orphan").SetDirection(calllog.DirectionIncoming).
		SetStatus(calllog.StatusAnswered).SetStartedAt(long).SetAnsweredAt(long).SetCreatedAt(long).Save(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := db.CallTransfer.Create().SetCallLogID(l.ID).SetChatCallID(l.ChatCallID).SetChatAccount("Main").
		SetTeamID(e.team).SetTransferredAt(long).Save(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := db.CallLog.Create().SetChatAccount("Main").SetChatCallID("wacid.fresh").SetDirection(calllog.DirectionIncoming).
		SetStatus(calllog.StatusRinging).Save(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	n, err := e.App.Calls.SweepOrphans(e.ctx)
	if err != nil || n != 1 {
		t.Fatalf("swept %d (%v), want the one orphan", n, err)
	}
	got, _ := db.CallLog.Get(e.ctx, l.ID)
	if got.Status != calllog.StatusCompleted || got.EndedAt == nil || got.DisconnectedBy != "system" {
		t.Fatalf("orphan log = %s ended %v by %q", got.Status, got.EndedAt, got.DisconnectedBy)
	}
	if gt, _ := db.CallTransfer.Get(e.ctx, tr.ID); gt.Status != calltransfer.StatusAbandoned {
		t.Fatalf("orphan transfer = %s, want abandoned", gt.Status)
	}
	if f, _ := db.CallLog.Get(e.ctx, fresh.ID); f.EndedAt != nil {
		t.Fatal("a call younger than a claim's lifetime was ended")
	}
	// A live-looking call without a node: control refuses and ends it.
	e.Admin.Do(http.MethodPost, "/api/call-logs/"+fresh.ID.String()+"/hold", nil).ExpectError(t, http.StatusConflict)
	if f, _ := db.CallLog.Get(e.ctx, fresh.ID); f.EndedAt == nil || f.Status != calllog.StatusFailed {
		t.Fatalf("unclaimed call after a control request: %s ended %v", f.Status, f.EndedAt)
	}
}

// TestOutgoingCall: with the contact's permission the agent's browser is
// connected to the contact; the platform's answer arrives on the calls
// webhook; without permission the call is refused.
func TestOutgoingCall(t *testing.T) {
	e := newCallEnv(t)
	ctx := waitCtx(t)
	const phone = "15550000009"
	c, err := e.Client().Contact.Create().SetPhoneNumber(phone).SetName("Callee").Save(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	agent := mediatest.NewPeer(t)
	body := map[string]any{"contact_id": c.ID, "chat_account": "Main", "sdp_offer": agent.Offer()}
	e.agent.Do(http.MethodPost, "/api/calls/outgoing", body).ExpectError(t, http.StatusBadRequest)
	// The contact accepts a pending permission request: the reply arrives
	// as an interactive message on the webhook.
	if err := e.Client().CallPermission.Create().SetContactID(c.ID).SetChatAccount("Main").Exec(e.ctx); err != nil {
		t.Fatal(err)
	}
	permPath := "/api/calls/permission/" + c.ID.String() + "?chat_account=Main"
	if got := e.agent.Do(http.MethodGet, permPath, nil).ExpectStatus(t, http.StatusOK).String("data.status"); got != "pending" {
		t.Fatalf("permission before the reply = %q", got)
	}
	e.post(t, botPayload(phone, "Callee", fmt.Sprintf(`{"from":%q,"id":"wamid.permreply","timestamp":"%d","type":"interactive",
"interactive":{"type":"call_permission_reply","call_permission_reply":{"response":"accept","is_permanent":false,"expiration_timestamp":%d,"response_source":"user_action"}}}`,
		phone, time.Now().Unix(), time.Now().Add(7*24*time.Hour).Unix())))
	testkit.Eventually(t, "permission accepted", func() bool {
		return e.agent.Do(http.MethodGet, permPath, nil).String("data.status") == "accepted"
	})
	res := e.agent.Do(http.MethodPost, "/api/calls/outgoing", body).ExpectStatus(t, http.StatusOK)
	agent.SetAnswer(res.String("data.sdp_answer"))
	connect := e.fake.WaitCallAction(t, "", "connect", 10*time.Second)
	if connect.To != phone || connect.SDPType != "offer" {
		t.Fatalf("connect action = %+v", connect)
	}
	contactPeer := mediatest.NewPeer(t)
	answer := contactPeer.Answer(connect.SDP)
	e.post(t, fmt.Sprintf(`{"object":"whatsapp_business_account","entry":[{"id":%q,"changes":[{"field":"calls","value":{
"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550001111","phone_number_id":%q},
"calls":[{"id":%q,"from":"15550001111","to":%q,"event":"connect","direction":"BUSINESS_INITIATED","timestamp":"%d",
"session":{"sdp_type":"answer","sdp":%q}}],
"statuses":[{"id":%q,"type":"call","status":"ACCEPTED","timestamp":"%d","recipient_id":%q}]}}]}]}`,
		providertest.BusinessID, providertest.PhoneID, connect.CallID, phone, time.Now().Unix(), answer,
		connect.CallID, time.Now().Unix(), phone))
	if err := contactPeer.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	if err := agent.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	go func() { _ = agent.SendAudio(ctx, 40) }()
	if err := contactPeer.WaitReceived(ctx, 20); err != nil {
		t.Fatalf("contact does not hear the agent: %v", err)
	}
	go func() { _ = contactPeer.SendAudio(ctx, 40) }()
	if err := agent.WaitReceived(ctx, 20); err != nil {
		t.Fatalf("agent does not hear the contact: %v", err)
	}
	logID := res.String("data.call_log_id")
	testkit.Eventually(t, "call answered", func() bool { return e.callLog(t, connect.CallID).Status == calllog.StatusAnswered })
	e.agent.Do(http.MethodPost, "/api/calls/outgoing/"+logID+"/hangup", nil).ExpectStatus(t, http.StatusOK)
	e.fake.WaitCallAction(t, connect.CallID, "terminate", 10*time.Second)
	testkit.Eventually(t, "call completed", func() bool {
		l := e.callLog(t, connect.CallID)
		return l.Status == calllog.StatusCompleted && l.Direction == calllog.DirectionOutgoing && l.AgentID != nil
	})
}
