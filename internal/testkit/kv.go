package testkit

import (
	"context"
	"testing"

	"switchboard/internal/testenv"
	"switchboard/kv"
)

// Backend is a key-value store a test runs against.
type Backend struct {
	// Name names the subtest: "Embedded" or "Redis".
	Name string
	// URL is the store's REDIS_URL ("" for the embedded engine).
	URL string
	// Store is open, and closed when the test ends.
	Store *kv.Store
}

// RedisBackends opens the stores the tests of Redis-backed code run
// against: the embedded engine the application uses without REDIS_URL
// always, then the shared Redis when testenv finds it. Tests on the shared
// Redis prefix their keys with testenv.Namespace.
func RedisBackends(tb testing.TB) []Backend {
	tb.Helper()
	b := []Backend{{Name: "Embedded", Store: MustOpenKV(tb, "")}}
	if u := testenv.RedisURL(tb); u != "" {
		b = append(b, Backend{Name: "Redis", URL: u, Store: MustOpenKV(tb, u)})
	}
	return b
}

// MustOpenKV opens a kv store (url "" for the embedded engine) that is
// closed when the test ends.
func MustOpenKV(tb testing.TB, url string) *kv.Store {
	tb.Helper()
	s, err := kv.Open(context.Background(), url, nil)
	if err != nil {
		tb.Fatalf("kv.Open: %v", err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}
