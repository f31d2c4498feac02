package pacing_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
	"switchboard/pacing"
)

var seq atomic.Int64

// uniquePrefix gives one test its own keys on the shared Redis and deletes
// the phone's key when the test ends.
func uniquePrefix(t *testing.T, rdb *redis.Client, phoneID string) string {
	t.Helper()
	prefix := fmt.Sprintf("%s:%s:%d:", testenv.Namespace(), t.Name(), seq.Add(1))
	t.Cleanup(func() {
		rdb.Del(context.Background(), pacing.New(rdb, pacing.Options{Prefix: prefix}).Key(phoneID))
	})
	return prefix
}

// clock is a fake time source; its Sleep moves it on instead of waiting.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock {
	return &clock{t: time.Now().Truncate(time.Second)}
}

// Now returns the clock's time.
func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

// Advance moves the clock on by d.
func (c *clock) Advance(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

// Sleep advances the clock by d, as if the caller had slept.
func (c *clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.Advance(max(d, 0))
	return nil
}

// fakeOptions are options with the fake clock.
func fakeOptions(prefix string, c *clock) pacing.Options {
	return pacing.Options{Prefix: prefix, Now: c.Now, Sleep: c.Sleep}
}

const phone = "106540352242922"

func TestTierRate(t *testing.T) {
	tests := []struct {
		tier string
		want float64
	}{
		{"TIER_1K", 10},
		{"TIER_10K", 30},
		{"TIER_100K", 80},
		{"TIER_UNLIMITED", 1000},
		{"tier_unlimited ", 1000},
		{"TIER_250", 10},
		{"TIER_2K", 10},
		{"", 10},
	}
	for _, tt := range tests {
		if got := pacing.TierRate(tt.tier); got != tt.want {
			t.Errorf("TierRate(%q) = %v, want %v", tt.tier, got, tt.want)
		}
	}
}

// step is one Reserve call in a scripted scenario at a fake time.
type step struct {
	at    time.Duration // offset from the start
	ok    bool
	delay time.Duration
}

func TestReserve(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name  string
		rate  float64
		opts  pacing.Options
		steps []step
	}{
		{
			name: "TIER_1K_NoBurst_ReservesUpToMaxAhead", rate: 10,
			steps: []step{
				{0, true, 0}, {0, true, 100 * ms}, {0, true, 200 * ms}, {0, true, 300 * ms},
				{0, true, 400 * ms}, {0, true, 500 * ms},
				{0, false, 100 * ms}, // next slot at 600 ms: ask again at 100 ms
				{100 * ms, true, 500 * ms},
				{2 * time.Second, true, 0}, // idle: no debt, no credit beyond the burst
				{2 * time.Second, true, 100 * ms},
			},
		},
		{
			name: "TIER_100K_BurstOfEight", rate: 80,
			steps: []step{
				{0, true, 0}, {0, true, 0}, {0, true, 0}, {0, true, 0},
				{0, true, 0}, {0, true, 0}, {0, true, 0}, {0, true, 0},
				{0, true, 12500 * time.Microsecond},
				{0, true, 25 * ms},
				{time.Second, true, 0}, // a second idle refills the burst
			},
		},
		{
			name: "TIER_10K_BurstOfThree", rate: 30,
			steps: []step{
				{0, true, 0}, {0, true, 0}, {0, true, 0},
				{0, true, 33333 * time.Microsecond},
			},
		},
		{
			name: "NoReservationAhead", rate: 10, opts: pacing.Options{MaxAhead: -1},
			steps: []step{
				{0, true, 0},
				{0, false, 100 * ms},
				{50 * ms, false, 50 * ms},
				{100 * ms, true, 0},
			},
		},
		{
			name: "LargerBurst", rate: 10, opts: pacing.Options{Burst: 300 * ms, MaxAhead: -1},
			steps: []step{
				{0, true, 0}, {0, true, 0}, {0, true, 0},
				{0, false, 100 * ms},
				{100 * ms, true, 0},
				{150 * ms, false, 50 * ms},
			},
		},
	}
	ctx := context.Background()
	for _, be := range testkit.RedisBackends(t) {
		rdb := be.Store.Client()
		t.Run(be.Name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					c := newClock()
					start := c.Now()
					o := tt.opts
					o.Prefix, o.Now = uniquePrefix(t, rdb, phone), c.Now
					l := pacing.New(rdb, o)
					for i, s := range tt.steps {
						c.mu.Lock()
						c.t = start.Add(s.at)
						c.mu.Unlock()
						r, err := l.Reserve(ctx, phone, tt.rate)
						if err != nil {
							t.Fatalf("step %d: %v", i, err)
						}
						if r.OK != s.ok || r.Delay != s.delay {
							t.Errorf("step %d (+%s): got ok=%v delay=%s, want %v %s", i, s.at, r.OK, r.Delay, s.ok, s.delay)
						}
					}
				})
			}
		})
	}
}

