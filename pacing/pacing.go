// Package pacing spaces message sends per phone number, with the state in
// Redis so that every process and every campaign sending from one number
// shares one pace: two nodes together still send at the number's rate.
//
// The pace is a GCRA (generic cell rate algorithm, a token bucket kept as
// one timestamp): per phone number id a hash holds the theoretical arrival
// time of the next send ("tat") and, after Slow, the time until which every
// sender is held ("hold"). One Lua script reads the time from Redis (TIME, so
// that node clocks do not matter), reserves the next free send slot and
// answers how long the caller must wait for it; Wait sleeps that long (no
// polling). A slot is reserved at most Options.MaxAhead ahead; a caller
// whose slot would be further away is told when to ask again, and within a
// process only one waiter per number asks again while the others queue
// locally, so Redis sees about one call per send plus one per process and
// interval. Keys expire once their state no longer restricts anyone.
//
// The package decides nothing about what is sent or how errors are retried;
// that belongs to the sender (campaigns). It must not touch other keys.
package pacing

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"switchboard/internal/sleep"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Limiter paces sends per phone number.
type Limiter interface {
	// Wait blocks until one send on phoneID is allowed at perSecond, or ctx ends.
	Wait(ctx context.Context, phoneID string, perSecond float64) error
	// Slow pauses every sender of phoneID for d (after the platform's throughput error 130429).
	Slow(ctx context.Context, phoneID string, d time.Duration) error
}

// Defaults of Options.
const (
	// DefaultBurst is how much sending a number that was idle may do back to
	// back, as time at its rate: 100 ms, so one send at TIER_1K (10/s), 3 at
	// TIER_10K, 8 at TIER_100K and 100 at TIER_UNLIMITED. Any one-second
	// window then holds at most rate + burst sends, and a steady sender
	// gets exactly the rate.
	DefaultBurst = 100 * time.Millisecond
	// DefaultMaxAhead is how far ahead a send slot may be reserved. Waiters
	// whose slot is further away are told when to ask again, so that a
	// cancelled waiter wastes at most this much of the number's time.
	DefaultMaxAhead = 500 * time.Millisecond
	// MaxSlow bounds one Slow call.
	MaxSlow = time.Hour
)

// ErrRate reports a rate that is not a positive finite number.
var ErrRate = errors.New("pacing: rate must be a positive number of sends per second")

