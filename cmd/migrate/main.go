// Command migrate writes a new versioned PostgreSQL migration to
// ent/migrate/migrations: the difference between the committed migrations
// and the current ent schema, computed on a throwaway dev database.
//
//	go run ./cmd/migrate <name>
//
// A generated migration may be edited by hand (a data fix before a new
// constraint, say); then record the new checksums with
//
//	go run ./cmd/migrate -rehash
//
// DEV_DATABASE_URL names a PostgreSQL server to create the dev database on
// (default postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable).
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"log"
	"net/url"
	"os"

	atlasmigrate "ariga.io/atlas/sql/migrate"
	"ariga.io/atlas/sql/sqltool"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql/schema"
	_ "github.com/lib/pq"

	"switchboard/database"
	"switchboard/ent/migrate"
)

// migrationsDir holds the versioned migrations, applied at start by
// database.Migrate.
const migrationsDir = "ent/migrate/migrations"

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: go run ./cmd/migrate <name> | -rehash")
	}
	if os.Args[1] == "-rehash" {
		if err := rehash(); err != nil {
			log.Fatal(err)
		}
		return
	}
	base := os.Getenv("DEV_DATABASE_URL")
	if base == "" {
		base = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	if err := run(context.Background(), base, os.Args[1]); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, base, name string) error {
	admin, err := sql.Open("postgres", base)
	if err != nil {
		return err
	}
	defer admin.Close()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	dbName := "sb_migrate_dev_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+dbName); err != nil {
		return fmt.Errorf("create dev database: %w", err)
	}
	defer func() { _, _ = admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+dbName+" WITH (FORCE)") }()
	u, err := url.Parse(base)
	if err != nil {
		return err
	}
	u.Path = "/" + dbName
	// golang-migrate format, applied at start by database.Migrate.
	dir, err := sqltool.NewGolangMigrateDir(migrationsDir)
	if err != nil {
		return err
	}
	return migrate.NamedDiff(ctx, u.String(), name,
		schema.WithDir(dir),
		schema.WithMigrationMode(schema.ModeReplay),
		schema.WithDialect(dialect.Postgres),
		schema.WithFormatter(sqltool.GolangMigrateFormatter),
		schema.WithDropIndex(true),
		schema.WithDropColumn(true),
		// Expression indexes the ent schema cannot declare are written
		// by hand in their migration; never generate their drop.
		schema.WithDiffHook(database.KeepHandWrittenIndexes),
	)
}

// rehash rewrites atlas.sum after a migration was edited by hand.
func rehash() error {
	dir, err := sqltool.NewGolangMigrateDir(migrationsDir)
	if err != nil {
		return err
	}
	sum, err := dir.Checksum()
	if err != nil {
		return err
	}
	return atlasmigrate.WriteSumFile(dir, sum)
}
