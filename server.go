// Command switchboard is the Switchboard server: REST under /api, GraphQL at
// /graphql, WebSocket events at /ws, and the background workers, over
// PostgreSQL and Redis (or, with no configuration, an embedded SQLite file
// and an in-process Redis). Configuration is by environment variables; see
// README.md.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"

	"switchboard/app"
	"switchboard/config"
)

func main() {
	if err := newRootCommand(os.Stdout).Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "switchboard:", err)
		os.Exit(1)
	}
}

// newRootCommand is the operator CLI: the server (all of it, or only its
// HTTP side or its workers) and configuration checks. Without a
// subcommand it serves, as `go run .` does.
func newRootCommand(out io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "switchboard",
		Short: "Switchboard: a multi-tenant customer-messaging backend on the WhatsApp Business platform",
		Long: "Switchboard serves REST under /api, GraphQL at /graphql and WebSocket events at /ws, and runs the\n" +
			"background workers, over PostgreSQL and Redis (or, with no configuration, an embedded SQLite file\n" +
			"and an in-process Redis). It is configured by environment variables (and a .env file); see README.md.",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE:          func(*cobra.Command, []string) error { return serve("") },
	}
	root.AddCommand(
		&cobra.Command{
			Use: "serve", Short: "Run the HTTP server and the background workers (RUN_MODE decides; the default)",
			Args: cobra.NoArgs, RunE: func(*cobra.Command, []string) error { return serve("") },
		},
		&cobra.Command{
			Use: "http", Short: "Run only the HTTP server (a node behind a load balancer; workers run elsewhere)",
			Args: cobra.NoArgs, RunE: func(*cobra.Command, []string) error { return serve(config.RunModeHTTP) },
		},
		&cobra.Command{
			Use: "worker", Short: "Run only the background workers (a worker-only node)",
			Args: cobra.NoArgs, RunE: func(*cobra.Command, []string) error { return serve(config.RunModeWorker) },
		},
		&cobra.Command{
			Use: "check-config", Short: "Check the configuration and print its effective values, secrets masked",
			Args: cobra.NoArgs, RunE: func(*cobra.Command, []string) error { return checkConfig(out) },
		},
	)
	return root
}

// serve runs the server; mode, when set, overrides RUN_MODE.
func serve(mode string) error {
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	if mode != "" {
		cfg.RunMode = mode
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

// checkConfig loads and validates the configuration without starting
// anything, and prints every option's effective value (secrets as [set]).
func checkConfig(out io.Writer) error {
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	for _, s := range cfg.Effective() {
		fmt.Fprintf(out, "%s=%s\n", s.Name, s.Value)
	}
	return nil
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
