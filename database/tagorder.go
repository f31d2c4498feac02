package database

import (
	"context"
	"fmt"
)

// ContactTagOrder is the table a tag filter's page of contacts is read
// from on PostgreSQL (contacts.List, issue 30): one row per contact and
// tag, with the contact's inbox order (last message time, creation time,
// id), indexed by organization, tag and that order. A tag's page is then
// a walk of its own entries in the inbox order, whatever the other
// contacts are: over the tags' GIN index, a page of "vip" contacts whose
// most recent conversation is older than 650,000 untagged ones tested
// all of them, or sorted every vip contact (2.3 s p50 under 20 agents,
// bench/scale).
//
// It is derived data, kept by triggers in the transaction of every write
// to contacts, whichever path writes (ent's builders, the ingest's
// hand-written upserts, a tag's rename): a statement trigger adds the
// inserted contacts' tags, a row trigger replaces a contact's entries
// when its tags change or moves them when its last message time does
// (the WHEN clause skips untagged contacts without calling the
// function), and the foreign key's cascade removes a deleted contact's.
// It is hand-written, not an ent schema: no operation reads or writes it
// but these triggers and the two statements of contacts, and
// KeepHandWrittenIndexes keeps the migration generator from dropping it.
// The versioned migrations install it (20261129200000_contact_tag_order)
// then fill it in batches that each lock their contacts for a moment
// (20261129200001_contact_tag_order_backfill); AutoMigrate runs
// installTagOrder. SQLite has none: its tag filter tests every row.
const ContactTagOrder = "contact_tag_order"

// postgresTagOrder creates the table, its index, the functions and the
// triggers. Keep each statement equal to the versioned migration's text
// (TestTriggersMigrationText).
var postgresTagOrder = []string{
	`CREATE TABLE IF NOT EXISTS contact_tag_order (
	contact_id uuid NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
	tag text NOT NULL,
	organization_id uuid NOT NULL,
	last_message_at timestamptz NULL,
	created_at timestamptz NOT NULL,
	PRIMARY KEY (contact_id, tag)
)`,
	`CREATE INDEX IF NOT EXISTS contact_tag_order_inbox ON contact_tag_order
	(organization_id, tag, last_message_at DESC NULLS LAST, created_at DESC, contact_id)`,
	`CREATE OR REPLACE FUNCTION contact_tags_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO contact_tag_order (contact_id, tag, organization_id, last_message_at, created_at)
	SELECT DISTINCT n.id, t.tag, n.organization_id, n.last_message_at, n.created_at
	FROM inserted_contacts n
	CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(n.tags) = 'array' THEN n.tags ELSE '[]'::jsonb END) AS t(tag)
	ORDER BY 1, 2;
	RETURN NULL;
END $$`,
	`CREATE OR REPLACE FUNCTION contact_tags_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF OLD.tags IS DISTINCT FROM NEW.tags THEN
		DELETE FROM contact_tag_order WHERE contact_id = OLD.id;
		INSERT INTO contact_tag_order (contact_id, tag, organization_id, last_message_at, created_at)
		SELECT DISTINCT NEW.id, t.tag, NEW.organization_id, NEW.last_message_at, NEW.created_at
		FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(NEW.tags) = 'array' THEN NEW.tags ELSE '[]'::jsonb END) AS t(tag);
	ELSE
		UPDATE contact_tag_order SET last_message_at = NEW.last_message_at WHERE contact_id = NEW.id;
	END IF;
	RETURN NULL;
END $$`,
	`CREATE OR REPLACE TRIGGER contact_tags_inserted AFTER INSERT ON contacts
	REFERENCING NEW TABLE AS inserted_contacts FOR EACH STATEMENT EXECUTE FUNCTION contact_tags_inserted()`,
	`CREATE OR REPLACE TRIGGER contact_tags_updated AFTER UPDATE OF tags, last_message_at ON contacts FOR EACH ROW
	WHEN (OLD.tags IS DISTINCT FROM NEW.tags OR (OLD.last_message_at IS DISTINCT FROM NEW.last_message_at AND NEW.tags <> '[]'::jsonb))
	EXECUTE FUNCTION contact_tags_updated()`,
}

// backfillTagOrder fills the table from the contacts at once (a database
// no one else writes: AutoMigrate's). The versioned backfill does the
// same in batches, each locking its contacts (FOR SHARE) so that none
// changes between its read and the entries' insert.
const backfillTagOrder = `INSERT INTO contact_tag_order (contact_id, tag, organization_id, last_message_at, created_at)
SELECT DISTINCT c.id, t.tag, c.organization_id, c.last_message_at, c.created_at
FROM contacts c
CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(c.tags) = 'array' THEN c.tags ELSE '[]'::jsonb END) AS t(tag)
WHERE c.tags <> '[]'::jsonb
ON CONFLICT DO NOTHING`

// installTagOrder creates the tag order's table and triggers on
// PostgreSQL where they are missing, and fills it, in one transaction.
func (d *DB) installTagOrder(ctx context.Context) error {
	if !d.Postgres() {
		return nil
	}
	tx, err := d.SQL.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("database: tag order: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pg_trigger WHERE tgname = 'contact_tags_updated' AND NOT tgisinternal`).Scan(&n); err != nil {
		return fmt.Errorf("database: tag order: %w", err)
	}
	if n > 0 {
		return nil
	}
	for _, s := range append(postgresTagOrder, backfillTagOrder) {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("database: tag order: %w", err)
		}
	}
	return tx.Commit()
}
