package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/viewer"
	"switchboard/ent/webhookdelivery"
	"switchboard/ent/webhooksubscription"
	"switchboard/outbound"
	"switchboard/worker"
)

// TaskDeliver is the asynq task type that makes one attempt at a delivery.
const TaskDeliver = "webhook:deliver"

// leaseTime is how far next_attempt_at is pushed while an attempt is in
// flight, so that a sweep does not start the same attempt twice; past it,
// a crashed attempt is made again.
const leaseTime = DeliveryTimeout + time.Minute

// dueSlack tolerates clocks of several nodes that differ slightly, and
// asynq's whole-second scheduling.
const dueSlack = 2 * time.Second

// deliverTask is the payload of TaskDeliver: ids only, the row is the
// truth. Attempt is the number of the attempt this task makes.
type deliverTask struct {
	OrgID      uuid.UUID `json:"organization_id"`
	DeliveryID uuid.UUID `json:"delivery_id"`
	Attempt    int       `json:"attempt"`
}

// enqueue queues attempt number attempt of a delivery for at. The task id
// names the delivery, the attempt and the due second, so queueing the same
// attempt twice (a recovery sweep) keeps one task, while a delivery whose
// attempt was moved to another time gets a new one; the handler runs only
// the task that matches the row. A failure is logged: the row stays due and
// the sweep queues it again.
func (d *Dispatcher) enqueue(ctx context.Context, orgID, deliveryID uuid.UUID, attempt int, at time.Time) {
	payload, _ := json.Marshal(deliverTask{OrgID: orgID, DeliveryID: deliveryID, Attempt: attempt})
	opts := []asynq.Option{
		asynq.TaskID("webhook:" + deliveryID.String() + ":" + strconv.Itoa(attempt) + ":" + strconv.FormatInt(at.Unix(), 10)),
		asynq.Queue(worker.QueueDefault),
	}
	if at.After(time.Now()) {
		opts = append(opts, asynq.ProcessAt(at))
	}
	_, err := d.queue.Enqueue(ctx, asynq.NewTask(TaskDeliver, payload), opts...)
	if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) && !errors.Is(err, asynq.ErrDuplicateTask) {
		d.log.Error("queueing a webhook delivery; the sweep will retry", "delivery_id", deliveryID, "err", err)
	}
}

func (d *Dispatcher) handleDeliver(ctx context.Context, t *asynq.Task) error {
	var p deliverTask
	if err := json.Unmarshal(t.Payload(), &p); err != nil || p.Attempt < 1 {
		return fmt.Errorf("webhooks: bad task payload %q: %w", t.Payload(), asynq.SkipRetry)
	}
	return d.attempt(viewer.SystemContext(ctx, p.OrgID), p.DeliveryID, p.Attempt)
}

// attempt makes attempt number n of a delivery, unless the delivery is
// finished, not due, or at another attempt (a duplicate or stale task).
func (d *Dispatcher) attempt(ctx context.Context, id uuid.UUID, n int) error {
	del, err := d.client.WebhookDelivery.Query().Where(webhookdelivery.ID(id)).WithSubscription().Only(ctx)
	if ent.IsNotFound(err) {
		return nil // deleted with its subscription
	}
	if err != nil {
		return err
	}
	if !waiting(del) || del.Attempts != n-1 {
		return nil
	}
	sub := del.Edges.Subscription
	if !sub.IsActive {
		return d.stop(ctx, del, "the subscription is inactive")
	}
	claimed, err := d.claim(ctx, del, n)
	if err != nil || !claimed {
		return err
	}
	secret, err := d.secretOf(sub)
	if err != nil {
		d.log.Error("webhook secret cannot be opened; the attempt fails", "subscription_id", sub.ID, "err", err)
		return d.finish(ctx, del, sub, n, outbound.Outcome{Error: "the subscription secret cannot be decrypted"})
	}
	o := d.post(ctx, sub, del.EventID.String(), del.Event, del.Payload, secret)
	return d.finish(ctx, del, sub, n, o)
}

func waiting(del *ent.WebhookDelivery) bool {
	return del.Status == webhookdelivery.StatusPending || del.Status == webhookdelivery.StatusRetrying
}

