package outbound_test

import (
	"net/http"
	"testing"
	"time"

	"switchboard/outbound"
)

var now = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func TestDelay(t *testing.T) {
	want := []time.Duration{
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
	if outbound.MaxAttempts != len(want) {
		t.Fatalf("MaxAttempts = %d, want %d", outbound.MaxAttempts, len(want))
	}
	for i, w := range want {
		if got := outbound.Delay(i + 1); got != w {
			t.Errorf("Delay(%d) = %v, want %v", i+1, got, w)
		}
	}
	for _, n := range []int{-1, 0, 11} {
		if got := outbound.Delay(n); got != 0 {
			t.Errorf("Delay(%d) = %v, want 0", n, got)
		}
	}
}

func TestNextAttemptSchedule(t *testing.T) {
	failures := []outbound.Outcome{
		{StatusCode: http.StatusInternalServerError},
		{StatusCode: 0, Error: "connection refused"},
		{StatusCode: 0, Error: "timeout", Timeout: true},
		{StatusCode: http.StatusNotFound},
		{StatusCode: http.StatusFound},
		{StatusCode: http.StatusBadGateway},
	}
	for _, o := range failures {
		for attempt := 1; attempt < outbound.MaxAttempts; attempt++ {
			got := outbound.NextAttempt(attempt, o, now)
			want := outbound.Decision{Action: outbound.ActionRetry, Delay: outbound.Delay(attempt + 1)}
			if got != want {
				t.Errorf("status %d, attempt %d: got %+v, want %+v", o.StatusCode, attempt, got, want)
			}
		}
		for _, attempt := range []int{outbound.MaxAttempts, outbound.MaxAttempts + 1} {
			if got := outbound.NextAttempt(attempt, o, now); got.Action != outbound.ActionGiveUp {
				t.Errorf("status %d, attempt %d: got %v, want give_up", o.StatusCode, attempt, got.Action)
			}
		}
	}

	// The whole schedule spans the contract's 75 h 35 min 5 s.
	var total time.Duration
	for attempt := 1; ; attempt++ {
		d := outbound.NextAttempt(attempt, outbound.Outcome{StatusCode: 500}, now)
		if d.Action != outbound.ActionRetry {
			break
		}
		total += d.Delay
	}
	if want := 75*time.Hour + 35*time.Minute + 5*time.Second; total != want {
		t.Errorf("total wait = %v, want %v", total, want)
	}
}

func TestNextAttemptStatus(t *testing.T) {
	tests := []struct {
		name    string
		attempt int
		outcome outbound.Outcome
		want    outbound.Decision
	}{
		{name: "OK200", attempt: 1, outcome: outbound.Outcome{StatusCode: 200}, want: outbound.Decision{Action: outbound.ActionDone}},
		{name: "OK204", attempt: 4, outcome: outbound.Outcome{StatusCode: 204}, want: outbound.Decision{Action: outbound.ActionDone}},
		{name: "OKOnLastAttempt", attempt: 10, outcome: outbound.Outcome{StatusCode: 202}, want: outbound.Decision{Action: outbound.ActionDone}},
		{name: "GoneDisables", attempt: 1, outcome: outbound.Outcome{StatusCode: 410}, want: outbound.Decision{Action: outbound.ActionDisable}},
		{name: "GoneOnLastAttemptDisables", attempt: 10, outcome: outbound.Outcome{StatusCode: 410}, want: outbound.Decision{Action: outbound.ActionDisable}},
		{name: "AttemptBelowOne", attempt: 0, outcome: outbound.Outcome{StatusCode: 500}, want: outbound.Decision{Action: outbound.ActionRetry, Delay: 5 * time.Second}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := outbound.NextAttempt(tc.attempt, tc.outcome, now); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestNextAttemptRetryAfter(t *testing.T) {
	tests := []struct {
		name       string
		attempt    int
		status     int
		retryAfter string
		want       time.Duration
	}{
		{name: "SecondsLongerThanStep", attempt: 1, status: 429, retryAfter: "120", want: 2 * time.Minute},
		{name: "SecondsShorterThanStep", attempt: 2, status: 429, retryAfter: "10", want: 5 * time.Minute},
		{name: "DateLongerThanStep", attempt: 1, status: 503, retryAfter: now.Add(time.Hour).Format(http.TimeFormat), want: time.Hour},
		{name: "DateInPast", attempt: 1, status: 503, retryAfter: now.Add(-time.Hour).Format(http.TimeFormat), want: 5 * time.Second},
		{name: "CappedAt24h", attempt: 1, status: 429, retryAfter: "604800", want: 24 * time.Hour},
		{name: "HugeCappedAt24h", attempt: 1, status: 429, retryAfter: "99999999999999999999999", want: 24 * time.Hour},
		{name: "DateCappedAt24h", attempt: 1, status: 503, retryAfter: now.Add(72 * time.Hour).Format(http.TimeFormat), want: 24 * time.Hour},
		{name: "IgnoredOn500", attempt: 1, status: 500, retryAfter: "3600", want: 5 * time.Second},
		{name: "IgnoredOn502", attempt: 1, status: 502, retryAfter: "3600", want: 5 * time.Second},
		{name: "Malformed", attempt: 1, status: 429, retryAfter: "soon", want: 5 * time.Second},
		{name: "Absent", attempt: 3, status: 503, want: 30 * time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := outbound.Outcome{StatusCode: tc.status, RetryAfter: tc.retryAfter}
			got := outbound.NextAttempt(tc.attempt, o, now)
			want := outbound.Decision{Action: outbound.ActionRetry, Delay: tc.want}
			if got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}

	t.Run("GiveUpDespiteRetryAfter", func(t *testing.T) {
		o := outbound.Outcome{StatusCode: 429, RetryAfter: "60"}
		if got := outbound.NextAttempt(outbound.MaxAttempts, o, now); got.Action != outbound.ActionGiveUp {
			t.Errorf("got %v, want give_up", got.Action)
		}
	})
}

func TestParseRetryAfter(t *testing.T) {
	tests := []struct {
		name   string
		value  string
		want   time.Duration
		wantOK bool
	}{
		{name: "Seconds", value: "120", want: 2 * time.Minute, wantOK: true},
		{name: "Zero", value: "0", want: 0, wantOK: true},
		{name: "Spaces", value: "  30 ", want: 30 * time.Second, wantOK: true},
		{name: "IMFFixdate", value: "Sat, 01 Mar 2025 12:10:00 GMT", want: 10 * time.Minute, wantOK: true},
		{name: "RFC850", value: "Saturday, 01-Mar-25 12:00:30 GMT", want: 30 * time.Second, wantOK: true},
		{name: "ANSIC", value: "Sat Mar  1 13:00:00 2025", want: time.Hour, wantOK: true},
		{name: "PastDate", value: "Fri, 28 Feb 2025 12:00:00 GMT", want: 0, wantOK: true},
		{name: "ErrEmpty", value: ""},
		{name: "ErrNegative", value: "-5"},
		{name: "ErrFraction", value: "1.5"},
		{name: "ErrWord", value: "soon"},
		{name: "ErrRFC3339", value: "2025-03-01T12:10:00Z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := outbound.ParseRetryAfter(tc.value, now)
			if ok != tc.wantOK || got != tc.want {
				t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tc.value, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestSchedulerJitter(t *testing.T) {
	fail := outbound.Outcome{StatusCode: 500}
	fixed := func(r float64) func() float64 { return func() float64 { return r } }
	tests := []struct {
		name    string
		rand    float64
		attempt int
		want    time.Duration
	}{
		{name: "Lowest", rand: 0, attempt: 2, want: 270 * time.Second},     // 5 min − 10 %
		{name: "Middle", rand: 0.5, attempt: 2, want: 5 * time.Minute},     // exact
		{name: "Highest", rand: 0.75, attempt: 4, want: 126 * time.Minute}, // 2 h + 5 %
		{name: "Seconds", rand: 0, attempt: 1, want: 4500 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := outbound.Scheduler{Jitter: outbound.DefaultJitter, Rand: fixed(tc.rand)}
			got := s.Next(tc.attempt, fail, now)
			if got.Action != outbound.ActionRetry || got.Delay != tc.want {
				t.Errorf("got %+v, want retry after %v", got, tc.want)
			}
		})
	}

	t.Run("NeverBelowRetryAfter", func(t *testing.T) {
		s := outbound.Scheduler{Jitter: outbound.DefaultJitter, Rand: fixed(0)}
		got := s.Next(1, outbound.Outcome{StatusCode: 429, RetryAfter: "60"}, now)
		if got.Delay != time.Minute {
			t.Errorf("delay = %v, want 1m0s", got.Delay)
		}
	})

	t.Run("DefaultRandWithinBounds", func(t *testing.T) {
		s := outbound.Scheduler{Jitter: outbound.DefaultJitter}
		for range 1000 {
			d := s.Next(9, fail, now).Delay
			if d < 21*time.Hour+36*time.Minute || d > 26*time.Hour+24*time.Minute {
				t.Fatalf("delay %v outside 24 h ± 10 %%", d)
			}
		}
	})

	t.Run("JitterClamped", func(t *testing.T) {
		s := outbound.Scheduler{Jitter: 5, Rand: fixed(0)}
		if got := s.Next(2, fail, now).Delay; got != 0 {
			t.Errorf("delay = %v, want 0 (jitter clamped to 100 %%)", got)
		}
	})
}

func TestActionString(t *testing.T) {
	for a, want := range map[outbound.Action]string{
		outbound.ActionDone:    "done",
		outbound.ActionDisable: "disable",
		outbound.ActionGiveUp:  "give_up",
		outbound.ActionRetry:   "retry",
		outbound.Action(0):     "Action(0)",
	} {
		if got := a.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(a), got, want)
		}
	}
}
