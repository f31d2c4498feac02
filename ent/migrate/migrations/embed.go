// Package migrations embeds the versioned PostgreSQL migrations, generated
// from the ent schema by cmd/migrate (golang-migrate format).
package migrations

import "embed"

// FS holds the *.sql migration files.
//
//go:embed *.sql
var FS embed.FS
