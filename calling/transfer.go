package calling

import (
	"context"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/calling/media"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/calllog"
	"switchboard/ent/calltransfer"
	"switchboard/ent/teammember"
	"switchboard/events"
)

// Transfer outcomes, as IVR transfer nodes branch on them.
const (
	OutcomeCompleted = "completed"
	OutcomeNoAnswer  = "no_answer"
	OutcomeAbandoned = "abandoned"
)

// startTransfer hands the caller to team (any agent of it, or agent):
// a waiting transfer, ringback for the caller, agents told over /ws, and
// no_answer once the organization's transfer_timeout_secs passed. An open
// transfer of the call (an agent talking) is completed first, its agent's
// leg closed. It returns the channel the transfer's outcome arrives on.
func (lc *liveCall) startTransfer(ctx context.Context, teamID, agentID *uuid.UUID) (uuid.UUID, <-chan string, error) {
	lc.mu.Lock()
	if lc.ended {
		lc.mu.Unlock()
		return uuid.Nil, nil, apperr.New(apperr.Conflict, "the call has ended")
	}
	prevAgent, prevBridge := lc.agent, lc.bridge
	lc.agent, lc.bridge = nil, nil
	outcome := make(chan string, 1)
	if lc.outcome != nil {
		select {
		case lc.outcome <- OutcomeCompleted:
		default:
		}
	}
	lc.outcome = outcome
	lc.mu.Unlock()
	if prevBridge != nil {
		prevBridge.Stop()
	}
	if prevAgent != nil {
		_ = prevAgent.Close()
	}
	var t *ent.CallTransfer
	err := database.InTx(ctx, lc.m.Client, func(ctx context.Context, db *ent.Client) error {
		l, err := db.CallLog.Get(ctx, lc.logID)
		if err != nil {
			return err
		}
		var evs []events.Event
		open, err := db.CallTransfer.Query().Where(calltransfer.CallLogID(lc.logID),
			calltransfer.StatusIn(calltransfer.StatusWaiting, calltransfer.StatusConnected)).All(ctx)
		if err != nil {
			return err
		}
		for _, o := range open {
			ev, err := moveTransfer(ctx, db, o, calltransfer.StatusCompleted, lc.m.now(), events.CallTransferCompleted)
			if err != nil {
				return err
			}
			evs = append(evs, ev...)
		}
		t, err = db.CallTransfer.Create().SetOrganizationID(lc.orgID).SetCallLogID(lc.logID).
			SetChatCallID(l.ChatCallID).SetCallerPhone(l.CallerPhone).SetNillableContactID(l.ContactID).
			SetChatAccount(l.ChatAccount).SetNillableTeamID(teamID).SetNillableAgentID(agentID).
			SetTransferredAt(lc.m.now()).Save(ctx)
		if err != nil {
			return err
		}
		evs = append(evs, events.Event{Type: events.CallTransferWaiting, OrgID: lc.orgID, Payload: transferEvent(t)})
		return lc.m.Events.Record(ctx, evs...)
	})
	if err != nil {
		return uuid.Nil, nil, apperr.Wrap(err, "call transfer")
	}
	lc.mu.Lock()
	lc.transferID = t.ID
	lc.mu.Unlock()
	lc.playOrg(lc.org.RingbackFile)
	timeout := time.Duration(lc.org.TransferTimeoutSecs) * time.Second
	if timeout > 0 {
		id := t.ID
		lc.after(timeout, func() { lc.noAnswer(id) })
	}
	return t.ID, outcome, nil
}

