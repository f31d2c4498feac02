package rest_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent"
	"switchboard/ent/chatbotsession"
	"switchboard/ent/message"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
)

var chatbotSettingsKeys = []string{"enabled", "business_hours_enabled", "allow_automated_outside_hours",
	"allow_agent_queue_pickup", "assign_to_same_agent", "agent_current_conversation_only", "ai_enabled", "sla_enabled",
	"client_reminder_enabled", "greeting_message", "fallback_message", "out_of_hours_message", "ai_provider", "ai_model",
	"ai_system_prompt", "sla_auto_close_message", "sla_warning_message", "client_reminder_message",
	"client_auto_close_message", "greeting_buttons", "fallback_buttons", "business_hours", "sla_escalation_notify_ids",
	"session_timeout_minutes", "ai_max_tokens", "sla_response_minutes", "sla_resolution_minutes",
	"sla_escalation_minutes", "sla_auto_close_hours", "client_reminder_minutes", "client_auto_close_minutes",
	"has_ai_api_key"}

var chatbotStatsKeys = []string{"total_sessions", "active_sessions", "messages_handled", "ai_responses",
	"agent_transfers", "keywords_count", "flows_count", "ai_contexts_count"}

// chatbotFixtures writes rows the configuration API only reads (sessions,
// bot messages, transfers) straight through ent, as the runtime will.
type chatbotFixtures struct {
	t   *testing.T
	env *apitest.Env
}

func (f chatbotFixtures) ctx(org uuid.UUID) context.Context {
	return viewer.SystemContext(context.Background(), org)
}

