package database_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"switchboard/database"
	"switchboard/internal/testenv"
)

// TestMigrationsMatchSchema applies the committed versioned migrations to a
// fresh PostgreSQL database and checks that nothing is left to migrate: the
// files are up to date with ent/schema (see README, "Adding a migration").
func TestMigrationsMatchSchema(t *testing.T) {
	url := testenv.PostgresURL(t)
	if url == "" {
		t.Skip("versioned migrations are PostgreSQL-only; PostgreSQL is not available")
	}
	ctx := context.Background()
	db, err := database.Open(ctx, database.Options{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("second run is not a no-op: %v", err)
	}
	var buf bytes.Buffer
	if err := db.Client.Schema.WriteTo(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	var pending []string
	for _, line := range strings.Split(buf.String(), "\n") {
		l := strings.TrimSpace(line)
		if l == "" || l == "BEGIN;" || l == "COMMIT;" || strings.HasPrefix(l, "--") {
			continue
		}
		pending = append(pending, l)
	}
	if len(pending) > 0 {
		t.Fatalf("ent/schema changed without a migration; run `go run ./cmd/migrate <name>`. Pending:\n%s", strings.Join(pending, "\n"))
	}
}