// playOrg plays one of the organization's audio files to the caller in a
// loop (ringback, hold music), or silence when it has none.
func (lc *liveCall) playOrg(name string) {
	lc.mu.Lock()
	caller := lc.caller
	lc.mu.Unlock()
	if caller == nil {
		return
	}
	if name == "" || lc.m.Audio == nil {
		caller.Stop()
		return
	}
	f, err := lc.m.Audio.Open(lc.orgID, name)
	if err != nil {
		lc.m.Log.Warn("organization audio missing", "file", name, "error", err)
		caller.Stop()
		return
	}
	path := f.Name()
	_ = f.Close()
	src, err := media.OggFile(path, true)
	if err != nil {
		lc.m.Log.Warn("organization audio unreadable", "file", name, "error", err)
		caller.Stop()
		return
	}
	caller.Play(src)
}

// noAnswer ends transfer id as no_answer if it is still waiting.
func (lc *liveCall) noAnswer(id uuid.UUID) {
	ctx := lc.ctx0()
	moved := false
	err := database.InTx(ctx, lc.m.Client, func(ctx context.Context, db *ent.Client) error {
		t, err := db.CallTransfer.Get(ctx, id)
		if err != nil || t.Status != calltransfer.StatusWaiting {
			return err
		}
		evs, err := moveTransfer(ctx, db, t, calltransfer.StatusNoAnswer, lc.m.now(), events.CallTransferNoAnswer)
		if err != nil {
			return err
		}
		moved = len(evs) > 0
		return lc.m.Events.Record(ctx, evs...)
	})
	if err != nil {
		lc.m.Log.Error("ending an unanswered transfer failed", "transfer_id", id, "error", err)
		return
	}
	if moved {
		lc.finishTransfer(id, OutcomeNoAnswer)
	}
}

// finishTransfer tells whoever waits on transfer id (the IVR) its outcome.
func (lc *liveCall) finishTransfer(id uuid.UUID, outcome string) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.transferID != id {
		return
	}
	lc.transferID = uuid.Nil
	if lc.outcome != nil {
		select {
		case lc.outcome <- outcome:
		default:
		}
		lc.outcome = nil
	}
}

// connectAgent answers the agent browser's SDP offer and bridges it to the
// caller: the waiting transfer becomes connected to userID, who must be
// the transfer's agent or, without one, a member of its team (any agent
// when it has no team).
func (lc *liveCall) connectAgent(ctx context.Context, transferID, userID uuid.UUID, offer string) (string, error) {
	t, err := lc.m.Client.CallTransfer.Get(ctx, transferID)
	if err != nil {
		return "", apperr.Wrap(err, "call transfer")
	}
	if t.Status != calltransfer.StatusWaiting {
		return "", apperr.New(apperr.Conflict, "the transfer is %s, not waiting", t.Status)
	}
	if err := lc.m.mayTake(ctx, t, userID); err != nil {
		return "", err
	}
	leg, answer, err := lc.m.Engine.Answer(lc.ctx, offer, media.LegOptions{OnClose: lc.agentGone})
	if err != nil {
		return "", apperr.Invalidf("sdp_offer is not a usable SDP offer")
	}
	now := lc.m.now()
	err = database.InTx(ctx, lc.m.Client, func(ctx context.Context, db *ent.Client) error {
		n, err := db.CallTransfer.Update().Where(calltransfer.ID(transferID), calltransfer.StatusEQ(calltransfer.StatusWaiting)).
			SetStatus(calltransfer.StatusConnected).SetAgentID(userID).SetConnectedAt(now).
			SetHoldDuration(max(0, int(now.Sub(t.TransferredAt).Seconds()))).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return apperr.New(apperr.Conflict, "another agent took the transfer")
		}
		if err := db.CallLog.UpdateOneID(lc.logID).SetAgentID(userID).Exec(ctx); err != nil {
			return err
		}
		t, err = db.CallTransfer.Get(ctx, transferID)
		if err != nil {
			return err
		}
		return lc.m.Events.Record(ctx, events.Event{Type: events.CallTransferConnected, OrgID: lc.orgID, Payload: transferEvent(t)})
	})
	if err != nil {
		_ = leg.Close()
		return "", apperr.Wrap(err, "call transfer")
	}
	lc.mu.Lock()
	caller := lc.caller
	lc.agent = leg
	lc.bridge = media.Bridge(caller, leg)
	// The menus are over: the caller's audio need not be decoded for keys.
	caller.SetInBandDTMF(false)
	lc.mu.Unlock()
	lc.record(leg, "agent")
	return answer, nil
}

