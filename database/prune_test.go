package database_test

import (
	"context"
	"errors"
	"testing"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/internal/testkit"
)

// TestDeleteInBatches: steps run until one deletes less than a batch, or
// the bound; a failing step stops the run with its error.
func TestDeleteInBatches(t *testing.T) {
	client := testkit.OpenDB(t).Client
	boom := errors.New("boom")
	for name, tc := range map[string]struct {
		steps       []int // rows each call deletes; negative: it fails after deleting as many
		max         int
		wantDeleted int
		wantBatches int
		wantErr     error
	}{
		"ShortBatchEnds": {steps: []int{database.PruneBatch, database.PruneBatch, 3}, max: 10, wantDeleted: 2*database.PruneBatch + 3, wantBatches: 3},
		"NoRowsLeft":     {steps: []int{0}, max: 10, wantBatches: 1},
		"Bounded":        {steps: []int{database.PruneBatch, database.PruneBatch, database.PruneBatch}, max: 2, wantDeleted: 2 * database.PruneBatch, wantBatches: 2},
		"ErrorStops":     {steps: []int{database.PruneBatch, -2, database.PruneBatch}, max: 10, wantDeleted: database.PruneBatch, wantBatches: 2, wantErr: boom},
	} {
		t.Run(name, func(t *testing.T) {
			calls := 0
			deleted, batches, err := database.DeleteInBatches(context.Background(), client, tc.max, func(ctx context.Context, db *ent.Client) (int, error) {
				if ent.TxFromContext(ctx) == nil {
					t.Error("step ran outside a transaction")
				}
				n := tc.steps[calls]
				calls++
				if n < 0 {
					return -n, boom // rolled back: not counted
				}
				return n, nil
			})
			if deleted != tc.wantDeleted || batches != tc.wantBatches || !errors.Is(err, tc.wantErr) {
				t.Fatalf("DeleteInBatches = %d, %d, %v; want %d, %d, %v", deleted, batches, err, tc.wantDeleted, tc.wantBatches, tc.wantErr)
			}
		})
	}
}
