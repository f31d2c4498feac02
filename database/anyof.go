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
	return func(s *sql.Selector) {
		if s.Dialect() != dialect.Postgres {
			args := make([]any, len(values))
			for i, v := range values {
				args[i] = v
			}
			s.Where(sql.In(s.C(column), args...))
			return
		}
		s.Where(sql.P(func(b *sql.Builder) {
			b.Ident(s.C(column)).WriteString(" = ANY(").Arg(pq.Array(values)).WriteString(")")
		}))
	}
}

// AnyOfIDs is AnyOf for a uuid column: column = ANY($1::uuid[]) on
// PostgreSQL, one statement text whatever the number of ids; an IN list
// elsewhere.
func AnyOfIDs(column string, ids []uuid.UUID) func(*sql.Selector) {
	return func(s *sql.Selector) {
		if s.Dialect() != dialect.Postgres {
			args := make([]any, len(ids))
			for i, id := range ids {
				args[i] = id
			}
			s.Where(sql.In(s.C(column), args...))
			return
		}
		arr := NewArray(37 * len(ids))
		for _, id := range ids {
			arr.UUID(id)
		}
		s.Where(sql.P(func(b *sql.Builder) {
			b.Ident(s.C(column)).WriteString(" = ANY(").Arg(arr).WriteString("::uuid[])")
		}))
	}
}
