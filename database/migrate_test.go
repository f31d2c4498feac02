package database_test

import (
	"bytes"
	"context"
	"database/sql"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/database"
	"switchboard/internal/testenv"
)

// unmigratedPostgres is a fresh PostgreSQL database nothing has migrated,
// for the tests of the versioned migrations (PostgreSQL-only: skipped
// where it is not available, unless the run requires it).
func unmigratedPostgres(t *testing.T) *database.DB {
	t.Helper()
	url := testenv.PostgresURL(t)
	if url == "" {
		t.Skip("versioned migrations are PostgreSQL-only; PostgreSQL is not available")
	}
	db, err := database.Open(context.Background(), database.Options{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestMigrationsMatchSchema applies the committed versioned migrations to a
// fresh PostgreSQL database and checks that nothing is left to migrate: the
// files are up to date with ent/schema (see docs/development.md).
func TestMigrationsMatchSchema(t *testing.T) {
	ctx := context.Background()
	db := unmigratedPostgres(t)
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

// TestAccountPhoneIDUniqueMigration applies the migration that makes a
// phone number id belong to one account over rows that already collide:
// the oldest account keeps it, the others are suspended, hold none, and are
// each logged.
func TestAccountPhoneIDUniqueMigration(t *testing.T) {
	url := testenv.PostgresURL(t)
	if url == "" {
		t.Skip("versioned migrations are PostgreSQL-only; PostgreSQL is not available")
	}
	ctx := context.Background()
	var logged bytes.Buffer
	db, err := database.Open(ctx, database.Options{URL: url, Log: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.MigrateTo(ctx, 20261123195342); err != nil {
		t.Fatal(err)
	}
	orgA, orgB := uuid.New(), uuid.New()
	for _, org := range []uuid.UUID{orgA, orgB} {
		mustExec(t, db, `INSERT INTO organizations (id, created_at, updated_at, name, slug) VALUES ($1, now(), now(), 'Org', $2)`, org, org.String())
	}
	type row struct {
		org   uuid.UUID
		phone string
		age   string // how long ago it was created
	}
	rows := map[string]row{
		"holder":           {orgA, "1001", "3 days"},
		"intruder":         {orgB, "1001", "2 days"},
		"same org":         {orgA, "1001", "1 day"},
		"unique":           {orgB, "2002", "1 hour"},
		"unique elsewhere": {orgA, "3003", "1 hour"},
	}
	ids := map[string]uuid.UUID{}
	for name, r := range rows {
		ids[name] = uuid.New()
		// One business account per organization: the later migration
		// that gives each business account id to one organization leaves
		// these rows alone.
		mustExec(t, db, `INSERT INTO accounts (id, created_at, updated_at, name, phone_id, business_id, organization_id)
			VALUES ($1, now() - $2::interval, now(), $3, $4, $6, $5)`, ids[name], r.age, name, r.phone, r.org, "waba-"+r.org.String())
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		status string
		held   sql.NullString
	}{
		"holder":           {"active", sql.NullString{String: "1001", Valid: true}},
		"intruder":         {"suspended", sql.NullString{}},
		"same org":         {"suspended", sql.NullString{}},
		"unique":           {"active", sql.NullString{String: "2002", Valid: true}},
		"unique elsewhere": {"active", sql.NullString{String: "3003", Valid: true}},
	}
	for name, w := range want {
		var status string
		var held sql.NullString
		if err := db.SQL.QueryRowContext(ctx, `SELECT status, held_phone_id FROM accounts WHERE id = $1`, ids[name]).Scan(&status, &held); err != nil {
			t.Fatal(err)
		}
		if status != w.status || held != w.held {
			t.Errorf("%s: status %s, held %v; want %s, %v", name, status, held, w.status, w.held)
		}
		set := strings.Contains(logged.String(), ids[name].String()+" of organization")
		if set != (w.status == "suspended") {
			t.Errorf("%s: logged as set aside: %v; log:\n%s", name, set, logged.String())
		}
	}
	if _, err := db.SQL.ExecContext(ctx, `UPDATE accounts SET held_phone_id = '1001' WHERE id = $1`, ids["intruder"]); err == nil {
		t.Error("a second account could hold phone_id 1001")
	}
}

func mustExec(t *testing.T, db *database.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.SQL.ExecContext(context.Background(), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// TestBusinessAccountHoldMigration applies the migration that gives each
// business account id to one organization over accounts of several
// organizations sharing one: the organization of the oldest account holds
// it, the accounts of other organizations with that id are suspended and
// logged, and a second hold of the id is refused.
func TestBusinessAccountHoldMigration(t *testing.T) {
	url := testenv.PostgresURL(t)
	if url == "" {
		t.Skip("versioned migrations are PostgreSQL-only; PostgreSQL is not available")
	}
	ctx := context.Background()
	var logged bytes.Buffer
	db, err := database.Open(ctx, database.Options{URL: url, Log: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.MigrateTo(ctx, 20261125133224); err != nil {
		t.Fatal(err)
	}
	orgA, orgB := uuid.New(), uuid.New()
	for _, org := range []uuid.UUID{orgA, orgB} {
		mustExec(t, db, `INSERT INTO organizations (id, created_at, updated_at, name, slug) VALUES ($1, now(), now(), 'Org', $2)`, org, org.String())
	}
	rows := map[string]struct {
		org        uuid.UUID
		phone, biz string
		age        string
	}{
		"holder":        {orgA, "1001", "waba-1", "3 days"},
		"other org":     {orgB, "1002", "waba-1", "2 days"},
		"same org":      {orgA, "1003", "waba-1", "1 day"},
		"own elsewhere": {orgB, "1004", "waba-2", "1 hour"},
	}
	ids := map[string]uuid.UUID{}
	for name, r := range rows {
		ids[name] = uuid.New()
		mustExec(t, db, `INSERT INTO accounts (id, created_at, updated_at, name, phone_id, held_phone_id, business_id, organization_id)
			VALUES ($1, now() - $2::interval, now(), $3, $4, $4, $5, $6)`, ids[name], r.age, name, r.phone, r.biz, r.org)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"holder": "active", "other org": "suspended", "same org": "active", "own elsewhere": "active"} {
		var status string
		if err := db.SQL.QueryRowContext(ctx, `SELECT status FROM accounts WHERE id = $1`, ids[name]).Scan(&status); err != nil {
			t.Fatal(err)
		}
		logged := strings.Contains(logged.String(), ids[name].String()+" of organization")
		if status != want || logged != (want == "suspended") {
			t.Errorf("%s: status %s, logged %v; want %s", name, status, logged, want)
		}
	}
	for biz, org := range map[string]uuid.UUID{"waba-1": orgA, "waba-2": orgB} {
		var holder uuid.UUID
		if err := db.SQL.QueryRowContext(ctx, `SELECT organization_id FROM business_account_holds WHERE business_id = $1`, biz).Scan(&holder); err != nil {
			t.Fatal(err)
		}
		if holder != org {
			t.Errorf("%s held by %s, want %s", biz, holder, org)
		}
	}
	if _, err := db.SQL.ExecContext(ctx, `INSERT INTO business_account_holds (id, created_at, updated_at, business_id, organization_id)
		VALUES ($1, now(), now(), 'waba-1', $2)`, uuid.New(), orgB); err == nil {
		t.Error("a second organization could hold waba-1")
	}
}

// TestSQLiteMigrate runs the embedded engine's auto-migration twice on one
// file: the partial indexes, written as PostgreSQL prints them, are
// created on SQLite and the second run changes nothing.
func TestSQLiteMigrate(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for run := 1; run <= 2; run++ {
		db, err := database.Open(ctx, database.Options{DataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Migrate(ctx); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		var sql string
		if err := db.SQL.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE name = 'message_bot_pending'`).Scan(&sql); err != nil {
			t.Fatalf("run %d: the bot's partial index: %v", run, err)
		}
		if !strings.Contains(sql, "WHERE") || strings.Contains(sql, "::") {
			t.Fatalf("run %d: index %q", run, sql)
		}
		db.Close()
	}
}
