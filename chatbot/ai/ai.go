// Package ai writes the chatbot's AI replies through the vendors' documented
// HTTP APIs (OpenAI, Anthropic, Google Gemini). The bot runtime (package
// chatbot) builds a Request from the organization's settings, the matching
// AI contexts and the recent conversation, and calls a Replier.
package ai

import "context"

// Providers the chatbot settings accept as ai_provider.
const (
	OpenAI    = "openai"
	Anthropic = "anthropic"
	Google    = "google"
)

// Role of a conversation turn.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Turn is one message of the recent conversation, oldest first.
type Turn struct {
	Role string
	Text string
}

// Request is one reply to write.
type Request struct {
	// Provider is one of OpenAI, Anthropic, Google.
	Provider string
	// Model is the organization's model name; APIKey its decrypted key.
	Model, APIKey string
	// SystemPrompt is the organization's system prompt; Contexts the
	// texts of the matching AI contexts, highest priority first.
	SystemPrompt string
	Contexts     []string
	// MaxTokens bounds the reply (ai_max_tokens).
	MaxTokens int
	// History is the recent conversation, oldest first; its last turn is
	// the contact's message to answer.
	History []Turn
}

// Replier writes a reply. Errors mean no reply could be had; the caller
// sends the organization's fallback message.
type Replier interface {
	Reply(ctx context.Context, req Request) (string, error)
}
