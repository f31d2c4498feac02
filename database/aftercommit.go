package database

import (
	"context"

	"switchboard/ent"
)

// AfterCommit runs fn once the transaction carried by ctx has committed, or
// at once when ctx carries none. Work that must only start for committed
// rows (queueing a task that reads them, publishing an event about them)
// goes through it; if the process dies between the commit and fn, the
// owner's recovery sweep finds the rows still pending.
func AfterCommit(ctx context.Context, fn func()) {
	tx := ent.TxFromContext(ctx)
	if tx == nil {
		fn()
		return
	}
	tx.OnCommit(func(next ent.Committer) ent.Committer {
		return ent.CommitFunc(func(ctx context.Context, tx *ent.Tx) error {
			if err := next.Commit(ctx, tx); err != nil {
				return err
			}
			fn()
			return nil
		})
	})
}
