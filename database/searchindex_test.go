package database_test

import (
	"context"
	"strings"
	"testing"

	atlas "ariga.io/atlas/sql/schema"
	"entgo.io/ent/dialect/sql/schema"

	"switchboard/database"
	"switchboard/internal/testkit"
)

// messageSearchHoursVersion is the migration that drops the first message
// text index, after those that build message_search.
const messageSearchHoursVersion = 20261129210002

// TestMessageSearchIndexMigration applies the migrations that build the
// message search index with the hours CONCURRENTLY (which PostgreSQL
// refuses inside a transaction block: golang-migrate must send it alone)
// and drop the index of the words alone, checks the index is valid and
// the one AutoMigrate creates, and rolls them back.
func TestMessageSearchIndexMigration(t *testing.T) {
	ctx := context.Background()
	db := unmigratedPostgres(t)
	if err := db.MigrateTo(ctx, messageSearchHoursVersion); err != nil {
		t.Fatal(err)
	}
	migrated, valid := indexDef(t, db, database.MessageSearchIndex)
	if !valid {
		t.Fatalf("%s is not valid after the migration", database.MessageSearchIndex)
	}
	// Its storage parameter comes later (TestShortPendingListsMigration).
	auto, _ := indexDef(t, testkit.OpenDB(t), database.MessageSearchIndex)
	if auto, _, _ = strings.Cut(auto, " WITH ("); auto != migrated {
		t.Errorf("AutoMigrate builds\n%s\nthe migration\n%s", auto, migrated)
	}
	if def, _ := indexDef(t, db, "message_body_search"); def != "" {
		t.Errorf("the words' index is left: %s", def)
	}
	for range 3 {
		if _, err := db.MigrateDown(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if def, _ := indexDef(t, db, database.MessageSearchIndex); def != "" {
		t.Errorf("rolled back, the index is left: %s", def)
	}
	if _, valid := indexDef(t, db, "message_body_search"); !valid {
		t.Error("rolled back, the words' index is not back")
	}
}

// indexDef is an index's definition and whether it is valid ("" when
// there is none).
func indexDef(t *testing.T, db *database.DB, name string) (def string, valid bool) {
	t.Helper()
	err := db.SQL.QueryRowContext(context.Background(), `
		SELECT pg_get_indexdef(i.indexrelid), i.indisvalid FROM pg_index i
		JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = $1`, name).Scan(&def, &valid)
	if err != nil && def == "" {
		return "", false
	}
	return def, valid
}

// TestKeepHandWrittenIndexes: the migration generator's diff keeps the
// hand-written indexes (the ent schema does not declare them) and every
// other change.
func TestKeepHandWrittenIndexes(t *testing.T) {
	messages := atlas.NewTable("messages")
	other := &atlas.DropIndex{I: &atlas.Index{Name: "message_contact_id"}}
	changes, err := database.KeepHandWrittenIndexes(schema.DiffFunc(func(_, _ *atlas.Schema) ([]atlas.Change, error) {
		return []atlas.Change{
			&atlas.ModifyTable{T: messages, Changes: []atlas.Change{
				&atlas.DropIndex{I: &atlas.Index{Name: database.MessageSearchIndex}}, other,
			}},
			&atlas.ModifyTable{T: messages, Changes: []atlas.Change{
				&atlas.DropIndex{I: &atlas.Index{Name: database.MessageSearchIndex}},
			}},
			&atlas.ModifyTable{T: atlas.NewTable("contacts"), Changes: []atlas.Change{
				&atlas.DropIndex{I: &atlas.Index{Name: database.MessageSearchIndex}},
			}},
			&atlas.DropTable{T: atlas.NewTable(database.ContactTagOrder)},
		}, nil
	})).Diff(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 2 {
		t.Fatalf("%d table changes, want 2 (the messages one left empty goes, the tag order's table is kept)", len(changes))
	}
	if m := changes[0].(*atlas.ModifyTable); len(m.Changes) != 1 || m.Changes[0] != other {
		t.Errorf("messages: %v, want only the other drop", m.Changes)
	}
	if m := changes[1].(*atlas.ModifyTable); len(m.Changes) != 1 {
		t.Errorf("an index of that name on another table is not kept: %v", m.Changes)
	}
}

// TestContactPhoneHoursMigration: the phone index with keys of its own
// (20261130100001-3) replaces contact_phone_number_hours, built
// CONCURRENTLY; rolled back, the old index is back and the new one and
// its function gone.
func TestContactPhoneHoursMigration(t *testing.T) {
	ctx := context.Background()
	db := unmigratedPostgres(t)
	if err := db.MigrateTo(ctx, 20261130100003); err != nil {
		t.Fatal(err)
	}
	if def, valid := indexDef(t, db, "contact_phone_hours"); !valid || !strings.Contains(def, "contact_phone_hour_key(") {
		t.Errorf("contact_phone_hours after the migration: %q (valid %v)", def, valid)
	}
	if def, _ := indexDef(t, db, "contact_phone_number_hours"); def != "" {
		t.Errorf("the replaced index is left: %s", def)
	}
	for range 3 {
		if _, err := db.MigrateDown(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if def, _ := indexDef(t, db, "contact_phone_hours"); def != "" {
		t.Errorf("rolled back, the index is left: %s", def)
	}
	if _, valid := indexDef(t, db, "contact_phone_number_hours"); !valid {
		t.Error("rolled back, contact_phone_number_hours is not back")
	}
	var fns int
	if err := db.SQL.QueryRowContext(ctx, `SELECT count(*) FROM pg_proc WHERE proname = 'contact_phone_hour_key'`).Scan(&fns); err != nil || fns != 0 {
		t.Errorf("rolled back, contact_phone_hour_key is left (%d, %v)", fns, err)
	}
}

// contactHoursVersion is the last migration of the contacts' search
// indexes with the hours (the function, two indexes, three drops).
const contactHoursVersion = 20261130000005

// TestContactSearchHoursMigration: the migrations build the contacts'
// search indexes with the hours CONCURRENTLY and drop the trigram-only
// ones; rolled back, the trigram-only indexes are back and the new ones
// and their function gone.
func TestContactSearchHoursMigration(t *testing.T) {
	ctx := context.Background()
	db := unmigratedPostgres(t)
	if err := db.MigrateTo(ctx, contactHoursVersion); err != nil {
		t.Fatal(err)
	}
	added := []string{"contact_names_hours", "contact_phone_number_hours"}
	replaced := []string{"contact_name_trgm", "contact_profile_name_trgm", "contact_phone_number_trgm"}
	for _, ix := range added {
		if _, valid := indexDef(t, db, ix); !valid {
			t.Errorf("%s is not valid after the migration", ix)
		}
	}
	for range 6 {
		if _, err := db.MigrateDown(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, ix := range added {
		if def, _ := indexDef(t, db, ix); def != "" {
			t.Errorf("rolled back, the index is left: %s", def)
		}
	}
	for _, ix := range replaced {
		if _, valid := indexDef(t, db, ix); !valid {
			t.Errorf("rolled back, %s is not back", ix)
		}
	}
	var fns int
	if err := db.SQL.QueryRowContext(ctx, `SELECT count(*) FROM pg_proc WHERE proname = 'contact_hour_key'`).Scan(&fns); err != nil || fns != 0 {
		t.Errorf("rolled back, contact_hour_key is left (%d, %v)", fns, err)
	}
}

// TestShortPendingListsMigration: 20261130200000 gives the GIN indexes
// written at the ingest's rate a pending list of 256 kB; rolled back,
// they are at the default again.
func TestShortPendingListsMigration(t *testing.T) {
	ctx := context.Background()
	db := unmigratedPostgres(t)
	if err := db.MigrateTo(ctx, 20261130200000); err != nil {
		t.Fatal(err)
	}
	short := []string{database.MessageSearchIndex, "contact_names_hours", "contact_phone_hours", "contact_tags"}
	const limit = "WITH (gin_pending_list_limit='256')"
	for _, ix := range short {
		if def, valid := indexDef(t, db, ix); !valid || !strings.HasSuffix(def, limit) {
			t.Errorf("%s after the migration: %q (valid %v), want it to end %s", ix, def, valid, limit)
		}
	}
	if _, err := db.MigrateDown(ctx); err != nil {
		t.Fatal(err)
	}
	for _, ix := range short {
		if def, _ := indexDef(t, db, ix); strings.Contains(def, "gin_pending_list_limit") {
			t.Errorf("rolled back, %s keeps its limit: %s", ix, def)
		}
	}
}
