package ai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// OpenAI Chat Completions: POST {base}/chat/completions with
// "Authorization: Bearer {key}"; the system input is the first message
// (role "system"), the reply bound max_completion_tokens (max_tokens is
// deprecated and refused by reasoning models).

type openAIRequest struct {
	Model               string          `json:"model"`
	Messages            []openAIMessage `json:"messages"`
	MaxCompletionTokens int             `json:"max_completion_tokens"`
}

type openAIMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func openAICall(base string, req Request) (*call, error) {
	turns, err := conversation(req.History, false)
	if err != nil {
		return nil, err
	}
	body := openAIRequest{Model: req.Model, MaxCompletionTokens: req.MaxTokens}
	if sys := systemText(req.SystemPrompt, req.Contexts); sys != "" {
		body.Messages = append(body.Messages, openAIMessage{Role: "system", Content: sys})
	}
	for _, t := range turns {
		body.Messages = append(body.Messages, openAIMessage{Role: t.Role, Content: t.Text})
	}
	return &call{
		url:    base + "/chat/completions",
		header: http.Header{"Authorization": {"Bearer " + req.APIKey}},
		body:   jsonBody(body),
		decode: decodeOpenAI,
	}, nil
}

// openAIResponse is the part of a chat completion object we read.
type openAIResponse struct {
	Object  string `json:"object"`
	Choices []struct {
		Message struct {
			Role    string  `json:"role"`
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

// decodeOpenAI reads the first choice's text. A refusal or a
// content_filter finish is ErrBlocked; no text (or a tool call) is
// ErrNoReply. A "length" finish keeps the text cut at max tokens.
func decodeOpenAI(body []byte) (string, error) {
	var r openAIResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return "", fmt.Errorf("%w: %v", ErrUnexpectedResponse, err)
	}
	if len(r.Choices) == 0 {
		return "", fmt.Errorf("%w: no choices", ErrNoReply)
	}
	ch := r.Choices[0]
	if ch.Message.Refusal != nil && strings.TrimSpace(*ch.Message.Refusal) != "" {
		return "", fmt.Errorf("%w: the model refused", ErrBlocked)
	}
	if ch.FinishReason == "content_filter" {
		return "", fmt.Errorf("%w: finish_reason content_filter", ErrBlocked)
	}
	var text string
	if ch.Message.Content != nil {
		text = strings.TrimSpace(*ch.Message.Content)
	}
	if text == "" {
		return "", fmt.Errorf("%w: empty content (finish_reason %q)", ErrNoReply, ch.FinishReason)
	}
	return text, nil
}
