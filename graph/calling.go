package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"switchboard/apperr"
	"switchboard/calling"
)

// callingPage turns GraphQL's page and limit (defaults 1 and
// calling.DefaultPageSize) into an offset and limit. Errors: invalid.
func callingPage(page, limit *int) (offset, n int, err error) {
	p, n := 1, calling.DefaultPageSize
	if page != nil {
		p = *page
	}
	if limit != nil {
		n = *limit
	}
	if p < 1 || p > calling.MaxPage {
		return 0, 0, apperr.Invalidf("page must be between 1 and %d", calling.MaxPage)
	}
	if n < 1 {
		return 0, 0, apperr.Invalidf("limit must be a positive integer")
	}
	n = min(n, calling.MaxPageSize)
	return (p - 1) * n, n, nil
}

// iceServers is the viewer's ICE servers as GraphQL lists them.
func (r *Resolver) iceServers(ctx context.Context) ([]*calling.ICEServer, error) {
	servers, err := r.Calling.ICEServers(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*calling.ICEServer, len(servers))
	for i := range servers {
		out[i] = &servers[i]
	}
	return out, nil
}

// edgesOf returns calling.WithEdges when the query selects edge under
// list in the current field's answer (callLogs.transfers,
// callTransfers.callLog), so a page loads them with one query instead of
// one per row. (Selected twice under two aliases, the second alias is
// read per row.)
func edgesOf(ctx context.Context, list, edge string) []calling.ListOption {
	if graphql.GetFieldContext(ctx) == nil {
		return nil
	}
	op := graphql.GetOperationContext(ctx)
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		if f.Name != list {
			continue
		}
		for _, g := range graphql.CollectFields(op, f.Selections, nil) {
			if g.Name == edge {
				return []calling.ListOption{calling.WithEdges(g.Alias)}
			}
		}
	}
	return nil
}
