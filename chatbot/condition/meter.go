package condition

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/vm/runtime"
)

// MaxPattern is the longest regular expression a condition may build
// at run time (x matches y with y a variable); literal patterns are
// compiled once with the expression.
const MaxPattern = 500

// meter counts what one evaluation builds and runs.
type meter struct {
	deadline time.Time
	alloc    int // bytes built
	steps    int // predicate iterations
}

// bind gives env the evaluation's metered functions (over any variable
// of the same name). They have the signatures expr calls without
// reflection (a tick runs per loop iteration) and so report a refusal by
// panicking with it, which the VM returns as the evaluation's error.
func (m *meter) bind(env map[string]any) {
	env[fnBuiltin] = func(args ...any) any {
		name, _ := arg(args, 0).(string)
		return must(m.builtin(name, args[1:]...))
	}
	env[fnAdd] = func(a, b any) any { return must(m.add(a, b)) }
	env[fnMatches] = func(s, pattern any) any { return must(m.matches(s, pattern)) }
	env[fnTick] = func(v any) any { return must(m.tick(v)) }
}

func must(v any, err error) any {
	if err != nil {
		panic(err)
	}
	return v
}

// inTime refuses an evaluation past its deadline.
func (m *meter) inTime() error {
	if time.Now().After(m.deadline) {
		return fmt.Errorf("%w: it ran longer than %s", ErrBudget, Timeout)
	}
	return nil
}

// charge counts what an operation is about to build (c) before it is
// built.
func (m *meter) charge(c cost) error {
	if err := m.inTime(); err != nil {
		return err
	}
	switch {
	case c.text > MaxText:
		return fmt.Errorf("%w: a text of more than %d bytes", ErrBudget, MaxText)
	case c.elements > MaxElements:
		return fmt.Errorf("%w: a list of more than %d elements", ErrBudget, MaxElements)
	}
	m.alloc += c.bytes()
	if m.alloc > MaxAlloc {
		return fmt.Errorf("%w: more than %d bytes built", ErrBudget, MaxAlloc)
	}
	return nil
}

// tick counts a predicate iteration and returns its body's value.
func (m *meter) tick(v any) (any, error) {
	if m.steps++; m.steps > MaxSteps {
		return nil, fmt.Errorf("%w: more than %d iterations", ErrBudget, MaxSteps)
	}
	if err := m.inTime(); err != nil {
		return nil, err
	}
	return v, nil
}

// add is expr's '+', a concatenation charged before it is made.
func (m *meter) add(a, b any) (any, error) {
	if x, ok := a.(string); ok {
		if y, ok := b.(string); ok {
			if err := m.charge(cost{text: len(x) + len(y)}); err != nil {
				return nil, err
			}
		}
	}
	return runtime.Add(a, b), nil
}

// matches is expr's "matches" with a pattern known only at run time.
func (m *meter) matches(s, pattern any) (any, error) {
	p, ok := pattern.(string)
	if !ok {
		return nil, fmt.Errorf("matches needs a text pattern")
	}
	if len(p) > MaxPattern {
		return nil, fmt.Errorf("%w: a pattern of more than %d bytes", ErrBudget, MaxPattern)
	}
	if err := m.charge(cost{other: 64 * len(p)}); err != nil {
		return nil, err
	}
	text, ok := s.(string)
	if !ok {
		return nil, fmt.Errorf("matches needs a text")
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err
	}
	return re.MatchString(text), nil
}

// builtin runs a metered builtin once its result's size is charged.
func (m *meter) builtin(name string, args ...any) (any, error) {
	f, ok := builtinsByName[name]
	estimate, known := builtinCosts[name]
	if !ok || !known {
		return nil, fmt.Errorf("%s is not available in conditions", name)
	}
	if err := m.charge(estimate(args)); err != nil {
		return nil, err
	}
	switch {
	case f.Func != nil:
		return f.Func(args...)
	case f.Safe != nil:
		out, _, err := f.Safe(args...)
		return out, err
	case f.Fast != nil && len(args) == 1:
		return f.Fast(args[0]), nil
	}
	return nil, fmt.Errorf("%s cannot be called here", name)
}

// builtinsByName are expr's builtins.
var builtinsByName = func() map[string]*builtin.Function {
	m := make(map[string]*builtin.Function, len(builtin.Builtins))
	for _, f := range builtin.Builtins {
		m[f.Name] = f
	}
	return m
}()

// cost is what an operation builds: a text's bytes, a list's elements,
// other bytes (parsed JSON).
type cost struct {
	text, elements, other int
}

func (c cost) bytes() int { return c.text + c.elements*elementBytes + c.other }

// unmetered builtins build nothing larger than a number or a time, or
// only read their arguments.
var unmetered = map[string]bool{
	"len": true, "type": true, "abs": true, "ceil": true, "floor": true, "round": true, "int": true, "float": true,
	"indexOf": true, "lastIndexOf": true, "hasPrefix": true, "hasSuffix": true, "max": true, "min": true, "mean": true,
	"now": true, "duration": true, "date": true, "timezone": true, "first": true, "last": true, "get": true,
	"bitand": true, "bitor": true, "bitxor": true, "bitnand": true, "bitnot": true, "bitshl": true, "bitshr": true,
	"bitushr": true,
}