// claim takes attempt n of a waiting, due delivery: one conditional UPDATE,
// so of two tasks for the same attempt only one proceeds. It pushes
// next_attempt_at past the attempt's end (the lease).
func (d *Dispatcher) claim(ctx context.Context, del *ent.WebhookDelivery, n int) (bool, error) {
	t := now()
	count, err := d.client.WebhookDelivery.Update().
		Where(webhookdelivery.ID(del.ID), webhookdelivery.AttemptsEQ(n-1),
			webhookdelivery.StatusIn(webhookdelivery.StatusPending, webhookdelivery.StatusRetrying),
			webhookdelivery.Or(webhookdelivery.NextAttemptAtIsNil(), webhookdelivery.NextAttemptAtLTE(t.Add(dueSlack)))).
		SetAttempts(n).SetNextAttemptAt(t.Add(leaseTime)).
		Save(ctx)
	return count == 1, err
}

// stop fails a waiting delivery without an attempt.
func (d *Dispatcher) stop(ctx context.Context, del *ent.WebhookDelivery, reason string) error {
	return d.client.WebhookDelivery.Update().
		Where(webhookdelivery.ID(del.ID), webhookdelivery.StatusIn(webhookdelivery.StatusPending, webhookdelivery.StatusRetrying)).
		SetStatus(webhookdelivery.StatusFailed).SetLastError(reason).ClearNextAttemptAt().SetCompletedAt(now()).
		Exec(ctx)
}

// finish records attempt n and moves the delivery on as the schedule
// decides, in one transaction; a retry is queued after the commit. The
// record is written even when the worker is shutting down (ctx cancelled
// mid-attempt), so the delivery is not left holding its lease.
func (d *Dispatcher) finish(ctx context.Context, del *ent.WebhookDelivery, sub *ent.WebhookSubscription, n int, o outbound.Outcome) error {
	ctx = context.WithoutCancel(ctx)
	at := now()
	decision := d.schedule(n, o, at)
	tx, err := d.client.Tx(ctx)
	if err != nil {
		return err
	}
	tctx := ent.NewTxContext(ctx, tx)
	if err := d.record(tctx, tx.Client(), del, sub, n, o, decision, at); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if decision.Action == outbound.ActionDisable {
		d.Invalidate(del.OrganizationID)
		d.log.Warn("webhook receiver answered 410 Gone; subscription disabled", "subscription_id", sub.ID)
	}
	return nil
}

// record writes the attempt and the delivery's new state.
func (d *Dispatcher) record(ctx context.Context, c *ent.Client, del *ent.WebhookDelivery, sub *ent.WebhookSubscription, n int, o outbound.Outcome, decision outbound.Decision, at time.Time) error {
	err := c.WebhookDeliveryAttempt.Create().
		SetDeliveryID(del.ID).SetAttempt(n).SetStatusCode(o.StatusCode).
		SetDurationMs(int(o.Duration.Milliseconds())).SetError(o.Error).
		Exec(ctx)
	if err != nil {
		return err
	}
	u := c.WebhookDelivery.UpdateOneID(del.ID).SetLastError(o.Error)
	if o.StatusCode > 0 {
		u.SetLastStatusCode(o.StatusCode)
	} else {
		u.ClearLastStatusCode()
	}
	switch decision.Action {
	case outbound.ActionDone:
		u.SetStatus(webhookdelivery.StatusSucceeded).ClearNextAttemptAt().SetCompletedAt(at)
	case outbound.ActionRetry:
		next := at.Add(decision.Delay)
		u.SetStatus(webhookdelivery.StatusRetrying).SetNextAttemptAt(next)
		qctx := context.WithoutCancel(ctx)
		database.AfterCommit(ctx, func() { d.enqueue(qctx, del.OrganizationID, del.ID, n+1, next) })
	case outbound.ActionDisable:
		reason := fmt.Sprintf("the receiver answered 410 Gone on %s", at.Format(time.RFC3339))
		err := c.WebhookSubscription.Update().
			Where(webhooksubscription.ID(sub.ID)).
			SetIsActive(false).SetDisabledReason(reason).
			Exec(ctx)
		if err != nil {
			return err
		}
		u.SetStatus(webhookdelivery.StatusFailed).SetLastError(o.Error + "; subscription disabled").
			ClearNextAttemptAt().SetCompletedAt(at)
	default: // outbound.ActionGiveUp
		u.SetStatus(webhookdelivery.StatusFailed).ClearNextAttemptAt().SetCompletedAt(at)
	}
	return u.Exec(ctx)
}
