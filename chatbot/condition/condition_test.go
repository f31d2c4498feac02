package condition_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"switchboard/chatbot/condition"
)

// TestCompileRefuses: names of the metered functions cannot be written,
// and ill-formed or non-boolean expressions do not compile.
func TestCompileRefuses(t *testing.T) {
	for name, expression := range map[string]string{
		"ErrReservedTick":    `__tick(true)`,
		"ErrReservedBuiltin": `__builtin("repeat", "a", 1) == "a"`,
		"ErrReservedLet":     `let __x = 1; __x == 1`,
		"ErrSyntax":          `a >=`,
		"ErrNotBoolean":      `"text"`,
		"ErrBuiltinTypes":    `repeat(1, "a") == ""`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := condition.Compile(expression); err == nil || strings.Contains(err.Error(), "\n") {
				t.Fatalf("compiled, or a multi-line error: %v", err)
			}
		})
	}
}

// TestBudgetErrors: each bound refuses with ErrBudget and says which.
func TestBudgetErrors(t *testing.T) {
	// Each case must meet its own bound, not the wall-time one first.
	defer func(d time.Duration) { condition.Timeout = d }(condition.Timeout)
	condition.Timeout = time.Minute
	cases := []struct{ expression, says string }{
		{`len(repeat("ab", 40000)) > 0`, "text of more than"},
		{`len("a" + repeat("b", 65536)) > 0`, "text of more than"},
		{`len(split(repeat("a", 20000), "")) > 0`, "list of more than"},
		{`len(map(1..99999, 1..2)) > 0`, "list elements"},
		{`len(map(1..5000, repeat("x", 1000))) > 0`, "bytes built"}, // over MaxAlloc after ~1,000 steps, long before Timeout even with -race on a loaded machine
		{`all(items, all(items, true))`, "iterations"},
		{`"a" matches repeat("a", 501)`, "pattern of more than"},
	}
	for _, c := range cases {
		t.Run(c.expression, func(t *testing.T) {
			p, err := condition.Compile(c.expression)
			if err != nil {
				t.Fatal(err)
			}
			items := make([]any, 400)
			for i := range items {
				items[i] = i
			}
			_, err = p.Eval(map[string]any{"items": items})
			if !errors.Is(err, condition.ErrBudget) || !strings.Contains(err.Error(), c.says) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want ErrBudget saying %q on one line", err, c.says)
			}
		})
	}
}

// TestCheck: a save refuses only what exceeds the budget with any
// variables; an error that depends on them does not refuse.
func TestCheck(t *testing.T) {
	for expression, refused := range map[string]bool{
		`len(repeat(repeat("ab", 10000), 20000)) > 1`: true,
		`x == "a" || len(repeat("a", 100000)) > 0`:    true,
		`int(qty) > 5`:                   false,
		`len(repeat(input, 100000)) > 1`: false,
		`len(repeat("ab", 1000)) == 2000 && lower(name ?? "") == "ana"`: false,
		`now().Year() > 2000 && duration("1h") > duration("1m")`:        false,
	} {
		err := condition.Check(expression)
		if got := errors.Is(err, condition.ErrBudget); got != refused || (!refused && err != nil) {
			t.Errorf("%s: %v (refused %v)", expression, err, refused)
		}
	}
}