// Options configure a Redis limiter. The zero value is usable.
type Options struct {
	// Prefix starts every key (e.g. the application's namespace); keys are
	// "<Prefix>pacing:{<phone id>}".
	Prefix string
	// Burst is how much sending an idle number may do at once, as time at
	// its rate (DefaultBurst when zero); at least one send is always allowed.
	Burst time.Duration
	// MaxAhead is how far ahead a send slot may be reserved (DefaultMaxAhead
	// when zero; negative means no reservation ahead: callers are told when
	// their slot comes and ask again then).
	MaxAhead time.Duration
	// Now, when set, replaces Redis's TIME as the clock (tests). In
	// production leave it nil: the Redis server is one clock for all nodes.
	Now func() time.Time
	// Sleep waits d or until ctx ends (tests); nil uses a timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Redis is a Limiter keeping its state in Redis. It is safe for concurrent
// use; any number of them, in any number of processes, may share a Redis.
type Redis struct {
	rdb  redis.UniversalClient
	opts Options

	// holds are the Slow pauses this process has seen, by phone id, as
	// local deadlines: a waiter that reserved its slot before a Slow of its
	// own process waits for the pause instead of sending.
	mu    sync.Mutex
	holds map[string]hold
	slows atomic.Uint64 // Slow calls of this limiter, numbering holds
	// gates let one waiter per number and process ask Redis while the
	// number's reservations are full; the others queue here instead of
	// asking again and again.
	gates map[string]*gate
}

// gate is a number's local queue: a one-slot semaphore and its users.
type gate struct {
	ch    chan struct{}
	users int
}

// hold is a pause seen by this process.
type hold struct {
	until time.Time
	seq   uint64 // the Slow call that set it
}

var _ Limiter = (*Redis)(nil)

// New returns a limiter storing its state in rdb.
func New(rdb redis.UniversalClient, opts Options) *Redis {
	if opts.Burst == 0 {
		opts.Burst = DefaultBurst
	}
	if opts.MaxAhead == 0 {
		opts.MaxAhead = DefaultMaxAhead
	}
	if opts.MaxAhead < 0 {
		opts.MaxAhead = 0
	}
	if opts.Sleep == nil {
		opts.Sleep = sleep.For
	}
	return &Redis{rdb: rdb, opts: opts, holds: map[string]hold{}, gates: map[string]*gate{}}
}

// TierRate returns the sends per second for a phone number's messaging limit
// tier (messaging_limit_tier as the platform reports it), after the spec's
// Limits: TIER_1K 10, TIER_10K 30, TIER_100K 80 and TIER_UNLIMITED 1,000 (the
// platform's maximum throughput per number). TIER_250 and tiers this
// package does not know (a missing tier, names the platform adds later) get
// 10, the lowest documented pace: TIER_250's daily cap, not its speed, limits
// such a number, and a pace too slow only costs time while one too fast
// costs 130429 errors.
func TierRate(tier string) float64 {
	switch strings.ToUpper(strings.TrimSpace(tier)) {
	case "TIER_1K":
		return 10
	case "TIER_10K":
		return 30
	case "TIER_100K":
		return 80
	case "TIER_UNLIMITED":
		return 1000
	default: // TIER_250, unknown
		return 10
	}
}

// Reservation is the answer of Reserve.
type Reservation struct {
	// OK reports that a send slot was reserved: send after Delay. When not
	// OK, the next free slot is more than MaxAhead away: ask again after Delay.
	OK    bool
	Delay time.Duration
}

// gcraState starts the reserve scripts: it reads their arguments
// (KEYS[1] the number's hash; ARGV[1] interval between sends; ARGV[2]
// burst tolerance; ARGV[3] how far ahead a slot may be reserved; ARGV[4]
// now, or "" for the server's clock) and the number's state: tat, the
// theoretical arrival time of the next send, moved past any hold.
const gcraState = `
local key = KEYS[1]
local interval = tonumber(ARGV[1])
local tau = tonumber(ARGV[2])
local ahead = tonumber(ARGV[3])
local now
if ARGV[4] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[4])
end

local v = redis.call('HMGET', key, 'tat', 'hold')
local tat = tonumber(v[1]) or 0
local hold = tonumber(v[2]) or 0
-- A hold empties the bucket at its end: no burst right after a pause.
tat = math.max(tat, hold + tau)
`

// reserve takes the next send slot of one number if it is at most
// ARGV[3] ahead. Times are microseconds since the epoch (exact in a Lua
// number until the year 2255).
//
// KEYS[1] the number's hash; ARGV[1] interval between sends; ARGV[2] burst
// tolerance ((burst-1) intervals); ARGV[3] how far ahead a slot may be
// reserved; ARGV[4] now, or "" for the server's clock.
// Returns {1, wait until the slot} or {0, wait before asking again}.
var reserve = redis.NewScript(gcraState + `
local slot = math.max(now, tat - tau)
local wait = slot - now
if wait > ahead then
  return {0, wait - ahead}
end
tat = math.max(tat, slot) + interval
redis.call('HSET', key, 'tat', tat)
redis.call('PEXPIRE', key, math.ceil((math.max(tat, hold) - now) / 1000) + 1000)
return {1, wait}
`)

// slow holds every sender of one number until now + ARGV[1] (never
// shortening a hold already set).
//
// KEYS[1] the number's hash; ARGV[1] the pause; ARGV[2] now, or "".
// Returns the time left until the hold ends.
var slow = redis.NewScript(`
local key = KEYS[1]
local d = tonumber(ARGV[1])
local now
if ARGV[2] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[2])
end

local v = redis.call('HMGET', key, 'tat', 'hold')
local tat = tonumber(v[1]) or 0
local hold = math.max(tonumber(v[2]) or 0, now + d)
redis.call('HSET', key, 'hold', hold)
redis.call('PEXPIRE', key, math.ceil((math.max(tat, hold) - now) / 1000) + 1000)
return hold - now
`)

// Key returns the Redis key of phoneID's pace (braces keep it in one
// cluster slot).
func (l *Redis) Key(phoneID string) string {
	return l.opts.Prefix + "pacing:{" + phoneID + "}"
}

// interval returns the time between sends at perSecond and the burst
// tolerance, in microseconds.
func (l *Redis) interval(perSecond float64) (interval, tau int64, err error) {
	if !(perSecond > 0) || math.IsInf(perSecond, 0) {
		return 0, 0, fmt.Errorf("%w, got %v", ErrRate, perSecond)
	}
	interval = max(1, int64(math.Round(1e6/perSecond)))
	burst := max(1, int64(math.Floor(perSecond*l.opts.Burst.Seconds()+1e-9))) // 0.1 s × 30/s is 3.0000000000000004
	return interval, (burst - 1) * interval, nil
}

func (l *Redis) nowArg() string {
	if l.opts.Now == nil {
		return ""
	}
	return strconv.FormatInt(l.opts.Now().UnixMicro(), 10)
}

func (l *Redis) now() time.Time {
	if l.opts.Now != nil {
		return l.opts.Now()
	}
	return time.Now()
}

// Reserve asks once for the next send slot of phoneID at perSecond; Wait is
// Reserve in a loop with sleeps. A reserved slot is used up whether or not
// the caller sends.
func (l *Redis) Reserve(ctx context.Context, phoneID string, perSecond float64) (Reservation, error) {
	if phoneID == "" {
		return Reservation{}, errors.New("pacing: empty phone number id")
	}
	interval, tau, err := l.interval(perSecond)
	if err != nil {
		return Reservation{}, err
	}
	v, err := reserve.Run(ctx, l.rdb, []string{l.Key(phoneID)},
		interval, tau, l.opts.MaxAhead.Microseconds(), l.nowArg()).Int64Slice()
	if err != nil {
		return Reservation{}, fmt.Errorf("pacing: %w", err)
	}
	if len(v) != 2 {
		return Reservation{}, errors.New("pacing: unexpected script reply")
	}
	return Reservation{OK: v[0] == 1, Delay: time.Duration(v[1]) * time.Microsecond}, nil
}

// Wait blocks until one send on phoneID is allowed at perSecond, or ctx
// ends (it then returns ctx's error; a slot it had reserved is lost). It
// returns an error when Redis fails or perSecond is not positive; the
// caller decides whether to send anyway.
func (l *Redis) Wait(ctx context.Context, phoneID string, perSecond float64) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := l.waitHold(ctx, phoneID); err != nil {
			return err
		}
		seq := l.slows.Load()
		r, err := l.reserveQueued(ctx, phoneID, perSecond)
		if err != nil {
			return err
		}
		if err := l.opts.Sleep(ctx, r.Delay); err != nil {
			return err
		}
		// A Slow of this process after the reservation holds now: the
		// slot is void.
		if l.heldSince(phoneID, seq) {
			continue
		}
		return nil
	}
}

