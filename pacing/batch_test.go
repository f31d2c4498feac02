package pacing_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"switchboard/internal/testkit"
	"switchboard/pacing"
)

// TestReserveNMatchesReserve: the slots of one ReserveN call are those
// the same number of Reserve calls in a row give, for every tier, and a
// batch stops at MaxAhead.
func TestReserveNMatchesReserve(t *testing.T) {
	ctx := context.Background()
	for _, be := range testkit.RedisBackends(t) {
		rdb := be.Store.Client()
		t.Run(be.Name, func(t *testing.T) {
			for _, tier := range []string{"TIER_1K", "TIER_10K", "TIER_100K", "TIER_UNLIMITED"} {
				t.Run(tier, func(t *testing.T) {
					rate := pacing.TierRate(tier)
					c := newClock()
					one := pacing.New(rdb, fakeOptions(uniquePrefix(t, rdb, phone), c))
					many := pacing.New(rdb, fakeOptions(uniquePrefix(t, rdb, phone), c))
					var want []time.Duration
					for {
						r, err := one.Reserve(ctx, phone, rate)
						if err != nil {
							t.Fatal(err)
						}
						if !r.OK {
							break
						}
						want = append(want, r.Delay)
					}
					b, err := many.ReserveN(ctx, phone, rate, pacing.MaxBatch)
					if err != nil {
						t.Fatal(err)
					}
					if len(b.Delays) != len(want) {
						t.Fatalf("ReserveN gave %d slots, Reserve %d", len(b.Delays), len(want))
					}
					for i := range want {
						if b.Delays[i] != want[i] {
							t.Fatalf("slot %d: %s, want %s", i, b.Delays[i], want[i])
						}
					}
					if last := want[len(want)-1]; last > pacing.DefaultMaxAhead {
						t.Errorf("a slot %s ahead", last)
					}
					// Full: the next call is told when to ask again, as Reserve is.
					r, _ := one.Reserve(ctx, phone, rate)
					b, err = many.ReserveN(ctx, phone, rate, 5)
					if err != nil || len(b.Delays) != 0 || b.Retry != r.Delay {
						t.Fatalf("full: %+v %v, want retry %s", b, err, r.Delay)
					}
				})
			}
		})
	}
}

// TestReserveNSmallBatches: at 1,000/s, batches of 7 after the burst are
// one millisecond apart and continue where the last one stopped; a
// reservation of another limiter on the number interleaves.
func TestReserveNSmallBatches(t *testing.T) {
	ctx := context.Background()
	ms := time.Millisecond
	for _, be := range testkit.RedisBackends(t) {
		rdb := be.Store.Client()
		t.Run(be.Name, func(t *testing.T) {
			c := newClock()
			prefix := uniquePrefix(t, rdb, phone)
			a := pacing.New(rdb, fakeOptions(prefix, c))
			b := pacing.New(rdb, fakeOptions(prefix, c))
			first, err := a.ReserveN(ctx, phone, 1000, 100) // the burst
			if err != nil || len(first.Delays) != 100 || first.Delays[99] != 0 {
				t.Fatalf("burst: %+v %v", first, err)
			}
			second, err := a.ReserveN(ctx, phone, 1000, 7)
			if err != nil || len(second.Delays) != 7 {
				t.Fatalf("second: %+v %v", second, err)
			}
			for i, d := range second.Delays {
				if d != time.Duration(i+1)*ms {
					t.Fatalf("slot %d of the second batch: %s", i, d)
				}
			}
			r, err := b.Reserve(ctx, phone, 1000)
			if err != nil || !r.OK || r.Delay != 8*ms {
				t.Fatalf("other limiter: %+v %v", r, err)
			}
			third, err := a.ReserveN(ctx, phone, 1000, 2)
			if err != nil || len(third.Delays) != 2 || third.Delays[0] != 9*ms {
				t.Fatalf("third: %+v %v", third, err)
			}
		})
	}
}

