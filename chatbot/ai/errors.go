package ai

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinel errors, wrapped with detail; test them with errors.Is.
var (
	// ErrInvalid: the Request cannot be sent (unknown provider, no model,
	// no key, no contact message to answer). Nothing was sent.
	ErrInvalid = errors.New("ai: invalid request")
	// ErrBlocked: the vendor answered but refused or filtered the reply
	// (OpenAI refusal or content_filter, Anthropic stop_reason refusal,
	// Gemini promptFeedback.blockReason or a safety finishReason).
	ErrBlocked = errors.New("ai: reply blocked by the vendor")
	// ErrNoReply: the vendor answered without usable text (no choice or
	// candidate, empty text, a tool call, a stop we cannot use).
	ErrNoReply = errors.New("ai: no reply text")
	// ErrUnexpectedResponse: a 2xx answer that is not the documented JSON.
	ErrUnexpectedResponse = errors.New("ai: unexpected response")
	// ErrResponseTooLarge: the answer is longer than Config.MaxResponseBytes.
	ErrResponseTooLarge = errors.New("ai: response too large")
)

// Error is a non-2xx answer of a vendor: which vendor, the HTTP status, and
// the vendor's own error type and message when the body had the documented
// error shape. It never holds the API key.
type Error struct {
	// Vendor is OpenAI, Anthropic or Google.
	Vendor string
	// Status is the HTTP status code.
	Status int
	// Type is the vendor's error type or status ("rate_limit_error",
	// "insufficient_quota", "RESOURCE_EXHAUSTED"), when given.
	Type string
	// Message is the vendor's message, shortened, with the key redacted.
	Message string
	// RetryAfter is the server's Retry-After, when it sent one.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ai: %s: HTTP %d", e.Vendor, e.Status)
	if e.Type != "" {
		fmt.Fprintf(&b, " %s", e.Type)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	return b.String()
}

// Retryable reports whether the status is worth one more attempt: rate
// limited (429) or a server-side failure (5xx, Anthropic's 529 included).
func (e *Error) Retryable() bool {
	return e.Status == 429 || e.Status >= 500
}

// maxMessageRunes bounds the vendor message kept in an Error.
const maxMessageRunes = 300

// cleanMessage shortens a vendor message and removes the key from it:
// some vendors echo (part of) a wrong key back.
func cleanMessage(msg, key string) string {
	msg = strings.TrimSpace(msg)
	if key != "" {
		msg = strings.ReplaceAll(msg, key, "[redacted]")
	}
	if r := []rune(msg); len(r) > maxMessageRunes {
		msg = string(r[:maxMessageRunes]) + "…"
	}
	return msg
}
