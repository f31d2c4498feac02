package transfers

// Timers of transfers. Each is a transfer_timers row with a due time; its
// asynq task (one per row, task id "transfer-timer:<id>", processed at the
// due time) only carries ids. A worker fires a timer by moving its row
// from pending to fired with a conditional UPDATE in the transaction that
// does what the timer does, after locking the transfer: two workers (on
// one node or two) that run it at once take turns, and the second finds
// it fired and does nothing. A timer whose condition is met first
// (the agent answered, the transfer was resumed, the contact replied) is
// cancelled, and its task, when it runs, does nothing. The recovery sweep
// queues pending timers again after a crash or a lost Redis; the task id
// keeps a task still queued from being queued twice, and the row keeps a
// timer from firing twice whatever the queue does.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/agenttransfer"
	"switchboard/ent/rule"
	"switchboard/ent/team"
	"switchboard/ent/transfertimer"
	"switchboard/ent/viewer"
	"switchboard/worker"
)

// TaskTimer is the asynq task type that fires one transfer timer.
const TaskTimer = "transfer:timer"

// timerMaxRetry bounds the retries of a timer's task (a database error);
// the recovery sweep queues it again after that.
const timerMaxRetry = 10

// dueSlack is how early a timer may fire: asynq schedules in whole
// seconds, and nodes' clocks differ a little.
const dueSlack = time.Second

// Sender sends a text message to a contact (messaging.Service does).
type Sender interface {
	SendText(ctx context.Context, contactID uuid.UUID, accountName, body string) (*ent.Message, error)
}

// Fired is a timer a node fired.
type Fired struct {
	TimerID, TransferID, OrgID uuid.UUID
	Kind                       string
	DueAt, FiredAt             time.Time
	// Outcome says what firing did (see the kinds in the README).
	Outcome string
}

// timerTask is the payload of TaskTimer: ids only, the row is the truth.
type timerTask struct {
	OrgID   uuid.UUID `json:"organization_id"`
	TimerID uuid.UUID `json:"timer_id"`
}

// Register installs the timer handler on w.
func (s *Service) Register(w *worker.Worker) {
	w.HandleFunc(TaskTimer, func(ctx context.Context, t *asynq.Task) error {
		var p timerTask
		if err := json.Unmarshal(t.Payload(), &p); err != nil {
			return fmt.Errorf("%w: %v", asynq.SkipRetry, err)
		}
		_, err := s.FireTimer(ctx, p.OrgID, p.TimerID)
		return err
	})
}

func (s *Service) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.New(slog.DiscardHandler)
}

// schedule stores a pending timer of the transfer in the transaction of
// db and queues its task once that commits.
func (s *Service) schedule(ctx context.Context, db *ent.Client, t *ent.AgentTransfer, kind transfertimer.Kind, due time.Time, agent *uuid.UUID) error {
	tm, err := db.TransferTimer.Create().SetTransferID(t.ID).SetKind(kind).SetDueAt(due.UTC()).
		SetNillableAgentID(agent).Save(ctx)
	if err != nil {
		return apperr.Wrap(err, "timer")
	}
	database.AfterCommit(ctx, func() { s.enqueue(context.WithoutCancel(ctx), tm.OrganizationID, tm.ID, tm.DueAt) })
	return nil
}

// enqueue queues a timer's task for its due time (rounded up to the
// second, asynq's grain). A failure is only logged: the sweep queues it.
func (s *Service) enqueue(ctx context.Context, org, id uuid.UUID, due time.Time) {
	if s.Queue == nil {
		return
	}
	if r := due.Truncate(time.Second); !r.Equal(due) {
		due = r.Add(time.Second)
	}
	payload, _ := json.Marshal(timerTask{OrgID: org, TimerID: id})
	_, err := s.Queue.Enqueue(ctx, asynq.NewTask(TaskTimer, payload), asynq.TaskID("transfer-timer:"+id.String()),
		asynq.ProcessAt(due), asynq.MaxRetry(timerMaxRetry), asynq.Queue(worker.QueueCritical))
	if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) && !errors.Is(err, asynq.ErrDuplicateTask) {
		s.log().Error("queueing a transfer timer; the recovery sweep will retry", "timer_id", id, "err", err)
	}
}

// cancelTimers cancels the transfer's pending timers of the kinds (all
// kinds when none is named). Their tasks find them cancelled.
func (s *Service) cancelTimers(ctx context.Context, db *ent.Client, transferID uuid.UUID, kinds ...transfertimer.Kind) error {
	u := db.TransferTimer.Update().Where(transfertimer.TransferID(transferID), transfertimer.StatusEQ(transfertimer.StatusPending))
	if len(kinds) > 0 {
		u.Where(transfertimer.KindIn(kinds...))
	}
	_, err := u.SetStatus(transfertimer.StatusCancelled).SetOutcome("cancelled").Save(ctx)
	return apperr.Wrap(err, "timer")
}

