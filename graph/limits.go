package graph

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"switchboard/apperr"
	"switchboard/internal/valid"
)

// The bounds of one GraphQL operation, checked before anything executes
// (over HTTP and over the WebSocket alike). A UI-sized query stays far below
// each: the inbox (viewer, 50 contacts, teams with members) costs about
// 2,000, has 40 fields and depth 6.
const (
	// MaxTokens bounds the lexer tokens of a query document, so that
	// parsing and validation stay cheap whatever a client sends.
	MaxTokens = 10_000
	// MaxFields bounds the fields an operation selects, each alias and
	// each use of a fragment counted.
	MaxFields = 500
	// MaxDepth bounds the nesting of selections (introspection is bounded
	// by its own rule).
	MaxDepth = 12
	// MaxComplexity bounds the estimated number of values an operation
	// resolves: a field costs 1 plus its selections, and a list costs its
	// page size times that (see CostedSchema).
	MaxComplexity = 10_000
	// AssumedListSize is the page size a list or connection is costed at
	// when the query gives no first, last or limit.
	AssumedListSize = 20
	// MaxNodeIDs bounds the ids an operation looks up by id (nodes(ids:),
	// every such field of the operation together): each id is a query of
	// its own.
	MaxNodeIDs = 100
)

// Error codes (extensions.code) of operations refused for their size;
// gqlgen's complexity limit answers COMPLEXITY_LIMIT_EXCEEDED.
const (
	CodeDepthLimit = "DEPTH_LIMIT_EXCEEDED"
	CodeFieldLimit = "FIELD_LIMIT_EXCEEDED"
	CodeNodesLimit = "NODES_LIMIT_EXCEEDED"
	codeComplexity = "COMPLEXITY_LIMIT_EXCEEDED"
)

func init() {
	// Refusals of the whole operation are request errors (HTTP 4xx), not
	// results with errors (200). Only operation-level errors are sorted
	// by kind, so "invalid" from a resolver is not affected.
	for _, code := range []string{CodeDepthLimit, CodeFieldLimit, CodeNodesLimit, codeComplexity, string(apperr.Invalid)} {
		errcode.RegisterErrorType(code, errcode.KindProtocol)
	}
}

// Limits is the gqlgen extension that refuses an operation deeper than
// MaxDepth, selecting more than MaxFields fields, looking up more than
// MaxNodeIDs ids, or carrying a NUL character in any string (PostgreSQL
// cannot store it). Add it before the complexity limit: it bounds the
// work that limit's walk does.
type Limits struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = Limits{}

// ExtensionName names the extension.
func (Limits) ExtensionName() string { return "OperationLimits" }

// Validate accepts any schema.
func (Limits) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationContext measures the operation before it runs.
func (Limits) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	m := measurer{doc: oc.Doc, vars: oc.Variables, frags: map[string]*size{}}
	s := m.selections(oc.Operation.SelectionSet)
	switch {
	case s.fields > MaxFields:
		return limitError(CodeFieldLimit, "operation selects %d fields, which exceeds the limit of %d", s.fields, MaxFields)
	case s.depth > MaxDepth:
		return limitError(CodeDepthLimit, "operation has depth %d, which exceeds the limit of %d", s.depth, MaxDepth)
	case s.ids > MaxNodeIDs:
		return limitError(CodeNodesLimit, "operation looks up %d ids (nodes(ids:)), which exceeds the limit of %d per operation", s.ids, MaxNodeIDs)
	}
	if hasNUL(oc.Doc) || valueHasNUL(oc.Variables) {
		return limitError(string(apperr.Invalid), "%s", valid.NUL("text").Message)
	}
	return nil
}

func limitError(code, format string, args ...any) *gqlerror.Error {
	err := gqlerror.Errorf(format, args...)
	errcode.Set(err, code)
	return err
}

// size is what a selection set costs in fields, depth and ids looked up.
type size struct{ fields, depth, ids int }

// measurer sizes selection sets, each fragment once however often it is
// spread (so a fragment that spreads another many times stays cheap to
// measure).
type measurer struct {
	doc   *ast.QueryDocument
	vars  map[string]any
	frags map[string]*size
}

func (m measurer) selections(set ast.SelectionSet) size {
	var total size
	for _, sel := range set {
		var s size
		switch sel := sel.(type) {
		case *ast.Field:
			sub := m.selections(sel.SelectionSet)
			s = size{fields: satAdd(sub.fields, 1), depth: sub.depth + 1, ids: satAdd(sub.ids, lookedUpIDs(sel, m.vars))}
			if strings.HasPrefix(sel.Name, "__") {
				s.depth = 1 // introspection has its own depth rule
			}
		case *ast.InlineFragment:
			s = m.selections(sel.SelectionSet)
		case *ast.FragmentSpread:
			s = m.fragment(sel.Name)
		}
		total.fields = satAdd(total.fields, s.fields)
		total.depth = max(total.depth, s.depth)
		total.ids = satAdd(total.ids, s.ids)
	}
	return total
}

func (m measurer) fragment(name string) size {
	if s, ok := m.frags[name]; ok {
		return *s // a cycle (refused by validation anyway) counts 0
	}
	m.frags[name] = &size{}
	def := m.doc.Fragments.ForName(name)
	if def == nil {
		return size{}
	}
	s := m.selections(def.SelectionSet)
	m.frags[name] = &s
	return s
}

// idsArg is the argument of a field that looks objects up by id
// (nodes(ids:)): each id is a query of its own.
const idsArg = "ids"

// takesIDs reports a field with a list argument idsArg.
func takesIDs(f *ast.FieldDefinition) bool {
	a := f.Arguments.ForName(idsArg)
	return a != nil && a.Type.Elem != nil
}

