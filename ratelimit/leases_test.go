package ratelimit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"switchboard/internal/testkit"
	"switchboard/ratelimit"
)

func TestLeases(t *testing.T) {
	ctx := context.Background()
	for _, be := range testkit.RedisBackends(t) {
		rdb := be.Store.Client()
		t.Run(be.Name, func(t *testing.T) {
			ns := "test-" + uuid.NewString()[:8]
			l := ratelimit.NewLeases(rdb, ns, 0)
			user, addr := ratelimit.Slot{Key: "user:u", Limit: 2}, ratelimit.Slot{Key: "addr:a", Limit: 3}
			count := func(key string) int {
				n, err := l.Count(ctx, key)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			first, err := l.Acquire(ctx, user, addr)
			if err != nil {
				t.Fatal(err)
			}
			second, err := l.Acquire(ctx, user, addr)
			if err != nil {
				t.Fatal(err)
			}
			t.Run("FullSlotRefusesAll", func(t *testing.T) {
				_, err := l.Acquire(ctx, addr, user)
				var full *ratelimit.FullError
				if !errors.As(err, &full) || !errors.Is(err, ratelimit.ErrFull) || full.Slot != user {
					t.Fatalf("third lease of the user: %v", err)
				}
				if count("addr:a") != 2 {
					t.Fatalf("a refused lease kept its place in another slot: %d", count("addr:a"))
				}
			})
			t.Run("AddToALease", func(t *testing.T) {
				other, err := l.Acquire(ctx, addr)
				if err != nil {
					t.Fatal(err)
				}
				if err := other.Add(ctx, user); !errors.Is(err, ratelimit.ErrFull) {
					t.Fatalf("adding a full slot: %v", err)
				}
				if err := other.Add(ctx, ratelimit.Slot{Key: "user:v", Limit: 1}); err != nil {
					t.Fatal(err)
				}
				if err := other.Release(ctx); err != nil {
					t.Fatal(err)
				}
				if count("user:v") != 0 || count("addr:a") != 2 {
					t.Fatalf("after release: user:v %d, addr:a %d", count("user:v"), count("addr:a"))
				}
			})
			t.Run("ReleaseFreesAPlace", func(t *testing.T) {
				if err := first.Release(ctx); err != nil {
					t.Fatal(err)
				}
				if err := first.Release(ctx); err != nil {
					t.Fatalf("second release: %v", err)
				}
				third, err := l.Acquire(ctx, user, addr)
				if err != nil {
					t.Fatalf("after a release: %v", err)
				}
				_ = third.Release(ctx)
				_ = second.Release(ctx)
				if count("user:u") != 0 {
					t.Fatalf("places left: %d", count("user:u"))
				}
			})
		})
	}
}

// TestLeasesExpire: a holder that stops renewing (its process died) loses
// its place after the TTL; a live holder keeps it by renewing.
func TestLeasesExpire(t *testing.T) {
	ctx := context.Background()
	for _, be := range testkit.RedisBackends(t) {
		rdb := be.Store.Client()
		t.Run(be.Name, func(t *testing.T) {
			ns := "test-" + uuid.NewString()[:8]
			slot := ratelimit.Slot{Key: "user:u", Limit: 1}
			// A dead process: its connection to Redis is gone, so its
			// leases are never renewed nor released.
			deadConn := redis.NewClient(rdb.Options())
			dead := ratelimit.NewLeases(deadConn, ns, time.Second)
			live := ratelimit.NewLeases(rdb, ns, time.Second)
			held, err := live.Acquire(ctx, ratelimit.Slot{Key: "user:live", Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer held.Release(ctx)
			if _, err := dead.Acquire(ctx, slot); err != nil {
				t.Fatal(err)
			}
			_ = deadConn.Close()
			testkit.Eventually(t, "the place of a dead holder to come free", func() bool {
				x, err := live.Acquire(ctx, slot)
				if err == nil {
					_ = x.Release(ctx)
					return true
				}
				if !errors.Is(err, ratelimit.ErrFull) {
					t.Fatalf("acquiring the place of a dead holder: %v", err)
				}
				return false
			})
			if _, err := live.Acquire(ctx, ratelimit.Slot{Key: "user:live", Limit: 1}); !errors.Is(err, ratelimit.ErrFull) {
				t.Fatalf("a renewed lease lost its place: %v", err)
			}
		})
	}
}
