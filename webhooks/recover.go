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

// infinity is a due time later than any delivery's: waitingBefore(infinity)
// is every waiting delivery.
var infinity = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// Recover queues again a drain of every subscription with deliveries still
// waiting (pending or retrying), for each second one of them is due, so
// that a crash or a lost Redis loses none. The server runs it at start. A
// drain still queued keeps its one task (same task id), so it is safe to
// run at any time. It returns how many waiting deliveries it found.
func (d *Dispatcher) Recover(ctx context.Context) (int, error) {
	return d.requeue(ctx)
}

// RequeueOverdue queues again a drain of every subscription with waiting
// deliveries more than a minute overdue: their task was lost while the
// process ran (a Redis restart) or their worker died mid-attempt. The
// server runs it every minute. It returns how many overdue deliveries it
// found.
func (d *Dispatcher) RequeueOverdue(ctx context.Context) (int, error) {
	cutoff := now().Add(-overdueAfter)
	return d.requeue(ctx, waitingBefore(cutoff), notLeased(cutoff))
}

// requeue kicks the subscriptions of the waiting deliveries matching
// where, once per subscription and due second, reading in batches by id.
func (d *Dispatcher) requeue(ctx context.Context, where ...predicate.WebhookDelivery) (int, error) {
	bctx := rule.Bypass(ctx, "recovery sweep of webhook deliveries in every organization")
	if len(where) == 0 {
		where = append(where, waitingBefore(infinity))
	}
	type dueSecond struct {
		sub uuid.UUID
		sec int64
	}
	kicked := map[dueSecond]bool{}
	total, after := 0, uuid.Nil
	for {
		rows, err := d.client.WebhookDelivery.Query().
			Where(append(where, webhookdelivery.IDGT(after))...).
			Order(webhookdelivery.ByID()).Limit(recoverBatch).
			Select(webhookdelivery.FieldID, webhookdelivery.FieldOrganizationID, webhookdelivery.FieldSubscriptionID,
				webhookdelivery.FieldNextAttemptAt, webhookdelivery.FieldLeasedUntil).
			All(bctx)
		if err != nil {
			return total, err
		}
		for _, del := range rows {
			at := now()
			for _, t := range []*time.Time{del.NextAttemptAt, del.LeasedUntil} {
				if t != nil && t.After(at) {
					at = *t
				}
			}
			if k := (dueSecond{del.SubscriptionID, at.Unix()}); !kicked[k] {
				kicked[k] = true
				d.kick(ctx, del.OrganizationID, del.SubscriptionID, at)
			}
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
		SetStatus(webhookdelivery.StatusPending).SetNextAttemptAt(at).ClearLeasedUntil().ClearCompletedAt().
		Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "delivery")
	}
	if count == 0 {
		return nil, apperr.Invalidf("the delivery is already waiting for its next attempt")
	}
	qctx := context.WithoutCancel(ctx)
	database.AfterCommit(ctx, func() { d.kick(qctx, del.OrganizationID, del.SubscriptionID, at) })
	return db.WebhookDelivery.Query().Where(webhookdelivery.ID(del.ID)).
		WithDeliveryAttempts(func(q *ent.WebhookDeliveryAttemptQuery) { q.Order(webhookdeliveryattempt.ByAttempt()) }).
		Only(ctx)
}
