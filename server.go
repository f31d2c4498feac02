// Command switchboard is the Switchboard server: REST under /api, GraphQL at
// /graphql, WebSocket events at /ws, and the background workers, over
// PostgreSQL and Redis (or, with no configuration, an embedded SQLite file
// and an in-process Redis). Configuration is by environment variables; see
// README.md.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"switchboard/app"
	"switchboard/config"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "switchboard:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	log := config.NewLogger(cfg, os.Stderr)
	slog.SetDefault(log)
	debug.SetGCPercent(cfg.GCPercent)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	a, err := app.New(ctx, cfg, log, app.Options{})
	if err != nil {
		return err
	}
	defer a.Close()
	announce(a)
	return a.Run(ctx)
}

// announce tells how to log in, and prints a generated admin password once.
func announce(a *app.App) {
	log, cfg := a.Log, a.Cfg
	if a.DB.Postgres() {
		log.Info("database: PostgreSQL")
	} else {
		log.Info("database: embedded SQLite", "path", cfg.SQLitePath())
	}
	if a.KV.Embedded() {
		log.Info("redis: in-process (queued tasks live in memory; set REDIS_URL for durability)")
	}
	b := a.Bootstrap
	if b != nil && b.Created {
		if b.Password != "" {
			fmt.Fprintf(os.Stderr, "\n  Switchboard is ready. Log in at %s with\n    email:    %s\n    password: %s\n  (shown once; set ADMIN_PASSWORD to choose it)\n\n", cfg.PublicURL, b.Email, b.Password)
		} else {
			fmt.Fprintf(os.Stderr, "\n  Switchboard is ready. Log in at %s as %s with ADMIN_PASSWORD.\n\n", cfg.PublicURL, b.Email)
		}
		return
	}
	fmt.Fprintf(os.Stderr, "\n  Switchboard is running at %s (POST /api/auth/login).\n\n", cfg.PublicURL)
}
