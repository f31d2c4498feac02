package calling

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/calling/media"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/calllog"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/provider"
)

// liveCall is a call whose media this node holds: the platform's leg (the
// caller) and, once an agent connects, the agent browser's leg.
type liveCall struct {
	m       *Manager
	orgID   uuid.UUID
	logID   uuid.UUID
	callID  string // the platform's
	account *ent.Account
	plat    provider.Account
	org     *ent.Organization
	// incoming is a user's call: until it is accepted, the platform is
	// told to reject it rather than to terminate it.
	incoming bool

	// ctx ends when the call ends; cancel ends it.
	ctx    context.Context
	cancel context.CancelFunc
	digits chan rune

	mu          sync.Mutex
	caller      *media.Leg
	agent       *media.Leg
	bridge      *media.Bridged
	transferID  uuid.UUID   // the open transfer (uuid.Nil: none)
	outcome     chan string // the open transfer's end, for the IVR waiting on it
	ivrCancel   func()      // stops the IVR run (nil: none running)
	holdStarted time.Time   // zero when not on hold
	recordings  []*media.Recording
	recPaths    []string
	accepted    bool // accept was sent for a user's call
	ended       bool
	endOnce     sync.Once
	timers      []*time.Timer
}

func (m *Manager) newLiveCall(org *ent.Organization, acc *ent.Account, plat provider.Account, logID uuid.UUID, callID string, incoming bool) *liveCall {
	ctx, cancel := context.WithCancel(viewer.SystemContext(context.Background(), org.ID))
	return &liveCall{
		m: m, orgID: org.ID, logID: logID, callID: callID, account: acc, plat: plat, org: org, incoming: incoming,
		ctx: ctx, cancel: cancel, digits: make(chan rune, 32),
	}
}

// pressed queues a caller's key press for the IVR (dropped when nobody
// reads them and the queue is full).
func (lc *liveCall) pressed(d rune) {
	select {
	case lc.digits <- d:
	default:
	}
}

// answerIncoming answers a user's call as the platform's calling guide
// has it: pre_accept with the SDP answer at once, then accept once the
// caller's media is connected (ICE and DTLS), so that the greeting's first
// words are not clipped; then the account's IVR (or a transfer to any
// agent). A call the organization does not take (calling off) is
// rejected, and so is one whose media does not connect within
// MediaTimeout (logged failed, disconnected_by media_timeout).
//
// org is as the webhook's transaction read it (StoreCallEvents).
func (m *Manager) answerIncoming(org *ent.Organization, logID uuid.UUID, ev PlatformEvent) {
	ctx := viewer.SystemContext(context.Background(), org.ID)
	log := m.Log.With("call_log_id", logID, "call_id", ev.CallID)
	plat, err := m.providerAccount(ev.Account)
	if err != nil {
		log.Error("a call's account has no usable credentials", "error", err)
		m.finish(ctx, logID, calllog.StatusFailed, BySystem)
		return
	}
	if !org.CallingEnabled || !ev.Account.BusinessCallingEnabled {
		if err := m.Provider.EndCall(ctx, plat, ev.CallID, provider.CallReject); err != nil {
			log.Warn("rejecting a call failed", "error", err)
		}
		m.finish(ctx, logID, calllog.StatusRejected, ByBusiness)
		return
	}
	lc := m.newLiveCall(org, ev.Account, plat, logID, ev.CallID, true)
	leg, answer, err := m.Engine.Answer(lc.ctx, ev.SDP, media.LegOptions{OnDTMF: lc.pressed, InBandDTMF: true, OnClose: lc.callerGone})
	if err != nil {
		log.Warn("answering a call's SDP offer failed", "error", err)
		_ = m.Provider.EndCall(ctx, plat, ev.CallID, provider.CallReject)
		m.finish(ctx, logID, calllog.StatusFailed, BySystem)
		return
	}
	lc.caller = leg
	if err := m.register(ctx, lc); err != nil {
		log.Error("claiming a call failed", "error", err)
	}
	if err := m.Provider.AnswerCall(ctx, plat, ev.CallID, provider.CallPreAccept, answer); err != nil {
		log.Warn("pre-accepting a call at the platform failed", "error", err)
		lc.end(ctx, ending{by: BySystem, failed: true})
		return
	}
	if !lc.awaitMedia(leg) || !lc.accept(ctx, answer) {
		return
	}
	if err := m.markAnswered(ctx, logID); err != nil {
		log.Error("marking a call answered failed", "error", err)
	}
	lc.record(leg, "caller")
	lc.limitDuration()
	go lc.runIVR()
}

