package pacing

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"switchboard/internal/testkit"
)

// TestGatesDoNotLeak: the local queues of numbers are gone once nobody
// waits, whether the waiters got their slot or gave up.
func TestGatesDoNotLeak(t *testing.T) {
	m := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
	t.Cleanup(func() { rdb.Close() })
	l := New(rdb, Options{})

	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 50 {
		wg.Go(func() {
			phone := []string{"a", "b"}[i%2]
			if err := l.Wait(context.Background(), phone, 1000); err != nil {
				errs <- err
			}
		})
	}
	// Waiters on a number whose next slot is 1,000 s away, queued behind
	// one another, all cancelled.
	if err := l.Wait(context.Background(), "slow", 0.001); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	for range 5 {
		wg.Go(func() {
			if err := l.Wait(ctx, "slow", 0.001); !errors.Is(err, context.Canceled) {
				errs <- err
			}
		})
	}
	testkit.Eventually(t, "five waiters at the slow number's gate", func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		g := l.gates["slow"]
		return g != nil && g.users == 5
	})
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.gates) != 0 {
		t.Errorf("%d gates left: %v", len(l.gates), l.gates)
	}
}
