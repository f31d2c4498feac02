package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/viewer"
	"switchboard/ent/webhookdelivery"
	"switchboard/worker"
)

// TaskDrain is the asynq task type that delivers what is due of one
// subscription: it claims its due deliveries a batch at a time, posts each
// batch concurrently and records the attempts, until none is due.
const TaskDrain = "webhook:drain"

// taskDeliverOne is the task type of the versions that queued one task
// per delivery. Such tasks still queued at an upgrade are dropped: the
// start-up sweep (Recover) drains every subscription with waiting
// deliveries.
const taskDeliverOne = "webhook:deliver"

// batchSize is how many deliveries one claim takes; they are posted at the
// same time, so it is also the most requests a drain has in flight to one
// receiver.
const batchSize = 32

// drainBudget is how long one drain task works before it hands over to a
// continuation task, so that a receiver slower than the events it is sent
// does not hold a worker for ever.
const drainBudget = 5 * time.Second

// leaseTime is how long a claimed delivery is leased (leased_until) while
// its attempt is in flight, so that another drain does not start the same
// attempt; past it, a crashed attempt is made again. A batch's requests
// run at the same time, so one attempt's bound covers the batch.
const leaseTime = DeliveryTimeout + time.Minute

// dueSlack tolerates clocks of several nodes that differ slightly, and
// asynq's whole-second scheduling.
const dueSlack = 2 * time.Second

// drainTask is the payload of TaskDrain: ids only, the rows are the truth.
// Until (Unix seconds) is set on a task queued for deliveries written
// during the second before it: a delivery whose kick found this task
// already running must not be missed, so the task looks once more after
// Until (plus dueSlack) before it ends for good.
type drainTask struct {
	OrgID          uuid.UUID `json:"organization_id"`
	SubscriptionID uuid.UUID `json:"subscription_id"`
	Until          int64     `json:"until,omitempty"`
}

// kick queues a drain of a subscription for at: deliveries became due
// then. The task id names the subscription and the second, so the kicks of
// every delivery written in one second make one task, and a recovery sweep
// that kicks again keeps it. A failure is logged: the rows stay due and
// the sweep kicks again.
func (d *Dispatcher) kick(ctx context.Context, orgID, subID uuid.UUID, at time.Time) {
	sec := at.Unix()
	d.queueDrain(ctx, drainTask{OrgID: orgID, SubscriptionID: subID, Until: sec + 1},
		"webhook-drain:"+subID.String()+":"+strconv.FormatInt(sec, 10), at)
}

// queueDrain enqueues a drain task with id (none: asynq makes one) for at.
func (d *Dispatcher) queueDrain(ctx context.Context, p drainTask, id string, at time.Time) {
	payload, _ := json.Marshal(p)
	opts := []asynq.Option{asynq.Queue(worker.QueueDefault)}
	if id != "" {
		opts = append(opts, asynq.TaskID(id))
	}
	if at.After(time.Now()) {
		opts = append(opts, asynq.ProcessAt(at))
	}
	_, err := d.queue.Enqueue(ctx, asynq.NewTask(TaskDrain, payload), opts...)
	if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) && !errors.Is(err, asynq.ErrDuplicateTask) {
		d.log.Error("queueing webhook deliveries; the sweep will retry", "subscription_id", p.SubscriptionID, "err", err)
	}
}

func (d *Dispatcher) handleDrain(ctx context.Context, t *asynq.Task) (err error) {
	var p drainTask
	if err := json.Unmarshal(t.Payload(), &p); err != nil || p.SubscriptionID == uuid.Nil {
		return fmt.Errorf("webhooks: bad task payload %q: %w", t.Payload(), asynq.SkipRetry)
	}
	if !d.running.start(p.SubscriptionID, p.Until) {
		return nil // the drains running on this node look for this task's deliveries
	}
	ctx = viewer.SystemContext(ctx, p.OrgID)
	var lastLook time.Time
	var more bool
	defer func() { d.followUp(ctx, p, d.running.finish(p.SubscriptionID, p.Until), lastLook, more && err == nil) }()
	lastLook, more, err = d.drain(ctx, p.SubscriptionID)
	return err
}

// followUp queues what must come after a drain that looked last at
// lastLook and was asked to cover deliveries kicked up to until (its own
// task's and those of the tasks that found it running): a continuation
// at once when it stopped with deliveries left, or else one more look
// once that second is surely over, since a kick may have found a task
// running after its last look.
func (d *Dispatcher) followUp(ctx context.Context, p drainTask, until int64, lastLook time.Time, more bool) {
	next := drainTask{OrgID: p.OrgID, SubscriptionID: p.SubscriptionID, Until: until}
	switch {
	case more:
		d.queueDrain(ctx, next, "", time.Now())
	case until > 0 && lastLook.Before(time.Unix(until, 0).Add(dueSlack)):
		d.queueDrain(ctx, next, "webhook-drain:"+p.SubscriptionID.String()+":"+strconv.FormatInt(until-1, 10)+":tail",
			time.Unix(until, 0).Add(dueSlack))
	}
}

// drainsPerSubscription bounds the drains of one subscription running at
// once on a node: two batches in flight fill the connections the client
// keeps to one host (64). Unbounded, under a lasting backlog every
// second's kick started another chain of drains until they held all of
// the node's workers (starving every other task), each claim walking past
// the others' leased rows (PostgreSQL's costliest statement under load).
const drainsPerSubscription = 2