func (f chatbotFixtures) session(org uuid.UUID, contact string, status chatbotsession.Status) *ent.ChatbotSession {
	f.t.Helper()
	s, err := f.env.Client().ChatbotSession.Create().SetContactID(uuid.MustParse(contact)).SetStatus(status).
		SetCurrentStep("ask").SetVariables(map[string]any{"email": "a@example.com"}).Save(f.ctx(org))
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

func (f chatbotFixtures) botMessage(org uuid.UUID, contact string, src *message.BotSource) {
	f.t.Helper()
	err := f.env.Client().Message.Create().SetContactID(uuid.MustParse(contact)).SetDirection(message.DirectionOutgoing).
		SetNillableBotSource(src).SetContent(map[string]any{"body": "hi"}).Exec(f.ctx(org))
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f chatbotFixtures) transfer(org uuid.UUID, contact string) {
	f.t.Helper()
	if err := f.env.Client().AgentTransfer.Create().SetContactID(uuid.MustParse(contact)).Exec(f.ctx(org)); err != nil {
		f.t.Fatal(err)
	}
}

func botSource(s message.BotSource) *message.BotSource { return &s }

func TestChatbotSettings(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	manager := env.NewUser(env.OrgID, access.RoleManager)
	other := env.NewOrg("Elsewhere")
	fx := chatbotFixtures{t, env}
	const path = "/api/chatbot/settings"

	t.Run("GetDefaults", func(t *testing.T) {
		res := agent.Do(http.MethodGet, path, nil).ExpectStatus(t, http.StatusOK)
		expectKeys(t, res, "data.settings", chatbotSettingsKeys...)
		expectKeys(t, res, "data.stats", chatbotStatsKeys...)
		if res.Get("data.settings.has_ai_api_key") != false || res.Number("data.settings.session_timeout_minutes") != 30 ||
			res.Len("data.settings.greeting_buttons") != 0 {
			t.Fatalf("defaults: %s", res.Raw)
		}
	})

	t.Run("Update", func(t *testing.T) {
		body := map[string]any{
			"enabled": true, "greeting_message": "Hello!", "ai_provider": "anthropic", "ai_model": "claude",
			"ai_api_key": "sk-very-secret-key", "ai_max_tokens": 800,
			"greeting_buttons":       []any{map[string]any{"id": "sales", "title": "Sales"}, map[string]any{"id": "help", "title": "Help"}},
			"business_hours_enabled": true,
			"business_hours": []any{map[string]any{"day": 1, "enabled": true, "start_time": "09:00", "end_time": "17:30"},
				map[string]any{"day": 0, "enabled": false, "start_time": "", "end_time": ""}},
			"sla_escalation_notify_ids": []any{manager.UserID.String(), manager.UserID.String()},
			"session_timeout_minutes":   45, "sla_auto_close_hours": 0,
		}
		res := admin.Do(http.MethodPut, path, body).ExpectStatus(t, http.StatusOK)
		s := "data.settings."
		if res.Get(s+"enabled") != true || res.String(s+"greeting_message") != "Hello!" ||
			res.String(s+"ai_provider") != "anthropic" || res.Get(s+"has_ai_api_key") != true ||
			res.Number(s+"ai_max_tokens") != 800 || res.Len(s+"greeting_buttons") != 2 ||
			res.String(s+"greeting_buttons.1.title") != "Help" || res.String(s+"business_hours.0.end_time") != "17:30" ||
			res.Len(s+"sla_escalation_notify_ids") != 1 || res.Number(s+"session_timeout_minutes") != 45 {
			t.Fatalf("updated: %s", res.Raw)
		}
		if strings.Contains(string(res.Raw), "sk-very-secret-key") {
			t.Fatal("the AI API key was returned")
		}
		stored, err := env.Client().ChatbotSettings.Query().Only(fx.ctx(env.OrgID))
		if err != nil {
			t.Fatal(err)
		}
		if len(stored.AiAPIKeyEncrypted) == 0 || bytes.Contains(stored.AiAPIKeyEncrypted, []byte("sk-very-secret-key")) {
			t.Fatal("the AI API key is not encrypted at rest")
		}
		key, err := env.App.Resolver.Chatbot.AIAPIKey(stored)
		if err != nil || key != "sk-very-secret-key" {
			t.Fatalf("decrypted key %q, %v", key, err)
		}

		// Absent fields keep their value; an empty key removes it.
		res = admin.Do(http.MethodPut, path, map[string]any{"fallback_message": "Sorry?", "ai_api_key": ""}).
			ExpectStatus(t, http.StatusOK)
		if res.String(s+"greeting_message") != "Hello!" || res.String(s+"fallback_message") != "Sorry?" ||
			res.Get(s+"has_ai_api_key") != false || res.Len(s+"greeting_buttons") != 2 {
			t.Fatalf("partial update: %s", res.Raw)
		}
		// Another organization's settings are its own.
		theirs := other.Do(http.MethodGet, path, nil).ExpectStatus(t, http.StatusOK)
		if theirs.String(s+"greeting_message") != "" {
			t.Fatalf("settings leaked: %s", theirs.Raw)
		}
	})

	t.Run("ErrAgentCannotUpdate", func(t *testing.T) {
		agent.Do(http.MethodPut, path, map[string]any{"enabled": false}).ExpectError(t, http.StatusForbidden)
		env.Anonymous().Do(http.MethodGet, path, nil).ExpectError(t, http.StatusUnauthorized)
	})

	t.Run("BadRequests", func(t *testing.T) {
		btn := func(id, title string) map[string]any { return map[string]any{"id": id, "title": title} }
		day := func(d int, start, end string) map[string]any {
			return map[string]any{"day": d, "enabled": true, "start_time": start, "end_time": end}
		}
		badRequests(t, admin, http.MethodPut, path, map[string]any{
			"ErrEmptyBody":          "",
			"ErrWrongType":          `{"enabled": "yes"}`,
			"ErrDayOutOfRange":      map[string]any{"business_hours": []any{day(7, "09:00", "10:00")}},
			"ErrDayTwice":           map[string]any{"business_hours": []any{day(1, "09:00", "10:00"), day(1, "11:00", "12:00")}},
			"ErrClockFormat":        map[string]any{"business_hours": []any{day(1, "9am", "10:00")}},
			"ErrStartAfterEnd":      map[string]any{"business_hours": []any{day(1, "18:00", "09:00")}},
			"ErrNegativeMinutes":    map[string]any{"sla_response_minutes": -1},
			"ErrHugeMinutes":        map[string]any{"client_reminder_minutes": 10_000_000},
			"ErrHugeHours":          map[string]any{"sla_auto_close_hours": 100_000},
			"ErrZeroSessionTimeout": map[string]any{"session_timeout_minutes": 0},
			"ErrFourButtons":        map[string]any{"greeting_buttons": []any{btn("a", "1"), btn("b", "2"), btn("c", "3"), btn("d", "4")}},
			"ErrLongTitle":          map[string]any{"fallback_buttons": []any{btn("a", strings.Repeat("x", 21))}},
			"ErrDuplicateButtonID":  map[string]any{"greeting_buttons": []any{btn("a", "1"), btn("a", "2")}},
			"ErrEmptyTitle":         map[string]any{"greeting_buttons": []any{btn("a", " ")}},
			"ErrProvider":           map[string]any{"ai_provider": "cohere"},
			"ErrZeroTokens":         map[string]any{"ai_max_tokens": 0},
			"ErrHugeTokens":         map[string]any{"ai_max_tokens": 1_000_000},
			"ErrNotAUserID":         map[string]any{"sla_escalation_notify_ids": []any{"bob"}},
			"ErrNotAMember":         map[string]any{"sla_escalation_notify_ids": []any{other.UserID.String()}},
			"ErrGreetingTooLong":    map[string]any{"greeting_message": strings.Repeat("é", 4097)},
			"ErrKeyTooLong":         map[string]any{"ai_api_key": strings.Repeat("k", 513)},
		})
	})

	t.Run("StatsCountedFromRows", func(t *testing.T) {
		c1 := newContact(t, admin, "+15550012001")
		c2 := newContact(t, admin, "+15550012002")
		theirs := newContact(t, other, "+15550012003")
		fx.session(env.OrgID, c1, chatbotsession.StatusActive)
		fx.session(env.OrgID, c2, chatbotsession.StatusCompleted)
		fx.session(other.OrgID, theirs, chatbotsession.StatusActive)
		fx.botMessage(env.OrgID, c1, botSource(message.BotSourceKeyword))
		fx.botMessage(env.OrgID, c1, botSource(message.BotSourceAi))
		fx.botMessage(env.OrgID, c2, botSource(message.BotSourceAi))
		fx.botMessage(env.OrgID, c2, nil) // a person's reply
		fx.botMessage(other.OrgID, theirs, botSource(message.BotSourceAi))
		fx.transfer(env.OrgID, c1)
		admin.Do(http.MethodPost, "/api/chatbot/keywords", map[string]any{"keywords": []any{"hi"},
			"response_content": map[string]any{"body": "Hello"}}).ExpectStatus(t, http.StatusCreated)
		admin.Do(http.MethodPost, "/api/chatbot/ai-contexts", map[string]any{"name": "FAQ", "static_content": "We ship daily"}).
			ExpectStatus(t, http.StatusCreated)
		admin.Do(http.MethodPost, "/api/chatbot/flows", map[string]any{"name": "Empty"}).ExpectStatus(t, http.StatusCreated)

		res := agent.Do(http.MethodGet, path, nil).ExpectStatus(t, http.StatusOK)
		want := map[string]float64{"total_sessions": 2, "active_sessions": 1, "messages_handled": 3, "ai_responses": 2,
			"agent_transfers": 1, "keywords_count": 1, "flows_count": 1, "ai_contexts_count": 1}
		for k, v := range want {
			if got := res.Number("data.stats." + k); got != v {
				t.Errorf("stats.%s = %v, want %v", k, got, v)
			}
		}
		their := other.Do(http.MethodGet, path, nil).ExpectStatus(t, http.StatusOK)
		if their.Number("data.stats.total_sessions") != 1 || their.Number("data.stats.ai_responses") != 1 ||
			their.Number("data.stats.keywords_count") != 0 {
			t.Errorf("other organization's stats: %s", their.Raw)
		}
	})
}

var keywordRuleKeys = []string{"id", "name", "keywords", "match_type", "response_type", "response_content",
	"priority", "enabled", "created_at", "updated_at"}

func TestChatbotKeywords(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")
	const path = "/api/chatbot/keywords"

	var ruleID string
	t.Run("Create", func(t *testing.T) {
		res := admin.Do(http.MethodPost, path, map[string]any{
			"name": "Greeting", "keywords": []any{"hello", " hi ", "HELLO"}, "match_type": "exact", "response_type": "text",
			"response_content": map[string]any{"body": "Hi there", "buttons": []any{map[string]any{"id": "menu", "title": "Menu"}}},
			"priority":         10, "enabled": true,
		}).ExpectStatus(t, http.StatusCreated)
		expectKeys(t, res, "data", keywordRuleKeys...)
		ruleID = res.String("data.id")
		if res.Len("data.keywords") != 2 || res.String("data.keywords.1") != "hi" || res.String("data.match_type") != "exact" ||
			res.String("data.response_content.body") != "Hi there" || res.Number("data.priority") != 10 {
			t.Fatalf("rule: %s", res.Raw)
		}
		// Whatomate's client sends no name: the keywords name the rule.
		res = admin.Do(http.MethodPost, path, map[string]any{"keywords": []any{`^order\s+\d+$`}, "match_type": "regex",
			"response_type": "transfer", "response_content": map[string]any{"body": ""}}).ExpectStatus(t, http.StatusCreated)
		if res.String("data.name") != `^order\s+\d+$` || res.Get("data.enabled") != true {
			t.Fatalf("unnamed rule: %s", res.Raw)
		}
		admin.Do(http.MethodPost, path, map[string]any{"name": "Prices", "keywords": []any{"price"}, "match_type": "starts_with",
			"response_content": map[string]any{"body": "See our list"}}).ExpectStatus(t, http.StatusCreated)
		other.Do(http.MethodPost, path, map[string]any{"name": "Theirs", "keywords": []any{"hello"},
			"response_content": map[string]any{"body": "x"}}).ExpectStatus(t, http.StatusCreated)

		badRequests(t, admin, http.MethodPost, path, map[string]any{
			"ErrEmptyBody":     "",
			"ErrNoKeywords":    map[string]any{"name": "x", "keywords": []any{}, "response_content": map[string]any{"body": "x"}},
			"ErrBlankKeywords": map[string]any{"keywords": []any{" ", ""}, "response_content": map[string]any{"body": "x"}},
			"ErrMatchType":     map[string]any{"keywords": []any{"a"}, "match_type": "fuzzy", "response_content": map[string]any{"body": "x"}},
			"ErrInvalidRegex":  map[string]any{"keywords": []any{"(a"}, "match_type": "regex", "response_content": map[string]any{"body": "x"}},
			"ErrBackreference": map[string]any{"keywords": []any{`(a)\1`}, "match_type": "regex", "response_content": map[string]any{"body": "x"}},
			"ErrLongRegex":     map[string]any{"keywords": []any{strings.Repeat("a", 501)}, "match_type": "regex", "response_content": map[string]any{"body": "x"}},
			"ErrResponseType":  map[string]any{"keywords": []any{"a"}, "response_type": "video", "response_content": map[string]any{"body": "x"}},
			"ErrNoBody":        map[string]any{"keywords": []any{"a"}, "response_content": map[string]any{"body": ""}},
			"ErrFourButtons": map[string]any{"keywords": []any{"a"}, "response_content": map[string]any{"body": "x", "buttons": []any{
				map[string]any{"id": "1", "title": "a"}, map[string]any{"id": "2", "title": "b"},
				map[string]any{"id": "3", "title": "c"}, map[string]any{"id": "4", "title": "d"}}}},
			"ErrTooManyKeywords": map[string]any{"keywords": make([]string, 51), "response_content": map[string]any{"body": "x"}},
			"ErrPriority":        map[string]any{"keywords": []any{"a"}, "priority": 2_000_000, "response_content": map[string]any{"body": "x"}},
			"ErrWrongType":       `{"keywords": "a"}`,
		})
	})

	t.Run("ErrAgentCannotWrite", func(t *testing.T) {
		agent.Do(http.MethodPost, path, map[string]any{"keywords": []any{"a"}, "response_content": map[string]any{"body": "x"}}).
			ExpectError(t, http.StatusForbidden)
		agent.Do(http.MethodPut, path+"/"+ruleID, map[string]any{"enabled": false}).ExpectError(t, http.StatusForbidden)
		agent.Do(http.MethodDelete, path+"/"+ruleID, nil).ExpectError(t, http.StatusForbidden)
	})

	t.Run("ListAndSearch", func(t *testing.T) {
		res := agent.Do(http.MethodGet, path, nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.rules") != 3 || res.Number("data.total") != 3 || res.Number("data.page") != 1 ||
			res.Number("data.limit") != 20 || res.String("data.rules.0.name") != "Greeting" {
			t.Fatalf("list: %s", res.Raw)
		}
		expectKeys(t, res, "data.rules.0", keywordRuleKeys...)
		if res := agent.Do(http.MethodGet, path+"?search=HI", nil); res.Number("data.total") != 1 || res.String("data.rules.0.id") != ruleID {
			t.Fatalf("search by keyword: %s", res.Raw)
		}
		if res := agent.Do(http.MethodGet, path+"?search=pric", nil); res.Number("data.total") != 1 {
			t.Fatalf("search by name: %s", res.Raw)
		}
		if res := agent.Do(http.MethodGet, path+"?search=100%25", nil); res.Number("data.total") != 0 {
			t.Fatalf("a %% in search is a literal: %s", res.Raw)
		}
		page := agent.Do(http.MethodGet, path+"?limit=1&page=2", nil).ExpectStatus(t, http.StatusOK)
		if page.Len("data.rules") != 1 || page.Number("data.total") != 3 {
			t.Fatalf("page: %s", page.Raw)
		}
		agent.Do(http.MethodGet, path+"?limit=0", nil).ExpectError(t, http.StatusBadRequest)
	})

	t.Run("Update", func(t *testing.T) {
		res := admin.Do(http.MethodPut, path+"/"+ruleID, map[string]any{"enabled": false, "priority": 3}).ExpectStatus(t, http.StatusOK)
		if res.Get("data.enabled") != false || res.Number("data.priority") != 3 || res.String("data.name") != "Greeting" ||
			res.String("data.response_content.body") != "Hi there" || res.Len("data.keywords") != 2 {
			t.Fatalf("partial update: %s", res.Raw)
		}
		admin.Do(http.MethodPut, path+"/"+ruleID, map[string]any{"match_type": "regex", "keywords": []any{"[z-a]"}}).
			ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodPut, path+"/not-a-uuid", map[string]any{"enabled": true}).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodPut, path+"/"+uuid.NewString(), map[string]any{"enabled": true}).ExpectError(t, http.StatusNotFound)
		other.Do(http.MethodPut, path+"/"+ruleID, map[string]any{"enabled": true}).ExpectError(t, http.StatusNotFound)
	})

	t.Run("Delete", func(t *testing.T) {
		other.Do(http.MethodDelete, path+"/"+ruleID, nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodDelete, path+"/"+ruleID, nil).ExpectStatus(t, http.StatusOK)
		admin.Do(http.MethodDelete, path+"/"+ruleID, nil).ExpectError(t, http.StatusNotFound)
		if res := other.Do(http.MethodGet, path, nil); res.Number("data.total") != 1 {
			t.Fatalf("other organization's rules: %s", res.Raw)
		}
	})
}

