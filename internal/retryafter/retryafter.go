// Package retryafter reads the Retry-After header of a throttled or
// failing HTTP answer, for every client of an outside service (the
// platform's Graph API, the AI vendors). It only parses: waiting is
// internal/sleep's.
package retryafter

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Max bounds a delay in seconds: a server asking for more than a day is
// waited on for a day.
const Max = 24 * time.Hour

// Parse reads v as delay-seconds or an HTTP date (relative to now); zero
// when absent, unreadable or in the past.
func Parse(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		return time.Duration(min(n, int64(Max/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
