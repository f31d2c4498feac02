package graph

import (
	"context"

	"entgo.io/ent/dialect/sql"

	"switchboard/apperr"
	"switchboard/ent"
)

// pageable is an ent query of T (every generated query type is one).
type pageable[Q any, T any] interface {
	Clone() Q
	Count(context.Context) (int, error)
	Offset(int) Q
	Limit(int) Q
	All(context.Context) ([]T, error)
}

// offsetPage reads one page of q, which the caller has filtered and
// ordered, with the total of the filter: REST's page and limit over the
// same query the GraphQL connection pages with cursors. what names the
// resource in errors.
func offsetPage[Q pageable[Q, T], T any](ctx context.Context, q Q, offset, limit int, what string) ([]T, int, error) {
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, 0, apperr.Wrap(err, what)
	}
	rows, err := q.Offset(offset).Limit(limit).All(ctx)
	if err != nil {
		return nil, 0, apperr.Wrap(err, what)
	}
	return rows, total, nil
}

// withTotal is a query modifier that adds the filter's total to every row
// of a page (a window count), so that a page and its total take one
// statement; pageTotal reads it.
func withTotal(s *sql.Selector) { s.AppendSelectExprAs(sql.Raw("COUNT(*) OVER ()"), totalColumn) }

const totalColumn = "total_count"

// pageTotal reads the total withTotal added to a page's rows. Past the
// last page no row carries it, and count asks the database.
func pageTotal[T interface {
	Value(string) (ent.Value, error)
}](rows []T, offset int, count func() (int, error)) (int, error) {
	if len(rows) > 0 {
		return intValue(rows[0].Value(totalColumn)), nil
	}
	if offset == 0 {
		return 0, nil
	}
	return count()
}
