package webhooks

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/webhookdelivery"
	"switchboard/ent/webhookdeliveryattempt"
	"switchboard/ent/webhooksubscription"
	"switchboard/outbound"
)

// postBatch makes the claimed attempts of a batch at the same time and
// returns their outcomes in the batch's order.
func (d *Dispatcher) postBatch(ctx context.Context, sub *ent.WebhookSubscription, batch []*ent.WebhookDelivery) []outbound.Outcome {
	out := make([]outbound.Outcome, len(batch))
	secret, err := d.secretOf(sub)
	if err != nil {
		d.log.Error("webhook secret cannot be opened; the attempts fail", "subscription_id", sub.ID, "err", err)
		for i := range out {
			out[i] = outbound.Outcome{Error: "the subscription secret cannot be decrypted"}
		}
		return out
	}
	var wg sync.WaitGroup
	for i, del := range batch {
		wg.Go(func() { out[i] = d.post(ctx, sub, del.EventID.String(), del.Event, del.Payload, secret) })
	}
	wg.Wait()
	return out
}

// outcomeKey is what decides a delivery's next state: the attempt's number
// and how it ended. Deliveries of a batch with the same key share one
// decision and one UPDATE (in the usual batch, every attempt succeeded).
type outcomeKey struct {
	attempt    int
	statusCode int
	err        string
	timeout    bool
	retryAfter string
}

type outcomeGroup struct {
	outcome outbound.Outcome
	ids     []uuid.UUID
}

func groupOutcomes(batch []*ent.WebhookDelivery, outcomes []outbound.Outcome) (map[outcomeKey]*outcomeGroup, []outcomeKey) {
	groups := map[outcomeKey]*outcomeGroup{}
	var order []outcomeKey
	for i, del := range batch {
		o := outcomes[i]
		k := outcomeKey{attempt: del.Attempts, statusCode: o.StatusCode, err: o.Error, timeout: o.Timeout, retryAfter: o.RetryAfter}
		g := groups[k]
		if g == nil {
			g = &outcomeGroup{outcome: o}
			groups[k] = g
			order = append(order, k)
		}
		g.ids = append(g.ids, del.ID)
	}
	return groups, order
}

// finish records the attempts of a batch and moves each delivery on as the
// schedule decides, in one transaction: one INSERT of the attempts and one
// UPDATE per distinct outcome. Retries are queued after the commit. The
// record is written even when the worker is shutting down (ctx cancelled
// mid-attempt), so the deliveries are not left holding their lease.
func (d *Dispatcher) finish(ctx context.Context, sub *ent.WebhookSubscription, batch []*ent.WebhookDelivery, outcomes []outbound.Outcome) error {
	ctx = context.WithoutCancel(ctx)
	at := now()
	groups, order := groupOutcomes(batch, outcomes)
	var retries []time.Time
	disabled := false
	err := database.InTx(ctx, d.client, func(ctx context.Context, db *ent.Client) error {
		retries, disabled = nil, false
		if err := d.insertAttempts(ctx, db, sub.OrganizationID, batch, outcomes); err != nil {
			return err
		}
		for _, k := range order {
			g := groups[k]
			decision := d.schedule(k.attempt, g.outcome, at)
			if err := moveOn(ctx, db, sub, g, decision, at); err != nil {
				return err
			}
			switch decision.Action {
			case outbound.ActionRetry:
				retries = append(retries, at.Add(decision.Delay))
			case outbound.ActionDisable:
				disabled = true
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, next := range retries {
		d.kick(ctx, sub.OrganizationID, sub.ID, next)
	}
	if disabled {
		d.Invalidate(sub.OrganizationID)
		d.log.Warn("webhook receiver answered 410 Gone; subscription disabled", "subscription_id", sub.ID)
	}
	return nil
}

// insertAttempts writes one attempt row per delivery of the batch (all
// of the organization org).
func (d *Dispatcher) insertAttempts(ctx context.Context, db *ent.Client, org uuid.UUID, batch []*ent.WebhookDelivery, outcomes []outbound.Outcome) error {
	if d.postgres {
		return pgInsertAttempts(ctx, db, org, batch, outcomes)
	}
	rows := make([]*ent.WebhookDeliveryAttemptCreate, len(batch))
	for i, del := range batch {
		o := outcomes[i]
		rows[i] = db.WebhookDeliveryAttempt.Create().
			SetDeliveryID(del.ID).SetAttempt(del.Attempts).SetStatusCode(o.StatusCode).
			SetDurationMs(int(o.Duration.Milliseconds())).SetError(o.Error)
	}
	return database.InChunks(rows, len(webhookdeliveryattempt.Columns), func(part []*ent.WebhookDeliveryAttemptCreate) error {
		return db.WebhookDeliveryAttempt.CreateBulk(part...).Exec(ctx)
	})
}

// moveOn writes the state that decision gives the deliveries of g.
func moveOn(ctx context.Context, db *ent.Client, sub *ent.WebhookSubscription, g *outcomeGroup, decision outbound.Decision, at time.Time) error {
	o := g.outcome
	u := db.WebhookDelivery.Update().Where(database.AnyOfIDs(webhookdelivery.FieldID, g.ids)).SetLastError(o.Error).ClearLeasedUntil()
	if o.StatusCode > 0 {
		u.SetLastStatusCode(o.StatusCode)
	} else {
		u.ClearLastStatusCode()
	}
	switch decision.Action {
	case outbound.ActionDone:
		u.SetStatus(webhookdelivery.StatusSucceeded).ClearNextAttemptAt().SetCompletedAt(at)
	case outbound.ActionRetry:
		u.SetStatus(webhookdelivery.StatusRetrying).SetNextAttemptAt(at.Add(decision.Delay))
	case outbound.ActionDisable:
		reason := fmt.Sprintf("the receiver answered 410 Gone on %s", at.Format(time.RFC3339))
		err := db.WebhookSubscription.Update().
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
