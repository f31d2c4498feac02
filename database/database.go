// Package database opens the ent client on PostgreSQL or on the embedded
// SQLite file, and brings the schema up to date.
package database

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/lib/pq"
	_ "modernc.org/sqlite" // pure-Go SQLite driver

	"switchboard/ent"
	_ "switchboard/ent/runtime" // registers privacy policies and hooks
)

// DB is an open database: the ent client plus the driver it runs on.
type DB struct {
	Client  *ent.Client
	SQL     *sql.DB
	Dialect string

	url string
	log *slog.Logger
}

// Options tune Open.
type Options struct {
	// URL is a postgres:// URL; empty selects SQLite in DataDir.
	URL string
	// DataDir holds app.db for the embedded engine.
	DataDir string
	// Debug logs every statement.
	Debug bool
	// Log receives what migrations report (nil: slog.Default()).
	Log *slog.Logger
}

// Open connects and pings. It does not migrate; call Migrate.
func Open(ctx context.Context, o Options) (*DB, error) {
	drv, dia, err := openDriver(o)
	if err != nil {
		return nil, err
	}
	db := drv.DB()
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("database: ping: %w", err)
	}
	opts := []ent.Option{ent.Driver(countingDriver{drv})}
	if o.Debug {
		opts = append(opts, ent.Debug())
	}
	log := o.Log
	if log == nil {
		log = slog.Default()
	}
	return &DB{Client: ent.NewClient(opts...), SQL: db, Dialect: dia, url: o.URL, log: log}, nil
}

func openDriver(o Options) (*entsql.Driver, string, error) {
	if o.URL != "" {
		connector, err := pq.NewConnector(o.URL)
		if err != nil {
			return nil, "", fmt.Errorf("database: open postgres: %w", err)
		}
		db := sql.OpenDB(cachingConnector{connector})
		db.SetMaxOpenConns(40)
		db.SetMaxIdleConns(20)
		db.SetConnMaxIdleTime(5 * time.Minute)
		return entsql.OpenDB(dialect.Postgres, db), dialect.Postgres, nil
	}
	if err := os.MkdirAll(o.DataDir, 0o700); err != nil {
		return nil, "", fmt.Errorf("database: data dir: %w", err)
	}
	path := filepath.Join(o.DataDir, "app.db")
	dsn := "file:" + path + "?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, "", fmt.Errorf("database: open sqlite: %w", err)
	}
	// One writer at a time is what SQLite allows; a single connection
	// avoids "database is locked" under concurrent requests.
	db.SetMaxOpenConns(1)
	return entsql.OpenDB(dialect.SQLite, db), dialect.SQLite, nil
}

// Close closes the client and the pool.
func (d *DB) Close() error { return d.Client.Close() }

// Postgres reports whether the database is PostgreSQL.
func (d *DB) Postgres() bool { return d.Dialect == dialect.Postgres }
