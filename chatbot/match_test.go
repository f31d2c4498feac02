package chatbot_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/chatbot"
	"switchboard/ent"
	"switchboard/ent/keywordrule"
)

func rule(name string, prio int, mt string, enabled bool, kws ...string) *ent.KeywordRule {
	return &ent.KeywordRule{ID: uuid.New(), Name: name, Priority: prio, MatchType: keywordrule.MatchType(mt),
		Enabled: enabled, Keywords: kws, CreatedAt: time.Unix(int64(prio), 0)}
}

func TestMatchKeyword(t *testing.T) {
	rules := []*ent.KeywordRule{
		rule("low-contains", 1, chatbot.MatchContains, true, "price"),
		rule("high-exact", 10, chatbot.MatchExact, true, "Price"),
		rule("starts", 5, chatbot.MatchStartsWith, true, "order "),
		rule("regex", 3, chatbot.MatchRegex, true, `^track\s+#?\d{4,}$`),
		rule("disabled", 100, chatbot.MatchContains, false, "price"),
		rule("bad-regex", 50, chatbot.MatchRegex, true, `(`),
	}
	cases := []struct {
		name, text, want string
	}{
		{"ExactBeatsLowerPriority", "  PRICE ", "high-exact"},
		{"ContainsCaseInsensitive", "what is the Price today?", "low-contains"},
		{"StartsWith", "Order 1234 please", "starts"},
		{"StartsWithNotInside", "my order 1234", ""},
		{"RegexCaseInsensitive", "TRACK #12345", "regex"},
		{"RegexNoMatch", "track 12", ""},
		{"DisabledNeverMatches", "nothing here", ""},
		{"Empty", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := chatbot.MatchKeyword(rules, c.text)
			name := ""
			if got != nil {
				name = got.Name
			}
			if name != c.want {
				t.Fatalf("MatchKeyword(%q) = %q, want %q", c.text, name, c.want)
			}
		})
	}
	t.Run("TieByCreation", func(t *testing.T) {
		a := rule("first", 7, chatbot.MatchContains, true, "hi")
		b := rule("second", 7, chatbot.MatchContains, true, "hi")
		b.CreatedAt = a.CreatedAt.Add(time.Second)
		if got := chatbot.MatchKeyword([]*ent.KeywordRule{b, a}, "hi there"); got == nil || got.Name != "first" {
			t.Fatalf("got %v, want first", got)
		}
	})
}

func TestMatchContexts(t *testing.T) {
	cs := []*ent.AIContext{
		{Name: "always", Priority: 1, Enabled: true},
		{Name: "shipping", Priority: 5, Enabled: true, TriggerKeywords: []string{"Ship"}},
		{Name: "off", Priority: 9, Enabled: false},
		{Name: "refund", Priority: 3, Enabled: true, TriggerKeywords: []string{"refund"}},
	}
	got := chatbot.MatchContexts(cs, "when do you SHIP?")
	if len(got) != 2 || got[0].Name != "shipping" || got[1].Name != "always" {
		t.Fatalf("got %v", names(got))
	}
}

func names(cs []*ent.AIContext) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

func TestInBusinessHours(t *testing.T) {
	days := []chatbot.ScheduleDay{{Day: 1, Enabled: true, StartTime: "09:00", EndTime: "17:00"}}
	berlin := chatbot.Location("Europe/Berlin")
	cases := []struct {
		name string
		at   time.Time
		want bool
	}{
		{"MondayMorningBerlin", time.Date(2026, 11, 23, 8, 30, 0, 0, time.UTC), true}, // 09:30 local
		{"MondayBeforeOpen", time.Date(2026, 11, 23, 7, 59, 0, 0, time.UTC), false},   // 08:59 local
		{"MondayAtClose", time.Date(2026, 11, 23, 16, 0, 0, 0, time.UTC), false},      // 17:00 local
		{"Tuesday", time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := chatbot.InBusinessHours(days, berlin, c.at); got != c.want {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestCheckSchedule(t *testing.T) {
	bad := map[string][]chatbot.ScheduleDay{
		"DayOutOfRange": {{Day: 7, Enabled: true, StartTime: "09:00", EndTime: "10:00"}},
		"DayTwice":      {{Day: 1, StartTime: "09:00", EndTime: "10:00"}, {Day: 1, StartTime: "09:00", EndTime: "10:00"}},
		"BadClock":      {{Day: 1, Enabled: true, StartTime: "9:00", EndTime: "10:00"}},
		"Minutes60":     {{Day: 1, Enabled: true, StartTime: "09:60", EndTime: "10:00"}},
		"StartAfterEnd": {{Day: 1, Enabled: true, StartTime: "18:00", EndTime: "10:00"}},
	}
	for name, d := range bad {
		t.Run(name, func(t *testing.T) {
			if err := chatbot.CheckSchedule(d); err == nil {
				t.Fatal("accepted")
			}
		})
	}
	if err := chatbot.CheckSchedule([]chatbot.ScheduleDay{{Day: 0, Enabled: true, StartTime: "00:00", EndTime: "24:00"}}); err != nil {
		t.Fatal(err)
	}
}

func TestConditionAndSubstitute(t *testing.T) {
	p, err := chatbot.CompileCondition(`age >= 18 && city == "Berlin"`)
	if err != nil {
		t.Fatal(err)
	}
	ok, err := chatbot.EvalCondition(p, map[string]any{"age": 20, "city": "Berlin"})
	if err != nil || !ok {
		t.Fatalf("got %v, %v", ok, err)
	}
	if _, err := chatbot.CompileCondition(`age >=`); err == nil {
		t.Fatal("a broken expression compiled")
	}
	if _, err := chatbot.CompileCondition(`"text"`); err == nil {
		t.Fatal("a non-boolean expression compiled")
	}
	if got := chatbot.Substitute("Hi {{name}}, {{ missing }}!", map[string]any{"name": "Ana"}); got != "Hi Ana, !" {
		t.Fatalf("got %q", got)
	}
}
