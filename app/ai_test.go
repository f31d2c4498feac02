package app_test

import (
	"context"
	"testing"

	"switchboard/chatbot/ai"
	"switchboard/chatbot/ai/aitest"
	"switchboard/internal/apitest"
)

// TestAIReplier: App.AI calls the vendors at the AI_*_BASE_URL options.
func TestAIReplier(t *testing.T) {
	fake := aitest.New(t)
	fake.SetReply("Hi from the vendor.")
	env := apitest.New(t,
		apitest.Setting{Name: "AI_OPENAI_BASE_URL", Value: fake.OpenAIBaseURL()},
		apitest.Setting{Name: "AI_ANTHROPIC_BASE_URL", Value: fake.AnthropicBaseURL()},
		apitest.Setting{Name: "AI_GOOGLE_BASE_URL", Value: fake.GoogleBaseURL()},
	)
	for i, vendor := range []string{ai.OpenAI, ai.Anthropic, ai.Google} {
		got, err := env.App.AI.Reply(context.Background(), ai.Request{
			Provider: vendor, Model: "m-1", APIKey: "k", MaxTokens: 100,
			History: []ai.Turn{{Role: ai.RoleUser, Text: "Hello"}},
		})
		if err != nil || got != "Hi from the vendor." {
			t.Fatalf("%s: Reply = %q, %v", vendor, got, err)
		}
		if reqs := fake.Requests(); len(reqs) != i+1 || reqs[i].Vendor != vendor {
			t.Errorf("%s: requests %+v", vendor, reqs)
		}
	}
}
