package ratelimit_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
	"switchboard/ratelimit"
)

var keySeq atomic.Int64

// uniqueKey names a window for one test, distinct across -count runs, and
// deletes it from the shared Redis when the test ends.
func uniqueKey(t *testing.T, rdb *redis.Client, suffix string) string {
	t.Helper()
	key := fmt.Sprintf("%s:%d%s", t.Name(), keySeq.Add(1), suffix)
	t.Cleanup(func() { rdb.Del(context.Background(), testenv.Namespace()+":ratelimit:"+key) })
	return key
}

// clock is a settable time source for WithClock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

// Now returns the clock's time.
func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

// Set moves the clock to t.
func (c *clock) Set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }

// step is one call to Allow in a scripted scenario.
type step struct {
	at             time.Duration // offset from the start, for the fake clock
	wantAllowed    bool
	wantRemaining  int
	wantRetryAfter time.Duration // checked only when refused
}

func TestAllow(t *testing.T) {
	ctx := context.Background()
	start := time.Now().Truncate(time.Second).Add(250 * time.Millisecond)

	tests := []struct {
		name   string
		limit  int
		window time.Duration
		steps  []step
	}{
		{
			name: "AllowsUpToLimitThenRefuses", limit: 3, window: time.Minute,
			steps: []step{
				{0, true, 2, 0},
				{time.Second, true, 1, 0},
				{2 * time.Second, true, 0, 0},
				{3 * time.Second, false, 0, 57 * time.Second},
				{4 * time.Second, false, 0, 56 * time.Second},
			},
		},
		{
			name: "WindowSlides", limit: 2, window: 10 * time.Second,
			steps: []step{
				{0, true, 1, 0},
				{4 * time.Second, true, 0, 0},
				{5 * time.Second, false, 0, 5 * time.Second},
				{10*time.Second - time.Microsecond, false, 0, time.Microsecond},
				{10 * time.Second, true, 0, 0}, // the first request left the window
				{11 * time.Second, false, 0, 3 * time.Second},
				{14 * time.Second, true, 0, 0},
				{30 * time.Second, true, 1, 0}, // everything expired
			},
		},
		{
			name: "RefusedRequestsAreNotCounted", limit: 1, window: time.Second,
			steps: []step{
				{0, true, 0, 0},
				{100 * time.Millisecond, false, 0, 900 * time.Millisecond},
				{500 * time.Millisecond, false, 0, 500 * time.Millisecond},
				{time.Second, true, 0, 0},
			},
		},
	}
	for _, be := range testkit.RedisBackends(t) {
		rdb := be.Store.Client()
		t.Run(be.Name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					clk := &clock{}
					l := ratelimit.New(rdb, testenv.Namespace(), ratelimit.WithClock(clk.Now))
					key := uniqueKey(t, rdb, "")
					for i, s := range tt.steps {
						clk.Set(start.Add(s.at))
						r, err := l.Allow(ctx, key, tt.limit, tt.window)
						if err != nil {
							t.Fatalf("step %d: %v", i, err)
						}
						if r.Allowed != s.wantAllowed || r.Remaining != s.wantRemaining || r.Limit != tt.limit {
							t.Errorf("step %d (+%s): got allowed=%v remaining=%d limit=%d, want %v %d %d",
								i, s.at, r.Allowed, r.Remaining, r.Limit, s.wantAllowed, s.wantRemaining, tt.limit)
						}
						wantRetry := time.Duration(0)
						if !s.wantAllowed {
							wantRetry = s.wantRetryAfter
						}
						if r.RetryAfter != wantRetry {
							t.Errorf("step %d (+%s): RetryAfter = %s, want %s", i, s.at, r.RetryAfter, wantRetry)
						}
					}
				})
			}

			t.Run("ResetIsWholeSecondAfterNewestRequest", func(t *testing.T) {
				clk := &clock{}
				l := ratelimit.New(rdb, testenv.Namespace(), ratelimit.WithClock(clk.Now))
				key := uniqueKey(t, rdb, "")
				clk.Set(start) // x.250s
				if _, err := l.Allow(ctx, key, 5, 10*time.Second); err != nil {
					t.Fatal(err)
				}
				clk.Set(start.Add(2 * time.Second))
				r, err := l.Allow(ctx, key, 5, 10*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				if want := start.Add(12 * time.Second).Truncate(time.Second).Add(time.Second); !r.Reset.Equal(want) {
					t.Errorf("Reset = %s, want %s", r.Reset, want)
				}
			})

			t.Run("KeysAreIndependent", func(t *testing.T) {
				l := ratelimit.New(rdb, testenv.Namespace())
				a, b := uniqueKey(t, rdb, ":a"), uniqueKey(t, rdb, ":b")
				for range 2 {
					if _, err := l.Allow(ctx, a, 2, time.Minute); err != nil {
						t.Fatal(err)
					}
				}
				if r, err := l.Allow(ctx, a, 2, time.Minute); err != nil || r.Allowed {
					t.Fatalf("key a: %+v, %v; want refused", r, err)
				}
				if r, err := l.Allow(ctx, b, 2, time.Minute); err != nil || !r.Allowed {
					t.Errorf("key b: %+v, %v; want allowed", r, err)
				}
			})

			t.Run("NamespacePrefixesKeys", func(t *testing.T) {
				key := uniqueKey(t, rdb, "")
				if _, err := ratelimit.New(rdb, testenv.Namespace()).Allow(ctx, key, 1, time.Minute); err != nil {
					t.Fatal(err)
				}
				if n, err := rdb.Exists(ctx, testenv.Namespace()+":ratelimit:"+key).Result(); err != nil || n != 1 {
					t.Errorf("namespaced key exists = %d, %v", n, err)
				}
			})

			t.Run("ServerClock", func(t *testing.T) {
				l := ratelimit.New(rdb, testenv.Namespace())
				key := uniqueKey(t, rdb, "")
				before := time.Now().Add(-time.Second) // allows for skew to the server clock
				r, err := l.Allow(ctx, key, 1, time.Hour)
				if err != nil || !r.Allowed {
					t.Fatalf("%+v, %v", r, err)
				}
				if r.Reset.Before(before.Add(time.Hour)) {
					t.Errorf("Reset %s is not about an hour after now", r.Reset)
				}
				r, err = l.Allow(ctx, key, 1, time.Hour)
				if err != nil || r.Allowed || r.RetryAfter <= 0 || r.RetryAfter > time.Hour {
					t.Errorf("second call: %+v, %v; want refused with 0 < RetryAfter <= 1h", r, err)
				}
			})

			t.Run("ConcurrentCallersNeverExceedLimit", func(t *testing.T) {
				const limit, workers, calls = 25, 8, 10
				l := ratelimit.New(rdb, testenv.Namespace())
				key := uniqueKey(t, rdb, "")
				var allowed, refused atomic.Int64
				var wg sync.WaitGroup
				errs := make(chan error, workers*calls)
				for range workers {
					wg.Go(func() {
						for range calls {
							r, err := l.Allow(ctx, key, limit, time.Hour)
							switch {
							case err != nil:
								errs <- err
							case r.Allowed:
								allowed.Add(1)
							default:
								refused.Add(1)
							}
						}
					})
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Fatal(err)
				}
				if allowed.Load() != limit || refused.Load() != workers*calls-limit {
					t.Errorf("allowed %d, refused %d; want %d, %d", allowed.Load(), refused.Load(), limit, workers*calls-limit)
				}
			})
		})
	}
}

func TestAllowInvalid(t *testing.T) {
	l := ratelimit.New(testkit.MustOpenKV(t, "").Client(), testenv.Namespace())
	tests := []struct {
		name   string
		limit  int
		window time.Duration
	}{
		{"ErrZeroLimit", 0, time.Minute},
		{"ErrNegativeLimit", -1, time.Minute},
		{"ErrZeroWindow", 10, 0},
		{"ErrSubMillisecondWindow", 10, time.Microsecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := l.Allow(context.Background(), t.Name(), tt.limit, tt.window); err == nil {
				t.Error("Allow succeeded")
			}
		})
	}
}
