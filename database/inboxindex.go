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
	// Search: ILIKE '%term%' on name and profile_name, LIKE '%digits%' on
	// the phone number (stored as digits), each served by trigrams.
	{"contacts", "contact_name_trgm",
		"CREATE INDEX %scontact_name_trgm ON contacts USING gin (name gin_trgm_ops)"},
	{"contacts", "contact_profile_name_trgm",
		"CREATE INDEX %scontact_profile_name_trgm ON contacts USING gin (profile_name gin_trgm_ops)"},
	{"contacts", "contact_phone_number_trgm",
		"CREATE INDEX %scontact_phone_number_trgm ON contacts USING gin (phone_number gin_trgm_ops)"},
	// Tag filters: JSON containment (tags.HasTag, tags @> '"name"').
	{"contacts", "contact_tags",
		"CREATE INDEX %scontact_tags ON contacts USING gin (tags)"},
}

func init() { handWrittenIndexes = append(handWrittenIndexes, inboxIndexes...) }

// createExtensions creates the PostgreSQL extensions and functions the
// hand-written indexes use (pg_trgm is a trusted extension: a database
// owner may; message_hour_key, MessageSearchIndex's).
func (d *DB) createExtensions(ctx context.Context) error {
	if _, err := d.SQL.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS pg_trgm"); err != nil {
		return fmt.Errorf("database: extension pg_trgm: %w", err)
	}
	if _, err := d.SQL.ExecContext(ctx, MessageHourKeyFunction); err != nil {
		return fmt.Errorf("database: message_hour_key: %w", err)
	}
	return nil
}
