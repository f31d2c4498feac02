package database

import (
	"context"
	"embed"
	"errors"
	"fmt"

	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/database/postgres"
	"github.com/golang-migrate/migrate/v4/source/iofs"

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
	src, err := iofs.New(migrations.FS, ".")
	if err != nil {
		return fmt.Errorf("database: migrations source: %w", err)
	}
	drv, err := postgres.WithInstance(d.SQL, &postgres.Config{})
	if err != nil {
		return fmt.Errorf("database: migrations driver: %w", err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "postgres", drv)
	if err != nil {
		return fmt.Errorf("database: migrate: %w", err)
	}
	if err := m.Up(); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return fmt.Errorf("database: apply migrations: %w", err)
	}
	return nil
}

// AutoMigrate creates the schema directly from the ent schema, without the
// versioned files. Throwaway test databases use it.
func (d *DB) AutoMigrate(ctx context.Context) error {
	return d.Client.Schema.Create(ctx)
}
