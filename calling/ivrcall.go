package calling

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"switchboard/calling/ivr"
	"switchboard/calling/media"
	"switchboard/ent"
	"switchboard/ent/calllog"
	"switchboard/ent/ivrflow"
)

// maxFlowHops bounds goto_flow jumps in one call.
const maxFlowHops = 10

// CallbackTimeout bounds an IVR http_callback request (a node may ask
// for less).
const CallbackTimeout = 30 * time.Second

// maxCallbackBody bounds an http_callback's answer kept in a variable.
const maxCallbackBody = 64 << 10

// runIVR runs the account's call-start IVR flow on the call, following
// goto_flow jumps; without one the caller waits for any agent.
func (lc *liveCall) runIVR() {
	ctx, cancel := context.WithCancel(lc.ctx)
	lc.mu.Lock()
	lc.ivrCancel = cancel
	lc.mu.Unlock()
	defer cancel()
	flow, err := lc.m.Client.IVRFlow.Query().Where(ivrflow.ChatAccount(lc.account.Name), ivrflow.IsCallStart(true),
		ivrflow.IsActive(true), ivrflow.DeletedAtIsNil()).First(ctx)
	if ent.IsNotFound(err) {
		lc.waitForAnyAgent(ctx)
		return
	}
	if err != nil {
		lc.m.Log.Error("loading a call's IVR flow failed", "call_log_id", lc.logID, "error", err)
		return
	}
	loc, _ := time.LoadLocation(lc.org.Timezone)
	var vars map[string]string
	for hop := 0; hop <= maxFlowHops; hop++ {
		_ = lc.m.Client.CallLog.Update().Where(calllog.ID(lc.logID)).SetIvrFlowID(flow.ID).Exec(ctx)
		g, err := ivr.Parse(flow.Menu)
		if err != nil {
			lc.m.Log.Error("a stored IVR flow does not parse", "ivr_flow_id", flow.ID, "error", err)
			return
		}
		res, err := ivr.Run(ctx, g, lc, ivr.RunOptions{CallID: lc.callID, CallerPhone: lc.callerPhone(), Variables: vars, Location: loc})
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			lc.m.Log.Warn("IVR run failed", "ivr_flow_id", flow.ID, "error", err)
		}
		if res.End != ivr.EndGotoFlow {
			lc.afterIVR(res.End)
			return
		}
		vars = res.Variables
		flow, err = lc.m.Client.IVRFlow.Query().Where(ivrflow.ID(res.GotoFlowID), ivrflow.DeletedAtIsNil()).Only(ctx)
		if err != nil {
			lc.m.Log.Warn("goto_flow target missing", "ivr_flow_id", res.GotoFlowID, "error", err)
			lc.hangup(context.Background(), BySystem)
			return
		}
	}
	lc.hangup(context.Background(), BySystem)
}

// afterIVR hangs up once a run ended, unless it left the caller talking
// to an agent: a run's transfer returns only when the transfer ended
// (no_answer, abandoned), and a graph's end or hangup node ends the call.
func (lc *liveCall) afterIVR(end ivr.End) {
	lc.mu.Lock()
	talking := lc.agent != nil
	lc.mu.Unlock()
	if end == ivr.EndTransfer && talking {
		return
	}
	lc.hangup(context.Background(), BySystem)
}

// waitForAnyAgent transfers a call with no IVR to every agent.
func (lc *liveCall) waitForAnyAgent(ctx context.Context) {
	_, outcome, err := lc.startTransfer(ctx, nil, nil)
	if err != nil {
		lc.m.Log.Warn("transferring a call failed", "call_log_id", lc.logID, "error", err)
		return
	}
	lc.hangUpUnanswered(outcome)
}

