package database

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"

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

// migrateTo applies the versioned migrations up to version (0: all).
func (d *DB) migrateTo(ctx context.Context, version uint) error {
	return d.withMigrator(ctx, func(m *migrate.Migrate) error {
		var err error
		if version == 0 {
			err = m.Up()
		} else {
			err = m.Migrate(version)
		}
		if err != nil && !errors.Is(err, migrate.ErrNoChange) {
			return fmt.Errorf("database: apply migrations: %w", err)
		}
		return nil
	})
}

// withMigrator runs fn with a golang-migrate instance over the embedded
// migrations, on a connection of its own whose notices and warnings go to
// the log: a migration that repairs data reports each row it changed that
// way. golang-migrate holds a PostgreSQL advisory lock while it changes
// the schema, so nodes starting together apply each migration once.
func (d *DB) withMigrator(_ context.Context, fn func(*migrate.Migrate) error) error {
	if !d.Postgres() {
		return ErrNotVersioned
	}
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
	return fn(m)
}

// ErrNotVersioned: the embedded SQLite database has no versioned
// migrations; its schema is created from the ent schema at start.
var ErrNotVersioned = errors.New("the embedded SQLite database is auto-migrated from the ent schema at start; versioned migrations apply to PostgreSQL (DATABASE_URL)")

// Migration is one versioned migration file pair.
type Migration struct {
	Version uint
	Name    string
	Applied bool
}

// MigrationStatus is where the database stands among the migrations.
type MigrationStatus struct {
	// Current is the last applied version (0: none).
	Current uint
	// Dirty: the migration at Current failed half-way; fix the schema by
	// hand, then force the version (golang-migrate's "dirty" state).
	Dirty      bool
	Migrations []Migration
}

// Pending counts the migrations not applied yet.
func (s *MigrationStatus) Pending() int {
	n := 0
	for _, m := range s.Migrations {
		if !m.Applied {
			n++
		}
	}
	return n
}

// Status reports the applied version and every migration's state.
func (d *DB) Status(ctx context.Context) (*MigrationStatus, error) {
	all, err := embeddedMigrations()
	if err != nil {
		return nil, err
	}
	st := &MigrationStatus{Migrations: all}
	err = d.withMigrator(ctx, func(m *migrate.Migrate) error {
		v, dirty, err := m.Version()
		if errors.Is(err, migrate.ErrNilVersion) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("database: migration version: %w", err)
		}
		st.Current, st.Dirty = v, dirty
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range st.Migrations {
		m := &st.Migrations[i]
		m.Applied = m.Version < st.Current || (m.Version == st.Current && !st.Dirty)
	}
	return st, nil
}

// MigrateDown rolls back the last applied migration and returns the
// version the database is at afterwards (0: none applied).
func (d *DB) MigrateDown(ctx context.Context) (uint, error) {
	var now uint
	err := d.withMigrator(ctx, func(m *migrate.Migrate) error {
		if _, dirty, err := m.Version(); errors.Is(err, migrate.ErrNilVersion) {
			return errors.New("no migration is applied")
		} else if err != nil {
			return fmt.Errorf("database: migration version: %w", err)
		} else if dirty {
			return errors.New("the last migration failed half-way (dirty); repair the schema by hand first")
		}
		if err := m.Steps(-1); err != nil {
			return fmt.Errorf("database: roll back: %w", err)
		}
		v, _, err := m.Version()
		if err != nil && !errors.Is(err, migrate.ErrNilVersion) {
			return err
		}
		now = v
		return nil
	})
	return now, err
}

// embeddedMigrations lists the committed migrations in version order.
func embeddedMigrations() ([]Migration, error) {
	names, err := fs.Glob(migrations.FS, "*.up.sql")
	if err != nil {
		return nil, err
	}
	var all []Migration
	for _, n := range names {
		version, name, ok := strings.Cut(strings.TrimSuffix(n, ".up.sql"), "_")
		v, err := strconv.ParseUint(version, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("database: migration file %q is not <version>_<name>.up.sql", n)
		}
		all = append(all, Migration{Version: uint(v), Name: name})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Version < all[j].Version })
	return all, nil
}

// AutoMigrate creates the schema directly from the ent schema, without the
// versioned files, plus on PostgreSQL the hand-written indexes the ent
// schema cannot declare (searchindex.go, inboxindex.go), the counters'
// triggers (counters.go) and the tag order (tagorder.go). Throwaway test databases use it.
func (d *DB) AutoMigrate(ctx context.Context) error {
	if !d.Postgres() {
		if err := d.Client.Schema.Create(ctx, schema.WithDiffHook(sqlitePredicates)); err != nil {
			return err
		}
		return d.installCounters(ctx)
	}
	if err := d.Client.Schema.Create(ctx); err != nil {
		return err
	}
	if err := d.createExtensions(ctx); err != nil {
		return err
	}
	if err := d.createHandWrittenIndexes(ctx); err != nil {
		return err
	}
	if err := d.installCounters(ctx); err != nil {
		return err
	}
	return d.installTagOrder(ctx)
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