// TestWaitPacesSharedNumber: two limiters (two processes) alternating on one
// number send at the rate together, and another number is independent.
func TestWaitPacesSharedNumber(t *testing.T) {
	ctx := context.Background()
	for _, be := range testkit.RedisBackends(t) {
		rdb := be.Store.Client()
		t.Run(be.Name, func(t *testing.T) {
			c := newClock()
			prefix := uniquePrefix(t, rdb, phone)
			t.Cleanup(func() { rdb.Del(ctx, pacing.New(rdb, pacing.Options{Prefix: prefix}).Key("other")) })
			a := pacing.New(rdb, fakeOptions(prefix, c))
			b := pacing.New(rdb, fakeOptions(prefix, c))
			start := c.Now()
			const n = 600
			for i := range n {
				l := a
				if i%2 == 1 {
					l = b
				}
				if err := l.Wait(ctx, phone, pacing.TierRate("TIER_1K")); err != nil {
					t.Fatal(err)
				}
			}
			// 600 sends at 10/s: the first at once, then one per 100 ms.
			if got, want := c.Now().Sub(start), (n-1)*100*time.Millisecond; got != want {
				t.Errorf("%d sends took %s of fake time, want %s", n, got, want)
			}
			before := c.Now()
			if err := a.Wait(ctx, "other", 10); err != nil {
				t.Fatal(err)
			}
			if c.Now() != before {
				t.Errorf("another number waited %s", c.Now().Sub(before))
			}
		})
	}
}

