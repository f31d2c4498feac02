// Package ratelimit counts requests in a sliding window kept in Redis, so
// that every process sharing the Redis enforces one limit per key; and it
// counts long-lived things, such as open connections, with leases
// (leases.go) that lapse when their process dies.
//
// The window is a log: a sorted set per key holding one member per allowed
// request, scored by its time. One Lua script trims, counts and adds
// atomically, so concurrent callers never exceed the limit. Refused requests
// are not recorded, so a client that keeps retrying is let in as soon as the
// oldest request leaves the window. Memory per key is bounded by the limit.
//
// The package decides nothing about who is limited or how results become
// HTTP headers; that belongs to the HTTP layer.
package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Result is the outcome of one Allow call.
type Result struct {
	// Allowed reports whether the request fits in the window; it has been
	// counted if so.
	Allowed bool
	// Limit is the number of requests allowed per window.
	Limit int
	// Remaining is how many more requests the window allows now.
	Remaining int
	// Reset is when the window will be empty again (every request in it
	// expired) if no more are made, rounded up to a whole second, as the
	// X-RateLimit-Reset header wants.
	Reset time.Time
	// RetryAfter is how long a refused caller must wait before a request
	// can be allowed; zero when Allowed.
	RetryAfter time.Duration
}

// Limiter enforces sliding-window limits. It is safe for concurrent use.
type Limiter struct {
	rdb    redis.Scripter
	prefix string
	now    func() time.Time
}

// Option configures a Limiter.
type Option func(*Limiter)

// WithClock makes the limiter read time from now instead of from the Redis
// server. Tests use it to move the window; in production the server's clock
// is better, being one clock for all processes.
func WithClock(now func() time.Time) Option {
	return func(l *Limiter) { l.now = now }
}

// New returns a limiter storing its windows in rdb under keys
// "<namespace>:ratelimit:<key>" ("ratelimit:<key>" when namespace is empty).
func New(rdb redis.Scripter, namespace string, opts ...Option) *Limiter {
	prefix := "ratelimit:"
	if namespace != "" {
		prefix = namespace + ":" + prefix
	}
	l := &Limiter{rdb: rdb, prefix: prefix}
	for _, o := range opts {
		o(l)
	}
	return l
}

// slidingWindow trims the requests that left the window, then counts the
// request if there is room. Times are microseconds since the epoch: exact in
// a Lua number (a double) until the year 2255.
//
// KEYS[1] the window; ARGV[1] limit; ARGV[2] window length;
// ARGV[3] now, or "" for the server's clock; ARGV[4] a unique member.
// Returns {allowed (0|1), remaining, oldest request, newest request, now}.
var slidingWindow = redis.NewScript(`
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local now
if ARGV[3] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[3])
end

redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[4])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', key, math.ceil(window / 1000))
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
return {allowed, limit - count, tonumber(oldest[2]), tonumber(newest[2]), now}
`)

// Allow counts a request against key if fewer than limit requests were
// allowed in the window ending now, and reports the state of the window.
// It returns an error only when Redis fails or the arguments are invalid;
// callers choose whether to fail open.
func (l *Limiter) Allow(ctx context.Context, key string, limit int, window time.Duration) (Result, error) {
	if limit <= 0 {
		return Result{}, fmt.Errorf("ratelimit: limit must be positive, got %d", limit)
	}
	if window < time.Millisecond {
		return Result{}, fmt.Errorf("ratelimit: window must be at least 1ms, got %s", window)
	}
	now := ""
	if l.now != nil {
		now = strconv.FormatInt(l.now().UnixMicro(), 10)
	}
	member, err := uniqueMember()
	if err != nil {
		return Result{}, err
	}

	v, err := slidingWindow.Run(ctx, l.rdb, []string{l.prefix + key},
		limit, window.Microseconds(), now, member).Int64Slice()
	if err != nil {
		return Result{}, fmt.Errorf("ratelimit: %w", err)
	}
	if len(v) != 5 {
		return Result{}, errors.New("ratelimit: unexpected script reply")
	}
	allowed, remaining := v[0] == 1, int(v[1])
	oldest, newest, at := time.UnixMicro(v[2]), time.UnixMicro(v[3]), time.UnixMicro(v[4])

	r := Result{
		Allowed:   allowed,
		Limit:     limit,
		Remaining: remaining,
		Reset:     ceilSecond(newest.Add(window)),
	}
	if !allowed {
		// The oldest request leaves the window once it is a full window old
		// (the script trims scores <= now-window), making room for one.
		r.RetryAfter = max(oldest.Add(window).Sub(at), time.Microsecond)
	}
	return r, nil
}

// uniqueMember tells apart requests counted in the same microsecond.
func uniqueMember() (string, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("ratelimit: %w", err)
	}
	return hex.EncodeToString(b), nil
}

func ceilSecond(t time.Time) time.Time {
	s := t.Truncate(time.Second)
	if s.Equal(t) {
		return s
	}
	return s.Add(time.Second)
}
