package database

import (
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"
	"github.com/lib/pq"
)

// AnyOf is the predicate "column is one of values". On PostgreSQL it is
// column = ANY($1) with one array parameter, so the statement's text, and
// with it the prepared statement each connection keeps for it
// (stmtcache.go), is the same whatever the number of values; an IN list
// would be a new statement, prepared again, for every length. Elsewhere
// it is an IN list (keep those under MaxParams with InChunks).
func AnyOf(column string, values []string) func(*sql.Selector) {
	return oneOf(column, false, "", func() any { return pq.Array(values) }, func() []any { return anys(values) })
}

// AnyOfIDs is AnyOf for a uuid column: column = ANY($1::uuid[]) on
// PostgreSQL, one statement text whatever the number of ids; an IN list
// elsewhere.
func AnyOfIDs(column string, ids []uuid.UUID) func(*sql.Selector) {
	return oneOf(column, false, "::uuid[]", func() any { return uuidArray(ids) }, func() []any { return anys(ids) })
}

// NoneOfIDs is the negation of AnyOfIDs: column <> ALL($1::uuid[]) on
// PostgreSQL, a NOT IN list elsewhere.
func NoneOfIDs(column string, ids []uuid.UUID) func(*sql.Selector) {
	return oneOf(column, true, "::uuid[]", func() any { return uuidArray(ids) }, func() []any { return anys(ids) })
}

// oneOf is the predicate of AnyOf (none: its negation): on PostgreSQL the
// array array makes, cast with cast; elsewhere the list list makes.
func oneOf(column string, none bool, cast string, array func() any, list func() []any) func(*sql.Selector) {
	return func(s *sql.Selector) {
		if s.Dialect() != dialect.Postgres {
			if none {
				s.Where(sql.NotIn(s.C(column), list()...))
			} else {
				s.Where(sql.In(s.C(column), list()...))
			}
			return
		}
		op := " = ANY("
		if none {
			op = " <> ALL("
		}
		s.Where(sql.P(func(b *sql.Builder) {
			b.Ident(s.C(column)).WriteString(op).Arg(array()).WriteString(cast + ")")
		}))
	}
}

func uuidArray(ids []uuid.UUID) *Array {
	arr := NewArray(37 * len(ids))
	for _, id := range ids {
		arr.UUID(id)
	}
	return arr
}

func anys[T any](values []T) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}
