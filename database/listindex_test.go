package database_test

import (
	"context"
	"testing"

	"switchboard/database"
	"switchboard/internal/testkit"
)

// TestListIndexMigrations applies the versioned migrations to a fresh
// PostgreSQL database and checks that each of the lists' hand-written
// indexes (built CONCURRENTLY, one per migration file) is valid and the
// one AutoMigrate creates.
func TestListIndexMigrations(t *testing.T) {
	ctx := context.Background()
	db := unmigratedPostgres(t)
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	auto := testkit.OpenDB(t)
	names := database.ListIndexNames()
	for _, name := range names {
		migrated, valid := indexDef(t, db, name)
		if !valid {
			t.Errorf("%s is not valid after the migrations: %q", name, migrated)
		}
		if def, _ := indexDef(t, auto, name); def != migrated {
			t.Errorf("AutoMigrate builds\n%s\nthe migration\n%s", def, migrated)
		}
	}
}
