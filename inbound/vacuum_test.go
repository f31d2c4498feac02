package inbound

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"switchboard/database"
	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
)

// The deliveries table is vacuumed on the node's schedule, on PostgreSQL.
func TestVacuumLoop(t *testing.T) {
	ctx := context.Background()
	db := migratedPostgres(t, "the vacuum runs on PostgreSQL only")
	s := &Service{Client: db.Client, Postgres: true, VacuumEvery: 20 * time.Millisecond,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	lctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { s.vacuumLoop(lctx); close(done) }()
	defer func() { cancel(); <-done }()

	testkit.Eventually(t, "a vacuum of inbound_events", func() bool {
		var n int
		err := db.SQL.QueryRowContext(ctx,
			"SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'inbound_events'").Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n > 0
	})
}

// migratedPostgres opens a fresh PostgreSQL database with the schema
// applied, closed when the test ends; the test is skipped (why) when
// PostgreSQL is not available, or fails under TEST_REQUIRE_SERVICES=1.
func migratedPostgres(t *testing.T, why string) *database.DB {
	t.Helper()
	url := testenv.PostgresURL(t)
	if url == "" {
		t.Skip(why + ", which is not available")
	}
	ctx := context.Background()
	db, err := database.Open(ctx, database.Options{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.AutoMigrate(ctx); err != nil {
		t.Fatal(err)
	}
	return db
}
