package database

import (
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
)

// Locked is the predicate that locks the rows a query reads (FOR UPDATE,
// with opts such as SKIP LOCKED) on PostgreSQL. SQLite has one writer, so
// a plain transaction serializes the same work there. It is a predicate
// so that it applies to any entity's query and only on the dialect that
// has row locks.
func Locked(opts ...sql.LockOption) func(*sql.Selector) {
	return func(s *sql.Selector) {
		if s.Dialect() == dialect.Postgres {
			s.ForUpdate(opts...)
		}
	}
}

// SkipLocked is Locked with SKIP LOCKED: the rows a query reads are locked,
// and rows another transaction holds are left out rather than waited for
// (workers and nodes claiming or sweeping the same table at once).
func SkipLocked() func(*sql.Selector) {
	return Locked(sql.WithLockAction(sql.SkipLocked))
}
