package database

import (
	"context"
	"fmt"

	atlas "ariga.io/atlas/sql/schema"
	"entgo.io/ent/dialect/sql/schema"
)

// MessageBodyVector is the full-text document of a message on
// PostgreSQL: the words of its text (content.body: a text message, a
// caption, an interactive or template body), split and lower-cased by
// the language-neutral 'simple' configuration, so any language is
// searchable and no word is dropped as a stop word or stemmed.
const MessageBodyVector = `to_tsvector('simple'::regconfig, (content ->> 'body'::text))`

// MessageSearchVector is what MessageSearchIndex indexes: the words of
// MessageBodyVector and one more lexeme, the message's organization and
// hour (message_hour_key, '#<organization>:<hours since 1970>'; the
// parser never makes a lexeme with '#' of a text, so no search matches it
// by chance). A search ANDs its words with an OR of hour lexemes, and the
// index intersects their entries, skipping through the long ones: the
// hits of common words in a range of hours are found without testing
// every message of the range, nor reading every message holding the
// words (bench/scale: 650,000 newest messages without "refund", held by a
// fifth of the older ones, were walked for 250 ms a page). A query must
// write this expression as it is for the planner to use the index.
const MessageSearchVector = `(` + MessageBodyVector + ` || message_hour_key(organization_id, created_at))`

// MessageHourKeyFunction creates message_hour_key. It is IMMUTABLE (an
// index expression must be): the epoch of a timestamptz does not depend
// on the time zone, though PostgreSQL marks extract() STABLE for its
// other fields.
const MessageHourKeyFunction = `CREATE OR REPLACE FUNCTION message_hour_key(org uuid, at timestamptz) RETURNS tsvector
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	AS $$ SELECT array_to_tsvector(ARRAY['#' || org::text || ':' || floor(extract(epoch FROM at) / 3600)::bigint::text]) $$`

// MessageSearchIndex is the GIN index over MessageSearchVector. ent
// cannot declare an expression index, so it is hand-written: the
// versioned migration builds it CONCURRENTLY
// (20261129210001_message_search_hours, replacing message_body_search,
// which indexed the words alone), AutoMigrate creates it on PostgreSQL,
// and KeepHandWrittenIndexes stops the migration generator from
// dropping it.
//
// It is an expression index rather than a stored generated column:
// adding a STORED column rewrites the whole table under an ACCESS
// EXCLUSIVE lock (writes wait for minutes at ten million messages) and
// ent would read the column with every message, whereas the index is
// built CONCURRENTLY beside running writes. Only phrase matches recheck
// rows (GIN keeps no word positions), recomputing the vector for the
// candidate rows.
const MessageSearchIndex = "message_search"

// shortPendingList is the storage parameter of the GIN indexes written
// at the ingest's rate (the message search's, the contacts' search and
// tag indexes; every message updates its contact, a new row version in
// each of its indexes). GIN adds new entries to a pending list that
// every scan of the index reads whole, matching each entry, until an
// insert finds the list past its limit and merges it into the index.
// At the default limit, 4 MB, the ingest at 2,000 messages a second kept
// the lists near full (up to 35,000 messages' or 12,900 contacts'
// entries, pgstatginindex in bench/scale), and a scan of a full list
// costs about 3 ms (30,000 messages: 2.8-3.2 ms, 10,000 contacts:
// 2.3-3.2 ms, against 0.01-0.07 ms for an empty one): a search pays it
// for every statement and index it reads, a range of hours at a time.
// 256 kB bounds it at a sixteenth (0.2 ms); the merges come more often,
// each of fewer entries. The versioned migration
// 20261130200000_gin_short_pending_lists sets it on existing indexes.
const shortPendingList = " WITH (gin_pending_list_limit = 256)"

// handWrittenIndexes are the indexes the ent schema cannot declare, by
// table, with their definition (CREATE INDEX %s <name> ...; the verb is
// filled with CONCURRENTLY in migrations, left out on a fresh database).
var handWrittenIndexes = []struct{ table, name, create string }{
	{"messages", MessageSearchIndex,
		"CREATE INDEX %s" + MessageSearchIndex + " ON messages USING gin (" + MessageSearchVector + ")" + shortPendingList},
}

// createHandWrittenIndexes creates the hand-written indexes on a database
// auto-migrated from the ent schema (tests' throwaway databases), which the
// versioned migrations did not build.
func (d *DB) createHandWrittenIndexes(ctx context.Context) error {
	for _, ix := range handWrittenIndexes {
		if _, err := d.SQL.ExecContext(ctx, fmt.Sprintf(ix.create, "IF NOT EXISTS ")); err != nil {
			return fmt.Errorf("database: index %s: %w", ix.name, err)
		}
	}
	return nil
}

// KeepHandWrittenIndexes is a schema diff hook for the migration
// generator (cmd/migrate): the hand-written indexes, and the hand-written
// table of the tag order (ContactTagOrder), exist in the migrated
// database but not in the ent schema, and must not be dropped by the next
// generated migration.
func KeepHandWrittenIndexes(next schema.Differ) schema.Differ {
	return schema.DiffFunc(func(current, desired *atlas.Schema) ([]atlas.Change, error) {
		changes, err := next.Diff(current, desired)
		if err != nil {
			return nil, err
		}
		kept := changes[:0]
		for _, c := range changes {
			if d, ok := c.(*atlas.DropTable); ok && d.T.Name == ContactTagOrder {
				continue
			}
			if m, ok := c.(*atlas.ModifyTable); ok {
				m.Changes = keepIndexes(m.T.Name, m.Changes)
			}
			kept = append(kept, c)
		}
		return dropEmptyModifies(kept), nil
	})
}

// keepIndexes removes the drops of table's hand-written indexes.
func keepIndexes(table string, changes []atlas.Change) []atlas.Change {
	kept := changes[:0]
	for _, c := range changes {
		if d, ok := c.(*atlas.DropIndex); ok && handWritten(table, d.I.Name) {
			continue
		}
		kept = append(kept, c)
	}
	return kept
}

func handWritten(table, index string) bool {
	for _, ix := range handWrittenIndexes {
		if ix.table == table && ix.name == index {
			return true
		}
	}
	return false
}

// dropEmptyModifies leaves out table changes that have nothing left.
func dropEmptyModifies(changes []atlas.Change) []atlas.Change {
	kept := changes[:0]
	for _, c := range changes {
		if m, ok := c.(*atlas.ModifyTable); ok && len(m.Changes) == 0 {
			continue
		}
		kept = append(kept, c)
	}
	return kept
}
