package condition

import (
	"fmt"
	"strings"

	"github.com/expr-lang/expr/ast"
)

// meterPatch rewrites an expression's tree so that what can allocate or
// loop goes through the evaluation's meter: a metered builtin f(a, b)
// becomes __builtin("f", a, b), a + b becomes __add(a, b), x matches y
// with y not a literal becomes __matches(x, y), and the body of every
// predicate (map, filter, all, ...) becomes __tick(body).
type meterPatch struct{}

// Visit is called children first, so a rewritten node's arguments are
// already rewritten.
func (meterPatch) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.BuiltinNode:
		for _, a := range n.Arguments {
			if p, ok := a.(*ast.PredicateNode); ok {
				p.Node = call(fnTick, p.Node)
			}
		}
		if _, metered := builtinCosts[n.Name]; metered {
			args := append([]ast.Node{&ast.StringNode{Value: n.Name}}, n.Arguments...)
			ast.Patch(node, call(fnBuiltin, args...))
		}
	case *ast.BinaryNode:
		switch {
		case n.Operator == "+":
			ast.Patch(node, call(fnAdd, n.Left, n.Right))
		case n.Operator == "matches" && !isString(n.Right):
			ast.Patch(node, call(fnMatches, n.Left, n.Right))
		}
	}
}

func call(name string, args ...ast.Node) *ast.CallNode {
	return &ast.CallNode{Callee: &ast.IdentifierNode{Value: name}, Arguments: args}
}

func isString(n ast.Node) bool {
	_, ok := n.(*ast.StringNode)
	return ok
}

// checkNames refuses an expression naming a metered function itself.
func checkNames(root ast.Node) error {
	v := &nameCheck{}
	ast.Walk(&root, v)
	if v.name != "" {
		return fmt.Errorf("names starting with %q are reserved (%s)", reservedPrefix, v.name)
	}
	return nil
}

type nameCheck struct{ name string }

func (c *nameCheck) Visit(node *ast.Node) {
	if id, ok := (*node).(*ast.IdentifierNode); ok && strings.HasPrefix(id.Value, reservedPrefix) {
		c.name = id.Value
	}
}
