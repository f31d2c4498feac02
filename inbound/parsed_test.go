package inbound

import (
	"fmt"
	"testing"
	"time"
)

// TestParsedCache: a parse is taken once; the cache holds at most
// parsedMax, and makes room by forgetting parses older than parsedTTL;
// a delivery stored without a parse leaves none.
func TestParsedCache(t *testing.T) {
	now := time.Now()
	batch := func(prefix string, n int) []*delivery {
		out := make([]*delivery, n)
		for i := range out {
			out[i] = &delivery{key: fmt.Sprintf("%s%d", prefix, i), parsed: &payload{Object: prefix}}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, c *parsedCache)
	}{
		{"taken once", func(t *testing.T, c *parsedCache) {
			c.put(batch("a", 2), now)
			if p := c.take("a1"); p == nil || p.Object != "a" {
				t.Fatalf("took %v", p)
			}
			if p := c.take("a1"); p != nil {
				t.Fatal("taken twice")
			}
		}},
		{"without a parse", func(t *testing.T, c *parsedCache) {
			c.put([]*delivery{{key: "k"}}, now)
			if c.take("k") != nil || len(c.m) != 0 {
				t.Fatal("kept a delivery without a parse")
			}
		}},
		{"bounded", func(t *testing.T, c *parsedCache) {
			c.put(batch("a", parsedMax), now)
			c.put(batch("b", 10), now.Add(parsedTTL/2))
			if len(c.m) != parsedMax || c.take("b0") != nil {
				t.Fatalf("%d kept; a full cache must refuse new parses while none expired", len(c.m))
			}
		}},
		{"expired make room", func(t *testing.T, c *parsedCache) {
			c.put(batch("a", parsedMax), now)
			c.put(batch("b", 10), now.Add(parsedTTL+time.Second))
			if len(c.m) != 10 || c.take("b9") == nil || c.take("a0") != nil {
				t.Fatalf("%d kept, want the 10 new ones", len(c.m))
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, &parsedCache{}) })
	}
}
