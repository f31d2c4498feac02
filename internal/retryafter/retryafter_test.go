package retryafter_test

import (
	"net/http"
	"testing"
	"time"

	"switchboard/internal/retryafter"
)

func TestParse(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, in string
		want     time.Duration
	}{
		{"Absent", "", 0},
		{"Seconds", "30", 30 * time.Second},
		{"SecondsSpaced", " 7 ", 7 * time.Second},
		{"Zero", "0", 0},
		{"Negative", "-5", 0},
		{"CappedAtADay", "999999999999", retryafter.Max},
		{"Date", now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{"PastDate", now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"Unreadable", "soon", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := retryafter.Parse(tc.in, now); got != tc.want {
				t.Fatalf("Parse(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}
