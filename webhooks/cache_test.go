package webhooks

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/internal/testkit"
)

// countingLoader counts loads per organization; block, when set, holds
// every load until it is closed.
type countingLoader struct {
	mu    sync.Mutex
	loads map[uuid.UUID]int
	err   error
	block chan struct{}
	calls atomic.Int32
}

func (l *countingLoader) load(_ context.Context, org uuid.UUID) ([]activeSubscription, error) {
	l.calls.Add(1)
	if l.block != nil {
		<-l.block
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.loads == nil {
		l.loads = map[uuid.UUID]int{}
	}
	l.loads[org]++
	if l.err != nil {
		return nil, l.err
	}
	return []activeSubscription{{ID: org, Events: []string{"contact:created"}}}, nil
}

func (l *countingLoader) count(org uuid.UUID) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.loads[org]
}

// fakeClock is a settable time source.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newTestCache(l *countingLoader) (*subscriptionCache, *fakeClock) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	c := newSubscriptionCache(0, l.load)
	c.now = clock.now
	return c, clock
}

func TestSubscriptionCache(t *testing.T) {
	ctx := context.Background()
	org, other := uuid.New(), uuid.New()

	t.Run("HitWithinTTL", func(t *testing.T) {
		l := &countingLoader{}
		c, clock := newTestCache(l)
		for range 3 {
			subs, err := c.get(ctx, org)
			if err != nil || len(subs) != 1 || subs[0].ID != org {
				t.Fatalf("get = %v, %v", subs, err)
			}
			clock.advance(time.Second)
		}
		if n := l.count(org); n != 1 {
			t.Errorf("%d loads, want 1", n)
		}
	})

	t.Run("ExpiresAfterTTL", func(t *testing.T) {
		l := &countingLoader{}
		c, clock := newTestCache(l)
		_, _ = c.get(ctx, org)
		clock.advance(DefaultCacheTTL)
		_, _ = c.get(ctx, org)
		if n := l.count(org); n != 2 {
			t.Errorf("%d loads, want 2", n)
		}
	})

	t.Run("InvalidateOneOrganization", func(t *testing.T) {
		l := &countingLoader{}
		c, _ := newTestCache(l)
		_, _ = c.get(ctx, org)
		_, _ = c.get(ctx, other)
		c.invalidate(org)
		_, _ = c.get(ctx, org)
		_, _ = c.get(ctx, other)
		if l.count(org) != 2 || l.count(other) != 1 {
			t.Errorf("loads org %d, other %d; want 2 and 1", l.count(org), l.count(other))
		}
	})

	t.Run("ErrorNotCached", func(t *testing.T) {
		l := &countingLoader{err: errors.New("database down")}
		c, _ := newTestCache(l)
		if _, err := c.get(ctx, org); err == nil {
			t.Fatal("get hid the load error")
		}
		l.mu.Lock()
		l.err = nil
		l.mu.Unlock()
		if subs, err := c.get(ctx, org); err != nil || len(subs) != 1 {
			t.Fatalf("get after recovery = %v, %v", subs, err)
		}
		if n := l.count(org); n != 2 {
			t.Errorf("%d loads, want 2", n)
		}
	})

	t.Run("ConcurrentMissesShareOneLoad", func(t *testing.T) {
		l := &countingLoader{block: make(chan struct{})}
		c, _ := newTestCache(l)
		const callers = 20
		var wg sync.WaitGroup
		errs := make(chan error, callers)
		for range callers {
			wg.Go(func() {
				subs, err := c.get(ctx, org)
				if err == nil && len(subs) != 1 {
					err = errors.New("wrong subscriptions")
				}
				errs <- err
			})
		}
		// Let the first load start, then release it; the others wait for
		// it rather than loading themselves.
		testkit.Eventually(t, "the first load", func() bool { return l.calls.Load() > 0 })
		close(l.block)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if n := l.count(org); n != 1 {
			t.Errorf("%d loads for %d concurrent callers, want 1", n, callers)
		}
	})

	t.Run("WaiterGivesUp", func(t *testing.T) {
		l := &countingLoader{block: make(chan struct{})}
		c, _ := newTestCache(l)
		done := make(chan struct{})
		go func() { _, _ = c.get(ctx, org); close(done) }()
		testkit.Eventually(t, "the first load", func() bool { return l.calls.Load() > 0 })
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := c.get(cctx, org); !errors.Is(err, context.Canceled) {
			t.Errorf("waiting get with a cancelled context = %v", err)
		}
		close(l.block)
		<-done
	})
}
