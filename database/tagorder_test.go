package database_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"switchboard/database"
	"switchboard/ent/contact"
	"switchboard/ent/migrate/migrations"
	"switchboard/internal/testkit"
)

// The tag order's migrations: the one before them, the table's, its
// backfill's.
const (
	beforeTagOrderVersion   = 20261129100727
	tagOrderVersion         = 20261129200000
	tagOrderBackfillVersion = 20261129200001
)

// TestTriggersMigrationText: the triggers' statements AutoMigrate runs
// (the counters', the tag order's) and the contact hour key functions are
// their versioned migration's, word for word.
func TestTriggersMigrationText(t *testing.T) {
	var firstCounters []string // the messages' counter function has its own, later migration
	for _, s := range database.PostgresCounters {
		if s != database.MessagesCountedFunction {
			firstCounters = append(firstCounters, s)
		}
	}
	for file, stmts := range map[string][]string{
		"20261129034347_inbox_counters.up.sql":             firstCounters,
		"20261130100000_messages_counted_by_writer.up.sql": {database.MessagesCountedFunction},
		"20261129200000_contact_tag_order.up.sql":          database.PostgresTagOrder,
		"20261130000000_contact_hour_key.up.sql":           {database.ContactHourKeyFunction},
		"20261130100001_contact_phone_hour_key.up.sql":     {database.ContactPhoneHourKeyFunction},
	} {
		up, err := migrations.FS.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range stmts {
			if !strings.Contains(string(up), s+";") {
				t.Errorf("%s does not hold\n%s", file, s)
			}
		}
	}
}

// TestTagOrderFollowsTheContacts writes contacts' tags and last message
// times every way the product does (ent's create and bulk create, an
// update of the tags, of the last message time, a statement of
// hand-written SQL over several rows, a delete) and checks after each
// that the tag order holds exactly one entry per contact and tag, with
// the contact's order.
func TestTagOrderFollowsTheContacts(t *testing.T) {
	db := testkit.OpenDB(t)
	c := db.Client
	_, ctx := testkit.NewOrg(t, c, "acme")
	_, other := testkit.NewOrg(t, c, "globex")
	steps := []struct {
		name  string
		write func(t *testing.T)
	}{
		{"create", func(t *testing.T) {
			c.Contact.Create().SetPhoneNumber("15550000001").SetTags([]string{"vip", "lead"}).ExecX(ctx)
			c.Contact.Create().SetPhoneNumber("15550000002").ExecX(ctx)
			c.Contact.Create().SetPhoneNumber("15550000001").SetTags([]string{"vip"}).ExecX(other)
		}},
		{"bulk create", func(t *testing.T) {
			c.Contact.CreateBulk(
				c.Contact.Create().SetPhoneNumber("15550000003").SetTags([]string{"lead"}),
				c.Contact.Create().SetPhoneNumber("15550000004").SetTags([]string{"vip", "vip"}),
			).ExecX(ctx)
		}},
		{"tags replaced", func(t *testing.T) {
			c.Contact.Update().Where(contact.PhoneNumber("15550000001")).SetTags([]string{"lead", "new"}).ExecX(ctx)
		}},
		{"tags added to an untagged contact", func(t *testing.T) {
			c.Contact.Update().Where(contact.PhoneNumber("15550000002")).SetTags([]string{"vip"}).ExecX(ctx)
		}},
		{"last message time", func(t *testing.T) {
			c.Contact.Update().Where(contact.PhoneNumber("15550000003")).SetLastMessageAt(time.Now()).ExecX(ctx)
		}},
		{"hand-written statement", func(t *testing.T) {
			if _, err := db.SQL.Exec(`UPDATE contacts SET last_message_at = now() - interval '1 hour', unread_count = unread_count + 1`); err != nil {
				t.Fatal(err)
			}
		}},
		{"upsert of a known sender and a new one (the ingest's statement)", func(t *testing.T) {
			if _, err := db.SQL.Exec(`INSERT INTO contacts AS c (id, created_at, updated_at, organization_id, phone_number,
				name, profile_name, avatar_url, status, tags, metadata, last_message_at, unread_count, chat_account, marketing_opt_out)
				SELECT gen_random_uuid(), now(), now(), organization_id, p, '', '', '', 'active', '[]', '{}', now(), 1, '', false
				FROM contacts, unnest(ARRAY['15550000002', '15550000005']) AS p WHERE phone_number = '15550000003'
				ON CONFLICT (organization_id, phone_number) DO UPDATE SET last_message_at = excluded.last_message_at,
					unread_count = c.unread_count + 1`); err != nil {
				t.Fatal(err)
			}
		}},
		{"tags cleared", func(t *testing.T) {
			c.Contact.Update().Where(contact.PhoneNumber("15550000004")).SetTags([]string{}).ExecX(ctx)
		}},
		{"delete", func(t *testing.T) {
			c.Contact.Delete().Where(contact.PhoneNumber("15550000001")).ExecX(ctx)
		}},
	}
	for _, s := range steps {
		s.write(t)
		if diff := tagOrderDiff(t, db); diff != "" {
			t.Fatalf("after %s, the tag order differs from the contacts:\n%s", s.name, diff)
		}
	}
	var entries int
	if err := db.SQL.QueryRow(`SELECT count(*) FROM contact_tag_order`).Scan(&entries); err != nil {
		t.Fatal(err)
	}
	if entries != 3 { // 0002 vip, 0003 lead, globex's 0001 vip
		t.Errorf("%d entries, want 3", entries)
	}
}

