package inbound

import (
	"sync"
	"time"
)

// parsedMax bounds the parsed deliveries a node keeps for its drainers;
// beyond it (drainers far behind), they parse the stored payload again.
const parsedMax = 2048

// parsedTTL is how long a parse not taken is kept: a delivery a drainer
// of another node processed, or a redelivery stored once, leaves one.
const parsedTTL = 10 * time.Second

// parsedCache hands the ack path's parse of a stored delivery to this
// node's drainers, by dedupe key, so a delivery is parsed once: the
// drainer that finds its parse here does not decode the stored payload
// again. What it does not find (another node received the delivery, or
// this one restarted since) it parses from the row, as the row is the
// truth; a parse is only a copy of it.
type parsedCache struct {
	mu sync.Mutex
	m  map[string]parsedEntry
}

type parsedEntry struct {
	p  *payload
	at time.Time
}

// put keeps the parses of stored deliveries (those without one are
// skipped); when the cache is full it first forgets the expired ones,
// then keeps what fits.
func (c *parsedCache) put(batch []*delivery, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]parsedEntry, parsedMax)
	}
	if len(c.m)+len(batch) > parsedMax {
		for k, e := range c.m {
			if now.Sub(e.at) > parsedTTL {
				delete(c.m, k)
			}
		}
	}
	for _, d := range batch {
		if d.parsed != nil && len(c.m) < parsedMax {
			c.m[d.key] = parsedEntry{p: d.parsed, at: now}
		}
	}
}

// take returns and forgets the parse of the delivery with dedupe key key
// (nil: none kept).
func (c *parsedCache) take(key string) *payload {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok {
		return nil
	}
	delete(c.m, key)
	return e.p
}
