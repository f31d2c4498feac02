package database_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// pinnedConn opens the database with the statement cache and returns one
// connection of it, so that the test sees that connection's statements.
func pinnedConn(t *testing.T) *sql.Conn {
	t.Helper()
	conn, err := openPostgres(t).SQL.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

func preparedCount(t *testing.T, conn *sql.Conn, text string) int {
	t.Helper()
	var n int
	// No parameters: this query itself goes through the simple protocol
	// and is not cached.
	q := fmt.Sprintf("SELECT count(*) FROM pg_prepared_statements WHERE statement = '%s'", text)
	if err := conn.QueryRowContext(context.Background(), q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestStatementCacheReusesStatements(t *testing.T) {
	conn := pinnedConn(t)
	ctx := context.Background()
	const query = "SELECT $1::int + 1"
	for i := range 3 {
		var got int
		if err := conn.QueryRowContext(ctx, query, i).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != i+1 {
			t.Fatalf("got %d, want %d", got, i+1)
		}
	}
	// In a transaction the same statement is used, and Exec shares it.
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got int
	if err := tx.QueryRowContext(ctx, query, 41).Scan(&got); err != nil || got != 42 {
		t.Fatalf("in a transaction: %d, %v", got, err)
	}
	if _, err := tx.ExecContext(ctx, query, 1); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := preparedCount(t, conn, query); n != 1 {
		t.Fatalf("%d prepared statements for the query, want 1", n)
	}
}

// TestStatementCachePlansWithTheValues: a cached statement run many
// times is planned with each execution's parameters, never PostgreSQL's
// generic plan (costed for an average organization: seconds for a large
// one, see cachingConnector).
func TestStatementCachePlansWithTheValues(t *testing.T) {
	conn := pinnedConn(t)
	ctx := context.Background()
	const query = "SELECT $1::int * 2" // generic from the sixth run otherwise
	for i := range 8 {
		var got int
		if err := conn.QueryRowContext(ctx, query, i).Scan(&got); err != nil || got != 2*i {
			t.Fatalf("execution %d: %d, %v", i, got, err)
		}
	}
	var generic, custom int
	q := fmt.Sprintf("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = '%s'", query)
	if err := conn.QueryRowContext(ctx, q).Scan(&generic, &custom); err != nil {
		t.Fatal(err)
	}
	if generic != 0 || custom != 8 {
		t.Fatalf("%d generic and %d custom plans, want 0 and 8", generic, custom)
	}
}

func TestStatementCacheEvictsBeyondItsSize(t *testing.T) {
	conn := pinnedConn(t)
	ctx := context.Background()
	for i := range 200 {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("SELECT $1::int + %d", i), i); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM pg_prepared_statements").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 128 {
		t.Fatalf("%d statements prepared on the connection, want the cache's 128", n)
	}
	if c := preparedCount(t, conn, "SELECT $1::int + 0"); c != 0 {
		t.Fatal("the least recently used statement is still prepared")
	}
}

// TestStatementCacheBoundsItsBytes: statements of a few kilobytes each
// (bulk texts) stay within the cache's weight per connection, not its
// count, and a text beyond the largest cached one is run uncached.
func TestStatementCacheBoundsItsBytes(t *testing.T) {
	conn := pinnedConn(t)
	ctx := context.Background()
	pad := strings.Repeat("x", 6000)
	text := func(i int) string { return fmt.Sprintf("SELECT $1::int + %d -- %s", i, pad) }
	for i := range 100 {
		var got int
		if err := conn.QueryRowContext(ctx, text(i), 1).Scan(&got); err != nil || got != i+1 {
			t.Fatalf("statement %d: %d, %v", i, got, err)
		}
	}
	weight := len(text(50)) + 4 // its text and its one parameter's type
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM pg_prepared_statements").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 || n*weight > 256<<10 || (n+1)*weight <= 256<<10 {
		t.Fatalf("%d statements of %d bytes prepared on the connection, want as many as 256 KiB holds", n, weight)
	}
	if preparedCount(t, conn, text(99)) != 1 || preparedCount(t, conn, text(0)) != 0 {
		t.Fatal("the cache did not keep the most recent statements")
	}

	long := fmt.Sprintf("SELECT $1::int + 1 -- %s", strings.Repeat("y", 9000))
	for range 2 {
		var got int
		if err := conn.QueryRowContext(ctx, long, 1).Scan(&got); err != nil || got != 2 {
			t.Fatalf("a long text: %d, %v", got, err)
		}
	}
	if preparedCount(t, conn, long) != 0 {
		t.Fatal("a text beyond the cache's largest was cached")
	}
}

// TestStatementCacheSurvivesSchemaChanges: a statement whose result type
// changed fails once (PostgreSQL refuses the cached plan), then is
// prepared again.
func TestStatementCacheSurvivesSchemaChanges(t *testing.T) {
	conn := pinnedConn(t)
	ctx := context.Background()
	if _, err := conn.ExecContext(ctx, "CREATE TABLE cache_probe (id int PRIMARY KEY); INSERT INTO cache_probe VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	const query = "SELECT * FROM cache_probe WHERE id = $1"
	var id int
	if err := conn.QueryRowContext(ctx, query, 1).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "ALTER TABLE cache_probe ADD COLUMN note text DEFAULT 'x'"); err != nil {
		t.Fatal(err)
	}
	_ = conn.QueryRowContext(ctx, query, 1).Scan(&id) // may fail once: cached plan must not change result type
	var note string
	if err := conn.QueryRowContext(ctx, query, 1).Scan(&id, &note); err != nil || note != "x" {
		t.Fatalf("after the change: %q, %v", note, err)
	}
}

// TestConnectionSettings: every connection plans each execution with its
// values, starts a sequential scan at the table's start (a bounded
// count's scan stops at its bound; started where another scan was, it
// read through a region without a match), compiles no statement
// (JIT: an overestimated sweep loaded LLVM to read nothing) and lets a
// bitmap heap scan prefetch.
func TestConnectionSettings(t *testing.T) {
	conn := pinnedConn(t)
	for setting, want := range map[string]string{
		"plan_cache_mode":      "force_custom_plan",
		"synchronize_seqscans": "off",
		"jit":                  "off",
	} {
		var got string
		if err := conn.QueryRowContext(context.Background(), "SHOW "+setting).Scan(&got); err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", setting, got, err, want)
		}
	}
	// Raised to 32, or kept when the server's own is higher.
	var io int
	if err := conn.QueryRowContext(context.Background(), "SELECT current_setting('effective_io_concurrency')::int").Scan(&io); err != nil || io < 32 {
		t.Errorf("effective_io_concurrency = %d (%v), want at least 32", io, err)
	}
}
