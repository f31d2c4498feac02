package auth_test

import (
	"sync"
	"testing"
	"time"

	"switchboard/auth"
)

// testSecret is the HMAC key of the token tests and fuzz targets.
var testSecret = []byte("test-jwt-secret-0123456789abcdef")

// epoch is the fixed start time of test clocks.
var epoch = time.Date(2030, time.March, 4, 5, 6, 7, 0, time.UTC)

// clock is an injectable clock that only moves when told to.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: epoch} }

// Now returns the clock's time.
func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t.
func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// MustTokens returns a token service or fails the test.
func MustTokens(tb testing.TB, secret []byte, opts auth.TokenOptions) *auth.Tokens {
	tb.Helper()
	tk, err := auth.NewTokens(secret, opts)
	if err != nil {
		tb.Fatalf("NewTokens: %v", err)
	}
	return tk
}

// testFamily is the session family of access tokens issued in tests.
var testFamily = familyID
