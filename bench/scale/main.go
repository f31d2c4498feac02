// Command scale measures the inbox's reads at a million contacts (issue
// 30): it seeds one organization with -contacts contacts (90% with a last
// message) and -messages messages by COPY, plus -orgs small organizations
// of -small contacts beside it, rebuilds the migrations' hand-written
// indexes CONCURRENTLY on that size (timed: what the migration costs),
// then reads every list, search and history read through the built
// server's HTTP stack (REST and GraphQL): one client alone, then -agents
// concurrent clients (back to back, or each one request every -pace,
// open loop), with -beside running a command beside them (the ingest's
// load), and reports p50/p99 per read, for the large organization and
// for a small one. The database is dropped at the end (-keep keeps it;
// -reuse reads a kept one).
//
//	go run ./bench/scale                                  # 1,000,000 contacts, 10,000,000 messages
//	go run ./bench/scale -contacts 100000 -messages 1000000
//	go run ./bench/scale -reuse DB -pace 1s -requests 10  # 20 agents opening a screen a second
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	_ "github.com/lib/pq"

	"switchboard/bench/internal/benchkit"
	"switchboard/internal/apiclient"
	"switchboard/internal/calltest"
)

const (
	adminEmail    = "bench@example.com"
	adminPassword = "bench-password-not-secret"
)

type flags struct {
	bin, dir, pg, redis string
	sz                  sizes
	agents, requests    int
	pace                time.Duration
	keep                bool
	reuse, beside       string
	serverEnv           string
}

func main() {
	var f flags
	flag.StringVar(&f.bin, "bin", "", "server binary (default: go build this tree into -dir)")
	flag.StringVar(&f.dir, "dir", "/tmp/switchboard-scale-bench", "work directory: the server's data, its log, the built binary")
	flag.StringVar(&f.pg, "pg", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "PostgreSQL server; a fresh database is created on it and dropped after")
	flag.StringVar(&f.redis, "redis", os.Getenv("REDIS_URL"), "Redis URL for the server (default $REDIS_URL; empty: the server's in-process Redis)")
	flag.IntVar(&f.sz.contacts, "contacts", 1_000_000, "contacts of the large organization")
	flag.IntVar(&f.sz.messages, "messages", 10_000_000, "messages of the large organization")
	flag.IntVar(&f.sz.longest, "longest", 200_000, "messages of its longest conversation (the history read's)")
	flag.IntVar(&f.sz.orgs, "orgs", 99, "small organizations beside it")
	flag.IntVar(&f.sz.smallContacts, "small", 100, "contacts of each small organization (10 messages each)")
	flag.IntVar(&f.agents, "agents", 20, "concurrent readers")
	flag.IntVar(&f.requests, "requests", 20, "requests of each read per reader")
	flag.DurationVar(&f.pace, "pace", 0, "each reader's interval between requests (open loop, latency counted from the due time); 0: back to back")
	flag.StringVar(&f.beside, "beside", "", "shell command run while the large organization's readers run, waited for after them (SCALE_URL, ADMIN_EMAIL, ADMIN_PASSWORD, DATABASE_URL and SERVER_PID set; output to the log), e.g. bench/ingest at the ingest rate")
	flag.StringVar(&f.serverEnv, "server-env", "", "more settings for the server, KEY=VALUE separated by spaces (e.g. PPROF_ADDR=127.0.0.1:6060)")
	flag.BoolVar(&f.keep, "keep", false, "keep the database (its name is logged)")
	flag.StringVar(&f.reuse, "reuse", "", "read a database an earlier run kept (-keep) instead of seeding one (sizes are the kept ones)")
	flag.Parse()
	if err := run(context.Background(), f); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, f flags) error {
	if err := os.MkdirAll(f.dir, 0o755); err != nil {
		return err
	}
	bin := f.bin
	if bin == "" {
		log.Printf("building the server")
		var err error
		if bin, err = calltest.Build(ctx, f.dir); err != nil {
			return err
		}
	}
	dbURL, err := reusedURL(f.pg, f.reuse)
	if err != nil {
		return err
	}
	if f.reuse == "" {
		var drop func()
		if dbURL, drop, err = benchkit.FreshDatabase(ctx, f.pg, "switchboard_scale_bench_", f.keep); err != nil {
			return err
		}
		defer drop()
	}
	srv, api, err := startServer(ctx, bin, dbURL, f)
	if err != nil {
		return err
	}
	defer func() {
		if err := srv.Stop(); err != nil {
			log.Print(err)
		}
	}()
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	var w *world
	if f.reuse != "" {
		w, err = reuse(ctx, db, api)
	} else {
		w, err = seed(ctx, db, api, f.sz)
	}
	if err != nil {
		return err
	}
	log.Printf("reading alone: one client, %d requests of each read", f.requests)
	alone := measure(ctx, api, readsOf(w.big), 1, f.requests, 0)
	log.Printf("reading: %d agents, %d requests of each read each", f.agents, f.requests)
	wait, err := startBeside(ctx, f.beside, srv, dbURL)
	if err != nil {
		return err
	}
	big := measure(ctx, api, readsOf(w.big), f.agents, f.requests, f.pace)
	if err := wait(); err != nil {
		return err
	}
	small := measure(ctx, api.InOrg(w.small.org.String()), readsOf(w.small), f.agents, f.requests, f.pace)
	report(f, w, alone, big, small)
	return nil
}

