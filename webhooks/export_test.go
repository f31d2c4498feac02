package webhooks

import (
	"context"

	"github.com/google/uuid"
)

// Drain runs one drain of a subscription in ctx's organization, as its
// task would, so that tests can run several at the same time.
func (d *Dispatcher) Drain(ctx context.Context, subID uuid.UUID) error {
	_, _, err := d.drain(ctx, subID)
	return err
}
