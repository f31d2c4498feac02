package pacing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// MaxBatch bounds the slots one ReserveN or TakeN call asks for.
const MaxBatch = 1000

// reserveN is reserve for up to ARGV[5] slots at once: the same GCRA
// step repeated, so n slots of one call are exactly the slots of n
// calls of reserve in a row, and as many as fit MaxAhead are given.
//
// KEYS[1] the number's hash; ARGV[1..4] as for reserve; ARGV[5] n.
// Returns {1, wait of slot 1, wait of slot 2, ...} or {0, wait before
// asking again} when not even the first slot fits.
var reserveN = redis.NewScript(gcraState + `
local n = tonumber(ARGV[5])
local out = {1}
for i = 1, n do
  local slot = math.max(now, tat - tau)
  local wait = slot - now
  if wait > ahead then
    if i == 1 then
      return {0, wait - ahead}
    end
    break
  end
  tat = math.max(tat, slot) + interval
  out[#out + 1] = wait
end
redis.call('HSET', key, 'tat', tat)
redis.call('PEXPIRE', key, math.ceil((math.max(tat, hold) - now) / 1000) + 1000)
return out
`)

// Batch is the answer of ReserveN.
type Batch struct {
	// Delays are the reserved slots, as waits from the call, in order
	// (empty when none fitted MaxAhead).
	Delays []time.Duration
	// Retry is how long to wait before asking again when Delays is empty.
	Retry time.Duration
}

// ReserveN asks once for up to n send slots of phoneID at perSecond: the
// slots n Reserve calls in a row would give, as many of them as lie within
// MaxAhead. Reserved slots are used up whether or not the caller sends.
func (l *Redis) ReserveN(ctx context.Context, phoneID string, perSecond float64, n int) (Batch, error) {
	if phoneID == "" {
		return Batch{}, errors.New("pacing: empty phone number id")
	}
	if n < 1 || n > MaxBatch {
		return Batch{}, fmt.Errorf("pacing: a batch is 1 to %d slots, not %d", MaxBatch, n)
	}
	interval, tau, err := l.interval(perSecond)
	if err != nil {
		return Batch{}, err
	}
	v, err := reserveN.Run(ctx, l.rdb, []string{l.Key(phoneID)},
		interval, tau, l.opts.MaxAhead.Microseconds(), l.nowArg(), n).Int64Slice()
	if err != nil {
		return Batch{}, fmt.Errorf("pacing: %w", err)
	}
	if len(v) < 2 {
		return Batch{}, errors.New("pacing: unexpected script reply")
	}
	if v[0] != 1 {
		return Batch{Retry: time.Duration(v[1]) * time.Microsecond}, nil
	}
	out := Batch{Delays: make([]time.Duration, len(v)-1)}
	for i, d := range v[1:] {
		out.Delays[i] = time.Duration(d) * time.Microsecond
	}
	return out, nil
}

// TakeN reserves between 1 and n send slots of phoneID at perSecond and
// returns when each may be used, by this process's clock, without
// sleeping until them: a batch sender claims its work for the slots and
// sends each at its time. It waits (as Wait does) while this process's
// Slow holds the number and while the next slot is further than
// MaxAhead away, and returns ctx's error when ctx ends first (slots it
// had reserved are lost) or an error when Redis fails or perSecond is
// not positive. A Slow made after the call does not void the slots it
// returned: the caller, who made it, knows.
func (l *Redis) TakeN(ctx context.Context, phoneID string, perSecond float64, n int) ([]time.Time, error) {
	n = min(max(n, 1), MaxBatch)
	if err := l.waitHold(ctx, phoneID); err != nil {
		return nil, err
	}
	release, err := l.enter(ctx, phoneID)
	if err != nil {
		return nil, err
	}
	defer release()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := l.ReserveN(ctx, phoneID, perSecond, n)
		if err != nil {
			return nil, err
		}
		if len(b.Delays) > 0 {
			now := l.now()
			out := make([]time.Time, len(b.Delays))
			for i, d := range b.Delays {
				out[i] = now.Add(d)
			}
			return out, nil
		}
		if err := l.opts.Sleep(ctx, b.Retry); err != nil {
			return nil, err
		}
	}
}
