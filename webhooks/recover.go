package webhooks

import (
	"context"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/predicate"
	"switchboard/ent/rule"
	"switchboard/ent/webhookdelivery"
	"switchboard/ent/webhookdeliveryattempt"
)

// overdueAfter is how late a waiting delivery must be before the sweep
// queues it again: its task was lost (a Redis restart) or its worker died.
const overdueAfter = time.Minute

// recoverBatch is how many deliveries one query of a sweep reads.
const recoverBatch = 1000

// Recover queues again every delivery still waiting (pending or retrying),
// each for its next_attempt_at, so that a crash or a lost Redis loses none.
// The server runs it at start. A delivery whose task is still queued keeps
// that one task (same task id), so it is safe to run at any time. It
// returns how many deliveries it queued.
func (d *Dispatcher) Recover(ctx context.Context) (int, error) {
	return d.requeue(ctx)
}

// RequeueOverdue queues again the waiting deliveries that are more than a
// minute overdue: their task was lost while the process ran (a Redis
// restart) or their worker died mid-attempt. The server runs it every
// minute.
func (d *Dispatcher) RequeueOverdue(ctx context.Context) (int, error) {
	return d.requeue(ctx, webhookdelivery.NextAttemptAtLT(now().Add(-overdueAfter)))
}

// requeue queues the waiting deliveries matching where, in batches by id.
func (d *Dispatcher) requeue(ctx context.Context, where ...predicate.WebhookDelivery) (int, error) {
	bctx := rule.Bypass(ctx, "recovery sweep of webhook deliveries in every organization")
	where = append(where, webhookdelivery.StatusIn(webhookdelivery.StatusPending, webhookdelivery.StatusRetrying))
	total, after := 0, uuid.Nil
	for {
		rows, err := d.client.WebhookDelivery.Query().
			Where(append(where, webhookdelivery.IDGT(after))...).
			Order(webhookdelivery.ByID()).Limit(recoverBatch).
			Select(webhookdelivery.FieldID, webhookdelivery.FieldOrganizationID,
				webhookdelivery.FieldAttempts, webhookdelivery.FieldNextAttemptAt).
			All(bctx)
		if err != nil {
			return total, err
		}
		for _, del := range rows {
			at := now()
			if del.NextAttemptAt != nil {
				at = *del.NextAttemptAt
			}
			d.enqueue(ctx, del.OrganizationID, del.ID, del.Attempts+1, at)
		}
		total += len(rows)
		if len(rows) < recoverBatch {
			return total, nil
		}
		after = rows[len(rows)-1].ID
	}
}

// Replay attempts a finished delivery (failed or succeeded) once more with
// the same event id and body; its attempts go on being numbered after the
// previous ones, and the retry schedule continues from there. The
// delivery is queued after the transaction of ctx commits. Errors:
// not_found, invalid (the delivery is still waiting, or its subscription
// is inactive).
func (d *Dispatcher) Replay(ctx context.Context, deliveryID uuid.UUID) (*ent.WebhookDelivery, error) {
	db := d.db(ctx)
	del, err := db.WebhookDelivery.Query().Where(webhookdelivery.ID(deliveryID)).WithSubscription().Only(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "delivery")
	}
	if !del.Edges.Subscription.IsActive {
		return nil, apperr.Invalidf("the webhook is inactive; activate it before replaying a delivery")
	}
	at := now()
	count, err := db.WebhookDelivery.Update().
		Where(webhookdelivery.ID(del.ID), webhookdelivery.StatusIn(webhookdelivery.StatusFailed, webhookdelivery.StatusSucceeded)).
		SetStatus(webhookdelivery.StatusPending).SetNextAttemptAt(at).ClearCompletedAt().
		Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "delivery")
	}
	if count == 0 {
		return nil, apperr.Invalidf("the delivery is already waiting for its next attempt")
	}
	qctx := context.WithoutCancel(ctx)
	database.AfterCommit(ctx, func() { d.enqueue(qctx, del.OrganizationID, del.ID, del.Attempts+1, at) })
	return db.WebhookDelivery.Query().Where(webhookdelivery.ID(del.ID)).
		WithDeliveryAttempts(func(q *ent.WebhookDeliveryAttemptQuery) { q.Order(webhookdeliveryattempt.ByAttempt()) }).
		Only(ctx)
}
