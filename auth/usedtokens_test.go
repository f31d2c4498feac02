package auth_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"switchboard/auth"
)

// realRedisAddr is probed for the tests against a real server; they are
// skipped when nothing answers there.
const realRedisAddr = "127.0.0.1:6379"

// usedTokensBackend is one Redis to run the UsedTokens tests against.
type usedTokensBackend struct {
	name  string
	setup func(t *testing.T) (client *redis.Client, mr *miniredis.Miniredis)
}

var usedTokensBackends = []usedTokensBackend{
	{name: "Miniredis", setup: func(t *testing.T) (*redis.Client, *miniredis.Miniredis) {
		mr := miniredis.RunT(t)
		c := redis.NewClient(&redis.Options{Addr: mr.Addr()})
		t.Cleanup(func() { _ = c.Close() })
		return c, mr
	}},
	{name: "Redis", setup: func(t *testing.T) (*redis.Client, *miniredis.Miniredis) {
		c := redis.NewClient(&redis.Options{Addr: realRedisAddr, DialTimeout: 500 * time.Millisecond, MaxRetries: -1})
		t.Cleanup(func() { _ = c.Close() })
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := c.Ping(ctx).Err(); err != nil {
			t.Skipf("no Redis at %s: %v", realRedisAddr, err)
		}
		return c, nil
	}},
}

// testPrefix returns a key prefix of its own, so runs against a shared
// Redis do not collide, and removes its keys afterwards.
func testPrefix(t *testing.T, c *redis.Client) string {
	t.Helper()
	prefix := "switchboard-test:used:" + uuid.NewString() + ":"
	t.Cleanup(func() {
		ctx := context.Background()
		keys, _ := c.Keys(ctx, prefix+"*").Result()
		if len(keys) > 0 {
			_ = c.Del(ctx, keys...).Err()
		}
	})
	return prefix
}

func TestRedisUsedTokens(t *testing.T) {
	ctx := context.Background()
	for _, be := range usedTokensBackends {
		t.Run(be.name, func(t *testing.T) {
			t.Run("FirstUseThenReplay", func(t *testing.T) {
				c, _ := be.setup(t)
				u := auth.NewRedisUsedTokens(c, testPrefix(t, c))
				jti := uuid.NewString()
				wants := []bool{true, false, false}
				for i, want := range wants {
					got, err := u.MarkUsed(ctx, jti, time.Minute)
					if err != nil {
						t.Fatalf("call %d: %v", i, err)
					}
					if got != want {
						t.Fatalf("call %d: firstUse = %v, want %v", i, got, want)
					}
				}
			})
			t.Run("DistinctJTIs", func(t *testing.T) {
				c, _ := be.setup(t)
				u := auth.NewRedisUsedTokens(c, testPrefix(t, c))
				for i := range 5 {
					got, err := u.MarkUsed(ctx, uuid.NewString(), time.Minute)
					if err != nil || !got {
						t.Fatalf("jti %d: firstUse = %v, %v; want true", i, got, err)
					}
				}
			})
			t.Run("KeyAndTTL", func(t *testing.T) {
				c, _ := be.setup(t)
				prefix := testPrefix(t, c)
				u := auth.NewRedisUsedTokens(c, prefix)
				jti := uuid.NewString()
				ttl := 1500 * time.Millisecond
				if _, err := u.MarkUsed(ctx, jti, ttl); err != nil {
					t.Fatal(err)
				}
				pttl, err := c.PTTL(ctx, prefix+jti).Result()
				if err != nil {
					t.Fatal(err)
				}
				if pttl <= 0 || pttl > ttl {
					t.Fatalf("PTTL = %v, want in (0, %v]", pttl, ttl)
				}
			})
			t.Run("PrefixesIsolate", func(t *testing.T) {
				c, _ := be.setup(t)
				a := auth.NewRedisUsedTokens(c, testPrefix(t, c))
				b := auth.NewRedisUsedTokens(c, testPrefix(t, c))
				jti := uuid.NewString()
				for name, u := range map[string]*auth.RedisUsedTokens{"A": a, "B": b} {
					if got, err := u.MarkUsed(ctx, jti, time.Minute); err != nil || !got {
						t.Fatalf("%s: firstUse = %v, %v; want true", name, got, err)
					}
				}
			})
			t.Run("Concurrent", func(t *testing.T) {
				c, _ := be.setup(t)
				u := auth.NewRedisUsedTokens(c, testPrefix(t, c))
				jti := uuid.NewString()
				const n = 16
				var (
					wg    sync.WaitGroup
					mu    sync.Mutex
					first int
					errs  []error
				)
				for range n {
					wg.Go(func() {
						got, err := u.MarkUsed(ctx, jti, time.Minute)
						mu.Lock()
						defer mu.Unlock()
						if err != nil {
							errs = append(errs, err)
						}
						if got {
							first++
						}
					})
				}
				wg.Wait()
				if len(errs) > 0 || first != 1 {
					t.Fatalf("%d of %d calls saw first use (errors %v), want exactly 1", first, n, errs)
				}
			})

			badArgs := []struct {
				name string
				jti  string
				ttl  time.Duration
			}{
				{name: "ErrEmptyJTI", jti: "", ttl: time.Minute},
				{name: "ErrZeroTTL", jti: "x", ttl: 0},
				{name: "ErrNegativeTTL", jti: "x", ttl: -time.Second},
				{name: "ErrSubMillisecondTTL", jti: "x", ttl: 999 * time.Microsecond},
			}
			for _, tt := range badArgs {
				t.Run(tt.name, func(t *testing.T) {
					c, _ := be.setup(t)
					prefix := testPrefix(t, c)
					u := auth.NewRedisUsedTokens(c, prefix)
					got, err := u.MarkUsed(ctx, tt.jti, tt.ttl)
					if err == nil || got {
						t.Fatalf("MarkUsed = %v, %v; want false and an error", got, err)
					}
					if n, _ := c.Exists(ctx, prefix+tt.jti).Result(); n != 0 {
						t.Fatal("a key was written despite the error")
					}
				})
			}
		})
	}
}

