package testkit_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"switchboard/internal/testkit"
)

// fatalRecorder records Fatalf instead of ending the test.
type fatalRecorder struct {
	testing.TB
	fatal string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }

func TestPoll(t *testing.T) {
	tests := []struct {
		name   string
		within time.Duration
		holdAt int64 // the call on which cond starts to hold; 0 never
		want   bool
	}{
		{"HoldsAtOnce", time.Second, 1, true},
		{"HoldsLater", 10 * time.Second, 3, true},
		{"NeverHolds", 30 * time.Millisecond, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int64
			cond := func() bool { n := calls.Add(1); return tt.holdAt != 0 && n >= tt.holdAt }
			if got := testkit.Poll(tt.within, cond); got != tt.want {
				t.Fatalf("Poll = %v after %d calls, want %v", got, calls.Load(), tt.want)
			}
			if tt.holdAt != 0 && calls.Load() != tt.holdAt {
				t.Errorf("cond called %d times, want %d (no call after it held)", calls.Load(), tt.holdAt)
			}
		})
	}
}

func TestEventuallyFailsWithWhatItWaitedFor(t *testing.T) {
	r := &fatalRecorder{TB: t}
	testkit.EventuallyWithin(r, 20*time.Millisecond, "the sky to fall", func() bool { return false })
	if want := "timed out after 20ms waiting for the sky to fall"; r.fatal != want {
		t.Errorf("failure %q, want %q", r.fatal, want)
	}
	r.fatal = ""
	testkit.Eventually(r, "nothing", func() bool { return true })
	if r.fatal != "" {
		t.Errorf("a condition that holds failed the test: %q", r.fatal)
	}
}

func TestRedisBackends(t *testing.T) {
	b := testkit.RedisBackends(t)
	if len(b) == 0 || b[0].Name != "Embedded" || b[0].URL != "" || !b[0].Store.Embedded() {
		t.Fatalf("first backend %+v, want the embedded engine", b[0])
	}
	for _, be := range b {
		if err := be.Store.Ping(t.Context()); err != nil {
			t.Errorf("%s: %v", be.Name, err)
		}
	}
}
