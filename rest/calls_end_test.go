package rest_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/calling"
	"switchboard/calling/media"
	"switchboard/calling/media/mediatest"
	"switchboard/ent"
	"switchboard/ent/calllog"
	"switchboard/ent/callpermission"
	"switchboard/ent/calltransfer"
	"switchboard/ent/ivrflow"
	"switchboard/internal/apitest"
	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
	"switchboard/provider/providertest"
)

// How calls end, as the platform sees them: the server accepts a user's
// call once its media is connected, ends a call whose media fails at the
// platform, and sends one terminate per call, never after the platform
// ended it. Tests count the requests at the Graph API fake.

// tuneMedia gives the call manager an engine on loopback whose legs end
// one second after their peer vanished (instead of ten), and bounds a
// user's call's media setup by mediaTimeout (0: the default). It runs
// before the test's first call: the database query after the writes
// releases the pool's lock that the node answering the next call takes
// before it reads them.
func (e *callEnv) tuneMedia(t *testing.T, mediaTimeout time.Duration) *media.Engine {
	t.Helper()
	engine, err := media.NewEngine(media.Config{ListenAddrs: []string{"127.0.0.1"}, FailedTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	previous := e.App.Calls.Engine
	t.Cleanup(func() { _ = previous.Close() })
	e.App.Calls.Engine = engine
	e.App.Calls.MediaTimeout = mediaTimeout
	if _, err := e.Client().CallLog.Query().Count(e.ctx); err != nil {
		t.Fatal(err)
	}
	return engine
}

// pickUp plays the platform's side of answering a user's call: the SDP
// answer of pre_accept completes the caller's offer, the media connects,
// and only then does accept come, with the same answer.
func (e *callEnv) pickUp(t *testing.T, ctx context.Context, callID string, caller *mediatest.Peer) {
	t.Helper()
	pre := e.fake.WaitCallAction(t, callID, "pre_accept", 10*time.Second)
	// Until the caller has the answer the server's leg cannot connect.
	if n := e.fake.CallRequests(callID, "accept"); n != 0 {
		t.Fatalf("accept sent before the caller's media could connect (%d)", n)
	}
	if err := caller.ApplyAnswer(pre.SDP); err != nil {
		t.Fatal(err)
	}
	if err := caller.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	acc := e.fake.WaitCallAction(t, callID, "accept", 10*time.Second)
	if pre.SDP == "" || acc.SDP != pre.SDP {
		t.Fatalf("pre_accept and accept should carry the same SDP answer: %q / %q", pre.SDP, acc.SDP)
	}
}

// settled waits until call callID has ended everywhere: its log closed,
// no node holding it, every leg of engine closed, and its recording's
// work files gone (mixing them is the last step of ending a call). It
// returns the log.
func (e *callEnv) settled(t *testing.T, callID string, engine *media.Engine) *ent.CallLog {
	t.Helper()
	var (
		l    *ent.CallLog
		work []string
	)
	ended := func() bool {
		l = e.callLog(t, callID)
		work, _ = filepath.Glob(filepath.Join(e.App.Cfg.DataDir, "recordings-work", l.OrganizationID.String(), l.ID.String()+"-*"))
		return l.EndedAt != nil && !e.App.Calls.Holds(l.ID) && engine.Legs() == 0 && len(work) == 0
	}
	if !testkit.Poll(testkit.Deadline, ended) {
		t.Fatalf("call %s not ended everywhere: log %s ended %v, held %v, %d legs open, work files %v",
			callID, l.Status, l.EndedAt, e.App.Calls.Holds(l.ID), engine.Legs(), work)
	}
	return l
}

// connectAgent presses "1" for the team, connects the agent's browser
// peer to the waiting transfer and returns the transfer.
func (e *callEnv) connectAgent(t *testing.T, ctx context.Context, callID string, caller, agent *mediatest.Peer) *ent.CallTransfer {
	t.Helper()
	if err := caller.SendDTMF(ctx, '1'); err != nil {
		t.Fatal(err)
	}
	tr := e.onlyTransfer(t, callID, calltransfer.StatusWaiting)
	answer := e.agent.Do(http.MethodPost, "/api/call-transfers/"+tr.ID.String()+"/connect",
		map[string]any{"sdp_offer": agent.Offer()}).ExpectStatus(t, http.StatusOK).String("data.sdp_answer")
	agent.SetAnswer(answer)
	if err := agent.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	return tr
}

// withHangupOption adds option "2" to the call-start menu: a hangup node.
func (e *callEnv) withHangupOption(t *testing.T) {
	t.Helper()
	f, err := e.Client().IVRFlow.Query().Where(ivrflow.IsCallStart(true)).Only(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	menu := f.Menu
	nodes := menu["nodes"].([]any)
	for _, n := range nodes {
		if n := n.(map[string]any); n["id"] == "choose" {
			n["config"].(map[string]any)["options"].(map[string]any)["2"] = map[string]any{"label": "Goodbye"}
		}
	}
	menu["nodes"] = append(nodes, map[string]any{"id": "bye", "type": "hangup", "label": "Goodbye", "config": map[string]any{}})
	menu["edges"] = append(menu["edges"].([]any), map[string]any{"from": "choose", "to": "bye", "condition": "digit:2"})
	if err := f.Update().SetMenu(menu).Exec(e.ctx); err != nil {
		t.Fatal(err)
	}
}

// actionNames lists the actions the fake accepted for callID, in order.
func actionNames(f *providertest.Fake, callID string) []string {
	var out []string
	for _, a := range f.CallActions() {
		if a.CallID == callID {
			out = append(out, a.Action)
		}
	}
	return out
}

// callStatus posts the platform's status of a business-initiated call.
func (e *callEnv) callStatus(t *testing.T, callID, to, status string) {
	t.Helper()
	e.post(t, fmt.Sprintf(`{"object":"whatsapp_business_account","entry":[{"id":%q,"changes":[{"field":"calls","value":{
"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550001111","phone_number_id":%q},
"statuses":[{"id":%q,"type":"call","status":%q,"timestamp":"%d","recipient_id":%q}]}}]}]}`,
		providertest.BusinessID, providertest.PhoneID, callID, status, time.Now().Unix(), to))
}

// outgoingCall starts a call from the agent to a contact who allows calls
// and returns the platform's call id once the platform has the offer.
func (e *callEnv) outgoingCall(t *testing.T, ctx context.Context, phone string, agent *mediatest.Peer) string {
	t.Helper()
	c := e.contactFor(t, phone)
	if err := e.Client().CallPermission.Create().SetContactID(c).SetChatAccount("Main").
		SetStatus(callpermission.StatusAccepted).Exec(e.ctx); err != nil {
		t.Fatal(err)
	}
	res := e.agent.Do(http.MethodPost, "/api/calls/outgoing", map[string]any{"contact_id": c, "chat_account": "Main", "sdp_offer": agent.Offer()}).
		ExpectStatus(t, http.StatusOK)
	agent.SetAnswer(res.String("data.sdp_answer"))
	if err := agent.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	connect := e.fake.WaitCallAction(t, "", "connect", 10*time.Second)
	if connect.To != phone {
		t.Fatalf("connect to %q, want %q", connect.To, phone)
	}
	return connect.CallID
}

// TestCallAcceptedAfterMedia: a user's call is pre-accepted with the SDP
// answer at once and accepted only once its media is connected, so the
// caller hears the greeting from its first word; a call whose media does
// not connect within the manager's MediaTimeout is rejected at the
// platform and logged failed by media_timeout, never accepted.
func TestCallAcceptedAfterMedia(t *testing.T) {
	t.Run("AcceptedOnceConnected", func(t *testing.T) {
		e := newCallEnv(t)
		ctx := waitCtx(t)
		caller := mediatest.NewPeer(t)
		const callID = "wacid.aftermedia"
		e.ring(t, callID, "15550000031", caller.Offer())
		e.pickUp(t, ctx, callID, caller)
		testkit.Eventually(t, "call answered", func() bool { return e.callLog(t, callID).Status == calllog.StatusAnswered })
		if err := caller.WaitReceived(ctx, 51); err != nil {
			t.Fatalf("greeting not heard: %v", err)
		}
	})
	t.Run("RejectedWhenMediaNeverConnects", func(t *testing.T) {
		e := newCallEnv(t)
		engine := e.tuneMedia(t, time.Second)
		caller := mediatest.NewPeer(t)
		const callID = "wacid.nomedia"
		e.ring(t, callID, "15550000032", caller.Offer())
		e.fake.WaitCallAction(t, callID, "pre_accept", 10*time.Second)
		// The caller never takes the answer: no ICE, no DTLS.
		e.fake.WaitCallAction(t, callID, "reject", 10*time.Second)
		l := e.settled(t, callID, engine)
		if l.Status != calllog.StatusFailed || l.DisconnectedBy != calling.ByMediaTimeout || l.AnsweredAt != nil {
			t.Fatalf("log = %s by %q answered %v, want failed by %s, never answered", l.Status, l.DisconnectedBy, l.AnsweredAt, calling.ByMediaTimeout)
		}
		for action, want := range map[string]int{"accept": 0, "reject": 1, "terminate": 0} {
			if n := e.fake.CallRequests(callID, action); n != want {
				t.Errorf("%s requests = %d, want %d", action, n, want)
			}
		}
	})
}

// TestCallMediaFailure: a connection that fails after the call was
// accepted ends the call at the platform (terminate, once) and logs it
// failed with the side whose media failed; an agent whose network fails
// has not hung up.
func TestCallMediaFailure(t *testing.T) {
	tests := []struct {
		name string
		// cut is the peer whose network goes away.
		cutAgent bool
		by       string
	}{
		{"Caller", false, calling.ByContactMediaFailed},
		{"Agent", true, calling.ByAgentMediaFailed},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newCallEnv(t)
			engine := e.tuneMedia(t, 0)
			ctx := waitCtx(t)
			callID, from := "wacid.mediafail."+tt.name, fmt.Sprintf("155500000%02d", 40+i)
			caller := mediatest.NewPeer(t, mediatest.Options{Cuttable: true})
			e.ring(t, callID, from, caller.Offer())
			e.pickUp(t, ctx, callID, caller)
			if err := caller.WaitReceived(ctx, 51+20); err != nil {
				t.Fatalf("greeting and menu not heard: %v", err)
			}
			agent := mediatest.NewPeer(t, mediatest.Options{Cuttable: true})
			e.connectAgent(t, ctx, callID, caller, agent)
			if tt.cutAgent {
				agent.Cut()
			} else {
				caller.Cut()
			}
			e.fake.WaitCallAction(t, callID, "terminate", 20*time.Second)
			l := e.settled(t, callID, engine)
			if l.Status != calllog.StatusFailed || l.DisconnectedBy != tt.by {
				t.Fatalf("log = %s by %q, want failed by %s", l.Status, l.DisconnectedBy, tt.by)
			}
			if n := e.fake.CallRequests(callID, "terminate"); n != 1 {
				t.Fatalf("terminate requests = %d, want 1", n)
			}
		})
	}
}

// TestCallTerminatedOnce counts the terminate requests the platform gets
// for a call however it ends: one when this side ends it, none when the
// platform did (its terminate webhook, REJECTED).
func TestCallTerminatedOnce(t *testing.T) {
	// Each case plays a call up to its end and returns its platform id.
	tests := []struct {
		name string
		want int
		play func(t *testing.T, ctx context.Context, e *callEnv, from string) string
	}{
		{"AgentHangup", 1, func(t *testing.T, ctx context.Context, e *callEnv, from string) string {
			callID := "wacid.once.agent"
			caller := e.answeredCall(t, ctx, callID, from)
			tr := e.connectAgent(t, ctx, callID, caller, mediatest.NewPeer(t))
			e.agent.Do(http.MethodPost, "/api/call-transfers/"+tr.ID.String()+"/hangup", nil).ExpectStatus(t, http.StatusOK)
			return callID
		}},
		{"IVRHangupBranch", 1, func(t *testing.T, ctx context.Context, e *callEnv, from string) string {
			callID := "wacid.once.ivr"
			e.withHangupOption(t)
			caller := e.answeredCall(t, ctx, callID, from)
			if err := caller.SendDTMF(ctx, '2'); err != nil {
				t.Fatal(err)
			}
			return callID
		}},
		{"PlatformTerminate", 0, func(t *testing.T, ctx context.Context, e *callEnv, from string) string {
			callID := "wacid.once.platform"
			caller := e.answeredCall(t, ctx, callID, from)
			e.connectAgent(t, ctx, callID, caller, mediatest.NewPeer(t))
			e.terminate(t, callID, from)
			return callID
		}},
		{"PlatformReject", 0, func(t *testing.T, ctx context.Context, e *callEnv, from string) string {
			callID := e.outgoingCall(t, ctx, from, mediatest.NewPeer(t))
			e.callStatus(t, callID, from, "REJECTED")
			return callID
		}},
		{"MediaFailure", 1, func(t *testing.T, ctx context.Context, e *callEnv, from string) string {
			callID := "wacid.once.media"
			caller := mediatest.NewPeer(t, mediatest.Options{Cuttable: true})
			e.ring(t, callID, from, caller.Offer())
			e.pickUp(t, ctx, callID, caller)
			caller.Cut()
			return callID
		}},
		{"MaxDuration", 1, func(t *testing.T, ctx context.Context, e *callEnv, from string) string {
			e.Admin.Do(http.MethodPut, "/api/org/settings", map[string]any{"max_call_duration": 2}).ExpectStatus(t, http.StatusOK)
			callID := "wacid.once.max"
			e.answeredCall(t, ctx, callID, from)
			return callID
		}},
		{"TransferTimeout", 1, func(t *testing.T, ctx context.Context, e *callEnv, from string) string {
			e.Admin.Do(http.MethodPut, "/api/org/settings", map[string]any{"transfer_timeout_secs": 1}).ExpectStatus(t, http.StatusOK)
			callID := "wacid.once.transfer"
			e.answeredCall(t, ctx, callID, from)
			e.Admin.Do(http.MethodPost, "/api/call-transfers/initiate", map[string]any{"call_log_id": e.callLog(t, callID).ID, "team_id": e.team}).
				ExpectStatus(t, http.StatusOK)
			return callID
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newCallEnv(t)
			engine := e.tuneMedia(t, 0)
			ctx := waitCtx(t)
			callID := tt.play(t, ctx, e, fmt.Sprintf("155500000%02d", 50+i))
			e.settled(t, callID, engine)
			if n := e.fake.CallRequests(callID, "terminate"); n != tt.want {
				t.Fatalf("terminate requests = %d, want %d (actions: %v)", n, tt.want, actionNames(e.fake, callID))
			}
			if n := e.fake.CallRequests(callID, "reject"); n != 0 {
				t.Fatalf("reject requests = %d after the call was accepted", n)
			}
		})
	}
}

// TestInitiatedTransferNoAnswer: a transfer started with POST
// /api/call-transfers/initiate that nobody answers within
// transfer_timeout_secs is no_answer and the call is hung up, as the IVR's
// unanswered transfers are (no IVR branches on this one).
func TestInitiatedTransferNoAnswer(t *testing.T) {
	e := newCallEnv(t)
	engine := e.tuneMedia(t, 0)
	e.Admin.Do(http.MethodPut, "/api/org/settings", map[string]any{"transfer_timeout_secs": 1}).ExpectStatus(t, http.StatusOK)
	ctx := waitCtx(t)
	const callID, from = "wacid.initiated.noanswer", "15550000061"
	e.answeredCall(t, ctx, callID, from)
	logID := e.callLog(t, callID).ID
	e.Admin.Do(http.MethodPost, "/api/call-transfers/initiate", map[string]any{"call_log_id": logID, "team_id": e.team}).
		ExpectStatus(t, http.StatusOK)
	e.onlyTransfer(t, callID, calltransfer.StatusNoAnswer)
	e.fake.WaitCallAction(t, callID, "terminate", 10*time.Second)
	l := e.settled(t, callID, engine)
	if l.Status != calllog.StatusCompleted || l.DisconnectedBy != calling.BySystem {
		t.Fatalf("log = %s by %q, want completed by system", l.Status, l.DisconnectedBy)
	}
}

// TestHangupBeforeRecordingMix: the agent's hangup is answered, and the
// call's one terminate sent, while the recording's mix (ffmpeg) is held;
// the recording is stored, and downloadable, once the mix may run.
func TestHangupBeforeRecordingMix(t *testing.T) {
	e := newCallEnv(t)
	engine := e.tuneMedia(t, 0)
	mix := holdMixes(t)
	ctx := waitCtx(t)
	callID := "wacid.mix.later"
	caller := e.answeredCall(t, ctx, callID, "15550000090")
	agent := mediatest.NewPeer(t)
	tr := e.connectAgent(t, ctx, callID, caller, agent)
	// The caller speaks, so the recording has audio to mix.
	agent.Reset()
	go func() { _ = caller.SendAudio(ctx, 25) }()
	if err := agent.WaitReceived(ctx, 20); err != nil {
		t.Fatalf("agent did not hear the caller: %v", err)
	}

	answered := make(chan *apitest.Response, 1)
	go func() { answered <- e.agent.Do(http.MethodPost, "/api/call-transfers/"+tr.ID.String()+"/hangup", nil) }()
	select {
	case resp := <-answered:
		resp.ExpectStatus(t, http.StatusOK)
	case <-ctx.Done():
		t.Fatal("the hangup was not answered while the recording's mix was held")
	}
	e.fake.WaitCallAction(t, callID, "terminate", 10*time.Second)
	mix.waitStarted(t)
	if l := e.callLog(t, callID); l.EndedAt == nil || l.RecordingStorageKey != "" {
		t.Fatalf("while the mix is held: ended %v, recording %q; want ended, no recording yet", l.EndedAt, l.RecordingStorageKey)
	}

	mix.release()
	l := e.settled(t, callID, engine)
	testkit.Eventually(t, "recording stored", func() bool {
		l = e.callLog(t, callID)
		return l.RecordingStorageKey != ""
	})
	link := e.Admin.Do(http.MethodGet, "/api/call-logs/"+l.ID.String()+"/recording", nil).ExpectStatus(t, http.StatusOK).String("data.url")
	rec := e.Anonymous().Do(http.MethodGet, strings.TrimPrefix(link, e.App.Cfg.PublicURL), nil)
	if rec.Status != http.StatusOK || !bytes.HasPrefix(rec.Raw, []byte("OggS")) {
		t.Fatalf("recording download: %d, %d bytes", rec.Status, len(rec.Raw))
	}
	if n := e.fake.CallRequests(callID, "terminate"); n != 1 {
		t.Fatalf("terminate requests = %d, want 1", n)
	}
}

// heldMixes is an ffmpeg put first on PATH that waits for release before
// running the real one.
type heldMixes struct{ dir string }

func holdMixes(t *testing.T) heldMixes {
	t.Helper()
	real := testenv.RequireTool(t, "ffmpeg")
	h := heldMixes{dir: t.TempDir()}
	script := fmt.Sprintf("#!/bin/sh\ntouch %q\nwhile [ ! -e %q ]; do sleep 0.05; done\nexec %q \"$@\"\n",
		filepath.Join(h.dir, "started"), filepath.Join(h.dir, "release"), real)
	if err := os.WriteFile(filepath.Join(h.dir, "ffmpeg"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", h.dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Cleanup(h.release) // before the server stops: it waits for the mixes
	return h
}

func (h heldMixes) waitStarted(t *testing.T) {
	t.Helper()
	testkit.Eventually(t, "the recording's mix started", func() bool {
		_, err := os.Stat(filepath.Join(h.dir, "started"))
		return err == nil
	})
}

func (h heldMixes) release() {
	_ = os.WriteFile(filepath.Join(h.dir, "release"), nil, 0o644)
}
