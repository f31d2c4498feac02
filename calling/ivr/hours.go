package ivr

import (
	"time"

	// Organization time zones must load without the host's tzdata.
	_ "time/tzdata"
)

// InHours reports whether t falls within the schedule read in loc: the
// enabled entry of t's weekday covers [Open, Close). A day without an
// enabled entry is closed.
func InHours(schedule []Day, loc *time.Location, t time.Time) bool {
	if loc == nil {
		loc = time.UTC
	}
	lt := t.In(loc)
	now := lt.Hour()*60 + lt.Minute()
	for _, d := range schedule {
		if d.Enabled && d.Weekday == lt.Weekday() && now >= d.Open && now < d.Close {
			return true
		}
	}
	return false
}
