package database

import (
	"context"
	"fmt"
)

// The inbox's hand-written indexes (issue 30): what ent cannot declare (a
// column's sort direction with NULLS LAST, trigram operator classes), or
// what must be built CONCURRENTLY on a table that may already hold
// millions of rows. The versioned migrations build each CONCURRENTLY, one
// statement per migration file (golang-migrate sends a file as one
// query, and PostgreSQL refuses CONCURRENTLY inside the implicit
// transaction of a multi-statement query); AutoMigrate creates them on
// PostgreSQL after CREATE EXTENSION pg_trgm. SQLite has none: its search
// is LIKE over the organization's rows.
var inboxIndexes = []struct{ table, name, create string }{
	// The contacts list's order (contacts.List): the first page and
	// offsets read the index in order, never sorting the organization.
	{"contacts", "contact_inbox_order",
		"CREATE INDEX %scontact_inbox_order ON contacts (organization_id, last_message_at DESC NULLS LAST, created_at DESC, id)"},
	// GraphQL's connection in its default order (id), and cursors on it.
	{"contacts", "contact_organization_id_id",
		"CREATE INDEX %scontact_organization_id_id ON contacts (organization_id, id)"},
	// Search: ILIKE '%term%' on name and profile name (ContactNames, one
	// index for both), LIKE '%digits%' on the phone number (stored as
	// digits), each served by trigrams; beside them each contact's
	// organization and inbox hour (ContactHourKey, ContactPhoneHourKey),
	// so that a broad term's hits in a range of hours are found without
	// reading the rest (contacts.byHours).
	{"contacts", "contact_names_hours",
		"CREATE INDEX %scontact_names_hours ON contacts USING gin (" + ContactNames + " gin_trgm_ops, " + ContactHourKey + ")" + shortPendingList},
	{"contacts", "contact_phone_hours",
		"CREATE INDEX %scontact_phone_hours ON contacts USING gin (phone_number gin_trgm_ops, " + ContactPhoneHourKey + ")" + shortPendingList},
	// Tag filters: JSON containment (tags.HasTag, tags @> '"name"').
	{"contacts", "contact_tags",
		"CREATE INDEX %scontact_tags ON contacts USING gin (tags)" + shortPendingList},
}

func init() { handWrittenIndexes = append(handWrittenIndexes, inboxIndexes...) }

// createExtensions creates the PostgreSQL extensions and functions the
// hand-written indexes use (pg_trgm is a trusted extension: a database
// owner may; message_hour_key, MessageSearchIndex's; contact_hour_key
// and contact_phone_hour_key, the contacts' search indexes').
func (d *DB) createExtensions(ctx context.Context) error {
	if _, err := d.SQL.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS pg_trgm"); err != nil {
		return fmt.Errorf("database: extension pg_trgm: %w", err)
	}
	if _, err := d.SQL.ExecContext(ctx, MessageHourKeyFunction); err != nil {
		return fmt.Errorf("database: message_hour_key: %w", err)
	}
	if _, err := d.SQL.ExecContext(ctx, ContactHourKeyFunction); err != nil {
		return fmt.Errorf("database: contact_hour_key: %w", err)
	}
	if _, err := d.SQL.ExecContext(ctx, ContactPhoneHourKeyFunction); err != nil {
		return fmt.Errorf("database: contact_phone_hour_key: %w", err)
	}
	return nil
}

// ContactNames is the first column of the names' search index: a
// contact's name and profile name, one text, so that a search reads one
// index's entries where it read two (a first name held by 20,767 contacts
// bench/scale: two bitmaps of 20,767 entries each, and twice each range's
// intersection). The unit separator between them is no word character,
// so the trigrams are the two names'; a search tests each name too, so a
// term holding the separator cannot match across it.
const ContactNames = "((name || chr(31)) || profile_name)"

// ContactHourKey is the second column of the contacts' search indexes:
// the contact's organization and its hour in the inbox order, as a
// one-element array ('#<organization>:<hour of the last message>', or
// '#<organization>:c<hour of creation>' for a contact without a message,
// the order's tail). A search ANDs its term with "ContactHourKey && the
// range's keys", and GIN intersects the two columns' entries, skipping
// through the longer: the hits of a term held by tens of thousands in a
// range of hours cost about the range's hits (bench/scale: a first name
// whose 20,767 holders were all older than a campaign's million
// contacts was read from the trigram bitmap and sorted, 81 ms p50). A
// query must write this expression as it is for the planner to use the
// indexes.
const ContactHourKey = "contact_hour_key(organization_id, last_message_at, created_at)"

// ContactHourKeyFunction creates contact_hour_key. It is IMMUTABLE (an
// index expression must be), as message_hour_key is.
var ContactHourKeyFunction = hourKeyFunction("contact_hour_key", "")

// hourKeyFunction is the text creating a contact hour key function whose
// keys are '#<organization>:<prefix><hour>' (':<prefix>c<hour>' for the
// order's tail).
func hourKeyFunction(name, prefix string) string {
	return `CREATE OR REPLACE FUNCTION ` + name + `(org uuid, last_message_at timestamptz, created_at timestamptz) RETURNS text[]
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	AS $$ SELECT ARRAY['#' || org::text || ':` + prefix + `' || CASE WHEN last_message_at IS NULL
		THEN 'c' || floor(extract(epoch FROM created_at) / 3600)::bigint::text
		ELSE floor(extract(epoch FROM last_message_at) / 3600)::bigint::text END] $$`
}

// ContactPhoneHourKey is the phone number's search index's second column:
// ContactHourKey's hours with keys of their own ('#<organization>:p<hour>',
// ':pc<hour>' for the order's tail). With the same keys the two indexes
// shared one expression, and a name search's range could be read from
// the phone index by its hours alone, testing the term on every contact
// of those hours: the planner chooses that wherever it expects an hour to
// hold few contacts, which is every hour newer than the table's last
// ANALYZE, the busiest ones included (bench/scale, after an ingest of
// 620,212 new contacts in one hour: 1.19 s a range, 34 ms through the
// names index). Now each index has its own expression, and only the
// names index can serve the names' hours.
const ContactPhoneHourKey = "contact_phone_hour_key(organization_id, last_message_at, created_at)"

// ContactPhoneHourKeyFunction creates contact_phone_hour_key.
var ContactPhoneHourKeyFunction = hourKeyFunction("contact_phone_hour_key", "p")
