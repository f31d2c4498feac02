package access

import (
	"context"
	"time"

	"entgo.io/ent/dialect/sql"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/refreshtoken"
	"switchboard/ent/rule"
)

// expiredGrace is how long an expired refresh token's row outlives the
// token: longer than any clock skew between nodes, so that no node still
// accepts the token (nor an access token issued with it, which expires
// first) once the row, and with it the family's revocation, is gone.
const expiredGrace = time.Hour

// pruneBatch is how many rows one transaction of PruneExpired deletes;
// maxPruneBatches bounds one sweep's work (the next sweep goes on).
const (
	pruneBatch      = 5000
	maxPruneBatches = 100
)

// PruneExpired deletes the refresh tokens expired more than expiredGrace
// ago: every refresh adds a row, and an expired token can be neither
// rotated nor replayed. Nodes pruning at once skip each other's rows. The
// server runs it with the minute's sweeps; it returns how many it deleted.
func (s *Service) PruneExpired(ctx context.Context) (int, error) {
	bctx := rule.Bypass(ctx, "deleting expired refresh tokens")
	cutoff := s.now().UTC().Add(-expiredGrace)
	total := 0
	for range maxPruneBatches {
		var n int
		err := database.InTx(bctx, s.Client, func(ctx context.Context, db *ent.Client) error {
			ids, err := db.RefreshToken.Query().
				Where(refreshtoken.ExpiresAtLT(cutoff), database.Locked(sql.WithLockAction(sql.SkipLocked))).
				Limit(pruneBatch).IDs(ctx)
			if err != nil || len(ids) == 0 {
				return err
			}
			n, err = db.RefreshToken.Delete().Where(database.AnyOfIDs(refreshtoken.FieldID, ids)).Exec(ctx)
			return err
		})
		total += n
		if err != nil || n < pruneBatch {
			return total, err
		}
	}
	return total, nil
}
