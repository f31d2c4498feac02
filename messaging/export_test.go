package messaging

import (
	"context"

	"entgo.io/ent/dialect/sql"
)

// Unexported parts of the message search, for the package's external
// tests and fuzz targets.
var (
	ParseSearch   = parseSearch
	Highlight     = highlight
	PositiveTexts = positiveTexts
)

// SearchSQL runs the query of Search's first page and returns the
// statement it sent with its arguments, for plan tests to EXPLAIN.
func (s *Service) SearchSQL(ctx context.Context, query string, limit int) (string, []any, error) {
	q, _, err := s.searchQuery(ctx, query, limit, "")
	if err != nil || q == nil {
		return "", nil, err
	}
	var text string
	var args []any
	q.Modify(func(sel *sql.Selector) { text, args = sel.Clone().Query() }) // runs last: the whole statement
	_, err = q.All(ctx)
	return text, args, err
}
