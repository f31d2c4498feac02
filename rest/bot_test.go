package rest_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"switchboard/chatbot/ai"
	"switchboard/ent"
	"switchboard/ent/contact"
	"switchboard/ent/message"
	"switchboard/internal/testkit"
)

func TestBotKeywordReplyGreetingAndFallback(t *testing.T) {
	e := newBotEnv(t, map[string]any{"greeting_message": "Welcome {{name}}!"})
	e.Admin.Do(http.MethodPost, "/api/chatbot/keywords", map[string]any{"name": "Prices", "keywords": []any{"price"},
		"match_type": "contains", "response_type": "text", "response_content": map[string]any{"body": "Hi {{name}}, see example.com/prices"},
		"priority": 5}).ExpectStatus(t, http.StatusCreated)
	now := time.Now().Unix()

	t.Run("Keyword", func(t *testing.T) {
		e.deliver(t, "15551230001", "Ana", "wamid.kw", now, "What is the PRICE?")
		rs := e.settled(t, "15551230001", 1)
		expectTexts(t, rs, "Hi Ana, see example.com/prices")
		if rs[0].BotSource == nil || *rs[0].BotSource != message.BotSourceKeyword || rs[0].ChatAccount != "Main" {
			t.Fatalf("reply: %+v", rs[0])
		}
		e.sentTo(t, "15551230001", "Hi Ana, see example.com/prices")
	})
	t.Run("RedeliveryNoSecondReply", func(t *testing.T) {
		e.deliver(t, "15551230001", "Ana", "wamid.kw", now, "What is the PRICE?")
		// And the bot's task runs again, as after a crash.
		if err := e.App.Bot.HandleContact(e.ctx, e.contactID(t, "15551230001")); err != nil {
			t.Fatal(err)
		}
		e.drained(t)
		expectTexts(t, e.settled(t, "15551230001", 1), "Hi Ana, see example.com/prices")
	})
	t.Run("GreetingThenFallback", func(t *testing.T) {
		e.deliver(t, "15551230002", "Bo", "wamid.gr", now, "hello")
		expectTexts(t, e.settled(t, "15551230002", 1), "Welcome Bo!")
		e.deliver(t, "15551230002", "Bo", "wamid.fb", now+5, "hmm")
		rs := e.settled(t, "15551230002", 2)
		expectTexts(t, rs, "Welcome Bo!", "Sorry Bo, I did not get that")
		if *rs[0].BotSource != message.BotSourceGreeting || *rs[1].BotSource != message.BotSourceFallback {
			t.Fatalf("sources: %v %v", *rs[0].BotSource, *rs[1].BotSource)
		}
	})
	t.Run("Disabled", func(t *testing.T) {
		e.Admin.Do(http.MethodPut, "/api/chatbot/settings", map[string]any{"enabled": false}).ExpectStatus(t, http.StatusOK)
		e.deliver(t, "15551230003", "Cy", "wamid.off", now, "price?")
		if rs := e.settled(t, "15551230003", 1); len(rs) != 0 {
			t.Fatalf("replied while disabled: %q", texts(rs))
		}
		// The message was stored handled: turned on again, the bot does
		// not answer it late, even when its task runs.
		m, err := e.Client().Message.Query().Where(message.ChatMessageID("wamid.off-0")).Only(e.ctx)
		if err != nil || m.BotHandledAt == nil {
			t.Fatalf("the message of a disabled chatbot: %+v %v", m, err)
		}
		e.Admin.Do(http.MethodPut, "/api/chatbot/settings", map[string]any{"enabled": true}).ExpectStatus(t, http.StatusOK)
		if _, err := e.App.Bot.Recover(e.ctx); err != nil {
			t.Fatal(err)
		}
		if err := e.App.Bot.HandleContact(e.ctx, e.contactID(t, "15551230003")); err != nil {
			t.Fatal(err)
		}
		if rs := e.settled(t, "15551230003", 1); len(rs) != 0 {
			t.Fatalf("answered late: %q", texts(rs))
		}
	})
}

