package graph

import (
	"context"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"switchboard/apperr"
	"switchboard/ent"
)

// Transaction is the gqlgen extension that runs a mutation operation in one
// database transaction: all its fields commit together or not at all, as a
// mutating REST route does. Unlike entgql's Transactioner it also serves
// the WebSocket transport, whose response handler is called once more
// after the result and answers nil there.
type Transaction struct {
	Client *ent.Client
	// Skip reports operations that must run without the transaction
	// (those calling the platform or a remote receiver).
	Skip func(*ast.OperationDefinition) bool
}

var (
	_ graphql.HandlerExtension        = Transaction{}
	_ graphql.OperationContextMutator = Transaction{}
	_ graphql.ResponseInterceptor     = Transaction{}
)

// ExtensionName implements graphql.HandlerExtension.
func (Transaction) ExtensionName() string { return "Transaction" }

// Validate implements graphql.HandlerExtension.
func (Transaction) Validate(graphql.ExecutableSchema) error { return nil }

// inTx reports whether op runs in a transaction.
func (t Transaction) inTx(op *ast.OperationDefinition) bool {
	return op != nil && op.Operation == ast.Mutation && (t.Skip == nil || !t.Skip(op))
}

// MutateOperationContext implements graphql.OperationContextMutator: the
// field resolvers of a transaction's operation run one at a time, as a
// database transaction serves one statement at a time.
func (t Transaction) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if !t.inTx(oc.Operation) {
		return nil
	}
	previous := oc.ResolverMiddleware
	var mu sync.Mutex
	oc.ResolverMiddleware = func(ctx context.Context, next graphql.Resolver) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		return previous(ctx, next)
	}
	return nil
}

// InterceptResponse implements graphql.ResponseInterceptor.
func (t Transaction) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	// A request refused before it became an operation (a malformed
	// body) has no operation context.
	if !graphql.HasOperationContext(ctx) || !t.inTx(graphql.GetOperationContext(ctx).Operation) {
		return next(ctx)
	}
	tx, err := t.Client.Tx(ctx)
	if err != nil {
		graphql.AddError(ctx, apperr.Wrap(err, "transaction"))
		return &graphql.Response{Errors: graphql.GetErrors(ctx)}
	}
	committed := false
	defer func() {
		if !committed {
			_ = tx.Rollback()
		}
	}()
	rsp := next(ent.NewTxContext(ent.NewContext(ctx, tx.Client()), tx))
	if rsp == nil {
		// The end of a WebSocket operation's stream.
		return nil
	}
	if len(rsp.Errors) > 0 {
		// Nothing is kept, so no field's data is shown as done.
		return &graphql.Response{Errors: rsp.Errors}
	}
	if err := tx.Commit(); err != nil {
		graphql.AddError(ctx, apperr.Wrap(err, "transaction"))
		return &graphql.Response{Errors: graphql.GetErrors(ctx)}
	}
	committed = true
	return rsp
}
