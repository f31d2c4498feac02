package database_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"switchboard/database"
)

// TestArrayAsPostgreSQLReadsIt: every kind of element reaches PostgreSQL
// as the value it was, however it is spelt (quotes, backslashes, braces,
// commas, white space, NUL-free binary, non-ASCII text), and as lib/pq's
// pq.Array would send it.
func TestArrayAsPostgreSQLReadsIt(t *testing.T) {
	conn := pinnedConn(t)
	ctx := context.Background()
	texts := []string{"", "plain", `quo"te`, `back\slash`, `\"`, "{braces},[]", "a, b", " lead", "trail ", "NULL", "é😀\n\t", `\\x00`}
	blobs := [][]byte{{}, []byte(`{"a":"b\\"}`), {0, 1, 2, 0xff, '"', '\\'}, []byte("é")}
	ids := []uuid.UUID{uuid.New(), uuid.Nil, uuid.MustParse("01234567-89ab-cdef-0123-456789abcdef")}
	at := []time.Time{time.Date(2026, 11, 25, 16, 0, 0, 123456000, time.UTC),
		time.Date(1999, 1, 2, 3, 4, 5, 0, time.FixedZone("x", -5*3600-30*60))}
	ints := []int64{0, -1, 1 << 40}

	text, textBytes, blob, id, ts, num := database.NewArray(0), database.NewArray(0), database.NewArray(0),
		database.NewArray(0), database.NewArray(0), database.NewArray(0)
	for _, s := range texts {
		text.String(s)
		textBytes.Text([]byte(s))
	}
	for _, b := range blobs {
		blob.Bytea(b)
	}
	idStrings := make([]string, len(ids))
	for i, u := range ids {
		id.UUID(u)
		idStrings[i] = u.String()
	}
	for _, x := range at {
		ts.Time(x)
	}
	for _, n := range ints {
		num.Int(n)
	}
	var same [6]bool
	err := conn.QueryRowContext(ctx, `SELECT $1::text[] = $2::text[], $3::text[] = $2::text[], $4::bytea[] = $5::bytea[],
		$6::uuid[] = $7::uuid[], $8::timestamptz[] = $9::timestamptz[], $10::bigint[] = $11::bigint[]`,
		text, pq.Array(texts), textBytes, blob, pq.Array(blobs), id, pq.Array(idStrings), ts, pq.Array(at), num, pq.Array(ints),
	).Scan(&same[0], &same[1], &same[2], &same[3], &same[4], &same[5])
	if err != nil {
		t.Fatal(err)
	}
	for i, ok := range same {
		if !ok {
			t.Errorf("array %d differs from pq.Array's", i)
		}
	}
	var empty bool
	if err := conn.QueryRowContext(ctx, `SELECT cardinality($1::text[]) = 0`, database.NewArray(8)).Scan(&empty); err != nil || !empty {
		t.Fatalf("an empty Array: %v %v", empty, err)
	}
}
