// Command switchboard is the Switchboard server: REST under /api, GraphQL at
// /graphql, WebSocket events at /ws, and the background workers, over
// PostgreSQL and Redis (or, with no configuration, an embedded SQLite file
// and an in-process Redis). Configuration is by environment variables; see
// README.md.
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"switchboard/access"
	"switchboard/app"
	"switchboard/config"
	"switchboard/database"
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
		newMigrateCommand(out),
		newCreateAdminCommand(out),
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

// openDatabase opens the configured database for an operator command,
// logging to stderr.
func openDatabase(ctx context.Context) (*config.Config, *database.DB, error) {
	cfg, err := config.FromEnv()
	if err != nil {
		return nil, nil, err
	}
	log := config.NewLogger(cfg, os.Stderr)
	db, err := database.Open(ctx, database.Options{URL: cfg.DatabaseURL, DataDir: cfg.DataDir, Log: log})
	if err != nil {
		return nil, nil, err
	}
	return cfg, db, nil
}

// withDatabase runs fn on the configured database and closes it.
func withDatabase(fn func(ctx context.Context, cfg *config.Config, db *database.DB) error) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, db, err := openDatabase(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(ctx, cfg, db)
}

// newMigrateCommand: the schema's versioned migrations (PostgreSQL). The
// server applies pending migrations when it starts; these let an
// operator apply them ahead of a rollout, see where a database stands,
// and roll back one step.
func newMigrateCommand(out io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply, inspect or roll back the database's versioned schema migrations",
		Long: "The versioned migrations (ent/migrate/migrations, embedded in the binary) apply to PostgreSQL; the server\n" +
			"applies pending ones when it starts. The embedded SQLite database is created from the ent schema instead.",
		Args: cobra.NoArgs,
		// Runnable, so that an unknown subcommand is an error, not help.
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	var yes bool
	down := &cobra.Command{
		Use: "down", Short: "Roll back the last applied migration (one step; needs --yes)",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return withDatabase(func(ctx context.Context, _ *config.Config, db *database.DB) error {
				return migrateDown(ctx, out, db, yes)
			})
		},
	}
	down.Flags().BoolVar(&yes, "yes", false, "confirm: the rolled-back migration's tables and columns are dropped with their data")
	cmd.AddCommand(
		&cobra.Command{
			Use: "up", Short: "Apply every pending migration",
			Args: cobra.NoArgs,
			RunE: func(*cobra.Command, []string) error {
				return withDatabase(func(ctx context.Context, _ *config.Config, db *database.DB) error {
					return migrateUp(ctx, out, db)
				})
			},
		},
		&cobra.Command{
			Use: "status", Short: "Show the applied version and every migration's state",
			Args: cobra.NoArgs,
			RunE: func(*cobra.Command, []string) error {
				return withDatabase(func(ctx context.Context, _ *config.Config, db *database.DB) error {
					return migrateStatus(ctx, out, db)
				})
			},
		},
		down,
	)
	return cmd
}

func migrateUp(ctx context.Context, out io.Writer, db *database.DB) error {
	if !db.Postgres() {
		if err := db.Migrate(ctx); err != nil {
			return err
		}
		fmt.Fprintln(out, "embedded SQLite: schema created from the ent schema (no versioned migrations)")
		return nil
	}
	before, err := db.Status(ctx)
	if err != nil {
		return err
	}
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	after, err := db.Status(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "applied %d migration(s); database at version %d\n", before.Pending()-after.Pending(), after.Current)
	return nil
}

func migrateStatus(ctx context.Context, out io.Writer, db *database.DB) error {
	st, err := db.Status(ctx)
	if errors.Is(err, database.ErrNotVersioned) {
		fmt.Fprintln(out, err)
		return nil
	}
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "VERSION\tNAME\tSTATE")
	for _, m := range st.Migrations {
		state := "pending"
		switch {
		case m.Applied:
			state = "applied"
		case st.Dirty && m.Version == st.Current:
			state = "dirty (failed half-way)"
		}
		fmt.Fprintf(w, "%d\t%s\t%s\n", m.Version, m.Name, state)
	}
	_ = w.Flush()
	fmt.Fprintf(out, "current version %d, %d pending\n", st.Current, st.Pending())
	return nil
}

func migrateDown(ctx context.Context, out io.Writer, db *database.DB, yes bool) error {
	st, err := db.Status(ctx)
	if err != nil {
		return err
	}
	if !yes {
		return fmt.Errorf("rolling back version %d drops what it created, data included; run again with --yes", st.Current)
	}
	now, err := db.MigrateDown(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "rolled back version %d; database at version %d\n", st.Current, now)
	return nil
}

// newCreateAdminCommand: a super admin for an operator locked out (or a
// deployment whose first admin is someone other than ADMIN_EMAIL).
func newCreateAdminCommand(out io.Writer) *cobra.Command {
	var email, org string
	var passwordStdin bool
	cmd := &cobra.Command{
		Use:   "create-admin --email ADDRESS",
		Short: "Create a super admin who is Admin of an organization (applies pending migrations first)",
		Long: "Creates a new user with super admin rights as Admin of the organization --org names (its id, slug or\n" +
			"name; created when none matches; default ADMIN_ORG_NAME). An email that already has an account is\n" +
			"refused. The password is read from stdin with --password-stdin, or generated and printed once.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			password := ""
			if passwordStdin {
				line, err := bufio.NewReader(c.InOrStdin()).ReadString('\n')
				if err != nil && !errors.Is(err, io.EOF) {
					return fmt.Errorf("read password: %w", err)
				}
				if password = strings.TrimRight(line, "\r\n"); password == "" {
					return errors.New("--password-stdin: no password on stdin")
				}
			}
			return withDatabase(func(ctx context.Context, cfg *config.Config, db *database.DB) error {
				if org == "" {
					org = cfg.AdminOrgName
				}
				return createAdmin(ctx, out, db, access.AdminRequest{Email: email, Password: password, Organization: org})
			})
		},
	}
	cmd.Flags().StringVar(&email, "email", "", "the admin's email address (required)")
	cmd.Flags().StringVar(&org, "org", "", "organization id, slug or name (default ADMIN_ORG_NAME)")
	cmd.Flags().BoolVar(&passwordStdin, "password-stdin", false, "read the password from the first line of stdin")
	_ = cmd.MarkFlagRequired("email")
	return cmd
}

func createAdmin(ctx context.Context, out io.Writer, db *database.DB, req access.AdminRequest) error {
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	res, err := access.CreateAdmin(ctx, db.Client, req)
	if err != nil {
		return err
	}
	verb := "joined"
	if res.OrganizationNew {
		verb = "created"
	}
	fmt.Fprintf(out, "super admin %s created (user %s); %s organization %q (%s) as Admin\n",
		res.Email, res.UserID, verb, res.OrganizationName, res.OrganizationID)
	if res.Password != "" {
		fmt.Fprintf(out, "password: %s\n(shown once)\n", res.Password)
	}
	return nil
}