// mayTake checks that userID may answer transfer t.
func (m *Manager) mayTake(ctx context.Context, t *ent.CallTransfer, userID uuid.UUID) error {
	if t.AgentID != nil {
		if *t.AgentID != userID {
			return apperr.Forbiddenf("the transfer is for another agent")
		}
		return nil
	}
	if t.TeamID == nil {
		return nil
	}
	ok, err := m.Client.TeamMember.Query().Where(teammember.TeamID(*t.TeamID), teammember.UserID(userID)).Exist(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return apperr.Forbiddenf("the transfer is for a team you are not a member of")
	}
	return nil
}

// agentGone: an agent's leg closed. One this call let go (a new transfer
// replaced it) or closed itself while ending is no news; the current
// agent's leg closing by itself is the browser's connection failing (or
// the browser leaving without hanging up): the caller is not left alone
// on a dead bridge, and the call ends failed, not as the agent's hangup.
func (lc *liveCall) agentGone() {
	lc.mu.Lock()
	agent, ended := lc.agent, lc.ended
	lc.mu.Unlock()
	if ended || agent == nil || !isClosed(agent.Done()) {
		return
	}
	go lc.end(context.Background(), ending{by: ByAgentMediaFailed, failed: true})
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// hold plays the organization's hold music to the caller and silences the
// agent; resume restores the bridge. Hold time counts in the transfer's
// hold_duration.
func (lc *liveCall) hold(ctx context.Context) error {
	lc.mu.Lock()
	if lc.agent == nil || lc.bridge == nil {
		lc.mu.Unlock()
		return apperr.New(apperr.Conflict, "the call is not connected to an agent")
	}
	bridge, agent := lc.bridge, lc.agent
	lc.bridge = nil
	lc.holdStarted = lc.m.now()
	lc.mu.Unlock()
	bridge.Stop()
	agent.Stop()
	lc.playOrg(lc.org.HoldMusicFile)
	return lc.m.Events.Record(ctx, events.Event{Type: events.CallHold, OrgID: lc.orgID, Payload: map[string]any{"id": lc.logID, "call_log_id": lc.logID}})
}

func (lc *liveCall) resume(ctx context.Context) error {
	lc.mu.Lock()
	if lc.agent == nil || lc.holdStarted.IsZero() {
		lc.mu.Unlock()
		return apperr.New(apperr.Conflict, "the call is not on hold")
	}
	held := int(lc.m.now().Sub(lc.holdStarted).Seconds())
	lc.holdStarted = time.Time{}
	lc.bridge = media.Bridge(lc.caller, lc.agent)
	transferID := lc.transferID
	lc.mu.Unlock()
	if transferID != uuid.Nil && held > 0 {
		if err := lc.m.Client.CallTransfer.UpdateOneID(transferID).AddHoldDuration(held).Exec(ctx); err != nil {
			return err
		}
	}
	return lc.m.Events.Record(ctx, events.Event{Type: events.CallResumed, OrgID: lc.orgID, Payload: map[string]any{"id": lc.logID, "call_log_id": lc.logID}})
}

// liveLogOf returns the call log of an open call (404 unknown, 409 ended).
func (m *Manager) liveLogOf(ctx context.Context, logID uuid.UUID) (*ent.CallLog, error) {
	l, err := m.Client.CallLog.Get(ctx, logID)
	if err != nil {
		return nil, apperr.Wrap(err, "call log")
	}
	if l.EndedAt != nil || l.Status == calllog.StatusCompleted {
		return nil, apperr.New(apperr.Conflict, "the call has ended")
	}
	return l, nil
}
