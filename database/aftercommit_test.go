package database_test

import (
	"context"
	"testing"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/internal/testkit"
)

func TestAfterCommit(t *testing.T) {
	client := testkit.OpenDB(t).Client
	ctx := context.Background()

	ran := false
	database.AfterCommit(ctx, func() { ran = true })
	if !ran {
		t.Fatal("without a transaction fn must run at once")
	}

	for _, commit := range []bool{true, false} {
		tx, err := client.Tx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ran = false
		database.AfterCommit(ent.NewTxContext(ctx, tx), func() { ran = true })
		if ran {
			t.Fatal("fn ran before the commit")
		}
		if commit {
			err = tx.Commit()
		} else {
			err = tx.Rollback()
		}
		if err != nil {
			t.Fatal(err)
		}
		if ran != commit {
			t.Fatalf("commit=%v: fn ran=%v", commit, ran)
		}
	}
}
