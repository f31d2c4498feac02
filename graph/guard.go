package graph

import (
	"context"
	"reflect"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/viewer"
)

// Guard is the field middleware that applies the one permission table
// (access.Operations) to GraphQL, as the REST route table does to REST:
//   - a root field (query, mutation, subscription) needs its operation's
//     permission, named by the field; a root field without an operation is
//     refused (a test keeps the table complete);
//   - a field whose type is an entity (or a connection or edge of one) needs
//     that entity's read permission, and so does an entity resolved through
//     the Node interface, however it is reached (root field, node(id:), edge);
//   - a guarded field (Organization.timezone) needs its own.
func Guard(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil || fc.Field.Definition == nil || strings.HasPrefix(fc.Field.Name, "__") {
		// Introspection describes the schema, which every caller may read.
		return next(ctx)
	}
	if isRoot(fc.Object) {
		if err := requireOperation(ctx, fc.Field.Name, true); err != nil {
			return nil, err
		}
	} else if err := requireOperation(ctx, fc.Object+"."+fc.Field.Name, false); err != nil {
		return nil, err
	}
	if err := requireOperation(ctx, entityName(fc.Field.Definition.Type.Name()), false); err != nil {
		return nil, err
	}
	if err := boundPage(fc); err != nil {
		return nil, err
	}
	res, err := next(ctx)
	if err != nil || fc.Field.Definition.Type.Name() != "Node" {
		return res, err
	}
	nodes, _ := res.([]ent.Noder)
	if n, ok := res.(ent.Noder); ok {
		nodes = append(nodes, n)
	}
	for _, n := range nodes {
		if t := reflect.TypeOf(n); n != nil && t.Kind() == reflect.Pointer {
			if err := requireOperation(ctx, t.Elem().Name(), false); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// MaxPageSize is the largest page a connection serves, as REST caps limit.
const MaxPageSize = 100

// boundPage gives a connection asked without first or last a page of
// AssumedListSize (what its cost assumed), and refuses one above
// MaxPageSize: a connection never returns every row at once.
func boundPage(fc *graphql.FieldContext) error {
	if !strings.HasSuffix(fc.Field.Definition.Type.Name(), "Connection") || fc.Args == nil {
		return nil
	}
	first, hasFirst := fc.Args["first"].(*int)
	last, hasLast := fc.Args["last"].(*int)
	if !hasFirst && !hasLast {
		return nil
	}
	for name, n := range map[string]*int{"first": first, "last": last} {
		if n != nil && (*n < 0 || *n > MaxPageSize) {
			return apperr.Invalidf("%s must be between 0 and %d", name, MaxPageSize)
		}
	}
	if first == nil && last == nil && hasFirst {
		n := AssumedListSize
		fc.Args["first"] = &n
	}
	return nil
}

func isRoot(object string) bool {
	return object == "Query" || object == "Mutation" || object == "Subscription"
}

// entityName maps a GraphQL type name to its entity: FooConnection and
// FooEdge are Foo.
func entityName(typ string) string {
	if s, ok := strings.CutSuffix(typ, "Connection"); ok {
		return s
	}
	if s, ok := strings.CutSuffix(typ, "Edge"); ok {
		return s
	}
	return typ
}

// requireOperation checks the viewer against the operation name; a name
// without an operation passes unless required.
func requireOperation(ctx context.Context, name string, required bool) error {
	op, ok := access.OperationOf(name)
	if !ok {
		if required {
			return apperr.Forbiddenf("operation %s is not in the permission table", name)
		}
		return nil
	}
	if op.Perm == access.Public {
		return nil
	}
	v := viewer.FromContext(ctx)
	if v == nil {
		return apperr.New(apperr.Unauthenticated, "authentication required")
	}
	return access.Require(v, op.Perm)
}

// SkipTransaction reports a mutation operation that must run without the
// request transaction: one of its fields' operations is NoTx (it calls the
// platform or a remote receiver), as its REST route runs.
func SkipTransaction(op *ast.OperationDefinition) bool {
	for _, sel := range op.SelectionSet {
		if f, ok := sel.(*ast.Field); ok {
			if o, ok := access.OperationOf(f.Name); ok && o.NoTx {
				return true
			}
		}
	}
	return false
}
