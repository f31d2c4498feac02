package testenv

import (
	"context"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// claimKey marks a logical database of the test Redis as one test's own.
const claimKey = "testenv:claimed"

// RedisDBURL returns the URL of a logical database (1 to 15) of the test
// Redis that no other test holds, empty when claimed and flushed when the
// test ends: for a server started as a process, which prefixes none of its
// keys (Namespace is for in-process applications). It returns "" when
// Redis does not answer (the process then runs its in-process Redis), or
// fails the test when TEST_REQUIRE_SERVICES=1 or every database is taken.
func RedisDBURL(tb testing.TB) string {
	tb.Helper()
	base := RedisURL(tb)
	if base == "" {
		return ""
	}
	opts, err := redis.ParseURL(base)
	if err != nil {
		tb.Fatalf("testenv: %v", err)
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	for db := 1; db <= 15; db++ {
		o := *opts
		o.DB = db
		client := redis.NewClient(&o)
		if claimed(ctx, client) {
			tb.Cleanup(func() {
				defer client.Close()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if err := client.FlushDB(ctx).Err(); err != nil {
					tb.Errorf("testenv: flush Redis database %d: %v", db, err)
				}
			})
			u, _ := url.Parse(base) // parsed by redis.ParseURL already
			u.Path = "/" + strconv.Itoa(db)
			return u.String()
		}
		client.Close()
	}
	tb.Fatalf("testenv: every Redis database 1-15 at %s is in use", redact(base))
	return ""
}

// claimed takes the database when it is empty: the claim key is set only
// if absent, and the database then holds that key alone.
func claimed(ctx context.Context, c *redis.Client) bool {
	ok, err := c.SetNX(ctx, claimKey, "1", time.Hour).Result()
	if err != nil || !ok {
		return false
	}
	if n, err := c.DBSize(ctx).Result(); err != nil || n != 1 {
		c.Del(ctx, claimKey)
		return false
	}
	return true
}
