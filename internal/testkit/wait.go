// Package testkit is what the tests of every package share beyond the
// services themselves (internal/testenv): a wait on a condition with a
// deadline (Eventually, Poll), the key-value stores a test runs against
// (the embedded engine and the shared Redis), a migrated database, an
// organization and its members to act as, and the check of an
// application error. Waits in tests poll a condition with it instead of
// sleeping a fixed time; a fixed sleep is left only where time passing is
// the thing under test, and says so.
//
// The in-process application (a test server, clients, SQL statement
// counting, GraphQL subscriptions) is internal/apitest, which depends on
// every package; a running event bus and what an organization receives
// from it is events/eventstest. This one depends on none of the
// application's packages except kv, database, ent and apperr, so that
// their own tests and those of the packages below the application can
// use it. It is for tests only and must not be imported by production
// code.
package testkit

import (
	"testing"
	"time"
)

// Deadline is how long Eventually waits: generous, for a busy two-core
// machine running tests in parallel under the race detector. Tests assert
// outcomes, not speed.
const Deadline = 10 * time.Second

// Interval is how often a condition is polled during its first second;
// after that, every SlowInterval, so that a wait of minutes (a large
// delivery under the race detector) does not load the machine that is
// doing the work.
const (
	Interval     = 10 * time.Millisecond
	SlowInterval = 100 * time.Millisecond
)

// Eventually polls cond until it holds, and fails the test with what it
// waited for when Deadline passes first. cond runs on the test's goroutine
// and may itself fail the test on an unexpected error.
func Eventually(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	EventuallyWithin(tb, Deadline, what, cond)
}

// EventuallyWithin is Eventually with its own deadline, for the few waits
// that take longer than Deadline on a loaded machine (a delivery of
// thousands of messages under the race detector).
func EventuallyWithin(tb testing.TB, within time.Duration, what string, cond func() bool) {
	tb.Helper()
	if !Poll(within, cond) {
		tb.Fatalf("timed out after %s waiting for %s", within, what)
	}
}

// Poll polls cond (every Interval, then SlowInterval) until it holds or
// within has passed, and reports whether it held: for a caller that fails
// with its own account of where things stand, or must release something
// first.
func Poll(within time.Duration, cond func() bool) bool {
	start := time.Now()
	for {
		if cond() {
			return true
		}
		waited := time.Since(start)
		if waited > within {
			return false
		}
		if waited < time.Second {
			time.Sleep(Interval)
		} else {
			time.Sleep(SlowInterval)
		}
	}
}
