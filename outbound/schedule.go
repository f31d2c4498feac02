package outbound

import (
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxAttempts is the number of attempts at one delivery, the first included.
const MaxAttempts = 10

// MaxRetryAfter caps how long a receiver's Retry-After can delay an attempt.
const MaxRetryAfter = 24 * time.Hour

// DefaultJitter is the jitter the delivery worker should use: ±10 %.
const DefaultJitter = 0.1

// schedule[n-1] is the wait before attempt n: the Standard Webhooks example
// schedule, which the contract adopts.
var schedule = [MaxAttempts]time.Duration{
	0,
	5 * time.Second,
	5 * time.Minute,
	30 * time.Minute,
	2 * time.Hour,
	5 * time.Hour,
	10 * time.Hour,
	14 * time.Hour,
	20 * time.Hour,
	24 * time.Hour,
}

// Delay returns the scheduled wait before attempt n (1 to MaxAttempts),
// counted from the end of the attempt before it: 0 for the first, then 5 s,
// 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h. It returns 0 for n
// outside that range.
func Delay(n int) time.Duration {
	if n < 1 || n > MaxAttempts {
		return 0
	}
	return schedule[n-1]
}

// Action is what follows an attempt.
type Action int

// The actions, in the order NextAttempt considers them.
const (
	// ActionDone: the receiver answered 2xx; the delivery succeeded.
	ActionDone Action = iota + 1
	// ActionDisable: the receiver answered 410 Gone; disable the
	// subscription and stop.
	ActionDisable
	// ActionGiveUp: MaxAttempts attempts failed; mark the delivery failed
	// (it can still be replayed by hand).
	ActionGiveUp
	// ActionRetry: try again after Decision.Delay.
	ActionRetry
)

func (a Action) String() string {
	switch a {
	case ActionDone:
		return "done"
	case ActionDisable:
		return "disable"
	case ActionGiveUp:
		return "give_up"
	case ActionRetry:
		return "retry"
	}
	return "Action(" + strconv.Itoa(int(a)) + ")"
}

// Decision is what NextAttempt decided.
type Decision struct {
	Action Action
	// Delay is the wait before the next attempt; set for ActionRetry only.
	Delay time.Duration
}

// Scheduler decides retries with optional jitter.
type Scheduler struct {
	// Jitter spreads scheduled delays by up to ± this fraction (0.1 is
	// ±10 %), so receivers that failed together are not retried together.
	// It is clamped to [0, 1]; zero gives the exact schedule.
	Jitter float64
	// Rand returns a number in [0, 1) for the jitter; nil uses math/rand/v2.
	// Tests inject a fixed value.
	Rand func() float64
}

// NextAttempt decides what follows attempt number attempt (1 for the first)
// of a delivery, which ended with o, without jitter. See Scheduler.Next.
func NextAttempt(attempt int, o Outcome, now time.Time) Decision {
	return Scheduler{}.Next(attempt, o, now)
}

// Next decides what follows attempt number attempt (1 for the first; lower
// values count as 1) which ended with o at now:
//
//   - 2xx: ActionDone.
//   - 410 Gone: ActionDisable.
//   - any other answer, or none (timeout, connection error): ActionRetry
//     after Delay(attempt+1), jittered, or ActionGiveUp once MaxAttempts
//     attempts have been made. On 429 and 503 a Retry-After of seconds or an
//     HTTP date lengthens the wait, up to MaxRetryAfter; it never shortens
//     the schedule.
func (s Scheduler) Next(attempt int, o Outcome, now time.Time) Decision {
	switch {
	case o.Succeeded():
		return Decision{Action: ActionDone}
	case o.StatusCode == http.StatusGone:
		return Decision{Action: ActionDisable}
	}
	attempt = max(attempt, 1)
	if attempt >= MaxAttempts {
		return Decision{Action: ActionGiveUp}
	}
	delay := s.jitter(Delay(attempt + 1))
	if o.StatusCode == http.StatusTooManyRequests || o.StatusCode == http.StatusServiceUnavailable {
		if ra, ok := ParseRetryAfter(o.RetryAfter, now); ok {
			delay = max(delay, min(ra, MaxRetryAfter))
		}
	}
	return Decision{Action: ActionRetry, Delay: delay}
}

func (s Scheduler) jitter(d time.Duration) time.Duration {
	j := min(max(s.Jitter, 0), 1)
	if j == 0 || d == 0 {
		return d
	}
	r := rand.Float64
	if s.Rand != nil {
		r = s.Rand
	}
	return time.Duration(float64(d) * (1 + j*(2*r()-1)))
}

// ParseRetryAfter reads a Retry-After value, either delay-seconds or an
// HTTP date (RFC 9110, section 10.2.3), as a wait from now. A date in the
// past gives 0. It reports false for an empty or malformed value.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if strings.Trim(v, "0123456789") == "" {
		secs, err := strconv.ParseInt(v, 10, 64)
		if err != nil || secs > math.MaxInt64/int64(time.Second) {
			// Too many digits: longer than any cap.
			return time.Duration(math.MaxInt64), true
		}
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}
