// Package condition compiles and evaluates the expressions of chatbot
// condition nodes (expr-lang) within a budget that no expression escapes,
// however it nests: the texts and lists it builds, the loop iterations
// its predicates run and its wall time are counted as it runs, and an
// operation that would go over is refused before it allocates.
//
// expr's own memory budget counts list elements (ranges, literals) but
// charges a builtin's result after the builtin made it, and not at all
// for string concatenation: repeat(repeat("ab", 10000), 20000) allocated
// 400 MB before the VM noticed. So every builtin that allocates by its
// arguments runs through a metered call that computes the result's size
// first, '+' runs through a metered add, and every predicate iteration
// (map, filter, all, ...) ticks a step counter that also watches the
// deadline.
//
// The package knows nothing of flows or sessions: chatbot gives it the
// expression and the variables.
package condition

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/vm"
)

// Bounds of one evaluation.
const (
	// MaxNodes bounds an expression's syntax tree.
	MaxNodes = 1000
	// MaxText is the longest text (bytes) one operation may build.
	MaxText = 64 << 10
	// MaxElements is the longest list one builtin may build.
	MaxElements = 10_000
	// MaxAlloc is what one evaluation's operations may build in all
	// (bytes; a list element counts elementBytes).
	MaxAlloc = 1 << 20
	// MaxSteps bounds the predicate iterations of one evaluation.
	MaxSteps = 100_000
	// MaxVMUnits is expr's own budget (elements of ranges and literals).
	MaxVMUnits = 100_000
)

// Timeout bounds one evaluation's wall time. A variable only so that tests
// of the other bounds can lift it: under the race detector on a loaded
// machine an evaluation can reach it before the bound under test.
var Timeout = 100 * time.Millisecond

// elementBytes is what a list element counts against MaxAlloc.
const elementBytes = 16

// ErrBudget is an evaluation refused for going over a bound.
var ErrBudget = errors.New("the expression exceeds the evaluation budget")

// reservedPrefix starts the names of the metered functions given to
// every evaluation; an expression may not name them.
const reservedPrefix = "__"

// Names of the metered functions the patched program calls.
const (
	fnBuiltin = reservedPrefix + "builtin"
	fnAdd     = reservedPrefix + "add"
	fnMatches = reservedPrefix + "matches"
	fnTick    = reservedPrefix + "tick"
)

// Program is a compiled condition.
type Program struct {
	prog *vm.Program
}

// Compile compiles a condition: a boolean expression over the session's
// variables (unknown ones are nil). Errors: syntax and type errors, a
// name starting with "__", a builtin the budget cannot meter.
func Compile(expression string) (*Program, error) {
	base := options()
	// The plain program gives the type errors of the builtins the
	// metered program calls indirectly; it is not run.
	plain, err := expr.Compile(expression, append(base, expr.Optimize(false))...)
	if err != nil {
		return nil, firstLine(err)
	}
	if err := checkNames(plain.Node()); err != nil {
		return nil, err
	}
	p, err := expr.Compile(expression, append(base, expr.Patch(&meterPatch{}))...)
	if err != nil {
		return nil, firstLine(err)
	}
	return &Program{prog: p}, nil
}

// Check compiles a condition and runs it once with every variable nil
// (both sides of && and || evaluated), refusing with ErrBudget what goes
// over the budget with any values: a constant part such as
// repeat(repeat("ab", 10000), 20000). Other run errors are the values'
// and do not refuse it.
func Check(expression string) error {
	if _, err := Compile(expression); err != nil {
		return err
	}
	p, err := expr.Compile(expression, append(options(), expr.Patch(&meterPatch{}), expr.DisableShortCircuit())...)
	if err != nil {
		return firstLine(err)
	}
	if _, err := run(p, nil); errors.Is(err, ErrBudget) {
		return err
	}
	return nil
}

// Eval runs the condition over vars. Errors: ErrBudget (wrapped, naming
// the bound), or the expression's own (a comparison of text with a
// number, a result that is not a boolean).
func (p *Program) Eval(vars map[string]any) (bool, error) {
	out, err := run(p.prog, vars)
	if err != nil {
		return false, err
	}
	b, ok := out.(bool)
	if !ok {
		return false, fmt.Errorf("the expression did not give a boolean")
	}
	return b, nil
}

// run evaluates a patched program over vars with a fresh meter.
func run(p *vm.Program, vars map[string]any) (any, error) {
	m := &meter{deadline: time.Now().Add(Timeout)}
	env := make(map[string]any, len(vars)+4)
	for k, v := range vars {
		env[k] = v
	}
	m.bind(env)
	machine := vm.VM{MemoryBudget: MaxVMUnits}
	out, err := machine.Run(p, env)
	switch {
	case err == nil:
		return out, nil
	case !errors.Is(err, ErrBudget) && strings.Contains(err.Error(), "memory budget exceeded"):
		// expr's own budget, reported as a text.
		return nil, fmt.Errorf("%w: more than %d list elements", ErrBudget, MaxVMUnits)
	}
	return nil, oneLine{err}
}

// oneLine is an evaluation error without the lines expr adds to draw the
// source with a caret.
type oneLine struct{ err error }

func (e oneLine) Error() string { return firstLine(e.err).Error() }
func (e oneLine) Unwrap() error { return e.err }

// options are the compile options of every condition: a boolean over a
// map of variables, bounded in nodes, with the builtins that cannot be
// metered disabled.
func options() []expr.Option {
	opts := []expr.Option{
		expr.Env(compileEnv), expr.AllowUndefinedVariables(), expr.AsBool(), expr.MaxNodes(MaxNodes),
	}
	for _, f := range builtin.Builtins {
		if _, known := builtinCosts[f.Name]; !known && !unmetered[f.Name] && !f.Predicate {
			opts = append(opts, expr.DisableBuiltin(f.Name))
		}
	}
	return opts
}

// compileEnv types the metered functions for the compiler; run gives
// each evaluation its own.
var compileEnv = func() map[string]any {
	env := map[string]any{}
	(&meter{}).bind(env)
	return env
}()

// firstLine keeps the first line of an expr error (the rest draws the
// source with a caret).
func firstLine(err error) error {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return errors.New(strings.TrimSpace(msg))
}
