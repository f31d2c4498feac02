package chatbot

import (
	"fmt"
	"time"

	// Organization time zones must load without the host's tzdata.
	_ "time/tzdata"
)

// MaxScheduleDays bounds a weekly schedule: one entry per day.
const MaxScheduleDays = 7

// parseClock reads HH:MM (00:00 to 23:59, or 24:00 as the end of the day)
// as minutes since midnight.
func parseClock(s string) (int, bool) {
	if len(s) != 5 || s[2] != ':' {
		return 0, false
	}
	d := func(b byte) (int, bool) { return int(b - '0'), b >= '0' && b <= '9' }
	h1, ok1 := d(s[0])
	h2, ok2 := d(s[1])
	m1, ok3 := d(s[3])
	m2, ok4 := d(s[4])
	if !(ok1 && ok2 && ok3 && ok4) {
		return 0, false
	}
	h, m := h1*10+h2, m1*10+m2
	if m > 59 || h > 24 || (h == 24 && m != 0) {
		return 0, false
	}
	return h*60 + m, true
}

// CheckSchedule checks a weekly schedule (business hours, timing nodes):
// at most one entry per day 0 (Sunday) to 6, times HH:MM, start before end
// on enabled days.
func CheckSchedule(days []ScheduleDay) error {
	if len(days) > MaxScheduleDays {
		return fmt.Errorf("at most %d days", MaxScheduleDays)
	}
	seen := map[int]bool{}
	for _, d := range days {
		if d.Day < 0 || d.Day > 6 {
			return fmt.Errorf("day must be from 0 (Sunday) to 6 (Saturday), not %d", d.Day)
		}
		if seen[d.Day] {
			return fmt.Errorf("day %d is listed twice", d.Day)
		}
		seen[d.Day] = true
		start, ok1 := parseClock(d.StartTime)
		end, ok2 := parseClock(d.EndTime)
		if !d.Enabled && d.StartTime == "" && d.EndTime == "" {
			continue
		}
		if !ok1 || !ok2 {
			return fmt.Errorf("day %d: start_time and end_time must be HH:MM", d.Day)
		}
		if d.Enabled && start >= end {
			return fmt.Errorf("day %d: start_time must be before end_time", d.Day)
		}
	}
	return nil
}

// InBusinessHours reports whether t falls within the schedule, read in
// loc (the organization's time zone). A day without an enabled entry is
// closed; an entry covers [start_time, end_time).
func InBusinessHours(days []ScheduleDay, loc *time.Location, t time.Time) bool {
	if loc == nil {
		loc = time.UTC
	}
	lt := t.In(loc)
	now := lt.Hour()*60 + lt.Minute()
	for _, d := range days {
		if !d.Enabled || d.Day != int(lt.Weekday()) {
			continue
		}
		start, ok1 := parseClock(d.StartTime)
		end, ok2 := parseClock(d.EndTime)
		if ok1 && ok2 && now >= start && now < end {
			return true
		}
	}
	return false
}

// Location loads an organization's time zone name; an unknown or empty
// one reads as UTC.
func Location(name string) *time.Location {
	if name == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	return loc
}

// ClosedSince is when the closed period t falls in began, read in loc:
// the latest end of an enabled day's hours at or before t (within the
// last 8 days). With no such end (no day open, or none within 8 days) it
// is a day before t, so the out-of-hours message goes out at most daily.
func ClosedSince(days []ScheduleDay, loc *time.Location, t time.Time) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	lt := t.In(loc)
	for back := 0; back <= 8; back++ {
		date := time.Date(lt.Year(), lt.Month(), lt.Day()-back, 0, 0, 0, 0, loc)
		for _, d := range days {
			if !d.Enabled || d.Day != int(date.Weekday()) {
				continue
			}
			end, ok := parseClock(d.EndTime)
			if !ok {
				continue
			}
			closing := time.Date(date.Year(), date.Month(), date.Day(), end/60, end%60, 0, 0, loc)
			if !closing.After(t) {
				return closing
			}
		}
	}
	return t.Add(-24 * time.Hour)
}
