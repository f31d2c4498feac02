package graph_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// builderAllowed are the only ent client calls hand-written graph files
// may make, by file and method. Everything else that reads or writes
// entities is an operation of a domain package (issue 29).
var builderAllowed = map[string]string{
	// The transaction middleware opens the transaction a mutation's
	// operations share: GraphQL plumbing, not a domain rule.
	"transaction.go Tx": "the mutation's transaction",
}

// TestNoEntBuildersInGraph: graph/ keeps resolvers that translate GraphQL
// types and call one operation each; no hand-written file reaches an ent
// client or builder (entgql's Paginate on a query an operation built is
// pagination, and allowed).
func TestNoEntBuildersInGraph(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var found []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if ast.IsGenerated(f) {
			continue // generated.go and gqlgen's models
		}
		found = append(found, builderCalls(fset, name, f)...)
	}
	for _, f := range found {
		t.Errorf("%s: an ent client or builder call in graph/; make it an operation of the domain package", f)
	}
}

// TestBuilderCallsDetected: the check above flags client chains, edge
// queries and the client's raw SQL, and lets pagination and operations
// through.
func TestBuilderCallsDetected(t *testing.T) {
	for _, tc := range []struct {
		stmt    string
		flagged bool
	}{
		{`r.Client.Contact.Query().Where(contact.ID(id)).Only(ctx)`, true},
		{`r.Client.CallLog.Get(ctx, id)`, true},
		{`r.Resolver.Client.Tag.Create().SetName(n).Save(ctx)`, true},
		{`r.db(ctx).Template.Get(ctx, id)`, true},
		{`database.ClientFor(ctx, r.Client).Team.Delete().Exec(ctx)`, true},
		{`ent.FromContext(ctx).User.UpdateOneID(id).Save(ctx)`, true},
		{`tx.Client().Role.Query().All(ctx)`, true},
		{`obj.QueryTags().All(ctx)`, true},
		{`r.Client.QueryContext(ctx, q)`, true},
		{`r.Client.Tx(ctx)`, true},
		{`r.Contacts.Get(ctx, id)`, false},
		{`r.Resolver.People.MembersQuery(ctx, f).Paginate(ctx, after, first, before, last)`, false},
		{`q.Paginate(ctx, after, first, before, last, ent.WithTagOrder(orderBy))`, false},
		{`tx.Commit()`, false},
		{`ent.IsNotFound(err)`, false},
	} {
		src := "package graph\nfunc f() {\n" + tc.stmt + "\n}\n"
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "planted.go", src, 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.stmt, err)
		}
		if got := len(builderCalls(fset, "planted.go", f)) > 0; got != tc.flagged {
			t.Errorf("%s: flagged %v, want %v", tc.stmt, got, tc.flagged)
		}
	}
}

// edgeQuery is an ent node's edge traversal (contact.QueryTags()).
var edgeQuery = regexp.MustCompile(`^Query[A-Z]`)

// builderCalls lists file:line of each ent client or builder call in f
// that builderAllowed does not name.
func builderCalls(fset *token.FileSet, name string, f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		method := sel.Sel.Name
		if method == "Paginate" {
			return true // entgql pagination; the calls below it are still inspected
		}
		if !clientChain(sel.X) && !edgeQuery.MatchString(method) && !clientSource(call) {
			return true
		}
		if _, ok := builderAllowed[name+" "+method]; ok {
			return true
		}
		out = append(out, fmt.Sprintf("%s:%d: %s", name, fset.Position(call.Pos()).Line, chainText(call)))
		return true
	})
	sort.Strings(out)
	return out
}

// clientSource reports whether call obtains an ent client from a context
// (ent.FromContext, database.ClientFor, ent.TxFromContext).
func clientSource(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	switch pkg.Name + "." + sel.Sel.Name {
	case "ent.FromContext", "ent.TxFromContext", "ent.NewClient", "ent.Open", "database.ClientFor":
		return true
	}
	return false
}

// clientChain reports whether e is, or is built on, an ent client: a
// Client field or method (r.Client, tx.Client()), the resolvers' db(ctx),
// or a client taken from a context.
func clientChain(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return clientChain(e.X)
	case *ast.IndexExpr:
		return clientChain(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name == "Client" || clientChain(e.X)
	case *ast.CallExpr:
		if clientSource(e) {
			return true
		}
		switch fun := e.Fun.(type) {
		case *ast.Ident:
			return fun.Name == "db"
		case *ast.SelectorExpr:
			return fun.Sel.Name == "db" || clientChain(fun)
		}
	}
	return false
}

// chainText is the call's selector chain, for the failure message.
func chainText(call *ast.CallExpr) string {
	var parts []string
	var e ast.Expr = call
	for {
		switch x := e.(type) {
		case *ast.CallExpr:
			e = x.Fun
			parts = append(parts, "()")
			continue
		case *ast.SelectorExpr:
			parts = append(parts, "."+x.Sel.Name)
			e = x.X
			continue
		case *ast.Ident:
			parts = append(parts, x.Name)
		default:
			parts = append(parts, "…")
		}
		break
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, "")
}
