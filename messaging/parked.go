package messaging

import (
	"context"
	"time"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/parkedstatus"
	"switchboard/ent/rule"
)

// ParkedRetention is how long a parked status waits for its message: a
// send stores its message id within seconds of the platform's answer, so
// a status still parked after a week is about a message this server never
// sent (another client of the same number) and will never be applied.
const ParkedRetention = 7 * 24 * time.Hour

// PruneParked deletes, in every organization, the statuses parked for
// longer than ParkedRetention. The server runs it with the minute's
// sweeps; it returns how many it deleted.
func (s *Service) PruneParked(ctx context.Context) (int, error) {
	bctx := rule.Bypass(ctx, "deleting parked statuses whose message never appeared")
	cutoff := s.now().Add(-ParkedRetention)
	n, _, err := database.DeleteInBatches(bctx, s.Client, database.MaxPruneBatches, func(ctx context.Context, db *ent.Client) (int, error) {
		ids, err := db.ParkedStatus.Query().
			Where(parkedstatus.CreatedAtLT(cutoff), database.SkipLocked()).
			Limit(database.PruneBatch).IDs(ctx)
		if err != nil || len(ids) == 0 {
			return 0, err
		}
		return db.ParkedStatus.Delete().Where(database.AnyOfIDs(parkedstatus.FieldID, ids)).Exec(ctx)
	})
	return n, err
}
