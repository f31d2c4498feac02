package database_test

import (
	"testing"
	"time"

	"switchboard/database"
)

// TestHours: a time's hour is floor(epoch / 3600), as message_hour_key and
// contact_hour_key compute it (before 1970 too), and an hour starts at
// its first second.
func TestHours(t *testing.T) {
	for _, tc := range []struct {
		at   time.Time
		hour int64
	}{
		{time.Unix(0, 0), 0}, {time.Unix(3599, 999_999_999), 0}, {time.Unix(3600, 0), 1},
		{time.Unix(-1, 0), -1}, {time.Unix(-3600, 0), -1}, {time.Unix(-3601, 0), -2},
	} {
		if got := database.HourOf(tc.at); got != tc.hour {
			t.Errorf("hour of %v is %d, want %d", tc.at, got, tc.hour)
		}
	}
	if got := database.HourStart(2); !got.Equal(time.Unix(7200, 0)) {
		t.Errorf("hour 2 starts at %v", got)
	}
}

// TestEscapeLike: LIKE's wildcards and its escape character in a term
// match themselves.
func TestEscapeLike(t *testing.T) {
	for in, want := range map[string]string{
		"50%":    `50\%`,
		"a_b":    `a\_b`,
		`c:\dir`: `c:\\dir`,
		"plain":  "plain",
	} {
		if got := database.EscapeLike(in); got != want {
			t.Errorf("EscapeLike(%q) = %q, want %q", in, got, want)
		}
	}
}