func TestBotOutOfHours(t *testing.T) {
	// No enabled day: always closed.
	e := newBotEnv(t, map[string]any{"business_hours_enabled": true, "business_hours": []any{
		map[string]any{"day": 0, "enabled": false, "start_time": "09:00", "end_time": "17:00"}},
		"out_of_hours_message": "We are closed, {{name}}."})
	e.Admin.Do(http.MethodPost, "/api/chatbot/keywords", map[string]any{"name": "Hi", "keywords": []any{"hi"},
		"match_type": "exact", "response_type": "text", "response_content": map[string]any{"body": "Hello"}}).ExpectStatus(t, http.StatusCreated)
	e.deliver(t, "15551230010", "Di", "wamid.ooh", time.Now().Unix(), "hi")
	rs := e.settled(t, "15551230010", 1)
	expectTexts(t, rs, "We are closed, Di.")
	if *rs[0].BotSource != message.BotSourceOutOfHours {
		t.Fatalf("source %v", *rs[0].BotSource)
	}
	// Once per closed period: the contact's next message gets nothing.
	e.deliver(t, "15551230010", "Di", "wamid.ooh1", time.Now().Unix()+1, "anyone there?")
	expectTexts(t, e.settled(t, "15551230010", 2), "We are closed, Di.")
	// Automated replies allowed outside hours: the keyword answers.
	e.Admin.Do(http.MethodPut, "/api/chatbot/settings", map[string]any{"allow_automated_outside_hours": true}).ExpectStatus(t, http.StatusOK)
	e.deliver(t, "15551230010", "Di", "wamid.ooh2", time.Now().Unix()+2, "hi")
	expectTexts(t, e.settled(t, "15551230010", 3), "We are closed, Di.", "Hello")
}

// TestBotOrderingUnderConcurrency sends several contacts five messages
// each in parallel deliveries while extra workers handle the same
// contacts: every contact gets exactly five replies, in order.
func TestBotOrderingUnderConcurrency(t *testing.T) {
	e := newBotEnv(t, nil)
	const perContact, contacts = 5, 6
	for i := 1; i <= perContact; i++ {
		e.Admin.Do(http.MethodPost, "/api/chatbot/keywords", map[string]any{"name": "k" + strconv.Itoa(i), "keywords": []any{"k" + strconv.Itoa(i)},
			"match_type": "exact", "response_type": "text", "response_content": map[string]any{"body": "r" + strconv.Itoa(i)}}).ExpectStatus(t, http.StatusCreated)
	}
	now := time.Now().Unix()
	phones := make([]string, contacts)
	var wg sync.WaitGroup
	for c := range contacts {
		phones[c] = "1555124000" + strconv.Itoa(c)
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.deliver(t, phones[c], "P", "wamid.ord"+strconv.Itoa(c), now, "k1", "k2", "k3", "k4", "k5")
		}()
	}
	wg.Wait()
	// Extra handlers of the same contacts race the workers.
	for _, p := range phones {
		testkit.Eventually(t, "contact stored", func() bool { return e.Client().Contact.Query().Where(contact.PhoneNumber(p)).ExistX(e.ctx) })
		id := e.contactID(t, p)
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := e.App.Bot.HandleContact(e.ctx, id); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	wg.Wait()
	for _, p := range phones {
		expectTexts(t, e.settled(t, p, perContact), "r1", "r2", "r3", "r4", "r5")
	}
}

// fakeReplier answers AI requests and records them.
type fakeReplier struct {
	mu   sync.Mutex
	reqs []ai.Request
	fail bool
}

func (f *fakeReplier) Reply(_ context.Context, req ai.Request) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, req)
	if f.fail {
		return "", errors.New("vendor down")
	}
	return "AI: " + req.History[len(req.History)-1].Text, nil
}

func TestBotAIReply(t *testing.T) {
	e := newBotEnv(t, map[string]any{"ai_enabled": true, "ai_provider": "openai", "ai_model": "gpt-test",
		"ai_api_key": "sk-test", "ai_system_prompt": "Be brief", "ai_max_tokens": 300})
	fake := &fakeReplier{}
	e.App.Bot.SetAI(fake)
	e.Admin.Do(http.MethodPost, "/api/chatbot/ai-contexts", map[string]any{"name": "Hours", "context_type": "static",
		"trigger_keywords": []any{"open"}, "static_content": "We open at 9.", "priority": 3}).ExpectStatus(t, http.StatusCreated)
	now := time.Now().Unix()
	e.deliver(t, "15551235001", "Ana", "wamid.ai1", now, "When are you open?")
	rs := e.settled(t, "15551235001", 1)
	expectTexts(t, rs, "AI: When are you open?")
	if *rs[0].BotSource != message.BotSourceAi {
		t.Fatalf("source %v", *rs[0].BotSource)
	}
	fake.mu.Lock()
	req := fake.reqs[0]
	fake.mu.Unlock()
	if req.Provider != "openai" || req.Model != "gpt-test" || req.APIKey != "sk-test" || req.SystemPrompt != "Be brief" ||
		req.MaxTokens != 300 || len(req.Contexts) != 1 || req.Contexts[0] != "We open at 9." || len(req.History) != 1 {
		t.Fatalf("request %+v", req)
	}
	// The vendor fails: the fallback answers.
	fake.mu.Lock()
	fake.fail = true
	fake.mu.Unlock()
	e.deliver(t, "15551235001", "Ana", "wamid.ai2", now+5, "hello?")
	rs = e.settled(t, "15551235001", 2)
	expectTexts(t, rs, "AI: When are you open?", "Sorry Ana, I did not get that")
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if h := fake.reqs[1].History; len(h) != 3 || h[1].Role != ai.RoleAssistant {
		t.Fatalf("history %+v", h)
	}
}

