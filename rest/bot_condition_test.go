package rest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// conditionFlow is a flow that asks for a value and branches on a
// condition over it.
func conditionFlow(expression string) map[string]any {
	return map[string]any{"version": 2, "entry_node": "start", "nodes": []any{
		node("start", "prompt", map[string]any{"body": "Value?", "store_as": "input"}),
		node("check", "condition", map[string]any{"expression": expression}),
		node("yes", "end", map[string]any{"message": "true"}),
		node("no", "end", map[string]any{"message": "false"}),
	}, "edges": []any{edge("start", "check", "default"), edge("check", "yes", "true"), edge("check", "no", "false")}}
}

// TestBotConditionBudget: a Manager cannot save the condition of issue 28
// (it grew the process by 400 MB per matching message), on create or on
// update; one whose size depends on the customer's answer saves, and at
// run time its evaluation is refused and reads as false.
func TestBotConditionBudget(t *testing.T) {
	e := newBotEnv(t, nil)
	manager := e.NewUser(e.OrgID, "Manager")
	const bomb = `len(repeat(repeat("ab", 10000), 20000)) > 1`
	t.Run("ErrCreate", func(t *testing.T) {
		res := manager.Do(http.MethodPost, "/api/chatbot/flows", map[string]any{"name": "Bomb", "trigger_keywords": []any{"bomb"},
			"graph": conditionFlow(bomb)}).ExpectError(t, http.StatusBadRequest)
		if msg := res.String("message"); !strings.Contains(msg, `node "check"`) || !strings.Contains(msg, "budget") {
			t.Fatalf("message %q", msg)
		}
	})
	id := manager.Do(http.MethodPost, "/api/chatbot/flows", map[string]any{"name": "Grow", "trigger_keywords": []any{"grow"},
		"graph": conditionFlow(`len(repeat(input, 100000)) > 1`)}).ExpectStatus(t, http.StatusCreated).String("data.id")
	t.Run("ErrUpdate", func(t *testing.T) {
		res := manager.Do(http.MethodPut, "/api/chatbot/flows/"+id, map[string]any{"graph": conditionFlow(bomb)}).
			ExpectError(t, http.StatusBadRequest)
		if msg := res.String("message"); !strings.Contains(msg, `node "check"`) {
			t.Fatalf("message %q", msg)
		}
	})
	t.Run("RefusedAtRunTime", func(t *testing.T) {
		const p = "15551260001"
		now := time.Now().Unix()
		e.deliver(t, p, "Ana", "wamid.grow1", now, "grow")
		e.settled(t, p, 1)
		e.deliver(t, p, "Ana", "wamid.grow2", now+1, strings.Repeat("ab", 100))
		expectTexts(t, e.settled(t, p, 2), "Value?", "false")
	})
}