// startBeside starts the -beside command (nothing when empty) and returns
// what waits for it to end.
func startBeside(ctx context.Context, command string, srv *calltest.Server, dbURL string) (func() error, error) {
	if command == "" {
		return func() error { return nil }, nil
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Env = append(os.Environ(), "SCALE_URL="+srv.URL, "ADMIN_EMAIL="+adminEmail, "ADMIN_PASSWORD="+adminPassword,
		"DATABASE_URL="+dbURL, "SERVER_PID="+strconv.Itoa(srv.PID()))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	log.Printf("beside the readers: %s", command)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return func() error {
		if err := cmd.Wait(); err != nil {
			return fmt.Errorf("-beside: %w", err)
		}
		return nil
	}, nil
}

// startServer starts the built server on the fresh database and logs in
// as its first admin.
func startServer(ctx context.Context, bin, dbURL string, f flags) (*calltest.Server, *apiclient.Client, error) {
	addr, err := calltest.FreeAddr()
	if err != nil {
		return nil, nil, err
	}
	dataDir := filepath.Join(f.dir, "data")
	if err := os.RemoveAll(dataDir); err != nil {
		return nil, nil, err
	}
	vars := map[string]string{
		"LISTEN_ADDR": addr, "PUBLIC_URL": "http://" + addr, "DATA_DIR": dataDir,
		"DATABASE_URL": dbURL, "REDIS_URL": f.redis,
		"ADMIN_EMAIL": adminEmail, "ADMIN_PASSWORD": adminPassword, "COOKIE_SECURE": "false",
		"JWT_SECRET": "bench-jwt-secret", "ENCRYPTION_KEY": "bench-encryption-key",
		"LOG_LEVEL": "warn", "LOG_FORMAT": "text", "RATE_LIMIT_PER_MINUTE": "10000000",
	}
	for _, kv := range strings.Fields(f.serverEnv) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, nil, fmt.Errorf("-server-env: %q is not KEY=VALUE", kv)
		}
		vars[k] = v
	}
	srv, err := calltest.Start(ctx, bin, vars, filepath.Join(f.dir, "server.log"))
	if err != nil {
		return nil, nil, err
	}
	api, err := apiclient.Login(ctx, srv.URL, adminEmail, adminPassword)
	if err != nil {
		_ = srv.Stop()
		return nil, nil, err
	}
	api.HTTP = &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	return srv, api, nil
}

// org is a seeded organization as the reads address it.
type org struct {
	org, agent uuid.UUID
	// history is the contact of the longest conversation, middle a
	// message in the middle of it (before_id), nameTerm and digits a
	// part of a contact's name and phone number, messageTerm the words
	// of one message.
	history, middle               uuid.UUID
	nameTerm, digits, messageTerm string
	// campaign is the campaign sent to every contact (seedLists).
	campaign uuid.UUID
}

// reusedURL is the URL of database name on the server of pg ("" for none).
func reusedURL(pg, name string) (string, error) {
	if name == "" {
		return "", nil
	}
	u, err := url.Parse(pg)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}
