package database

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"

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
		if err := d.Client.Schema.Create(ctx); err != nil {
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
	return d.Client.Schema.Create(ctx)
}
