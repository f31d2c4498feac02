package database

import (
	"context"
	stdsql "database/sql"
	"fmt"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/ent"
)

// Pageable is an ent query of T (every generated query type is one).
type Pageable[Q any, T any] interface {
	Clone() Q
	Count(context.Context) (int, error)
	Offset(int) Q
	Limit(int) Q
	All(context.Context) ([]T, error)
}

// OffsetPage reads one page of q, which the caller has filtered and
// ordered, with the total of the filter: REST's page and limit over the
// same query the GraphQL connection pages with cursors. Errors are ent's,
// for the caller to map.
func OffsetPage[Q Pageable[Q, T], T any](ctx context.Context, q Q, offset, limit int) ([]T, int, error) {
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, 0, err
	}
	rows, err := q.Offset(offset).Limit(limit).All(ctx)
	if err != nil {
		return nil, 0, err
	}
	return rows, total, nil
}

// DeepOffset is the offset from which PageAt reads a page's ids before
// its rows: shallower, the rows skipped cost less than a second statement.
const DeepOffset = 1_000

// PageAt narrows q, filtered and ordered by the caller, to its page at
// offset, at most limit rows. A page from DeepOffset on is read in two
// statements: its ids first, which an index holding the order's columns
// and the id answers alone, so that the offset skips index entries, not
// rows (page 1,000 of a million contacts' call logs, 50,000 skipped,
// read 50,000 rows in 21 ms, bench/scale); then q keeps those ids, in
// its order and with its eager loads (and without a LIMIT: the ids
// bound it). idIn is the entity's IDIn.
func PageAt[Q interface {
	Clone() Q
	Offset(int) Q
	Limit(int) Q
	IDs(context.Context) ([]uuid.UUID, error)
	Where(...P) Q
}, P any](ctx context.Context, q Q, offset, limit int, idIn func(...uuid.UUID) P) (Q, error) {
	if offset < DeepOffset {
		return q.Offset(offset).Limit(limit), nil
	}
	ids, err := q.Clone().Offset(offset).Limit(limit).IDs(ctx)
	if err != nil {
		return q, err
	}
	return q.Where(idIn(ids...)), nil
}

// CountBound is how far a filtered list of a table that grows with the
// business (contacts, transfers, recipients, sessions, call logs) counts
// its total exactly: past it the total is CountBound+1, read as "more than
// CountBound" (docs/api.md), so no page pays for counting a whole tenant.
// A thousand, as search engines cap what they count and list: a search's
// count rechecks each matching row (a trigram or tag match is not exact
// in its index), and at 10,000 a broad search of a million contacts spent
// 140 ms counting (bench/scale, issue 30) for a figure no agent pages
// through.
const CountBound = 1_000

// CountUpTo counts the rows of q up to bound: the total, or bound+1 and
// capped when there are more. The count reads at most bound+1 rows (their
// constant 1 through q's index), however many match.
func CountUpTo[Q interface {
	Clone() Q
	Limit(int) Q
	Modify(...func(*sql.Selector)) S
}, S interface {
	Ints(context.Context) ([]int, error)
}](ctx context.Context, q Q, bound int) (total int, capped bool, err error) {
	ones, err := q.Clone().Limit(bound + 1).Modify(selectOne).Ints(ctx)
	if err != nil {
		return 0, false, err
	}
	return len(ones), len(ones) > bound, nil
}

// selectOne selects the constant 1 instead of a row's columns.
func selectOne(s *sql.Selector) { s.SelectExpr(sql.Raw("1")) }

// WithTotal is a query modifier that adds the filter's total to every row
// of a page (a window count), so that a page and its total take one
// statement; PageTotal reads it.
func WithTotal(s *sql.Selector) { s.AppendSelectExprAs(sql.Raw("COUNT(*) OVER ()"), totalColumn) }

const totalColumn = "total_count"

// PageTotal reads the total WithTotal added to a page's rows. Past the
// last page no row carries it, and count asks the database.
func PageTotal[T interface {
	Value(string) (ent.Value, error)
}](rows []T, offset int, count func() (int, error)) (int, error) {
	if len(rows) > 0 {
		return IntValue(rows[0].Value(totalColumn)), nil
	}
	if offset == 0 {
		return 0, nil
	}
	return count()
}

// IntValue reads an integer selected into an entity with Modify (drivers
// return int64, or []byte/string on some paths).
func IntValue(v any, err error) int {
	if err != nil {
		return 0
	}
	switch n := v.(type) {
	case int64:
		return int(n)
	case int:
		return n
	case float64:
		return int(n)
	case []byte:
		var i int
		_, _ = fmt.Sscan(string(n), &i)
		return i
	case string:
		var i int
		_, _ = fmt.Sscan(n, &i)
		return i
	}
	return 0
}

// StringValue reads a string selected into an entity with Modify.
func StringValue(v any, err error) string {
	if err != nil || v == nil {
		return ""
	}
	switch s := v.(type) {
	case string:
		return s
	case []byte:
		return string(s)
	}
	return fmt.Sprint(v)
}

// QueryIDs runs a hand-written statement selecting ids, in the order
// it gives them.
func QueryIDs(ctx context.Context, db *ent.Client, query string, args ...any) ([]uuid.UUID, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []uuid.UUID
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// QueryIDsHeld runs a hand-written statement selecting ids, each row
// with how many rows its statement held (a count beside the page, as the
// searches by ranges of hours select it), and returns the ids in order
// and that count (0 when no row came).
func QueryIDsHeld(ctx context.Context, db *ent.Client, query string, args ...any) ([]uuid.UUID, int, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var ids []uuid.UUID
	held := 0
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id, &held); err != nil {
			return nil, 0, err
		}
		ids = append(ids, id)
	}
	return ids, held, rows.Err()
}

// ScanOne scans the one row of a hand-written statement into dest; stdsql.ErrNoRows
// when there is none.
func ScanOne(ctx context.Context, db *ent.Client, query string, args []any, dest ...any) error {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return stdsql.ErrNoRows
	}
	return rows.Scan(dest...)
}
