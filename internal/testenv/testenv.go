// Package testenv provides the external services that tests of the other
// packages use: a throwaway PostgreSQL database per test and the URL of a
// shared Redis, with a random namespace per test process so that packages
// tested in parallel do not collide on Redis keys and queue names.
//
// When a service does not answer, the helpers return "" and callers fall back
// to the embedded engines (SQLite, miniredis), unless TEST_REQUIRE_SERVICES=1,
// in which case the test fails. The package is for tests only and must not be
// imported by production code.
package testenv

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lib/pq"
	"github.com/redis/go-redis/v9"
)

// Environment variables read by this package.
const (
	// EnvDatabaseURL names the PostgreSQL server (any database on it) used to
	// create the per-test databases.
	EnvDatabaseURL = "TEST_DATABASE_URL"
	// EnvRedisURL names the Redis server shared by tests.
	EnvRedisURL = "TEST_REDIS_URL"
	// EnvRequireServices, when "1", turns a missing PostgreSQL or Redis into a
	// test failure instead of a fallback to the embedded engines.
	EnvRequireServices = "TEST_REQUIRE_SERVICES"
)

// Defaults used when the environment variables above are unset.
const (
	DefaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	DefaultRedisURL    = "redis://127.0.0.1:6379/0"
)

// probeTimeout bounds how long a test waits for a service that is not there.
const probeTimeout = 3 * time.Second

var (
	namespaceOnce sync.Once
	namespace     string

	// failedProbes caches, per service URL, why it did not answer, so that a
	// missing service costs one timeout per process rather than one per test.
	failedProbesMu sync.Mutex
	failedProbes   = map[string]error{}

	noticeOnce sync.Map // service name → *sync.Once
)

// Namespace returns a short random prefix, the same for the whole test
// process, for Redis keys and queue names (for example "t3f9a1c2e").
func Namespace() string {
	namespaceOnce.Do(func() { namespace = "t" + randomHex(4) })
	return namespace
}

// PostgresURL creates a fresh, empty database on the server named by
// TEST_DATABASE_URL and returns its URL; the database is dropped when the test
// ends. It returns "" when PostgreSQL does not answer (callers then use the
// embedded SQLite engine), or fails the test when TEST_REQUIRE_SERVICES=1.
func PostgresURL(tb testing.TB) string {
	tb.Helper()
	adminURL := envOr(EnvDatabaseURL, DefaultDatabaseURL)

	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	admin, ok := openPostgres(ctx, tb, adminURL)
	if !ok {
		return ""
	}
	defer admin.Close()

	name := "sbtest_" + randomHex(8)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+pq.QuoteIdentifier(name)); err != nil {
		tb.Fatalf("testenv: create database %s: %v", name, err)
		return ""
	}
	tb.Cleanup(func() { dropDatabase(tb, adminURL, name) })

	u, err := url.Parse(adminURL)
	if err != nil { // unreachable: openPostgres parsed it already
		tb.Fatalf("testenv: parse %s: %v", EnvDatabaseURL, err)
		return ""
	}
	u.Path = "/" + name
	return u.String()
}

// RedisURL returns the URL of the shared test Redis (TEST_REDIS_URL) after
// checking that it answers. It returns "" when Redis does not answer (callers
// then start an embedded miniredis), or fails the test when
// TEST_REQUIRE_SERVICES=1. Tests share the server: prefix every key and queue
// name with Namespace.
func RedisURL(tb testing.TB) string {
	tb.Helper()
	redisURL := envOr(EnvRedisURL, DefaultRedisURL)
	if err := failedProbe(redisURL); err != nil {
		unavailable(tb, "Redis", "miniredis", redisURL, err)
		return ""
	}

	opts, err := redis.ParseURL(redisURL)
	if err != nil {
		tb.Fatalf("testenv: %s=%q: %v", EnvRedisURL, redisURL, err)
		return ""
	}
	opts.DialTimeout = probeTimeout
	opts.MaxRetries = -1
	opts.DialerRetries = 1
	client := redis.NewClient(opts)
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		var refused redis.Error
		if errors.As(err, &refused) { // it answered: misconfiguration, not absence
			tb.Fatalf("testenv: Redis at %s refused: %v", redact(redisURL), err)
			return ""
		}
		rememberFailure(redisURL, err)
		unavailable(tb, "Redis", "miniredis", redisURL, err)
		return ""
	}
	return redisURL
}

// openPostgres opens and pings the admin connection. It reports false when
// the server does not answer and the fallback applies.
func openPostgres(ctx context.Context, tb testing.TB, adminURL string) (*sql.DB, bool) {
	tb.Helper()
	if err := failedProbe(adminURL); err != nil {
		unavailable(tb, "PostgreSQL", "SQLite", adminURL, err)
		return nil, false
	}
	if u, err := url.Parse(adminURL); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		tb.Fatalf("testenv: %s must be a postgres:// URL, got %q", EnvDatabaseURL, redact(adminURL))
		return nil, false
	}
	db, err := sql.Open("postgres", adminURL)
	if err != nil {
		tb.Fatalf("testenv: %s=%q: %v", EnvDatabaseURL, adminURL, err)
		return nil, false
	}
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		var refused *pq.Error
		if errors.As(err, &refused) { // it answered: misconfiguration, not absence
			db.Close()
			tb.Fatalf("testenv: PostgreSQL at %s refused: %v", redact(adminURL), err)
			return nil, false
		}
		rememberFailure(adminURL, err)
		db.Close()
		unavailable(tb, "PostgreSQL", "SQLite", adminURL, err)
		return nil, false
	}
	return db, true
}

// dropDatabase removes a test database, disconnecting any session a test
// forgot to close.
func dropDatabase(tb testing.TB, adminURL, name string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := sql.Open("postgres", adminURL)
	if err != nil {
		tb.Errorf("testenv: drop database %s: %v", name, err)
		return
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+pq.QuoteIdentifier(name)+" WITH (FORCE)"); err != nil {
		tb.Errorf("testenv: drop database %s: %v", name, err)
	}
}

// unavailable applies the fallback rule for a service that did not answer:
// fail the test when services are required, else print a notice once.
func unavailable(tb testing.TB, service, fallback, rawURL string, err error) {
	tb.Helper()
	if os.Getenv(EnvRequireServices) == "1" {
		tb.Fatalf("testenv: %s at %s is required (%s=1) but does not answer: %v",
			service, redact(rawURL), EnvRequireServices, err)
		return
	}
	once, _ := noticeOnce.LoadOrStore(service, new(sync.Once))
	once.(*sync.Once).Do(func() {
		fmt.Fprintf(os.Stderr, "testenv: %s at %s does not answer (%v); tests fall back to the embedded %s engine. Set %s=1 to make this an error.\n",
			service, redact(rawURL), err, fallback, EnvRequireServices)
	})
}

func failedProbe(rawURL string) error {
	failedProbesMu.Lock()
	defer failedProbesMu.Unlock()
	return failedProbes[rawURL]
}

func rememberFailure(rawURL string, err error) {
	failedProbesMu.Lock()
	defer failedProbesMu.Unlock()
	failedProbes[rawURL] = err
}

// redact hides a password in a URL before it is printed.
func redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

func envOr(name, fallback string) string {
	if v := strings.TrimSpace(os.Getenv(name)); v != "" {
		return v
	}
	return fallback
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b)
}
