package database

import (
	"context"

	"switchboard/ent"
)

// ClientFor returns the client of the transaction ctx carries, or root
// when it carries none: the one accessor a domain operation uses, so it
// writes in the caller's transaction when there is one.
func ClientFor(ctx context.Context, root *ent.Client) *ent.Client {
	if tx := ent.TxFromContext(ctx); tx != nil {
		return tx.Client()
	}
	return root
}

// InTx runs fn in the transaction ctx carries, or in a new one that
// commits when fn succeeds and rolls back otherwise. The ctx given to fn
// carries the transaction, so AfterCommit sees it.
func InTx(ctx context.Context, root *ent.Client, fn func(ctx context.Context, db *ent.Client) error) error {
	if tx := ent.TxFromContext(ctx); tx != nil {
		return fn(ctx, tx.Client())
	}
	tx, err := root.Tx(ctx)
	if err != nil {
		return err
	}
	if err := fn(ent.NewTxContext(ctx, tx), tx.Client()); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
