package database

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"regexp"

	atlas "ariga.io/atlas/sql/schema"
	"ariga.io/atlas/sql/sqlite"
	"entgo.io/ent/dialect/sql/schema"

	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/database/postgres"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/lib/pq"

	"switchboard/ent/migrate/migrations"
)

var _ embed.FS // the migrations package embeds its files

// Migrate brings the schema up to date. On PostgreSQL it applies the
// committed versioned migrations (ent/migrate/migrations); on SQLite it
// runs ent's auto-migration.
func (d *DB) Migrate(ctx context.Context) error {
	if !d.Postgres() {
		if err := d.AutoMigrate(ctx); err != nil {
			return fmt.Errorf("database: auto-migrate: %w", err)
		}
		return nil
	}
	return d.migrateTo(ctx, 0)
}

// migrateTo applies the versioned migrations up to version (0: all) on a
// connection of its own whose notices and warnings go to the log: a
// migration that repairs data reports each row it changed that way.
func (d *DB) migrateTo(_ context.Context, version uint) error {
	connector, err := pq.NewConnector(d.url)
	if err != nil {
		return fmt.Errorf("database: migrations connection: %w", err)
	}
	conn := sql.OpenDB(pq.ConnectorWithNoticeHandler(connector, func(n *pq.Error) {
		d.log.Warn("migration: "+n.Message, "severity", n.Severity)
	}))
	defer conn.Close()
	src, err := iofs.New(migrations.FS, ".")
	if err != nil {
		return fmt.Errorf("database: migrations source: %w", err)
	}
	drv, err := postgres.WithInstance(conn, &postgres.Config{})
	if err != nil {
		return fmt.Errorf("database: migrations driver: %w", err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "postgres", drv)
	if err != nil {
		return fmt.Errorf("database: migrate: %w", err)
	}
	defer m.Close()
	if version == 0 {
		err = m.Up()
	} else {
		err = m.Migrate(version)
	}
	if err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return fmt.Errorf("database: apply migrations: %w", err)
	}
	return nil
}

// AutoMigrate creates the schema directly from the ent schema, without the
// versioned files. Throwaway test databases use it.
func (d *DB) AutoMigrate(ctx context.Context) error {
	if d.Postgres() {
		return d.Client.Schema.Create(ctx)
	}
	return d.Client.Schema.Create(ctx, schema.WithDiffHook(sqlitePredicates))
}

// sqlitePredicates rewrites the partial indexes' predicates for SQLite.
// The ent schema writes them as PostgreSQL prints them back (so the
// versioned migrations diff clean), casts included; SQLite has no "::"
// casts, and its comparisons need none.
func sqlitePredicates(next schema.Differ) schema.Differ {
	return schema.DiffFunc(func(current, desired *atlas.Schema) ([]atlas.Change, error) {
		for _, t := range desired.Tables {
			for _, idx := range t.Indexes {
				for _, a := range idx.Attrs {
					if p, ok := a.(*sqlite.IndexPredicate); ok {
						p.P = pgCast.ReplaceAllString(p.P, "")
					}
				}
			}
		}
		return next.Diff(current, desired)
	})
}

// pgCast matches a PostgreSQL cast such as ::text or ::character varying.
var pgCast = regexp.MustCompile(`::[a-z]+( [a-z]+)*`)