// lookedUpIDs is how many ids field looks up.
func lookedUpIDs(field *ast.Field, vars map[string]any) int {
	if field.Definition == nil || !takesIDs(field.Definition) {
		return 0
	}
	return listLen(field.ArgumentMap(vars)[idsArg])
}

// listLen is the length of a list argument; a single value (which GraphQL
// coerces to a list of one) counts 1.
func listLen(v any) int {
	if v == nil {
		return 0
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice {
		return rv.Len()
	}
	return 1
}

// hasNUL reports a NUL character in any string literal of the document.
func hasNUL(doc *ast.QueryDocument) bool {
	found := false
	var walkValue func(v *ast.Value)
	walkValue = func(v *ast.Value) {
		if v == nil || found {
			return
		}
		if (v.Kind == ast.StringValue || v.Kind == ast.BlockValue) && strings.IndexByte(v.Raw, 0) >= 0 {
			found = true
		}
		for _, c := range v.Children {
			walkValue(c.Value)
		}
	}
	walkDirectives := func(ds ast.DirectiveList) {
		for _, d := range ds {
			for _, a := range d.Arguments {
				walkValue(a.Value)
			}
		}
	}
	var walkSet func(set ast.SelectionSet)
	walkSet = func(set ast.SelectionSet) {
		for _, sel := range set {
			switch sel := sel.(type) {
			case *ast.Field:
				for _, a := range sel.Arguments {
					walkValue(a.Value)
				}
				walkDirectives(sel.Directives)
				walkSet(sel.SelectionSet)
			case *ast.InlineFragment:
				walkDirectives(sel.Directives)
				walkSet(sel.SelectionSet)
			case *ast.FragmentSpread:
				walkDirectives(sel.Directives)
			}
		}
	}
	for _, op := range doc.Operations {
		for _, v := range op.VariableDefinitions {
			walkValue(v.DefaultValue)
		}
		walkDirectives(op.Directives)
		walkSet(op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		walkDirectives(f.Directives)
		walkSet(f.SelectionSet)
	}
	return found
}

// valueHasNUL reports a NUL character in a decoded JSON value (keys too).
func valueHasNUL(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.IndexByte(v, 0) >= 0
	case map[string]any:
		for k, e := range v {
			if strings.IndexByte(k, 0) >= 0 || valueHasNUL(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if valueHasNUL(e) {
				return true
			}
		}
	}
	return false
}

// CostedSchema gives the schema's fields the costs the complexity limit
// adds up: a list or connection costs its page size (first, last or limit;
// AssumedListSize when the query gives none) times one plus its
// selections, and a lookup by ids (nodes) the number of ids times that;
// the lists inside a page (a connection's edges, a MessagePage's
// messages) are already counted by the field that returned the page.
// Every other field costs 1 plus its selections.
func CostedSchema(es graphql.ExecutableSchema) graphql.ExecutableSchema {
	cs := costedSchema{ExecutableSchema: es, kinds: map[string]fieldKind{}}
	s := es.Schema()
	pages := map[string]bool{}
	for _, def := range s.Types {
		for _, f := range def.Fields {
			if f.Type.Elem == nil && hasPageArg(f) {
				pages[f.Type.Name()] = true
			}
		}
	}
	for _, def := range s.Types {
		if def.Kind != ast.Object && def.Kind != ast.Interface {
			continue
		}
		for _, f := range def.Fields {
			key := def.Name + "." + f.Name
			switch {
			case takesIDs(f):
				cs.kinds[key] = idsField
			case hasPageArg(f):
				cs.kinds[key] = pagedField
			case f.Type.Elem != nil && !pages[def.Name] && !strings.HasPrefix(f.Name, "__"):
				cs.kinds[key] = listField
			}
		}
	}
	return cs
}

type fieldKind int

const (
	plainField fieldKind = iota
	pagedField           // takes first, last or limit
	listField            // returns a list without a page size
	idsField             // looks up the objects of a list of ids
)

// pageArgs are the arguments that say how many items a field returns.
var pageArgs = []string{"first", "last", "limit"}

func hasPageArg(f *ast.FieldDefinition) bool {
	for _, name := range pageArgs {
		if f.Arguments.ForName(name) != nil {
			return true
		}
	}
	return false
}

type costedSchema struct {
	graphql.ExecutableSchema
	kinds map[string]fieldKind
}

// Complexity costs lists by their page size; see CostedSchema.
func (cs costedSchema) Complexity(ctx context.Context, typeName, field string, child int, args map[string]any) (int, bool) {
	if c, ok := cs.ExecutableSchema.Complexity(ctx, typeName, field, child, args); ok {
		return c, ok
	}
	switch cs.kinds[typeName+"."+field] {
	case pagedField:
		n := 0
		for _, name := range pageArgs {
			n = max(n, intArg(args[name]))
		}
		if n <= 0 {
			n = AssumedListSize
		}
		return satMul(n, satAdd(child, 1)), true
	case listField:
		return satMul(AssumedListSize, satAdd(child, 1)), true
	case idsField:
		return satMul(listLen(args[idsArg]), satAdd(child, 1)), true
	}
	return 0, false
}

// intArg reads an Int argument (int64 from a literal, int or a JSON
// number from a variable); 0 when it is absent or not a number.
func intArg(v any) int {
	switch v := v.(type) {
	case int:
		return v
	case int64:
		return int(min(v, math.MaxInt32))
	case float64:
		return int(min(v, math.MaxInt32))
	case json.Number:
		n, _ := v.Int64()
		return int(min(n, math.MaxInt32))
	}
	return 0
}

func satAdd(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

func satMul(a, b int) int {
	if a != 0 && b > math.MaxInt/a {
		return math.MaxInt
	}
	return a * b
}
