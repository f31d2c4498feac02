package testkit

import (
	"context"
	"testing"

	"switchboard/database"
	"switchboard/internal/testenv"
)

// OpenDB opens a fresh database with the schema applied, closed when the
// test ends: a throwaway PostgreSQL database (testenv.PostgresURL), or the
// embedded SQLite engine where PostgreSQL does not answer (a failure
// instead under TEST_REQUIRE_SERVICES=1).
func OpenDB(tb testing.TB) *database.DB {
	tb.Helper()
	ctx := context.Background()
	db, err := database.Open(ctx, database.Options{URL: testenv.PostgresURL(tb), DataDir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	if err := db.AutoMigrate(ctx); err != nil {
		tb.Fatal(err)
	}
	return db
}
