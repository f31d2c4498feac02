package testenv_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"regexp"
	"testing"

	_ "github.com/lib/pq"
	"github.com/redis/go-redis/v9"

	"switchboard/internal/testenv"
)

func TestPostgresURL(t *testing.T) {
	admin := os.Getenv(testenv.EnvDatabaseURL)
	if admin == "" {
		admin = testenv.DefaultDatabaseURL
	}
	var (
		name string
		held *sql.DB // a session left open on purpose: the drop must force it out
	)
	defer func() {
		if held != nil {
			held.Close()
		}
	}()

	t.Run("CreatesFreshDatabase", func(t *testing.T) {
		u := testenv.PostgresURL(t)
		if u == "" {
			t.Skip("PostgreSQL not available")
		}
		db, err := sql.Open("postgres", u)
		if err != nil {
			t.Fatal(err)
		}
		held = db
		if err := db.QueryRow("SELECT current_database()").Scan(&name); err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^sbtest_[0-9a-f]{16}$`).MatchString(name) {
			t.Errorf("database name = %q, want sbtest_<16 hex>", name)
		}
		var tables int
		if err := db.QueryRow("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'").Scan(&tables); err != nil {
			t.Fatal(err)
		}
		if tables != 0 {
			t.Errorf("fresh database has %d tables", tables)
		}
		if _, err := db.Exec("CREATE TABLE t (id int)"); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("DropsDatabaseOnCleanup", func(t *testing.T) {
		if name == "" {
			t.Skip("no database was created")
		}
		var exists bool
		if err := mustOpen(t, admin).QueryRow("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
			t.Fatal(err)
		}
		if exists {
			t.Errorf("database %s still exists after the test ended", name)
		}
	})

	t.Run("DistinctPerCall", func(t *testing.T) {
		a, b := testenv.PostgresURL(t), testenv.PostgresURL(t)
		if a == "" {
			t.Skip("PostgreSQL not available")
		}
		if a == b {
			t.Errorf("two calls returned the same database %s", a)
		}
	})
}

func TestRedisURL(t *testing.T) {
	u := testenv.RedisURL(t)
	if u == "" {
		t.Skip("Redis not available")
	}
	opts, err := redis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	client := redis.NewClient(opts)
	t.Cleanup(func() { client.Close() })
	if err := client.Ping(context.Background()).Err(); err != nil {
		t.Errorf("ping %s: %v", u, err)
	}
}

func TestUnavailable(t *testing.T) {
	tests := []struct {
		name    string
		env     string
		url     string
		require string
		get     func(testing.TB) string
		fatal   bool
	}{
		{"PostgresFallsBack", testenv.EnvDatabaseURL, "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable", "", testenv.PostgresURL, false},
		{"PostgresRequired", testenv.EnvDatabaseURL, "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable", "1", testenv.PostgresURL, true},
		{"RedisFallsBack", testenv.EnvRedisURL, "redis://127.0.0.1:1/0", "0", testenv.RedisURL, false},
		{"RedisRequired", testenv.EnvRedisURL, "redis://127.0.0.1:1/0", "1", testenv.RedisURL, true},
		{"PostgresNotAURL", testenv.EnvDatabaseURL, "host=127.0.0.1 user=postgres", "", testenv.PostgresURL, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(tt.env, tt.url)
			t.Setenv(testenv.EnvRequireServices, tt.require)
			tb := &recordingTB{TB: t}
			if got := tt.get(tb); got != "" {
				t.Errorf("got URL %q, want \"\"", got)
			}
			if tb.fatal != tt.fatal {
				t.Errorf("Fatalf called = %v, want %v (message %q)", tb.fatal, tt.fatal, tb.msg)
			}
		})
	}
}

func TestNamespace(t *testing.T) {
	tests := []struct {
		name  string
		check func(t *testing.T, ns string)
	}{
		{"ShortAndKeySafe", func(t *testing.T, ns string) {
			if !regexp.MustCompile(`^[a-z][0-9a-z]{1,15}$`).MatchString(ns) {
				t.Errorf("Namespace() = %q", ns)
			}
		}},
		{"StableInProcess", func(t *testing.T, ns string) {
			if again := testenv.Namespace(); again != ns {
				t.Errorf("Namespace() changed from %q to %q", ns, again)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, testenv.Namespace()) })
	}
}

// recordingTB records Fatalf instead of stopping the test, so the failure
// path of the helpers can be observed.
type recordingTB struct {
	testing.TB
	fatal bool
	msg   string
}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.fatal = true
	r.msg = fmt.Sprintf(format, args...)
}

func mustOpen(tb testing.TB, url string) *sql.DB {
	tb.Helper()
	db, err := sql.Open("postgres", url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
