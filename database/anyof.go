package database

import (
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
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