// awaitMedia waits until the caller's leg is connected. It reports false
// when the call ended meanwhile (the caller left, its media failed) or
// when MediaTimeout passed first: the call is then ended (rejected at the
// platform, logged failed by media_timeout).
func (lc *liveCall) awaitMedia(leg *media.Leg) bool {
	limit := lc.m.mediaTimeout()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-leg.Connected():
		return lc.ctx.Err() == nil
	case <-lc.ctx.Done():
		return false
	case <-timer.C:
		lc.m.Log.Warn("a call's media did not connect in time: rejecting it", "call_log_id", lc.logID, "timeout", limit)
		lc.end(context.Background(), ending{by: ByMediaTimeout, failed: true})
		return false
	}
}

// accept accepts the user's call at the platform; on failure the call
// ends, failed.
func (lc *liveCall) accept(ctx context.Context, answer string) bool {
	lc.mu.Lock()
	lc.accepted = true // from here on the platform's call is terminated, not rejected
	lc.mu.Unlock()
	if err := lc.m.Provider.AnswerCall(ctx, lc.plat, lc.callID, provider.CallAccept, answer); err != nil {
		lc.m.Log.Warn("accepting a call at the platform failed", "call_log_id", lc.logID, "error", err)
		lc.end(ctx, ending{by: BySystem, failed: true})
		return false
	}
	return true
}

// markAnswered moves a ringing call log to answered.
func (m *Manager) markAnswered(ctx context.Context, logID uuid.UUID) error {
	return database.InTx(ctx, m.Client, func(ctx context.Context, db *ent.Client) error {
		now := m.now()
		n, err := db.CallLog.Update().Where(calllog.ID(logID), calllog.EndedAtIsNil(), calllog.AnsweredAtIsNil()).
			SetStatus(calllog.StatusAnswered).SetAnsweredAt(now).Save(ctx)
		if err != nil || n == 0 {
			return err
		}
		l, err := db.CallLog.Get(ctx, logID)
		if err != nil {
			return err
		}
		return m.Events.Record(ctx, events.Event{Type: events.CallAnswered, OrgID: l.OrganizationID, Payload: callLogEvent(l, "")})
	})
}

// finish ends a call log that is not live on this node (or no longer).
func (m *Manager) finish(ctx context.Context, logID uuid.UUID, status calllog.Status, by string) {
	err := database.InTx(ctx, m.Client, func(ctx context.Context, db *ent.Client) error {
		l, err := db.CallLog.Get(ctx, logID)
		if err != nil {
			return err
		}
		evs, err := m.endLog(ctx, db, l, status, by, m.now(), 0)
		if err != nil {
			return err
		}
		return m.Events.Record(ctx, evs...)
	})
	if err != nil && !ent.IsNotFound(err) {
		m.Log.Error("ending a call log failed", "call_log_id", logID, "error", err)
	}
}

// limitDuration hangs up once the organization's max_call_duration passed.
func (lc *liveCall) limitDuration() {
	limit := time.Duration(lc.org.MaxCallDuration) * time.Second
	if limit <= 0 {
		return
	}
	lc.after(limit, func() {
		lc.m.Log.Info("call reached the organization's maximum duration", "call_log_id", lc.logID)
		lc.hangup(context.Background(), BySystem)
	})
}

// after runs fn once d passed, unless the call ended first.
func (lc *liveCall) after(d time.Duration, fn func()) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.ended {
		return
	}
	lc.timers = append(lc.timers, time.AfterFunc(d, fn))
}

// record starts recording what leg receives (who: "caller" or "agent").
func (lc *liveCall) record(leg *media.Leg, who string) {
	if lc.m.Recordings == nil || lc.m.RecordingWork == "" {
		return
	}
	dir := filepath.Join(lc.m.RecordingWork, lc.orgID.String())
	if err := os.MkdirAll(dir, 0o750); err != nil {
		lc.m.Log.Warn("recording directory", "error", err)
		return
	}
	path := filepath.Join(dir, lc.logID.String()+"-"+who+"-"+uuid.NewString()[:8]+".ogg")
	rec, err := leg.Record(path)
	if err != nil {
		lc.m.Log.Warn("starting a recording failed", "call_log_id", lc.logID, "error", err)
		return
	}
	lc.mu.Lock()
	lc.recordings = append(lc.recordings, rec)
	lc.recPaths = append(lc.recPaths, path)
	lc.mu.Unlock()
}

// callerGone: the platform's leg closed by itself (ICE or DTLS failed, or
// it never connected): the caller hears nothing any more. A call the
// platform or this node already ended closed the leg itself and is left
// alone; otherwise the media failure ends the call at the platform,
// failed.
func (lc *liveCall) callerGone() {
	go lc.end(context.Background(), ending{by: ByContactMediaFailed, failed: true})
}

