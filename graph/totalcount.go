package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// withoutTotalCount returns ctx with the connection field's totalCount
// and pageInfo hidden from ent's Paginate, which counts every row when
// either is selected (pageInfo is built from the page alone all the
// same), and whether totalCount was selected: the operation then gives
// the total its own way (contacts.Count, bounded). Outside GraphQL,
// Paginate counts nothing only if told so: ctx is kept and the total is
// asked for.
func withoutTotalCount(ctx context.Context) (context.Context, bool) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return ctx, true
	}
	oc := graphql.GetOperationContext(ctx)
	want := false
	for _, f := range graphql.CollectFields(oc, fc.Field.Selections, nil) {
		want = want || f.Name == "totalCount"
	}
	kept := ast.SelectionSet{}
	for _, sel := range fc.Field.Selections {
		if f, ok := sel.(*ast.Field); ok && (f.Name == "totalCount" || f.Name == "pageInfo") {
			continue
		}
		kept = append(kept, sel)
	}
	hidden := *fc
	hidden.Field = graphql.CollectedField{Field: fc.Field.Field, Selections: kept}
	return graphql.WithFieldContext(ctx, &hidden), want
}
