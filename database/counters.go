package database

import (
	"context"
	"database/sql"
	"fmt"
)

// The counters a list reads instead of counting: organizations.contact_count
// (the unfiltered contacts list's total) and contacts.message_count (a
// conversation's total). Triggers keep them in the transaction of every
// insert and delete, whichever path writes (ent's builders, the
// hand-written ingest and campaign statements, cascades), so they are
// exact once committed. On PostgreSQL the triggers are per statement over
// its transition table: one UPDATE per statement and organization or
// contact, whatever the batch size. The versioned migration
// 20261129030000_counters installs the same functions and triggers and
// backfills the counts; AutoMigrate (SQLite, throwaway PostgreSQL test
// databases) calls installCounters.

// MessagesCounted is the transaction-local setting by which a writer that
// counts the messages it inserts itself (in the same statement that
// writes their contacts) tells the messages' insert trigger not to count
// them again: the ingest's (messaging/received_pg.go). Each message
// counted by the trigger is a second update of its contact's row in the
// transaction, which PostgreSQL cannot make HOT on a full page: a new
// version with an entry in every index of contacts, the trigram ones
// included, for every contact a batch writes. Set it only around the
// one INSERT it covers, and in a transaction.
const MessagesCounted = "switchboard.messages_counted"

// MessagesCountedFunction is the messages' counter function: it counts
// inserted and deleted messages, but not the inserts of a statement run
// with MessagesCounted on. Migration 20261130100000_messages_counted_by_writer
// installs this text (the first, 20261129034347_inbox_counters, the
// function without the setting).
const MessagesCountedFunction = `CREATE OR REPLACE FUNCTION messages_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		IF current_setting('` + MessagesCounted + `', true) = 'on' THEN
			RETURN NULL;
		END IF;
		UPDATE contacts c SET message_count = c.message_count + n.n
		FROM (SELECT contact_id, count(*) AS n FROM counted_rows GROUP BY contact_id ORDER BY contact_id) n
		WHERE c.id = n.contact_id;
	ELSE
		UPDATE contacts c SET message_count = c.message_count - n.n
		FROM (SELECT contact_id, count(*) AS n FROM counted_rows GROUP BY contact_id ORDER BY contact_id) n
		WHERE c.id = n.contact_id;
	END IF;
	RETURN NULL;
END $$`

// postgresCounters creates or replaces the PostgreSQL functions and triggers.
// Keep it equal to the versioned migrations' texts (TestTriggersMigrationText).
var postgresCounters = []string{
	`CREATE OR REPLACE FUNCTION contacts_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		UPDATE organizations o SET contact_count = o.contact_count + n.n
		FROM (SELECT organization_id, count(*) AS n FROM counted_rows GROUP BY organization_id ORDER BY organization_id) n
		WHERE o.id = n.organization_id;
	ELSE
		UPDATE organizations o SET contact_count = o.contact_count - n.n
		FROM (SELECT organization_id, count(*) AS n FROM counted_rows GROUP BY organization_id ORDER BY organization_id) n
		WHERE o.id = n.organization_id;
	END IF;
	RETURN NULL;
END $$`,
	MessagesCountedFunction,
	`CREATE OR REPLACE TRIGGER contacts_counted_insert AFTER INSERT ON contacts
	REFERENCING NEW TABLE AS counted_rows FOR EACH STATEMENT EXECUTE FUNCTION contacts_counted()`,
	`CREATE OR REPLACE TRIGGER contacts_counted_delete AFTER DELETE ON contacts
	REFERENCING OLD TABLE AS counted_rows FOR EACH STATEMENT EXECUTE FUNCTION contacts_counted()`,
	`CREATE OR REPLACE TRIGGER messages_counted_insert AFTER INSERT ON messages
	REFERENCING NEW TABLE AS counted_rows FOR EACH STATEMENT EXECUTE FUNCTION messages_counted()`,
	`CREATE OR REPLACE TRIGGER messages_counted_delete AFTER DELETE ON messages
	REFERENCING OLD TABLE AS counted_rows FOR EACH STATEMENT EXECUTE FUNCTION messages_counted()`,
}

// sqliteCounters are the same triggers on SQLite (per row: SQLite has no
// statement triggers).
var sqliteCounters = []string{
	`CREATE TRIGGER IF NOT EXISTS contacts_counted_insert AFTER INSERT ON contacts BEGIN
	UPDATE organizations SET contact_count = contact_count + 1 WHERE id = NEW.organization_id; END`,
	`CREATE TRIGGER IF NOT EXISTS contacts_counted_delete AFTER DELETE ON contacts BEGIN
	UPDATE organizations SET contact_count = contact_count - 1 WHERE id = OLD.organization_id; END`,
	`CREATE TRIGGER IF NOT EXISTS messages_counted_insert AFTER INSERT ON messages BEGIN
	UPDATE contacts SET message_count = message_count + 1 WHERE id = NEW.contact_id; END`,
	`CREATE TRIGGER IF NOT EXISTS messages_counted_delete AFTER DELETE ON messages BEGIN
	UPDATE contacts SET message_count = message_count - 1 WHERE id = OLD.contact_id; END`,
}

// backfillCounters sets every counter from the rows (a database that held
// rows before the triggers existed).
var backfillCounters = []string{
	`UPDATE organizations SET contact_count = (SELECT count(*) FROM contacts WHERE contacts.organization_id = organizations.id)`,
	`UPDATE contacts SET message_count = (SELECT count(*) FROM messages WHERE messages.contact_id = contacts.id)`,
}

// installCounters creates the counters' triggers where they are missing,
// backfilling the counts in the same transaction, so that no insert
// between the two is lost.
func (d *DB) installCounters(ctx context.Context) error {
	tx, err := d.SQL.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("database: counters: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	installed, err := d.countersInstalled(ctx, tx)
	if err != nil {
		return err
	}
	if installed {
		return nil
	}
	stmts := sqliteCounters
	if d.Postgres() {
		stmts = postgresCounters
	}
	for _, s := range append(stmts, backfillCounters...) {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("database: counters: %w", err)
		}
	}
	return tx.Commit()
}

// countersInstalled reports whether the last trigger of the set exists.
func (d *DB) countersInstalled(ctx context.Context, tx *sql.Tx) (bool, error) {
	q := `SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = 'messages_counted_delete'`
	if d.Postgres() {
		q = `SELECT count(*) FROM pg_trigger WHERE tgname = 'messages_counted_delete' AND NOT tgisinternal`
	}
	var n int
	if err := tx.QueryRowContext(ctx, q).Scan(&n); err != nil {
		return false, fmt.Errorf("database: counters: %w", err)
	}
	return n > 0, nil
}
