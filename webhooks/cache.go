package webhooks

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
)

// DefaultCacheTTL is how long an organization's active subscriptions are
// kept in memory. Changes made through this process invalidate at once;
// changes made by another process are seen after at most this long.
const DefaultCacheTTL = 5 * time.Second

// activeSubscription is what WriteDeliveries needs to know of a subscription.
type activeSubscription struct {
	ID     uuid.UUID
	Events []string
}

func (s activeSubscription) wants(event string) bool {
	return slices.Contains(s.Events, event)
}

// loadFunc reads an organization's active subscriptions.
type loadFunc func(ctx context.Context, orgID uuid.UUID) ([]activeSubscription, error)

// subscriptionCache keeps each organization's active subscriptions for a
// short time, so that emitting an event for an organization without
// subscriptions costs no query. Concurrent misses of one organization share
// one load.
type subscriptionCache struct {
	ttl  time.Duration
	load loadFunc
	now  func() time.Time

	mu   sync.Mutex
	orgs map[uuid.UUID]*cacheEntry
}

// cacheEntry is one organization's subscriptions, or a load in progress
// (ready not yet closed).
type cacheEntry struct {
	ready   chan struct{}
	subs    []activeSubscription
	err     error
	expires time.Time
}

func newSubscriptionCache(ttl time.Duration, load loadFunc) *subscriptionCache {
	if ttl <= 0 {
		ttl = DefaultCacheTTL
	}
	return &subscriptionCache{ttl: ttl, load: load, now: time.Now, orgs: map[uuid.UUID]*cacheEntry{}}
}

// get returns the organization's active subscriptions, loading them when
// they are not cached or have expired. A failed load is not cached.
func (c *subscriptionCache) get(ctx context.Context, orgID uuid.UUID) ([]activeSubscription, error) {
	c.mu.Lock()
	e, ok := c.orgs[orgID]
	if ok && !e.loaded() {
		c.mu.Unlock()
		return e.wait(ctx)
	}
	if ok && c.now().Before(e.expires) {
		c.mu.Unlock()
		return e.subs, e.err
	}
	e = &cacheEntry{ready: make(chan struct{})}
	c.orgs[orgID] = e
	c.mu.Unlock()

	// The load must finish even when this caller gives up, since others
	// may be waiting for it.
	subs, err := c.load(context.WithoutCancel(ctx), orgID)

	c.mu.Lock()
	e.subs, e.err = subs, err
	e.expires = c.now().Add(c.ttl)
	if err != nil && c.orgs[orgID] == e {
		delete(c.orgs, orgID)
	}
	close(e.ready)
	c.mu.Unlock()
	return subs, err
}

// invalidate forgets the organization's subscriptions, so that the next
// event reads them again.
func (c *subscriptionCache) invalidate(orgID uuid.UUID) {
	c.mu.Lock()
	delete(c.orgs, orgID)
	c.mu.Unlock()
}

func (e *cacheEntry) loaded() bool {
	select {
	case <-e.ready:
		return true
	default:
		return false
	}
}

func (e *cacheEntry) wait(ctx context.Context) ([]activeSubscription, error) {
	select {
	case <-e.ready:
		return e.subs, e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