// TestBotSettlesOnArrival: with no fallback, greeting or AI, a message
// that no rule or flow answers, and any message of a contact talking to a
// person, is stored already handled, in the transaction that stores it
// (no reply task, no second transaction); the others still get their
// answers, and a contact in a flow's session is left to its task.
func TestBotSettlesOnArrival(t *testing.T) {
	e := newBotEnv(t, map[string]any{"fallback_message": ""})
	e.Admin.Do(http.MethodPost, "/api/chatbot/keywords", map[string]any{"name": "Prices", "keywords": []any{"price"},
		"match_type": "contains", "response_type": "text", "response_content": map[string]any{"body": "See our prices"}}).
		ExpectStatus(t, http.StatusCreated)
	e.flow(t, "Color", []any{"color"}, []any{
		node("start", "prompt", map[string]any{"body": "Which color?", "store_as": "color"}),
		node("bye", "end", map[string]any{"message": "{{color}} it is"}),
	}, []any{edge("start", "bye", "default")})
	now := time.Now().Unix()
	// handledWhenVisible waits for the message and reports whether it was
	// already handled the first time it could be read: settled messages
	// become visible handled, with the batch that stores them.
	handledWhenVisible := func(t *testing.T, wamid string) bool {
		t.Helper()
		var m *ent.Message
		testkit.Eventually(t, "message "+wamid+" stored", func() bool {
			var err error
			m, err = e.Client().Message.Query().Where(message.ChatMessageID(wamid)).Only(e.ctx)
			return err == nil
		})
		return m.BotHandledAt != nil
	}

	t.Run("NothingToSay", func(t *testing.T) {
		e.deliver(t, "15551239001", "Ana", "wamid.quiet", now, "hello there")
		if !handledWhenVisible(t, "wamid.quiet-0") {
			t.Fatal("a message nothing answers was stored waiting for a reply task")
		}
		if rs := e.settled(t, "15551239001", 1); len(rs) != 0 {
			t.Fatalf("replies %q", texts(rs))
		}
	})
	t.Run("KeywordStillAnswered", func(t *testing.T) {
		e.deliver(t, "15551239002", "Bo", "wamid.kw", now, "price?")
		expectTexts(t, e.settled(t, "15551239002", 1), "See our prices")
	})
	t.Run("TransferredContact", func(t *testing.T) {
		e.deliver(t, "15551239003", "Cy", "wamid.tr0", now, "hello")
		e.settled(t, "15551239003", 1)
		createTransfer(t, e.Admin, e.contactID(t, "15551239003").String(), "")
		// The keyword matches, but a person has the conversation.
		e.deliver(t, "15551239003", "Cy", "wamid.tr1", now+1, "price?")
		if !handledWhenVisible(t, "wamid.tr1-0") {
			t.Fatal("a transferred contact's message was stored waiting for a reply task")
		}
		if rs := e.settled(t, "15551239003", 2); len(rs) != 0 {
			t.Fatalf("replies %q", texts(rs))
		}
	})
	t.Run("SessionLeftToItsTask", func(t *testing.T) {
		e.deliver(t, "15551239004", "Di", "wamid.s0", now, "color")
		expectTexts(t, e.settled(t, "15551239004", 1), "Which color?")
		// "blue" matches no rule, but the session's prompt takes it.
		e.deliver(t, "15551239004", "Di", "wamid.s1", now+1, "blue")
		expectTexts(t, e.settled(t, "15551239004", 2), "Which color?", "blue it is")
	})
	t.Run("LaterMessagesWaitBehindAnAnswer", func(t *testing.T) {
		// One delivery: the flow's trigger, then its answer. The answer
		// must wait for the trigger's session, not be settled with it.
		e.deliver(t, "15551239005", "Ed", "wamid.b", now, "color", "green")
		expectTexts(t, e.settled(t, "15551239005", 2), "Which color?", "green it is")
	})
}
