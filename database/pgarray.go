package database

import (
	"database/sql/driver"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// Array is an array parameter of a PostgreSQL statement (text[], uuid[],
// bytea[], bigint[], timestamptz[]...), written element by element
// straight into PostgreSQL's text form of an array. lib/pq's pq.Array
// makes a string of each element first (a UUID's, a time's), builds the
// literal by growing it, and copies it twice more (to a string, then
// back to bytes): for the inbound pipeline's bulk statements, whose
// arrays carry every delivery, that was most of the bytes the server
// allocated. An Array's Value is the literal as bytes, which lib/pq
// sends as they are. Every element is quoted, so any text is kept as
// is; there are no NULL elements.
type Array struct{ buf []byte }

// NewArray returns an empty array with room for about size bytes.
func NewArray(size int) *Array { return &Array{buf: make([]byte, 0, size+2)} }

func (a *Array) next() {
	if len(a.buf) == 0 {
		a.buf = append(a.buf, '{')
	} else {
		a.buf = append(a.buf, ',')
	}
}

// String appends a text element.
func (a *Array) String(s string) {
	a.next()
	a.buf = append(a.buf, '"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			a.buf = append(a.buf, '\\')
		}
		a.buf = append(a.buf, s[i])
	}
	a.buf = append(a.buf, '"')
}

// Text appends a text element given as bytes.
func (a *Array) Text(b []byte) {
	a.next()
	a.buf = append(a.buf, '"')
	for _, c := range b {
		if c == '"' || c == '\\' {
			a.buf = append(a.buf, '\\')
		}
		a.buf = append(a.buf, c)
	}
	a.buf = append(a.buf, '"')
}

// Bytea appends a bytea element (hex: "\\x...", the backslash escaped
// for the array literal).
func (a *Array) Bytea(b []byte) {
	a.next()
	a.buf = append(a.buf, `"\\x`...)
	a.buf = hex.AppendEncode(a.buf, b)
	a.buf = append(a.buf, '"')
}

// UUID appends a uuid element.
func (a *Array) UUID(u uuid.UUID) {
	a.next()
	var s [36]byte
	hex.Encode(s[0:8], u[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], u[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], u[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], u[8:10])
	s[23] = '-'
	hex.Encode(s[24:], u[10:])
	a.buf = append(a.buf, s[:]...)
}

// Int appends an integer element.
func (a *Array) Int(n int64) {
	a.next()
	a.buf = strconv.AppendInt(a.buf, n, 10)
}

// pgTime is how timestamps travel: with their offset, so nothing depends
// on the session's time zone.
const pgTime = "2006-01-02 15:04:05.999999Z07:00"

// Time appends a timestamptz element.
func (a *Array) Time(t time.Time) {
	a.next()
	a.buf = append(a.buf, '"')
	a.buf = t.AppendFormat(a.buf, pgTime)
	a.buf = append(a.buf, '"')
}

// Value is the array's literal.
func (a *Array) Value() (driver.Value, error) {
	if len(a.buf) == 0 {
		return []byte("{}"), nil
	}
	return append(a.buf, '}'), nil
}