// builtinCosts estimate, from the arguments, what each metered builtin
// is about to build; an argument of the wrong type costs nothing (the
// builtin refuses it). Builtins in neither table nor predicates are
// disabled.
var builtinCosts = map[string]func(args []any) cost{
	"repeat": func(a []any) cost {
		s, n := str(a, 0), num(a, 1)
		if n > 0 && len(s) > 0 && n > (MaxText+1)/len(s)+1 {
			return cost{text: MaxText + 1}
		}
		return cost{text: len(s) * max(n, 0)}
	},
	"join": func(a []any) cost {
		n := length(arg(a, 0))
		return cost{text: size(arg(a, 0), MaxText+1) + len(str(a, 1))*max(n-1, 0)}
	},
	"replace": func(a []any) cost {
		s, old, repl := str(a, 0), str(a, 1), str(a, 2)
		count := utf8.RuneCountInString(s) + 1
		if old != "" {
			count = strings.Count(s, old)
		}
		return cost{text: len(s) + count*max(len(repl)-len(old), 0)}
	},
	"split":      splitCost,
	"splitAfter": splitCost,
	"trim":       sameText,
	"trimPrefix": sameText,
	"trimSuffix": sameText,
	"upper":      grownText,
	"lower":      grownText,
	"toBase64":   grownText,
	"fromBase64": sameText,
	"string":     func(a []any) cost { return cost{text: size(arg(a, 0), MaxText+1)} },
	"toJSON":     func(a []any) cost { return cost{text: 2 * size(arg(a, 0), MaxText+1)} },
	"fromJSON":   func(a []any) cost { return cost{other: 4 * len(str(a, 0))} },
	"keys":       elementsCost,
	"values":     elementsCost,
	"toPairs":    func(a []any) cost { return cost{elements: 3 * length(arg(a, 0))} },
	"fromPairs":  elementsCost,
	"reverse":    elementsCost,
	"uniq":       elementsCost,
	"sort":       elementsCost,
	"median":     elementsCost,
	"take":       func(a []any) cost { return cost{elements: min(length(arg(a, 0)), max(num(a, 1), 0))} },
	"concat": func(a []any) cost {
		n := 0
		for _, x := range a {
			n += length(x)
		}
		return cost{elements: n}
	},
	"flatten": func(a []any) cost { return cost{elements: leaves(arg(a, 0), MaxElements+1)} },
}

func splitCost(a []any) cost {
	s, sep := str(a, 0), str(a, 1)
	n := utf8.RuneCountInString(s)
	if sep != "" {
		n = strings.Count(s, sep) + 1
	}
	return cost{elements: n, text: len(s) / 2}
}

// sameText is a builtin whose text is at most as long as its first
// argument (trim, fromBase64).
func sameText(a []any) cost { return cost{text: len(str(a, 0))} }

// grownText is a builtin whose text is at most half again as long as its
// first argument (case mapping, base64).
func grownText(a []any) cost {
	n := len(str(a, 0))
	return cost{text: n + n/2 + 4}
}

func elementsCost(a []any) cost { return cost{elements: length(arg(a, 0))} }

func arg(a []any, i int) any {
	if i < len(a) {
		return a[i]
	}
	return nil
}

func str(a []any, i int) string {
	s, _ := arg(a, i).(string)
	return s
}

func num(a []any, i int) int {
	switch v := arg(a, i).(type) {
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return runtime.ToInt(v)
	}
	return 0
}

// length is a list's or map's length (0 for anything else).
func length(v any) int {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.String:
		return rv.Len()
	}
	return 0
}

// size is about how many bytes v prints to, counted up to limit (the
// walk stops there, so a list holding itself many times over is not
// walked in full).
func size(v any, limit int) int {
	n := 0
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		if n >= limit {
			return
		}
		switch v.Kind() {
		case reflect.Interface, reflect.Pointer:
			if v.IsNil() {
				n += 4
				return
			}
			walk(v.Elem())
		case reflect.String:
			n += v.Len() + 2
		case reflect.Slice, reflect.Array:
			n += 2
			for i := 0; i < v.Len() && n < limit; i++ {
				walk(v.Index(i))
				n++
			}
		case reflect.Map:
			n += 2
			it := v.MapRange()
			for it.Next() && n < limit {
				walk(it.Key())
				walk(it.Value())
				n += 2
			}
		default:
			n += 24 // a number, a boolean, a time
		}
	}
	walk(reflect.ValueOf(v))
	return min(n, limit)
}

// leaves counts the elements flatten makes of v, up to limit.
func leaves(v any, limit int) int {
	n := 0
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		if v.Kind() == reflect.Interface && !v.IsNil() {
			v = v.Elem()
		}
		if v.Kind() != reflect.Slice && v.Kind() != reflect.Array {
			n++
			return
		}
		for i := 0; i < v.Len() && n < limit; i++ {
			walk(v.Index(i))
		}
	}
	walk(reflect.ValueOf(v))
	return min(n, limit)
}
