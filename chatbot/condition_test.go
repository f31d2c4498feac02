package chatbot_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"switchboard/chatbot"
	"switchboard/chatbot/condition"
)

// issueBomb is the condition of issue 28: one matching message grew the
// process by 400 MB.
const issueBomb = `len(repeat(repeat("ab", 10000), 20000)) > 1`

// doubled is a text (leaf) doubled by '+' n times over.
func doubled(n int, leaf string) string {
	var b strings.Builder
	b.WriteString(`let a0 = ` + leaf + `; `)
	for i := 1; i <= n; i++ {
		b.WriteString("let a" + itoa(i) + " = a" + itoa(i-1) + " + a" + itoa(i-1) + "; ")
	}
	b.WriteString("len(a" + itoa(n) + ") > 1")
	return b.String()
}

// nested is a list holding a list of itself n times over.
func nested(n int, leaf, use string) string {
	var b strings.Builder
	b.WriteString("let l0 = [" + leaf + "]; ")
	for i := 1; i <= n; i++ {
		b.WriteString("let l" + itoa(i) + " = [l" + itoa(i-1) + ", l" + itoa(i-1) + "]; ")
	}
	b.WriteString(strings.ReplaceAll(use, "L", "l"+itoa(n)))
	return b.String()
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// budgetAttacks are conditions that build or loop far beyond any budget,
// some only with the session's variables (input is 200 bytes of text,
// items 300 numbers).
var budgetAttacks = []struct{ name, expression string }{
	{"IssueNestedRepeat", issueBomb},
	{"RepeatOfVariable", `len(repeat(input, 1000000)) > 1`},
	{"RepeatHugeCount", `len(repeat(input, 100000000)) > 1`},
	{"DoubledByPlus", doubled(12, "repeat(input, 300)")},
	{"RepeatInMap", `len(join(map(1..5000, repeat("x", 60000)), "")) > 0`},
	{"ReplaceEveryGap", `len(replace(repeat("a", 5000), "", repeat("b", 5000))) > 0`},
	{"ToJSONOfSharedLists", nested(10, `repeat("x", 60000)`, "len(toJSON(L)) > 0")},
	{"StringOfSharedLists", nested(10, `repeat("x", 60000)`, "len(string(L)) > 0")},
	{"FlattenOfSharedLists", nested(12, `1..1000`, "len(flatten(L)) > 0")},
	{"NestedRangeMaps", `len(map(1..9999, map(1..9999, #))) > 0`},
	{"NestedLoopsOverVariable", `all(items, all(items, all(items, true)))`},
	{"JoinOfLongTexts", `len(join(map(1..2000, input + input + input), "")) > 0`},
}

// allocated runs f and returns the bytes the process allocated meanwhile.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// maxAttackAlloc bounds what one refused evaluation may allocate (the
// budget is 1 MiB built plus expr's 100,000 list elements).
const maxAttackAlloc = 8 << 20

func attackVars() map[string]any {
	items := make([]any, 300)
	for i := range items {
		items[i] = float64(i)
	}
	return map[string]any{"input": strings.Repeat("ab", 100), "items": items}
}

// TestConditionBudget: each attack compiles (most are not constant), and
// its evaluation is refused with ErrBudget, allocating a few MB at most.
func TestConditionBudget(t *testing.T) {
	for _, c := range budgetAttacks {
		t.Run(c.name, func(t *testing.T) {
			p, err := chatbot.CompileCondition(c.expression)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			var ok bool
			n := allocated(func() { ok, err = chatbot.EvalCondition(p, attackVars()) })
			if ok || !errors.Is(err, condition.ErrBudget) {
				t.Errorf("evaluated to %v, %v; want refused over budget", ok, err)
			}
			if n > maxAttackAlloc {
				t.Errorf("the evaluation allocated %d bytes (at most %d)", n, maxAttackAlloc)
			}
			t.Logf("%v (%d bytes allocated)", err, n)
		})
	}
}

// TestConditionBudgetInFlow: a flow whose condition goes over budget (the
// issue's expression, stored before saving checked it) takes the false
// branch, logs it, and allocates a few MB at most.
func TestConditionBudgetInFlow(t *testing.T) {
	g := &chatbot.Graph{Version: chatbot.GraphVersion, EntryNode: "c", Nodes: []chatbot.Node{
		{ID: "c", Type: chatbot.NodeCondition, Conf: chatbot.NodeConfig{Expression: issueBomb}},
		{ID: "yes", Type: chatbot.NodeEnd, Conf: chatbot.NodeConfig{Message: "true"}},
		{ID: "no", Type: chatbot.NodeEnd, Conf: chatbot.NodeConfig{Message: "false"}},
	}, Edges: []chatbot.Edge{{From: "c", To: "yes", Condition: chatbot.CondTrue}, {From: "c", To: "no", Condition: chatbot.CondFalse}}}
	env := &fakeEnv{}
	st := &chatbot.FlowState{Graph: g, Vars: map[string]any{}}
	var err error
	n := allocated(func() { err = chatbot.Start(context.Background(), env, st) })
	if err != nil || strings.Join(env.sent, "|") != "false" || st.Status != chatbot.SessionCompleted {
		t.Fatalf("sent %q, status %s, err %v", env.sent, st.Status, err)
	}
	if n > maxAttackAlloc {
		t.Errorf("the step allocated %d bytes (at most %d)", n, maxAttackAlloc)
	}
	if len(env.warnings) != 1 || !strings.Contains(env.warnings[0], "budget") {
		t.Errorf("warnings %q", env.warnings)
	}
}

// TestConditionSaveRefusesConstantBomb: a graph whose condition exceeds
// the budget whatever the variables is refused, naming the node.
func TestConditionSaveRefusesConstantBomb(t *testing.T) {
	for _, expression := range []string{issueBomb, doubled(12, `repeat("ab", 150)`), `name == "x" && ` + issueBomb} {
		_, err := chatbot.ParseGraph(map[string]any{"version": 2, "entry_node": "check", "nodes": []any{
			map[string]any{"id": "check", "type": "condition", "config": map[string]any{"expression": expression}}}, "edges": []any{}})
		if err == nil || !strings.Contains(err.Error(), `node "check"`) || !strings.Contains(err.Error(), "budget") {
			t.Errorf("%s: %v", expression, err)
		}
	}
}

// TestConditionsWithinBudget: ordinary conditions work as before.
func TestConditionsWithinBudget(t *testing.T) {
	vars := map[string]any{"qty": "7", "name": "Ana Lima", "tier": "gold", "total": 12.5,
		"items": []any{map[string]any{"sku": "A1", "n": 2.0}, map[string]any{"sku": "B2", "n": 1.0}},
		"tags":  map[string]any{"vip": true}}
	cases := []struct {
		expression string
		want       bool
	}{
		{`int(qty) > 5`, true},
		{`lower(trim(name)) == "ana lima" && tier in ["gold", "silver"]`, true},
		{`name + "!" == "Ana Lima!"`, true},
		{`total + 1 > 13`, true},
		{`any(items, .sku == "B2") && count(items, .n > 1) == 1`, true},
		{`len(filter(items, .n > 0)) == 2 && map(items, .sku)[0] == "A1"`, true},
		{`sum(items, .n) == 3`, true},
		{`join(map(items, .sku), ",") == "A1,B2"`, true},
		{`len(split(name, " ")) == 2 && upper(name) == "ANA LIMA"`, true},
		{`"vip" in keys(tags) && tags.vip`, true},
		{`name matches "^Ana" && !(name matches tier)`, true},
		{`repeat("ab", 3) == "ababab" && replace(name, " ", "_") == "Ana_Lima"`, true},
		{`reduce(1..10, #acc + #, 0) == 55`, true},
		{`len(toJSON(items)) > 10 && fromJSON("[1,2]")[1] == 2`, true},
		{`missing == nil && (missing ?? "x") == "x"`, true},
		{`int(qty) > 10`, false},
	}
	for _, c := range cases {
		t.Run(c.expression, func(t *testing.T) {
			if err := chatbot.CheckCondition(c.expression); err != nil {
				t.Fatalf("save: %v", err)
			}
			p, err := chatbot.CompileCondition(c.expression)
			if err != nil {
				t.Fatal(err)
			}
			got, err := chatbot.EvalCondition(p, vars)
			if err != nil || got != c.want {
				t.Fatalf("got %v, %v; want %v", got, err, c.want)
			}
		})
	}
}

// FuzzConditionEval: any expression either fails to compile or evaluates
// (to a boolean or an error) within the budget; it never panics. The
// seeds hold the budget attacks.
//
// go test -run '^$' -fuzz FuzzConditionEval ./chatbot/
func FuzzConditionEval(f *testing.F) {
	for _, c := range budgetAttacks {
		f.Add(c.expression)
	}
	f.Add(`int(qty) > 5`)
	f.Add(`any(items, # > 3) || input matches "a+"`)
	f.Fuzz(func(t *testing.T, expression string) {
		p, err := chatbot.CompileCondition(expression)
		if err != nil {
			return
		}
		n := allocated(func() { _, _ = chatbot.EvalCondition(p, attackVars()) })
		if n > 4*maxAttackAlloc {
			t.Fatalf("%q allocated %d bytes", expression, n)
		}
	})
}
