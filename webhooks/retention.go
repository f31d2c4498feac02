package webhooks

import (
	"context"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/rule"
	"switchboard/ent/webhookdelivery"
	"switchboard/ent/webhookdeliveryattempt"
)

// pruneBatch is how many deliveries one transaction of a prune deletes;
// maxPruneBatches bounds one sweep's work (the next sweep goes on), so a
// first prune of a long history does not hold a node's sweeps for long.
const (
	pruneBatch      = 5000
	maxPruneBatches = 100
)

// PruneFinished deletes, in every organization, the finished deliveries
// (succeeded, or failed after their last attempt) created more than the
// retention ago, with their attempts: the delivery log and replay reach
// back that far, and the table does not grow without end. A delivery
// still waiting is kept whatever its age. Nodes pruning at once skip each
// other's rows. The server runs it with the minute's sweeps; it returns
// how many deliveries it deleted.
func (d *Dispatcher) PruneFinished(ctx context.Context) (int, error) {
	if d.retention <= 0 {
		return 0, nil
	}
	bctx := rule.Bypass(ctx, "retention of finished webhook deliveries in every organization")
	subs, err := d.client.WebhookSubscription.Query().IDs(bctx)
	if err != nil {
		return 0, err
	}
	cutoff := now().Add(-d.retention)
	total, batches := 0, 0
	for _, sub := range subs {
		for batches < maxPruneBatches {
			batches++
			n, err := d.pruneBatch(bctx, sub, cutoff)
			total += n
			if err != nil {
				return total, err
			}
			if n < pruneBatch {
				break
			}
		}
	}
	return total, nil
}

// pruneBatch deletes up to pruneBatch finished deliveries of a
// subscription created before cutoff (the subscription_id, created_at
// index finds them), attempts first.
func (d *Dispatcher) pruneBatch(ctx context.Context, sub uuid.UUID, cutoff time.Time) (int, error) {
	var n int
	err := database.InTx(ctx, d.client, func(ctx context.Context, db *ent.Client) error {
		ids, err := db.WebhookDelivery.Query().
			Where(webhookdelivery.SubscriptionID(sub), webhookdelivery.CreatedAtLT(cutoff),
				webhookdelivery.StatusIn(webhookdelivery.StatusSucceeded, webhookdelivery.StatusFailed),
				database.Locked(sql.WithLockAction(sql.SkipLocked))).
			Limit(pruneBatch).IDs(ctx)
		if err != nil || len(ids) == 0 {
			return err
		}
		if _, err := db.WebhookDeliveryAttempt.Delete().
			Where(database.AnyOfIDs(webhookdeliveryattempt.FieldDeliveryID, ids)).Exec(ctx); err != nil {
			return err
		}
		n, err = db.WebhookDelivery.Delete().Where(database.AnyOfIDs(webhookdelivery.FieldID, ids)).Exec(ctx)
		return err
	})
	return n, err
}