// hangUpUnanswered waits for the outcome of a transfer no IVR branches on
// (a call without IVR, or one handed over by POST
// /api/call-transfers/initiate) and hangs up when nobody answered it.
func (lc *liveCall) hangUpUnanswered(outcome <-chan string) {
	select {
	case o := <-outcome:
		if o == OutcomeNoAnswer {
			lc.hangup(context.Background(), BySystem)
		}
	case <-lc.ctx.Done():
	}
}

func (lc *liveCall) stopIVR() {
	lc.mu.Lock()
	cancel := lc.ivrCancel
	lc.ivrCancel = nil
	lc.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (lc *liveCall) callerPhone() string {
	l, err := lc.m.Client.CallLog.Get(lc.ctx, lc.logID)
	if err != nil {
		return ""
	}
	return l.CallerPhone
}

// Play implements ivr.Call.
func (lc *liveCall) Play(ctx context.Context, p ivr.Prompt) (rune, error) {
	path, err := lc.promptFile(ctx, p)
	if err != nil || path == "" {
		return 0, err
	}
	src, err := media.OggFile(path, false)
	if err != nil {
		return 0, err
	}
	lc.mu.Lock()
	caller := lc.caller
	lc.mu.Unlock()
	done := caller.Play(src)
	var digits <-chan rune
	if p.Interruptible {
		digits = lc.digits
	}
	select {
	case <-done:
		return 0, nil
	case d := <-digits:
		caller.Stop()
		return d, nil
	case <-ctx.Done():
		caller.Stop()
		return 0, ctx.Err()
	}
}

// promptFile is the Ogg/Opus file of a prompt: its audio file, else its
// text spoken.
func (lc *liveCall) promptFile(ctx context.Context, p ivr.Prompt) (string, error) {
	if p.AudioFile != "" && lc.m.Audio != nil {
		f, err := lc.m.Audio.Open(lc.orgID, p.AudioFile)
		if err != nil {
			return "", err
		}
		defer f.Close()
		return f.Name(), nil
	}
	if p.Text != "" && lc.m.Speech != nil {
		return lc.m.Speech(ctx, lc.orgID, p.Text)
	}
	return "", nil
}

// Digits implements ivr.Call.
func (lc *liveCall) Digits() <-chan rune { return lc.digits }

// Transfer implements ivr.Call.
func (lc *liveCall) Transfer(ctx context.Context, teamID, agentID string) (string, error) {
	team, agent := parseOptionalID(teamID), parseOptionalID(agentID)
	_, outcome, err := lc.startTransfer(ctx, team, agent)
	if err != nil {
		return "", err
	}
	select {
	case o := <-outcome:
		return o, nil
	case <-ctx.Done():
		return OutcomeAbandoned, ctx.Err()
	}
}

func parseOptionalID(s string) *uuid.UUID {
	id, err := uuid.Parse(s)
	if err != nil {
		return nil
	}
	return &id
}

// Hangup implements ivr.Call: the call ends before the run returns, so
// that the run's end finds it ended and sends nothing more.
func (lc *liveCall) Hangup(ctx context.Context) error {
	lc.hangup(context.WithoutCancel(ctx), BySystem)
	return nil
}

// HTTP implements ivr.Call through the outbound guard's client.
func (lc *liveCall) HTTP(ctx context.Context, req ivr.HTTPRequest) (int, []byte, error) {
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
	}
	var body io.Reader
	if req.Body != "" {
		body = strings.NewReader(req.Body)
	}
	r, err := http.NewRequestWithContext(ctx, req.Method, req.URL, body)
	if err != nil {
		return 0, nil, err
	}
	for k, v := range req.Headers {
		r.Header.Set(k, v)
	}
	client := lc.m.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(r)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, err = io.Copy(&buf, io.LimitReader(resp.Body, maxCallbackBody))
	return resp.StatusCode, buf.Bytes(), err
}

// logByCallID finds the call log of a platform call id.
func (m *Manager) logByCallID(ctx context.Context, callID string) (*ent.CallLog, error) {
	return m.Client.CallLog.Query().Where(calllog.ChatCallID(callID)).Only(ctx)
}
