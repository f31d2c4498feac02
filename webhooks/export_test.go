package webhooks

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"
)

// Drain runs one drain of a subscription in ctx's organization, as its
// task would, so that tests can run several at the same time.
func (d *Dispatcher) Drain(ctx context.Context, subID uuid.UUID) error {
	_, _, err := d.drain(ctx, subID)
	return err
}

// HandleDrainTask runs a drain task of the subscription as the worker
// would, with the given Until (Unix seconds; zero for none).
func (d *Dispatcher) HandleDrainTask(ctx context.Context, orgID, subID uuid.UUID, until int64) error {
	payload, err := json.Marshal(drainTask{OrgID: orgID, SubscriptionID: subID, Until: until})
	if err != nil {
		return err
	}
	return d.handleDrain(ctx, asynq.NewTask(TaskDrain, payload))
}
