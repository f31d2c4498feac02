package campaigns

import (
	"context"
	"strings"
	"sync"
	"time"
)

// Limiter paces sends per platform phone number. The shared
// implementation is package pacing (a Redis token bucket per phone number
// shared by every node and campaign); this interface is its API.
type Limiter interface {
	// Wait blocks until one send from phoneID is allowed at perSecond.
	Wait(ctx context.Context, phoneID string, perSecond float64) error
	// Slow holds every sender of phoneID back for d (the platform's
	// throughput error, 130429).
	Slow(ctx context.Context, phoneID string, d time.Duration) error
}

// Throughput tiers of the spec's Limits (messages a second), as the
// platform names an account's messaging_limit_tier.
var tierRates = map[string]float64{
	"TIER_50": 10, "TIER_250": 10, "TIER_1K": 10, "TIER_10K": 30, "TIER_100K": 80, "TIER_UNLIMITED": 1000,
}

// TierRate is the send rate of a messaging limit tier; an unknown or
// empty tier gets the lowest.
//
// STAND-IN for pacing.TierRate, replaced when package pacing is merged.
func TierRate(tier string) float64 {
	if r, ok := tierRates[strings.ToUpper(strings.TrimSpace(tier))]; ok {
		return r
	}
	return tierRates["TIER_1K"]
}

// localLimiter is a token bucket per phone number in this process only.
//
// STAND-IN for pacing's Redis limiter (shared by every node), replaced
// when package pacing is merged. Its clock and sleep are injectable.
type localLimiter struct {
	mu      sync.Mutex
	buckets map[string]*bucket
	now     func() time.Time
	sleep   func(ctx context.Context, d time.Duration) error
}

type bucket struct {
	next time.Time // when the next send may go
}

// NewLocalLimiter returns the in-process stand-in limiter.
func NewLocalLimiter() Limiter {
	return &localLimiter{buckets: map[string]*bucket{}, now: time.Now, sleep: sleepCtx}
}

func (l *localLimiter) Wait(ctx context.Context, phoneID string, perSecond float64) error {
	if perSecond <= 0 {
		perSecond = 1
	}
	interval := time.Duration(float64(time.Second) / perSecond)
	l.mu.Lock()
	b := l.buckets[phoneID]
	if b == nil {
		b = &bucket{}
		l.buckets[phoneID] = b
	}
	now := l.now()
	at := b.next
	if at.Before(now) {
		at = now
	}
	b.next = at.Add(interval)
	l.mu.Unlock()
	if d := at.Sub(now); d > 0 {
		return l.sleep(ctx, d)
	}
	return ctx.Err()
}

func (l *localLimiter) Slow(_ context.Context, phoneID string, d time.Duration) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[phoneID]
	if b == nil {
		b = &bucket{}
		l.buckets[phoneID] = b
	}
	if until := l.now().Add(d); until.After(b.next) {
		b.next = until
	}
	return nil
}

// sleepCtx waits d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