// TestTakeN: slots come as local times at the pace; a hold of this
// process delays the call; bad input is refused; a cancelled context
// ends the wait.
func TestTakeN(t *testing.T) {
	ctx := context.Background()
	for _, be := range testkit.RedisBackends(t) {
		rdb := be.Store.Client()
		t.Run(be.Name, func(t *testing.T) {
			t.Run("Pace", func(t *testing.T) {
				c := newClock()
				l := pacing.New(rdb, fakeOptions(uniquePrefix(t, rdb, phone), c))
				start := c.Now()
				var last time.Time
				total := 0
				for total < 600 {
					at, err := l.TakeN(ctx, phone, 10, 50)
					if err != nil {
						t.Fatal(err)
					}
					for _, s := range at {
						if s.Before(last) {
							t.Fatalf("slots out of order")
						}
						last = s
					}
					total += len(at)
					c.Sleep(ctx, at[len(at)-1].Sub(c.Now()))
				}
				// 600 slots at 10/s: the first at once, one per 100 ms.
				if got, want := last.Sub(start), time.Duration(total-1)*100*time.Millisecond; got != want {
					t.Errorf("%d slots spread over %s, want %s", total, got, want)
				}
			})
			t.Run("Hold", func(t *testing.T) {
				c := newClock()
				l := pacing.New(rdb, fakeOptions(uniquePrefix(t, rdb, phone), c))
				if err := l.Slow(ctx, phone, 3*time.Second); err != nil {
					t.Fatal(err)
				}
				start := c.Now()
				at, err := l.TakeN(ctx, phone, 80, 4)
				if err != nil || len(at) != 4 {
					t.Fatalf("after the hold: %v %v", at, err)
				}
				// No burst right after a hold: the first slot at its end,
				// then one per interval.
				for i, s := range at {
					if want := 3*time.Second + time.Duration(i)*12500*time.Microsecond; s.Sub(start) != want {
						t.Errorf("slot %d %s after the Slow, want %s", i, s.Sub(start), want)
					}
				}
			})
			t.Run("Invalid", func(t *testing.T) {
				l := pacing.New(rdb, pacing.Options{Prefix: uniquePrefix(t, rdb, phone)})
				if _, err := l.TakeN(ctx, phone, 0, 3); err == nil {
					t.Error("rate 0 accepted")
				}
				if _, err := l.ReserveN(ctx, phone, 10, 0); err == nil {
					t.Error("an empty batch accepted")
				}
				if _, err := l.ReserveN(ctx, "", 10, 1); err == nil {
					t.Error("an empty phone id accepted")
				}
			})
			t.Run("Cancel", func(t *testing.T) {
				l := pacing.New(rdb, pacing.Options{Prefix: uniquePrefix(t, rdb, phone)})
				if _, err := l.ReserveN(ctx, phone, 1, 1); err != nil { // the next slot is a second away
					t.Fatal(err)
				}
				cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
				defer cancel()
				if _, err := l.TakeN(cctx, phone, 0.1, 1); err == nil {
					t.Error("TakeN outlived its context")
				}
			})
			t.Run("ConcurrentWithWait", func(t *testing.T) {
				c := newClock() // stands still
				o := pacing.Options{Prefix: uniquePrefix(t, rdb, phone), Now: c.Now, MaxAhead: time.Hour}
				a, b := pacing.New(rdb, o), pacing.New(rdb, o)
				var mu sync.Mutex
				seen := map[time.Time]int{}
				var wg sync.WaitGroup
				for i := range 20 {
					wg.Go(func() {
						var at []time.Time
						if i%2 == 0 {
							at, _ = a.TakeN(ctx, phone, 1000, 10)
						} else {
							r, _ := b.Reserve(ctx, phone, 1000)
							at = []time.Time{c.Now().Add(r.Delay)}
						}
						mu.Lock()
						for _, s := range at {
							seen[s]++
						}
						mu.Unlock()
					})
				}
				wg.Wait()
				// 110 slots: the burst of 100 at once, then 10 distinct ones.
				if seen[c.Now()] != 100 || len(seen) != 11 {
					t.Fatalf("slots %v", seen)
				}
			})
		})
	}
}
