package database

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect/sql"

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
