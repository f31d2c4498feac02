package ai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Anthropic Messages: POST {base}/v1/messages with x-api-key and
// anthropic-version; the system input is the top-level "system" field,
// max_tokens is required, and the messages alternate user/assistant
// starting with the user.

type anthropicRequest struct {
	Model     string             `json:"model"`
	MaxTokens int                `json:"max_tokens"`
	System    string             `json:"system,omitempty"`
	Messages  []anthropicMessage `json:"messages"`
}

type anthropicMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func anthropicCall(base string, req Request) (*call, error) {
	turns, err := conversation(req.History, true)
	if err != nil {
		return nil, err
	}
	body := anthropicRequest{Model: req.Model, MaxTokens: req.MaxTokens, System: systemText(req.SystemPrompt, req.Contexts)}
	for _, t := range turns {
		body.Messages = append(body.Messages, anthropicMessage{Role: t.Role, Content: t.Text})
	}
	return &call{
		url: base + "/v1/messages",
		header: http.Header{
			"X-Api-Key":         {req.APIKey},
			"Anthropic-Version": {AnthropicVersion},
		},
		body:   jsonBody(body),
		decode: decodeAnthropic,
	}, nil
}

// anthropicResponse is the part of a Message object we read.
type anthropicResponse struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StopReason *string `json:"stop_reason"`
}

// decodeAnthropic joins the text blocks (thinking blocks are skipped).
// stop_reason "refusal" is ErrBlocked; end_turn, stop_sequence and
// max_tokens (the text cut at max tokens) give the text; any other stop
// (a tool call, a paused turn) or no text is ErrNoReply.
func decodeAnthropic(body []byte) (string, error) {
	var r anthropicResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return "", fmt.Errorf("%w: %v", ErrUnexpectedResponse, err)
	}
	if r.Type != "message" {
		return "", fmt.Errorf("%w: type %q, want message", ErrUnexpectedResponse, r.Type)
	}
	stop := ""
	if r.StopReason != nil {
		stop = *r.StopReason
	}
	switch stop {
	case "refusal":
		return "", fmt.Errorf("%w: stop_reason refusal", ErrBlocked)
	case "end_turn", "stop_sequence", "max_tokens":
	default:
		return "", fmt.Errorf("%w: stop_reason %q", ErrNoReply, stop)
	}
	var b strings.Builder
	for _, c := range r.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	text := strings.TrimSpace(b.String())
	if text == "" {
		return "", fmt.Errorf("%w: no text content (stop_reason %q)", ErrNoReply, stop)
	}
	return text, nil
}