// runningDrains is the drains of each subscription running on this node.
// A task that finds its subscription's drains all running leaves its
// deliveries to them: the first to finish looks again after the task's
// Until.
type runningDrains struct {
	mu   sync.Mutex
	subs map[uuid.UUID]*subscriptionDrains
}

type subscriptionDrains struct {
	n    int   // running
	want int64 // the latest Until of the tasks that left their deliveries to them
}

// start reports whether a drain of sub may start on this node; if not,
// the running drains take until over.
func (r *runningDrains) start(sub uuid.UUID, until int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.subs == nil {
		r.subs = map[uuid.UUID]*subscriptionDrains{}
	}
	s := r.subs[sub]
	if s == nil {
		s = &subscriptionDrains{}
		r.subs[sub] = s
	}
	if s.n >= drainsPerSubscription {
		s.want = max(s.want, until)
		return false
	}
	s.n++
	return true
}

// finish ends a drain of sub that was asked to cover until, and returns
// the latest Until it must cover: its own or one it takes over.
func (r *runningDrains) finish(sub uuid.UUID, until int64) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.subs[sub]
	until, s.want = max(until, s.want), 0
	if s.n--; s.n == 0 {
		delete(r.subs, sub)
	}
	return until
}

// drain delivers the subscription's due deliveries, a batch at a time,
// until a claim finds none (a retry due at once is made in the same
// drain) or drainBudget has passed (more reports that). lastLook is when
// the last claim began.
func (d *Dispatcher) drain(ctx context.Context, subID uuid.UUID) (lastLook time.Time, more bool, err error) {
	stop := time.Now().Add(drainBudget)
	for {
		sub, err := d.client.WebhookSubscription.Get(ctx, subID)
		if ent.IsNotFound(err) {
			return time.Now(), false, nil // deleted, with its deliveries
		}
		if err != nil {
			return lastLook, false, err
		}
		lastLook = time.Now()
		if !sub.IsActive {
			return lastLook, false, d.stopDue(ctx, subID, "the subscription is inactive")
		}
		batch, err := d.claim(ctx, subID)
		if err != nil || len(batch) == 0 {
			return lastLook, false, err
		}
		if err := d.finish(ctx, sub, batch, d.postBatch(ctx, sub, batch)); err != nil {
			return lastLook, false, err
		}
		if time.Now().After(stop) {
			return lastLook, true, nil
		}
	}
}

// claim takes the next attempt of up to batchSize due deliveries of the
// subscription: in one transaction it reads them with
// their rows locked (others' locked rows skipped, so concurrent drains
// take different ones), counts the attempt and leases them until the
// attempt's end. It changes no indexed column, so PostgreSQL can update
// the rows in place (HOT). Each returned delivery's Attempts is the number
// of the attempt to make.
//
// The claim has no ORDER BY: under load thousands of deliveries are due,
// and sorting them all to take 32 made each claim read every one of them
// (12 ms instead of a fraction of one); receivers order events by their
// timestamp, as the contract's retries reorder them anyway.
func (d *Dispatcher) claim(ctx context.Context, subID uuid.UUID) ([]*ent.WebhookDelivery, error) {
	t := now()
	var batch []*ent.WebhookDelivery
	err := database.InTx(ctx, d.client, func(ctx context.Context, db *ent.Client) error {
		var err error
		batch, err = db.WebhookDelivery.Query().
			Where(webhookdelivery.SubscriptionID(subID), due(t),
				database.SkipLocked()).
			Limit(batchSize).
			All(ctx)
		if err != nil || len(batch) == 0 {
			return err
		}
		ids := make([]uuid.UUID, len(batch))
		for i, del := range batch {
			ids[i] = del.ID
			del.Attempts++
		}
		return db.WebhookDelivery.Update().Where(database.AnyOfIDs(webhookdelivery.FieldID, ids)).
			AddAttempts(1).SetLeasedUntil(t.Add(leaseTime)).
			Exec(ctx)
	})
	return batch, err
}

// due is the predicate of a waiting delivery whose attempt is due at t
// and not in flight.
func due(t time.Time) func(*sql.Selector) {
	return webhookdelivery.And(waitingBefore(t.Add(dueSlack)), notLeased(t))
}

// waitingBefore is the predicate of a waiting delivery due before t. The
// statuses are literals, not parameters, so that PostgreSQL uses the
// partial index of waiting deliveries
// (webhookdelivery_waiting_subscription_due) in a prepared statement too.
func waitingBefore(t time.Time) func(*sql.Selector) {
	return webhookdelivery.And(
		func(s *sql.Selector) {
			c := s.C(webhookdelivery.FieldStatus)
			s.Where(sql.ExprP("(" + c + " = 'pending' OR " + c + " = 'retrying')"))
		},
		webhookdelivery.NextAttemptAtLTE(t))
}

// notLeased is the predicate of a delivery whose lease, if any, ended
// by t.
func notLeased(t time.Time) func(*sql.Selector) {
	return webhookdelivery.Or(webhookdelivery.LeasedUntilIsNil(), webhookdelivery.LeasedUntilLTE(t))
}

// stopDue fails the subscription's due deliveries without an attempt.
// Those in flight are finished by their drain.
func (d *Dispatcher) stopDue(ctx context.Context, subID uuid.UUID, reason string) error {
	t := now()
	return d.client.WebhookDelivery.Update().
		Where(webhookdelivery.SubscriptionID(subID), due(t)).
		SetStatus(webhookdelivery.StatusFailed).SetLastError(reason).ClearNextAttemptAt().SetCompletedAt(t).
		Exec(ctx)
}