func TestRedisUsedTokensExpiry(t *testing.T) {
	// miniredis time only moves when told, so expiry is tested without
	// sleeping.
	ctx := context.Background()
	mr := miniredis.RunT(t)
	c := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { _ = c.Close() })
	u := auth.NewRedisUsedTokens(c, "")

	tests := []struct {
		name    string
		advance time.Duration
		want    bool
	}{
		{name: "FirstUse", want: true},
		{name: "BeforeExpiry", advance: 59 * time.Second, want: false},
		{name: "AfterExpiry", advance: 2 * time.Second, want: true},
		{name: "ReplayAfterReMark", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mr.FastForward(tt.advance)
			got, err := u.MarkUsed(ctx, "jti-1", time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("firstUse = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRedisUsedTokensDefaultPrefix(t *testing.T) {
	mr := miniredis.RunT(t)
	c := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { _ = c.Close() })
	if _, err := auth.NewRedisUsedTokens(c, "").MarkUsed(context.Background(), "abc", time.Minute); err != nil {
		t.Fatal(err)
	}
	if !mr.Exists(auth.DefaultUsedTokensPrefix + "abc") {
		t.Fatalf("key %q not written; keys: %v", auth.DefaultUsedTokensPrefix+"abc", mr.Keys())
	}
}

func TestRedisUsedTokensUnavailable(t *testing.T) {
	tests := []struct {
		name string
		ctx  func() context.Context
		stop bool
	}{
		{name: "ServerDown", ctx: context.Background, stop: true},
		{name: "ContextCanceled", ctx: func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mr := miniredis.RunT(t)
			c := redis.NewClient(&redis.Options{Addr: mr.Addr(), MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
			t.Cleanup(func() { _ = c.Close() })
			if tt.stop {
				mr.Close()
			}
			got, err := auth.NewRedisUsedTokens(c, "").MarkUsed(tt.ctx(), "abc", time.Minute)
			if err == nil || got {
				t.Fatalf("MarkUsed = %v, %v; want false and an error (fail closed)", got, err)
			}
		})
	}
}
