package database_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/internal/testenv"
)

// openPostgres opens a fresh PostgreSQL database (no schema) with the
// statement cache.
func openPostgres(tb testing.TB) *database.DB {
	tb.Helper()
	url := testenv.PostgresURL(tb)
	if url == "" {
		tb.Skip("the statement cache and the plan cache's mode are PostgreSQL's")
	}
	db, err := database.Open(context.Background(), database.Options{URL: url, DataDir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return db
}

// inTx begins a transaction of db and returns the context carrying it and
// its client.
func inTx(tb testing.TB, db *database.DB) (context.Context, *ent.Tx) {
	tb.Helper()
	tx, err := db.Client.Tx(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = tx.Rollback() })
	return ent.NewTxContext(context.Background(), tx), tx
}

func planCacheMode(tb testing.TB, ctx context.Context, c *ent.Client) string {
	tb.Helper()
	var mode string
	if err := database.ScanOne(ctx, c, "SELECT current_setting('plan_cache_mode')", nil, &mode); err != nil {
		tb.Fatal(err)
	}
	return mode
}

// TestWithCheckPlansKept: a bulk write runs under the plan cache's
// default mode, and the transaction's later statements are planned with
// their values again; a failed write is returned; outside a transaction
// nothing runs.
func TestWithCheckPlansKept(t *testing.T) {
	db := openPostgres(t)
	ctx, tx := inTx(t, db)
	c := tx.Client()
	var during string
	err := database.WithCheckPlansKept(ctx, c, func() error {
		during = planCacheMode(t, ctx, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if during != "auto" {
		t.Errorf("during the write plan_cache_mode = %q, want auto", during)
	}
	if after := planCacheMode(t, ctx, c); after != "force_custom_plan" {
		t.Errorf("after the write plan_cache_mode = %q, want force_custom_plan", after)
	}

	failed := errors.New("the write failed")
	if err := database.WithCheckPlansKept(ctx, c, func() error { return failed }); !errors.Is(err, failed) {
		t.Errorf("a failed write: %v, want %v", err, failed)
	}

	ran := false
	err = database.WithCheckPlansKept(context.Background(), db.Client, func() error { ran = true; return nil })
	if err == nil || ran {
		t.Errorf("outside a transaction: ran %v, err %v; want an error and no write", ran, err)
	}
}

// BenchmarkKeyChecks inserts 1,000 rows with two foreign keys per
// operation, as the ingest's INSERT ... SELECT FROM unnest does: under the
// connection's force_custom_plan every row's checks are planned anew;
// kept, they are planned once.
func BenchmarkKeyChecks(b *testing.B) {
	db := openPostgres(b)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE bench_parents (id uuid PRIMARY KEY)",
		"CREATE TABLE bench_children (id bigserial PRIMARY KEY, a uuid REFERENCES bench_parents, b uuid REFERENCES bench_parents)",
		"INSERT INTO bench_parents SELECT gen_random_uuid() FROM generate_series(1, 1000)",
	} {
		if _, err := db.SQL.ExecContext(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	const insert = `INSERT INTO bench_children (a, b)
SELECT p.id, p.id FROM bench_parents p WHERE p.id <> $1::uuid`
	for _, kept := range []bool{false, true} {
		b.Run(fmt.Sprintf("kept=%v", kept), func(b *testing.B) {
			for b.Loop() {
				tctx, tx := inTx(b, db)
				c := tx.Client()
				write := func() error {
					_, err := c.ExecContext(tctx, insert, "00000000-0000-0000-0000-000000000000")
					return err
				}
				var err error
				if kept {
					err = database.WithCheckPlansKept(tctx, c, write)
				} else {
					err = write()
				}
				if err != nil {
					b.Fatal(err)
				}
				if err := tx.Rollback(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
