package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Slot asks for one of at most Limit places under Key, such as the open
// WebSockets of one user.
type Slot struct {
	Key   string
	Limit int
}

// Leases counts long-lived things (open connections) per key across every
// process sharing the Redis. A lease holds one place in each of its slots'
// keys and is renewed while its holder lives; a process that dies without
// releasing its leases loses them after the TTL, so places are never lost
// for good. It is safe for concurrent use.
type Leases struct {
	rdb    redis.Cmdable
	prefix string
	ttl    time.Duration
}

// DefaultLeaseTTL is how long a lease outlives its last renewal; leases
// renew every third of it.
const DefaultLeaseTTL = time.Minute

// NewLeases keeps its counts under "<namespace>:leases:<key>" in rdb; ttl
// is DefaultLeaseTTL when zero.
func NewLeases(rdb redis.Cmdable, namespace string, ttl time.Duration) *Leases {
	prefix := "leases:"
	if namespace != "" {
		prefix = namespace + ":" + prefix
	}
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	return &Leases{rdb: rdb, prefix: prefix, ttl: ttl}
}

// ErrFull is returned by Acquire and Add when a slot has no place left;
// FullError says which.
var ErrFull = errors.New("ratelimit: no place left")

// FullError names the slot that had no place left.
type FullError struct{ Slot Slot }

func (e *FullError) Error() string {
	return fmt.Sprintf("ratelimit: %s holds its %d places", e.Slot.Key, e.Slot.Limit)
}

// Is makes errors.Is(err, ErrFull) true.
func (e *FullError) Is(target error) bool { return target == ErrFull }

// Each key is a sorted set of lease ids scored by the time (ms, Redis
// clock) their place expires.
//
// take: KEYS the keys; ARGV[1] ttl ms, ARGV[2] lease id, ARGV[3..] the
// limits. Drops expired places, and takes one place in every key if each
// has room; returns 0, or the 1-based index of the first full key.
var take = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if redis.call('ZSCORE', key, ARGV[2]) == false and redis.call('ZCARD', key) >= tonumber(ARGV[i + 2]) then
    return i
  end
end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + ttl, ARGV[2])
  redis.call('PEXPIRE', key, ttl)
end
return 0
`)

// renew: KEYS the keys; ARGV[1] ttl ms, ARGV[2] lease id. Moves the
// lease's places' expiry on (a place already expired is taken again: the
// holder is alive, so it counts).
var renew = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + ttl, ARGV[2])
  redis.call('PEXPIRE', key, ttl)
end
return 0
`)

// Lease is a held place in one or more keys. Release it when the thing it
// counts ends.
type Lease struct {
	l    *Leases
	id   string
	mu   sync.Mutex
	keys []string
	stop chan struct{}
	done chan struct{}
}

// Acquire takes a place in every slot at once, or in none: it returns an
// error matching ErrFull (a *FullError) when one of them is full. The lease
// renews itself until Release.
func (l *Leases) Acquire(ctx context.Context, slots ...Slot) (*Lease, error) {
	id, err := uniqueMember()
	if err != nil {
		return nil, err
	}
	x := &Lease{l: l, id: id, stop: make(chan struct{}), done: make(chan struct{})}
	if err := x.Add(ctx, slots...); err != nil {
		return nil, err
	}
	go x.renewLoop(x.stop)
	return x, nil
}

// Add takes a place in more slots for the same lease, all or none.
func (x *Lease) Add(ctx context.Context, slots ...Slot) error {
	if len(slots) == 0 {
		return nil
	}
	keys := make([]string, len(slots))
	args := []any{x.l.ttl.Milliseconds(), x.id}
	for i, s := range slots {
		if s.Limit <= 0 {
			return fmt.Errorf("ratelimit: limit of %s must be positive, got %d", s.Key, s.Limit)
		}
		keys[i] = x.l.prefix + s.Key
		args = append(args, s.Limit)
	}
	n, err := take.Run(ctx, x.l.rdb, keys, args...).Int()
	if err != nil {
		return fmt.Errorf("ratelimit: %w", err)
	}
	if n > 0 {
		return &FullError{Slot: slots[n-1]}
	}
	x.mu.Lock()
	x.keys = append(x.keys, keys...)
	x.mu.Unlock()
	return nil
}

func (x *Lease) renewLoop(stop <-chan struct{}) {
	defer close(x.done)
	tick := time.NewTicker(x.l.ttl / 3)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		x.mu.Lock()
		keys := append([]string(nil), x.keys...)
		x.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), x.l.ttl/3)
		// A failed renewal is retried at the next tick; the place only
		// lapses if Redis stays away for a whole TTL.
		_ = renew.Run(ctx, x.l.rdb, keys, x.l.ttl.Milliseconds(), x.id).Err()
		cancel()
	}
}

// Release gives the places back. It is idempotent.
func (x *Lease) Release(ctx context.Context) error {
	x.mu.Lock()
	keys := x.keys
	x.keys = nil
	stop := x.stop
	x.stop = nil
	x.mu.Unlock()
	if stop == nil {
		return nil
	}
	close(stop)
	<-x.done
	pipe := x.l.rdb.Pipeline()
	for _, k := range keys {
		pipe.ZRem(ctx, k, x.id)
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("ratelimit: %w", err)
	}
	return nil
}

// Count is how many places of key are held now (expired ones not counted).
func (l *Leases) Count(ctx context.Context, key string) (int, error) {
	now, err := l.rdb.Time(ctx).Result()
	if err != nil {
		return 0, fmt.Errorf("ratelimit: %w", err)
	}
	n, err := l.rdb.ZCount(ctx, l.prefix+key, "("+strconv.FormatInt(now.UnixMilli(), 10), "+inf").Result()
	if err != nil {
		return 0, fmt.Errorf("ratelimit: %w", err)
	}
	return int(n), nil
}
