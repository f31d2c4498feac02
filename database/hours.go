package database

import (
	"strings"
	"time"
)

// The searches that read their hits a range of hours at a time (a
// message's creation, a contact's last message) key each row by its hour
// since 1970, as message_hour_key and contact_hour_key compute it in the
// database: floor(epoch / 3600).

// HourOf is the hour of t since 1970 (before 1970 too: rounded down).
func HourOf(t time.Time) int64 {
	sec := t.Unix()
	if sec < 0 && sec%3600 != 0 {
		return sec/3600 - 1
	}
	return sec / 3600
}

// HourStart is the first instant of hour h.
func HourStart(h int64) time.Time { return time.Unix(h*3600, 0).UTC() }

// EscapeLike makes s match itself in a LIKE pattern with ESCAPE '\'
// (PostgreSQL's default escape character).
func EscapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