// startTimers starts a new transfer's timers: the per-agent timeout when
// the team's strategy (or the same-agent rule) assigned it in a team with
// a timeout, and with sla_enabled the SLA timers whose settings are not 0.
func (s *Service) startTimers(ctx context.Context, db *ent.Client, st settings, t *ent.AgentTransfer, tm *ent.Team) error {
	if t.AgentID != nil && tm != nil && tm.AssignmentStrategy != team.AssignmentStrategyManual && tm.PerAgentTimeoutSecs > 0 {
		due := t.TransferredAt.Add(time.Duration(tm.PerAgentTimeoutSecs) * time.Second)
		if err := s.schedule(ctx, db, t, transfertimer.KindAgentTimeout, due, t.AgentID); err != nil {
			return err
		}
	}
	cs := st.stored
	if cs == nil || !cs.SLAEnabled {
		return nil
	}
	for _, sla := range []struct {
		kind  transfertimer.Kind
		after time.Duration
	}{
		{transfertimer.KindSLAResponse, time.Duration(cs.SLAResponseMinutes) * time.Minute},
		{transfertimer.KindSLAEscalation, time.Duration(cs.SLAEscalationMinutes) * time.Minute},
		{transfertimer.KindSLAResolution, time.Duration(cs.SLAResolutionMinutes) * time.Minute},
		{transfertimer.KindSLAAutoClose, time.Duration(cs.SLAAutoCloseHours) * time.Hour},
	} {
		if sla.after <= 0 {
			continue
		}
		if err := s.schedule(ctx, db, t, sla.kind, t.TransferredAt.Add(sla.after), nil); err != nil {
			return err
		}
	}
	return nil
}

// FireTimer fires a due pending timer once: it returns true when this call
// fired it, false when it was fired or cancelled before (or is gone).
// Concurrent calls for one timer, on any node, fire it once. Errors: a
// database error, or not yet due (the task is retried).
func (s *Service) FireTimer(ctx context.Context, orgID, timerID uuid.UUID) (bool, error) {
	ctx = viewer.SystemContext(ctx, orgID)
	var fired *Fired
	var after []func()
	err := database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		after = after[:0]
		tm, err := db.TransferTimer.Get(ctx, timerID)
		if ent.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if tm.Status != transfertimer.StatusPending {
			return nil
		}
		now := s.now()
		if tm.DueAt.After(now.Add(dueSlack)) {
			return fmt.Errorf("transfer timer %s is due at %s, not yet", tm.ID, tm.DueAt.Format(time.RFC3339))
		}
		// The transfer first, then the timer: every path that changes
		// both (resume, the first response, firing) locks in this order.
		t, err := db.AgentTransfer.Query().Where(agenttransfer.ID(tm.TransferID), database.Locked()).Only(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return err
		}
		n, err := db.TransferTimer.Update().
			Where(transfertimer.ID(tm.ID), transfertimer.StatusEQ(transfertimer.StatusPending)).
			SetStatus(transfertimer.StatusFired).SetFiredAt(now).Save(ctx)
		if err != nil || n == 0 {
			return err
		}
		outcome := "transfer_gone"
		if t != nil {
			if outcome, err = s.act(ctx, db, tm, t, &after); err != nil {
				return err
			}
		}
		if err := db.TransferTimer.UpdateOneID(tm.ID).SetOutcome(outcome).Exec(ctx); err != nil {
			return err
		}
		fired = &Fired{TimerID: tm.ID, TransferID: tm.TransferID, OrgID: orgID, Kind: string(tm.Kind),
			DueAt: tm.DueAt, FiredAt: now, Outcome: outcome}
		return nil
	})
	if err != nil || fired == nil {
		return false, err
	}
	for _, f := range after {
		f()
	}
	if s.AfterFire != nil {
		s.AfterFire(*fired)
	}
	return true, nil
}

// Recover queues every pending timer's task, so that a crash or a lost
// Redis loses no timer. The server runs it at start (and when Redis is a
// new instance); a timer whose task is still queued keeps that task.
func (s *Service) Recover(ctx context.Context) (int, error) {
	return s.requeue(ctx, time.Time{})
}

// RequeueOverdue queues the pending timers overdue by more than a minute
// (their task was lost); the server runs it every minute.
func (s *Service) RequeueOverdue(ctx context.Context) (int, error) {
	return s.requeue(ctx, s.now().Add(-time.Minute))
}

func (s *Service) requeue(ctx context.Context, dueBefore time.Time) (int, error) {
	q := s.Client.TransferTimer.Query().Where(transfertimer.StatusEQ(transfertimer.StatusPending))
	if !dueBefore.IsZero() {
		q = q.Where(transfertimer.DueAtLT(dueBefore))
	}
	ts, err := q.Select(transfertimer.FieldID, transfertimer.FieldOrganizationID, transfertimer.FieldDueAt).
		All(rule.Bypass(ctx, "recovery sweep of transfer timers in every organization"))
	if err != nil {
		return 0, err
	}
	for _, t := range ts {
		s.enqueue(ctx, t.OrganizationID, t.ID, t.DueAt)
	}
	return len(ts), nil
}
