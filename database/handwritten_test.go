package database_test

import (
	"context"
	"testing"

	"switchboard/database"
	"switchboard/internal/testkit"
)

// TestHandWrittenIndexMigrations applies the versioned migrations to a
// fresh PostgreSQL database and checks that each hand-written index (built
// CONCURRENTLY, one per migration file) is valid and the one AutoMigrate
// creates, and that the indexes they replaced are gone.
func TestHandWrittenIndexMigrations(t *testing.T) {
	ctx := context.Background()
	db := unmigratedPostgres(t)
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	auto := testkit.OpenDB(t)
	names := database.HandWrittenIndexNames()
	for _, name := range names {
		migrated, valid := indexDef(t, db, name)
		if !valid {
			t.Errorf("%s is not valid after the migrations: %q", name, migrated)
		}
		if def, _ := indexDef(t, auto, name); def != migrated {
			t.Errorf("AutoMigrate builds\n%s\nthe migration\n%s", def, migrated)
		}
	}
	for _, replaced := range []string{"message_body_search", "contact_name_trgm", "contact_profile_name_trgm", "contact_phone_number_trgm",
		"calllog_organization_id_started_at", "agenttransfer_organization_id_transferred_at", "campaign_recipient_campaign_id_id"} {
		if def, _ := indexDef(t, db, replaced); def != "" {
			t.Errorf("%s is left: %s", replaced, def)
		}
	}
}
