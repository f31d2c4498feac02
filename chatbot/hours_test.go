package chatbot

import (
	"testing"
	"time"
)

func TestClosedSince(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	weekdays := []ScheduleDay{
		{Day: 1, Enabled: true, StartTime: "09:00", EndTime: "17:00"},
		{Day: 2, Enabled: true, StartTime: "09:00", EndTime: "17:00"},
		{Day: 5, Enabled: true, StartTime: "09:00", EndTime: "24:00"},
		{Day: 3, Enabled: false, StartTime: "09:00", EndTime: "17:00"},
	}
	at := func(s string) time.Time {
		v, err := time.ParseInLocation("2006-01-02 15:04", s, paris)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		name string
		days []ScheduleDay
		now  string
		want string
	}{
		{"evening after a working day", weekdays, "2026-11-23 20:00", "2026-11-23 17:00"}, // Monday
		{"morning before opening", weekdays, "2026-11-24 08:00", "2026-11-23 17:00"},      // Tuesday
		{"closing time itself", weekdays, "2026-11-24 17:00", "2026-11-24 17:00"},
		{"a disabled day does not close", weekdays, "2026-11-26 12:00", "2026-11-24 17:00"},   // Thursday
		{"24:00 ends at the next midnight", weekdays, "2026-11-29 10:00", "2026-11-28 00:00"}, // Sunday
	} {
		if got := ClosedSince(c.days, paris, at(c.now)); !got.Equal(at(c.want)) {
			t.Errorf("%s: %s, want %s", c.name, got.In(paris), c.want)
		}
	}
	now := at("2026-11-26 12:00")
	if got := ClosedSince(nil, paris, now); !got.Equal(now.Add(-24 * time.Hour)) {
		t.Errorf("never open: %s, want a day before", got)
	}
}
