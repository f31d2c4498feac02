package database

import "context"

// MigrateTo applies the versioned migrations up to version, for tests of
// one migration's data repair.
func (d *DB) MigrateTo(ctx context.Context, version uint) error { return d.migrateTo(ctx, version) }

// PostgresTagOrder is the tag order's statements, for the test that they
// are the versioned migration's.
var PostgresTagOrder = postgresTagOrder

// PostgresCounters is the counters' statements, for the test that they
// are the versioned migration's.
var PostgresCounters = postgresCounters