// reserveQueued reserves a slot, asking again after the delay Redis gives
// while the reservations are full. Only one waiter per number and process
// does so at a time; the others queue behind it.
func (l *Redis) reserveQueued(ctx context.Context, phoneID string, perSecond float64) (Reservation, error) {
	release, err := l.enter(ctx, phoneID)
	if err != nil {
		return Reservation{}, err
	}
	defer release()
	for {
		r, err := l.Reserve(ctx, phoneID, perSecond)
		if err != nil || r.OK {
			return r, err
		}
		if err := l.opts.Sleep(ctx, r.Delay); err != nil {
			return Reservation{}, err
		}
	}
}

// enter takes phoneID's gate, or returns ctx's error when it ends first.
func (l *Redis) enter(ctx context.Context, phoneID string) (release func(), err error) {
	l.mu.Lock()
	g, ok := l.gates[phoneID]
	if !ok {
		g = &gate{ch: make(chan struct{}, 1)}
		l.gates[phoneID] = g
	}
	g.users++
	l.mu.Unlock()
	leave := func() {
		l.mu.Lock()
		if g.users--; g.users == 0 {
			delete(l.gates, phoneID)
		}
		l.mu.Unlock()
	}
	select {
	case g.ch <- struct{}{}:
		return func() { <-g.ch; leave() }, nil
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
}

// Slow pauses every sender of phoneID, in every process, for d from now (by
// Redis's clock); a longer pause already set stays. Senders that reserved
// their slot before the call and are waiting for it in other processes
// still send (at most MaxAhead of sends); those of this process do not.
func (l *Redis) Slow(ctx context.Context, phoneID string, d time.Duration) error {
	if phoneID == "" {
		return errors.New("pacing: empty phone number id")
	}
	if d <= 0 {
		return nil
	}
	d = min(d, MaxSlow)
	left, err := slow.Run(ctx, l.rdb, []string{l.Key(phoneID)}, d.Microseconds(), l.nowArg()).Int64()
	if err != nil {
		return fmt.Errorf("pacing: %w", err)
	}
	until := l.now().Add(time.Duration(left) * time.Microsecond)
	l.mu.Lock()
	if h := l.holds[phoneID]; until.After(h.until) {
		l.holds[phoneID] = hold{until: until, seq: l.slows.Add(1)}
	}
	l.mu.Unlock()
	return nil
}

// held returns how long this process's last Slow of phoneID still holds,
// forgetting holds that ended.
func (l *Redis) held(phoneID string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	h, ok := l.holds[phoneID]
	if !ok {
		return 0
	}
	left := h.until.Sub(l.now())
	if left <= 0 {
		delete(l.holds, phoneID)
		return 0
	}
	return left
}

// heldSince reports whether phoneID is held now by a Slow of this process
// made after the seq-th.
func (l *Redis) heldSince(phoneID string, seq uint64) bool {
	l.mu.Lock()
	h, ok := l.holds[phoneID]
	l.mu.Unlock()
	return ok && h.seq > seq && h.until.After(l.now())
}

// waitHold sleeps through this process's hold of phoneID, if any.
func (l *Redis) waitHold(ctx context.Context, phoneID string) error {
	if d := l.held(phoneID); d > 0 {
		return l.opts.Sleep(ctx, d)
	}
	return nil
}