// hangup ends the call at the platform and here.
func (lc *liveCall) hangup(ctx context.Context, by string) {
	lc.end(ctx, ending{by: by})
}

// ending is how a call ends.
type ending struct {
	// by is who or what ended it (the log's disconnected_by).
	by string
	// failed logs it failed (a media failure); otherwise it is completed
	// once answered, failed before.
	failed bool
	// platformEnded: the platform ended the call (terminate webhook,
	// REJECTED), so nothing is sent to it.
	platformEnded bool
}

// end tears the call down once, whatever asks first: the platform is told
// (reject before a user's call is accepted, terminate after; nothing when
// the platform ended it), the IVR and timers stop, media closes and the
// log (if still open) ends. The recording is mixed and stored afterwards,
// in the background (storeRecordingLater): mixing takes ffmpeg a second or
// more per call, which a hangup request must not wait for. Later calls,
// such as the legs' own close callbacks, do nothing.
func (lc *liveCall) end(ctx context.Context, e ending) {
	lc.endOnce.Do(func() {
		lc.mu.Lock()
		lc.ended = true
		for _, t := range lc.timers {
			t.Stop()
		}
		if lc.ivrCancel != nil {
			lc.ivrCancel()
		}
		if lc.outcome != nil {
			select {
			case lc.outcome <- OutcomeAbandoned:
			default:
			}
		}
		bridge, caller, agent := lc.bridge, lc.caller, lc.agent
		recs, paths := lc.recordings, lc.recPaths
		lc.mu.Unlock()
		if !e.platformEnded {
			lc.endAtPlatform(ctx)
		}
		if bridge != nil {
			bridge.Stop()
		}
		for _, leg := range []*media.Leg{caller, agent} {
			if leg != nil {
				_ = leg.Close()
			}
		}
		lc.cancel()
		lc.m.unregister(lc)
		lc.m.finish(lc.ctx0(), lc.logID, lc.endStatus(e), e.by)
		lc.m.storeRecordingLater(lc.orgID, lc.logID, recs, paths)
	})
}

// endAtPlatform rejects a user's call not yet accepted and terminates any
// other. A refusal (the platform ended the call meanwhile) is not worth
// a warning.
func (lc *liveCall) endAtPlatform(ctx context.Context) {
	lc.mu.Lock()
	action := provider.CallTerminate
	if lc.incoming && !lc.accepted {
		action = provider.CallReject
	}
	lc.mu.Unlock()
	err := lc.m.Provider.EndCall(ctx, lc.plat, lc.callID, action)
	var pe *provider.Error
	if err != nil && !errors.As(err, &pe) {
		lc.m.Log.Warn("ending a call at the platform failed", "call_log_id", lc.logID, "action", action, "error", err)
	}
}

// endStatus is the status an ending leaves the log in.
func (lc *liveCall) endStatus(e ending) calllog.Status {
	if e.failed {
		return calllog.StatusFailed
	}
	l, err := lc.m.Client.CallLog.Get(lc.ctx0(), lc.logID)
	if err == nil && l.AnsweredAt == nil {
		return calllog.StatusFailed
	}
	return calllog.StatusCompleted
}

// discard drops a call whose setup failed before it went live: its legs
// close without anything sent to the platform or logged.
func (lc *liveCall) discard(legs ...*media.Leg) {
	lc.endOnce.Do(func() {
		lc.mu.Lock()
		lc.ended = true
		lc.mu.Unlock()
		for _, leg := range legs {
			if leg != nil {
				_ = leg.Close()
			}
		}
		lc.cancel()
	})
}

// platformEnded ends the call after the platform ended it.
func (lc *liveCall) platformEnded(ctx context.Context) {
	lc.end(ctx, ending{by: ByContact, platformEnded: true})
}

// ctx0 is a context of the call's organization that outlives the call.
func (lc *liveCall) ctx0() context.Context {
	return viewer.SystemContext(context.Background(), lc.orgID)
}

// closeLive ends the live call logID after the platform ended it (the
// terminate webhook, REJECTED): here when it is this node's, else on its
// node. Nothing is sent to the platform.
func (m *Manager) closeLive(logID uuid.UUID) {
	if lc := m.local(logID); lc != nil {
		lc.platformEnded(context.Background())
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), controlTimeout)
	defer cancel()
	// Conflict: no node holds the call any more (it ended here first, as
	// after a hangup, whose terminate webhook follows): nothing to close.
	if _, err := m.routeRemote(ctx, logID, controlRequest{Op: opClose}); err != nil && apperr.CodeOf(err) != apperr.NotFound && apperr.CodeOf(err) != apperr.Conflict {
		m.Log.Warn("closing a call on its node failed", "call_log_id", logID, "error", err)
	}
}
