package access

import (
	"context"
	"time"

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

// PruneExpired deletes the refresh tokens expired more than expiredGrace
// ago: every refresh adds a row, and an expired token can be neither
// rotated nor replayed. The server runs it with the minute's sweeps; it
// returns how many it deleted.
func (s *Service) PruneExpired(ctx context.Context) (int, error) {
	bctx := rule.Bypass(ctx, "deleting expired refresh tokens")
	cutoff := s.now().UTC().Add(-expiredGrace)
	n, _, err := database.DeleteInBatches(bctx, s.Client, database.MaxPruneBatches, func(ctx context.Context, db *ent.Client) (int, error) {
		ids, err := db.RefreshToken.Query().
			Where(refreshtoken.ExpiresAtLT(cutoff), database.SkipLocked()).
			Limit(database.PruneBatch).IDs(ctx)
		if err != nil || len(ids) == 0 {
			return 0, err
		}
		return db.RefreshToken.Delete().Where(database.AnyOfIDs(refreshtoken.FieldID, ids)).Exec(ctx)
	})
	return n, err
}
