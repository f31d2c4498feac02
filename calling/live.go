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
	ended       bool
	endOnce     sync.Once
	timers      []*time.Timer
}

func (m *Manager) newLiveCall(org *ent.Organization, acc *ent.Account, plat provider.Account, logID uuid.UUID, callID string) *liveCall {
	ctx, cancel := context.WithCancel(viewer.SystemContext(context.Background(), org.ID))
	return &liveCall{
		m: m, orgID: org.ID, logID: logID, callID: callID, account: acc, plat: plat, org: org,
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

// answerIncoming answers a user's call: SDP answer, pre_accept and accept
// at the platform, then the account's IVR (or a transfer to any agent).
// A call the organization does not take (calling off) is rejected.
func (m *Manager) answerIncoming(orgID, logID uuid.UUID, ev PlatformEvent) {
	ctx := viewer.SystemContext(context.Background(), orgID)
	log := m.Log.With("call_log_id", logID, "call_id", ev.CallID)
	org, err := m.Client.Organization.Get(ctx, orgID)
	if err != nil {
		log.Error("loading the organization of a call failed", "error", err)
		return
	}
	plat, err := m.providerAccount(ev.Account)
	if err != nil {
		log.Error("a call's account has no usable credentials", "error", err)
		m.finish(ctx, logID, calllog.StatusFailed, "system")
		return
	}
	if !org.CallingEnabled || !ev.Account.BusinessCallingEnabled {
		if err := m.Provider.EndCall(ctx, plat, ev.CallID, provider.CallReject); err != nil {
			log.Warn("rejecting a call failed", "error", err)
		}
		m.finish(ctx, logID, calllog.StatusRejected, "business")
		return
	}
	lc := m.newLiveCall(org, ev.Account, plat, logID, ev.CallID)
	leg, answer, err := m.Engine.Answer(lc.ctx, ev.SDP, media.LegOptions{OnDTMF: lc.pressed, InBandDTMF: true, OnClose: lc.callerGone})
	if err != nil {
		log.Warn("answering a call's SDP offer failed", "error", err)
		_ = m.Provider.EndCall(ctx, plat, ev.CallID, provider.CallReject)
		m.finish(ctx, logID, calllog.StatusFailed, "system")
		return
	}
	lc.caller = leg
	if err := m.register(ctx, lc); err != nil {
		log.Error("claiming a call failed", "error", err)
	}
	for _, action := range []string{provider.CallPreAccept, provider.CallAccept} {
		if err := m.Provider.AnswerCall(ctx, plat, ev.CallID, action, answer); err != nil {
			log.Warn("answering a call at the platform failed", "action", action, "error", err)
			lc.end(ctx, "system", false)
			m.finish(ctx, logID, calllog.StatusFailed, "system")
			return
		}
	}
	if err := m.markAnswered(ctx, logID); err != nil {
		log.Error("marking a call answered failed", "error", err)
	}
	lc.record(leg, "caller")
	lc.limitDuration()
	go lc.runIVR()
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
		lc.hangup(context.Background(), "system")
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

// callerGone: the platform's leg closed (the caller left or media
// failed). The terminate webhook usually comes too; whichever is first
// ends the call.
func (lc *liveCall) callerGone() {
	go lc.end(context.Background(), "contact", false)
}

// hangup ends the call at the platform and here.
func (lc *liveCall) hangup(ctx context.Context, by string) {
	if err := lc.m.Provider.EndCall(ctx, lc.plat, lc.callID, provider.CallTerminate); err != nil {
		var pe *provider.Error
		if !errors.As(err, &pe) {
			lc.m.Log.Warn("terminating a call at the platform failed", "call_log_id", lc.logID, "error", err)
		}
	}
	lc.end(ctx, by, false)
}

// end tears the call down once: the IVR stops, timers stop, media closes,
// the log (if still open) ends as completed by by, and the recording is
// mixed and stored. platformToo also terminates it at the platform.
func (lc *liveCall) end(ctx context.Context, by string, platformToo bool) {
	lc.endOnce.Do(func() {
		if platformToo {
			_ = lc.m.Provider.EndCall(ctx, lc.plat, lc.callID, provider.CallTerminate)
		}
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
			case lc.outcome <- "abandoned":
			default:
			}
		}
		bridge, caller, agent := lc.bridge, lc.caller, lc.agent
		recs, paths := lc.recordings, lc.recPaths
		lc.mu.Unlock()
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
		status := calllog.StatusCompleted
		if l, err := lc.m.Client.CallLog.Get(lc.ctx0(), lc.logID); err == nil && l.AnsweredAt == nil {
			status = calllog.StatusFailed
		}
		lc.m.finish(lc.ctx0(), lc.logID, status, by)
		lc.m.storeRecording(lc.ctx0(), lc.orgID, lc.logID, recs, paths)
	})
}

// ctx0 is a context of the call's organization that outlives the call.
func (lc *liveCall) ctx0() context.Context {
	return viewer.SystemContext(context.Background(), lc.orgID)
}

// closeLive ends the live call logID after the platform ended it (the
// terminate webhook): here when it is this node's, else on its node.
func (m *Manager) closeLive(logID uuid.UUID) {
	if lc := m.local(logID); lc != nil {
		lc.end(context.Background(), "contact", false)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), controlTimeout)
	defer cancel()
	if _, err := m.routeRemote(ctx, logID, controlRequest{Op: opClose}); err != nil && apperr.CodeOf(err) != apperr.NotFound {
		m.Log.Warn("closing a call on its node failed", "call_log_id", logID, "error", err)
	}
}

// putRecording hands the mixed file to the recording store.
func (m *Manager) putRecording(key, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return m.Recordings.Put(key, f)
}

// storeRecording mixes a call's recorded legs into one file and stores its
// key and duration on the log.
func (m *Manager) storeRecording(ctx context.Context, orgID, logID uuid.UUID, recs []*media.Recording, parts []string) {
	if len(recs) == 0 {
		return
	}
	for _, r := range recs {
		if _, err := r.Stop(); err != nil {
			m.Log.Warn("finishing a recording failed", "call_log_id", logID, "error", err)
		}
	}
	defer func() {
		for _, p := range parts {
			_ = os.Remove(p)
		}
	}()
	key := RecordingKey(orgID, logID)
	mixed := filepath.Join(m.RecordingWork, orgID.String(), logID.String()+"-mixed.ogg")
	defer os.Remove(mixed)
	mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	d, err := media.MixRecordings(mctx, mixed, parts...)
	if err != nil {
		m.Log.Warn("mixing a call's recording failed", "call_log_id", logID, "error", err)
		return
	}
	if err := m.putRecording(key, mixed); err != nil {
		m.Log.Error("storing a call's recording failed", "call_log_id", logID, "error", err)
		return
	}
	err = m.Client.CallLog.UpdateOneID(logID).SetRecordingStorageKey(key).
		SetRecordingDuration(int(d.Round(time.Second) / time.Second)).Exec(ctx)
	if err != nil {
		m.Log.Error("storing a call's recording failed", "call_log_id", logID, "error", err)
	}
}