var aiContextKeys = []string{"id", "name", "context_type", "trigger_keywords", "static_content", "api_config",
	"enabled", "priority", "created_at", "updated_at"}

func TestChatbotAIContexts(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")
	const path = "/api/chatbot/ai-contexts"

	var staticID, apiID string
	t.Run("Create", func(t *testing.T) {
		res := admin.Do(http.MethodPost, path, map[string]any{"name": "Shipping", "trigger_keywords": []any{"ship", "delivery"},
			"static_content": "We ship within 2 days.", "priority": 5}).ExpectStatus(t, http.StatusCreated)
		expectKeys(t, res, "data", aiContextKeys...)
		staticID = res.String("data.id")
		if res.String("data.context_type") != "static" || res.Len("data.trigger_keywords") != 2 || res.Get("data.enabled") != true {
			t.Fatalf("static: %s", res.Raw)
		}
		res = admin.Do(http.MethodPost, path, map[string]any{"name": "Orders", "context_type": "api",
			"api_config": map[string]any{"url": "https://api.example.com/orders?phone={{phone_number}}", "method": "get",
				"headers": map[string]any{"Authorization": "Bearer x"}, "response_path": "data.orders"}}).
			ExpectStatus(t, http.StatusCreated)
		apiID = res.String("data.id")
		if res.String("data.api_config.method") != "GET" || res.String("data.api_config.response_path") != "data.orders" {
			t.Fatalf("api: %s", res.Raw)
		}
		api := func(cfg map[string]any) map[string]any {
			return map[string]any{"name": "x", "context_type": "api", "api_config": cfg}
		}
		badRequests(t, admin, http.MethodPost, path, map[string]any{
			"ErrEmptyBody":    "",
			"ErrNoName":       map[string]any{"static_content": "x"},
			"ErrType":         map[string]any{"name": "x", "context_type": "rss", "static_content": "x"},
			"ErrStaticEmpty":  map[string]any{"name": "x"},
			"ErrNoAPIConfig":  map[string]any{"name": "x", "context_type": "api"},
			"ErrFTP":          api(map[string]any{"url": "ftp://example.com/x"}),
			"ErrRelativeURL":  api(map[string]any{"url": "/x"}),
			"ErrMethod":       api(map[string]any{"url": "https://example.com", "method": "DELETE"}),
			"ErrHeaderSplit":  api(map[string]any{"url": "https://example.com", "headers": map[string]any{"X": "a\nb"}}),
			"ErrHeaderType":   api(map[string]any{"url": "https://example.com", "headers": map[string]any{"X": 1}}),
			"ErrContentLong":  map[string]any{"name": "x", "static_content": strings.Repeat("x", 50001)},
			"ErrManyKeywords": map[string]any{"name": "x", "static_content": "x", "trigger_keywords": make([]string, 51)},
		})
	})

	t.Run("ErrAgentCannotWrite", func(t *testing.T) {
		agent.Do(http.MethodPost, path, map[string]any{"name": "x", "static_content": "x"}).ExpectError(t, http.StatusForbidden)
		agent.Do(http.MethodPut, path+"/"+staticID, map[string]any{"enabled": false}).ExpectError(t, http.StatusForbidden)
		agent.Do(http.MethodDelete, path+"/"+staticID, nil).ExpectError(t, http.StatusForbidden)
	})

	t.Run("ListAndSearch", func(t *testing.T) {
		res := agent.Do(http.MethodGet, path, nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.contexts") != 2 || res.Number("data.total") != 2 || res.String("data.contexts.0.id") != staticID {
			t.Fatalf("list: %s", res.Raw)
		}
		expectKeys(t, res, "data.contexts.0", aiContextKeys...)
		for q, want := range map[string]float64{"DELIVERY": 1, "2 days": 1, "orders": 1, "nothing": 0} {
			if res := agent.Do(http.MethodGet, path+"?search="+strings.ReplaceAll(q, " ", "%20"), nil); res.Number("data.total") != want {
				t.Errorf("search %q: %s", q, res.Raw)
			}
		}
	})

	t.Run("UpdateAndDelete", func(t *testing.T) {
		res := admin.Do(http.MethodPut, path+"/"+apiID, map[string]any{"priority": 9, "enabled": false}).ExpectStatus(t, http.StatusOK)
		if res.Number("data.priority") != 9 || res.Get("data.enabled") != false || res.String("data.context_type") != "api" {
			t.Fatalf("update: %s", res.Raw)
		}
		admin.Do(http.MethodPut, path+"/"+apiID, map[string]any{"api_config": map[string]any{"url": "gopher://x"}}).
			ExpectError(t, http.StatusBadRequest)
		res = admin.Do(http.MethodPut, path+"/"+apiID, map[string]any{"context_type": "static", "static_content": "now fixed"}).
			ExpectStatus(t, http.StatusOK)
		if res.String("data.context_type") != "static" || len(res.Get("data.api_config").(map[string]any)) != 0 {
			t.Fatalf("to static: %s", res.Raw)
		}
		other.Do(http.MethodPut, path+"/"+apiID, map[string]any{"enabled": true}).ExpectError(t, http.StatusNotFound)
		other.Do(http.MethodDelete, path+"/"+apiID, nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodDelete, path+"/"+apiID, nil).ExpectStatus(t, http.StatusOK)
		admin.Do(http.MethodPut, path+"/"+apiID, map[string]any{"enabled": true}).ExpectError(t, http.StatusNotFound)
	})
}
