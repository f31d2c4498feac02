package database

import (
	"context"

	"switchboard/ent"
)

// PruneBatch is how many rows one transaction of a retention sweep
// deletes: small enough to hold its locks briefly, large enough that a
// sweep keeps up with thousands of rows a second.
const PruneBatch = 5000

// MaxPruneBatches bounds one sweep's transactions, so that a first sweep
// of a long history does not hold a node's sweeps for long; the next
// sweep goes on.
const MaxPruneBatches = 100

// DeleteInBatches runs step, each call in a transaction of its own, until
// a call deletes fewer than PruneBatch rows or it has run maxBatches
// times. step deletes up to PruneBatch rows, picking them with SkipLocked
// so that nodes sweeping at once skip each other's rows,
// and returns how many it deleted. DeleteInBatches returns the rows
// deleted and the transactions run.
func DeleteInBatches(ctx context.Context, root *ent.Client, maxBatches int, step func(ctx context.Context, db *ent.Client) (int, error)) (deleted, batches int, err error) {
	for batches < maxBatches {
		batches++
		var n int
		err = InTx(ctx, root, func(ctx context.Context, db *ent.Client) error {
			m, err := step(ctx, db)
			if err == nil {
				n = m // a failed step's rows are rolled back
			}
			return err
		})
		deleted += n
		if err != nil || n < PruneBatch {
			return deleted, batches, err
		}
	}
	return deleted, batches, nil
}
