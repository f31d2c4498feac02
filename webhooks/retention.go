package webhooks

import (
	"context"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/rule"
	"switchboard/ent/webhookdelivery"
	"switchboard/ent/webhookdeliveryattempt"
)

// PruneFinished deletes, in every organization, the finished deliveries
// (succeeded, or failed after their last attempt) created more than the
// retention ago, with their attempts: the delivery log and replay reach
// back that far, and the table does not grow without end. A delivery
// still waiting is kept whatever its age. The server runs it with the
// minute's sweeps; it returns how many deliveries it deleted.
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
	total, budget := 0, database.MaxPruneBatches
	for _, sub := range subs {
		if budget == 0 {
			break
		}
		// A subscription at a time: the subscription_id, created_at index
		// finds its old deliveries.
		n, batches, err := database.DeleteInBatches(bctx, d.client, budget, func(ctx context.Context, db *ent.Client) (int, error) {
			ids, err := db.WebhookDelivery.Query().
				Where(webhookdelivery.SubscriptionID(sub), webhookdelivery.CreatedAtLT(cutoff),
					webhookdelivery.StatusIn(webhookdelivery.StatusSucceeded, webhookdelivery.StatusFailed),
					database.SkipLocked()).
				Limit(database.PruneBatch).IDs(ctx)
			if err != nil || len(ids) == 0 {
				return 0, err
			}
			if _, err := db.WebhookDeliveryAttempt.Delete().
				Where(database.AnyOfIDs(webhookdeliveryattempt.FieldDeliveryID, ids)).Exec(ctx); err != nil {
				return 0, err
			}
			return db.WebhookDelivery.Delete().Where(database.AnyOfIDs(webhookdelivery.FieldID, ids)).Exec(ctx)
		})
		total, budget = total+n, budget-batches
		if err != nil {
			return total, err
		}
	}
	return total, nil
}