// TestReserveConcurrent: concurrent callers of two limiters get distinct
// slots, one interval apart, as if served one by one.
func TestReserveConcurrent(t *testing.T) {
	ctx := context.Background()
	for _, be := range testkit.RedisBackends(t) {
		rdb := be.Store.Client()
		t.Run(be.Name, func(t *testing.T) {
			c := newClock() // stands still: every slot is ahead
			o := pacing.Options{Prefix: uniquePrefix(t, rdb, phone), Now: c.Now, MaxAhead: time.Hour}
			ls := []*pacing.Redis{pacing.New(rdb, o), pacing.New(rdb, o)}
			const n = 200
			delays := make([]time.Duration, n)
			var wg sync.WaitGroup
			errs := make(chan error, n)
			for i := range n {
				wg.Go(func() {
					r, err := ls[i%2].Reserve(ctx, phone, 1000)
					if err != nil || !r.OK {
						errs <- fmt.Errorf("reserve %d: %v %+v", i, err, r)
						return
					}
					delays[i] = r.Delay
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			sort.Slice(delays, func(i, j int) bool { return delays[i] < delays[j] })
			// Burst 100 at 1,000/s: 100 slots now, then one per millisecond.
			for i, d := range delays {
				want := time.Duration(max(0, i-99)) * time.Millisecond
				if d != want {
					t.Fatalf("slot %d: delay %s, want %s (all: %v)", i, d, want, delays)
				}
			}
		})
	}
}

func TestSlow(t *testing.T) {
	ctx := context.Background()
	for _, be := range testkit.RedisBackends(t) {
		rdb := be.Store.Client()
		t.Run(be.Name, func(t *testing.T) {
			t.Run("HonouredByAnotherLimiter", func(t *testing.T) {
				c := newClock()
				prefix := uniquePrefix(t, rdb, phone)
				a := pacing.New(rdb, fakeOptions(prefix, c))
				b := pacing.New(rdb, fakeOptions(prefix, c))
				start := c.Now()
				if err := a.Wait(ctx, phone, 80); err != nil {
					t.Fatal(err)
				}
				if err := b.Slow(ctx, phone, 2*time.Second); err != nil {
					t.Fatal(err)
				}
				r, err := a.Reserve(ctx, phone, 80)
				if err != nil {
					t.Fatal(err)
				}
				if r.OK || r.Delay != 2*time.Second-pacing.DefaultMaxAhead {
					t.Errorf("Reserve during the hold = %+v, want refused, ask again after %s", r, 2*time.Second-pacing.DefaultMaxAhead)
				}
				if err := a.Wait(ctx, phone, 80); err != nil {
					t.Fatal(err)
				}
				if got := c.Now().Sub(start); got != 2*time.Second {
					t.Errorf("Wait returned %s after Slow(2s)", got)
				}
				// No burst right after the pause, although 80/s allows 8.
				if err := a.Wait(ctx, phone, 80); err != nil {
					t.Fatal(err)
				}
				if got := c.Now().Sub(start); got != 2*time.Second+12500*time.Microsecond {
					t.Errorf("second send after the pause at +%s, want one interval after it", got)
				}
			})
			t.Run("ShorterSlowKeepsLongerHold", func(t *testing.T) {
				c := newClock()
				prefix := uniquePrefix(t, rdb, phone)
				l := pacing.New(rdb, fakeOptions(prefix, c))
				start := c.Now()
				if err := l.Slow(ctx, phone, 3*time.Second); err != nil {
					t.Fatal(err)
				}
				if err := l.Slow(ctx, phone, time.Second); err != nil {
					t.Fatal(err)
				}
				if err := l.Wait(ctx, phone, 10); err != nil {
					t.Fatal(err)
				}
				if got := c.Now().Sub(start); got != 3*time.Second {
					t.Errorf("Wait returned at +%s, want +3s", got)
				}
			})
			t.Run("VoidsSlotReservedBeforeSlowOfSameProcess", func(t *testing.T) {
				c := newClock()
				prefix := uniquePrefix(t, rdb, phone)
				var l *pacing.Redis
				slowed := false
				o := fakeOptions(prefix, c)
				o.Sleep = func(ctx context.Context, d time.Duration) error {
					if d > 0 && !slowed { // another worker hits 130429 while this one waits
						slowed = true
						if err := l.Slow(ctx, phone, time.Second); err != nil {
							return err
						}
					}
					return c.Sleep(ctx, d)
				}
				l = pacing.New(rdb, o)
				start := c.Now()
				if err := l.Wait(ctx, phone, 10); err != nil { // the burst's one send
					t.Fatal(err)
				}
				if err := l.Wait(ctx, phone, 10); err != nil { // reserved +100 ms, then held
					t.Fatal(err)
				}
				if !slowed {
					t.Fatal("the second Wait did not sleep")
				}
				if got := c.Now().Sub(start); got < time.Second {
					t.Errorf("Wait returned at +%s, inside the 1 s hold", got)
				}
			})
			t.Run("Bounds", func(t *testing.T) {
				c := newClock()
				prefix := uniquePrefix(t, rdb, phone)
				l := pacing.New(rdb, fakeOptions(prefix, c))
				if err := l.Slow(ctx, phone, 0); err != nil {
					t.Fatal(err)
				}
				if err := l.Slow(ctx, phone, -time.Second); err != nil {
					t.Fatal(err)
				}
				if n, _ := rdb.Exists(ctx, l.Key(phone)).Result(); n != 0 {
					t.Error("a zero Slow wrote a key")
				}
				if err := l.Slow(ctx, phone, 48*time.Hour); err != nil {
					t.Fatal(err)
				}
				if ttl := rdb.PTTL(ctx, l.Key(phone)).Val(); ttl > pacing.MaxSlow+2*time.Second {
					t.Errorf("TTL after Slow(48h) = %s, want at most MaxSlow", ttl)
				}
			})
		})
	}
}

// TestKeyTTL: a number's key lives only as long as its state restricts
// anyone.
func TestKeyTTL(t *testing.T) {
	ctx := context.Background()
	for _, be := range testkit.RedisBackends(t) {
		rdb := be.Store.Client()
		t.Run(be.Name, func(t *testing.T) {
			c := newClock()
			l := pacing.New(rdb, fakeOptions(uniquePrefix(t, rdb, phone), c))
			for range 3 {
				if _, err := l.Reserve(ctx, phone, 10); err != nil {
					t.Fatal(err)
				}
			}
			// Next slot at +300 ms: expires within 300 ms + 1 s of slack.
			ttl := rdb.PTTL(ctx, l.Key(phone)).Val()
			if ttl <= 0 || ttl > 1300*time.Millisecond {
				t.Errorf("TTL after 3 reservations = %s, want (0, 1.3s]", ttl)
			}
			if err := l.Slow(ctx, phone, 30*time.Second); err != nil {
				t.Fatal(err)
			}
			if ttl := rdb.PTTL(ctx, l.Key(phone)).Val(); ttl < 30*time.Second || ttl > 31*time.Second {
				t.Errorf("TTL after Slow(30s) = %s, want [30s, 31s]", ttl)
			}
			if _, err := l.Reserve(ctx, phone, 10); err != nil {
				t.Fatal(err)
			}
			if ttl := rdb.PTTL(ctx, l.Key(phone)).Val(); ttl < 30*time.Second {
				t.Errorf("a reservation shortened the hold's TTL to %s", ttl)
			}
		})
	}
}

// TestServerClock: without Options.Now the time is Redis's TIME, on the
// embedded server (whose clock a test can set) as on a real one.
func TestServerClock(t *testing.T) {
	ctx := context.Background()
	t.Run("Miniredis", func(t *testing.T) {
		m := miniredis.RunT(t)
		rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
		t.Cleanup(func() { rdb.Close() })
		t0 := time.Date(2026, 11, 25, 16, 0, 0, 0, time.UTC)
		m.SetTime(t0)
		l := pacing.New(rdb, pacing.Options{MaxAhead: time.Hour})
		want := []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond}
		for i, w := range want {
			r, err := l.Reserve(ctx, phone, 10)
			if err != nil {
				t.Fatal(err)
			}
			if !r.OK || r.Delay != w {
				t.Errorf("reservation %d = %+v, want delay %s", i, r, w)
			}
		}
		m.SetTime(t0.Add(250 * time.Millisecond))
		if r, _ := l.Reserve(ctx, phone, 10); r.Delay != 50*time.Millisecond {
			t.Errorf("after 250 ms of server time: delay %s, want 50ms", r.Delay)
		}
	})
	if u := testenv.RedisURL(t); u != "" {
		t.Run("Redis", func(t *testing.T) {
			rdb := testkit.MustOpenKV(t, u).Client()
			l := pacing.New(rdb, pacing.Options{Prefix: uniquePrefix(t, rdb, phone), MaxAhead: time.Hour})
			// One send per 1,000 s: the second slot is ~1,000 s after the
			// first, whatever time the server says it is.
			if _, err := l.Reserve(ctx, phone, 0.001); err != nil {
				t.Fatal(err)
			}
			r, err := l.Reserve(ctx, phone, 0.001)
			if err != nil {
				t.Fatal(err)
			}
			if !r.OK || r.Delay <= 990*time.Second || r.Delay > 1000*time.Second {
				t.Errorf("second reservation = %+v, want a slot ~1000 s ahead", r)
			}
		})
	}
}

// TestWaitCancel: a waiter returns the context's error when it ends,
// without waiting for its slot.
func TestWaitCancel(t *testing.T) {
	for _, be := range testkit.RedisBackends(t) {
		rdb := be.Store.Client()
		t.Run(be.Name, func(t *testing.T) {
			l := pacing.New(rdb, pacing.Options{Prefix: uniquePrefix(t, rdb, phone)})
			if err := l.Wait(context.Background(), phone, 0.001); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- l.Wait(ctx, phone, 0.001) }() // next slot in 1,000 s
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Wait = %v, want context.Canceled", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("Wait did not return after its context was cancelled")
			}
			// An ended context is refused before any Redis call.
			if err := l.Wait(ctx, "never", 10); !errors.Is(err, context.Canceled) {
				t.Errorf("Wait with an ended context = %v", err)
			}
			if n, _ := rdb.Exists(context.Background(), l.Key("never")).Result(); n != 0 {
				t.Error("Wait with an ended context wrote a key")
			}
		})
	}
}

func TestInvalid(t *testing.T) {
	ctx := context.Background()
	rdb := testkit.MustOpenKV(t, "").Client()
	l := pacing.New(rdb, pacing.Options{})
	for _, rate := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if err := l.Wait(ctx, phone, rate); !errors.Is(err, pacing.ErrRate) {
			t.Errorf("Wait at %v/s = %v, want ErrRate", rate, err)
		}
	}
	if err := l.Wait(ctx, "", 10); err == nil {
		t.Error("Wait with no phone id succeeded")
	}
	if err := l.Slow(ctx, "", time.Second); err == nil {
		t.Error("Slow with no phone id succeeded")
	}
	rdb.Close()
	if err := l.Wait(ctx, phone, 10); err == nil {
		t.Error("Wait with Redis closed succeeded")
	}
}