// tagOrderDiff is the entries the tag order holds that the contacts do
// not give, and those it lacks ("" when it is exact).
func tagOrderDiff(t *testing.T, db *database.DB) string {
	t.Helper()
	rows, err := db.SQL.Query(`
		WITH want AS (
			SELECT DISTINCT c.id AS contact_id, t.tag, c.organization_id, c.last_message_at, c.created_at
			FROM contacts c CROSS JOIN LATERAL jsonb_array_elements_text(c.tags) AS t(tag)),
		have AS (SELECT contact_id, tag, organization_id, last_message_at, created_at FROM contact_tag_order)
		(SELECT 'extra', * FROM have EXCEPT ALL SELECT 'extra', * FROM want)
		UNION ALL
		(SELECT 'missing', * FROM want EXCEPT ALL SELECT 'missing', * FROM have)`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var kind, id, tag, org string
		var last *time.Time
		var created time.Time
		if err := rows.Scan(&kind, &id, &tag, &org, &last, &created); err != nil {
			t.Fatal(err)
		}
		b.WriteString(kind + " " + id + " " + tag + "\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestTagOrderMigration applies the tag order's migrations over contacts
// written before them: the backfill gives each contact's entries, the
// index is AutoMigrate's, writes after it are followed, and both roll
// back.
func TestTagOrderMigration(t *testing.T) {
	ctx := context.Background()
	db := unmigratedPostgres(t)
	if err := db.MigrateTo(ctx, beforeTagOrderVersion); err != nil {
		t.Fatal(err)
	}
	_, org := testkit.NewOrg(t, db.Client, "acme")
	for i, tags := range [][]string{{"vip"}, {}, {"vip", "lead"}} {
		db.Client.Contact.Create().SetPhoneNumber("1555000000" + string(rune('1'+i))).SetTags(tags).
			SetLastMessageAt(time.Now().Add(-time.Duration(i) * time.Minute)).ExecX(org)
	}
	if err := db.MigrateTo(ctx, tagOrderBackfillVersion); err != nil {
		t.Fatal(err)
	}
	if diff := tagOrderDiff(t, db); diff != "" {
		t.Fatalf("after the backfill:\n%s", diff)
	}
	migrated, valid := indexDef(t, db, "contact_tag_order_inbox")
	if !valid {
		t.Fatal("contact_tag_order_inbox is not valid after the migration")
	}
	if auto, _ := indexDef(t, testkit.OpenDB(t), "contact_tag_order_inbox"); auto != migrated {
		t.Errorf("AutoMigrate builds\n%s\nthe migration\n%s", auto, migrated)
	}
	db.Client.Contact.Update().Where(contact.PhoneNumber("15550000002")).SetTags([]string{"lead"}).ExecX(org)
	if diff := tagOrderDiff(t, db); diff != "" {
		t.Fatalf("after a write:\n%s", diff)
	}
	for range 2 {
		if _, err := db.MigrateDown(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var tables int
	if err := db.SQL.QueryRow(`SELECT count(*) FROM pg_class WHERE relname = 'contact_tag_order'`).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 0 {
		t.Error("rolled back, the table is left")
	}
	// Contacts are written as before.
	db.Client.Contact.Create().SetPhoneNumber("15550000009").SetTags([]string{"vip"}).ExecX(org)
}
