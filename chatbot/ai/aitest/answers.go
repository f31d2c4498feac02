package aitest

import (
	"encoding/json"
	"fmt"
	"net/http"

	"switchboard/chatbot/ai"
)

// Answer is one scripted answer.
type Answer struct {
	// Status is the HTTP status (200 when zero).
	Status int
	// Header is added to the answer (Retry-After, say).
	Header http.Header
	// Body is the raw answer body.
	Body string
	// Hang makes the fake answer nothing until the client gives up.
	Hang bool
}

// WithHeader returns a copy of a with the header k: v added.
func (a Answer) WithHeader(k, v string) Answer {
	h := a.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Add(k, v)
	a.Header = h
	return a
}

func (a Answer) write(w http.ResponseWriter, r *http.Request) {
	if a.Hang {
		<-r.Context().Done()
		return
	}
	status := a.Status
	if status == 0 {
		status = http.StatusOK
	}
	writeJSON(w, status, a.Header, a.Body)
}

// Hang is an answer that never comes (the client's timeout ends it).
func Hang() Answer { return Answer{Hang: true} }

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Success is the vendor's documented successful answer with text as the
// reply.
func Success(vendor, text string) Answer {
	switch vendor {
	case ai.OpenAI:
		return Answer{Body: mustJSON(map[string]any{
			"id": "chatcmpl-aitest", "object": "chat.completion", "created": 1764115200, "model": "gpt-4o-mini-2024-07-18",
			"choices": []any{map[string]any{
				"index": 0, "logprobs": nil, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": text, "refusal": nil, "annotations": []any{}},
			}},
			"usage":        map[string]any{"prompt_tokens": 19, "completion_tokens": 10, "total_tokens": 29},
			"service_tier": "default", "system_fingerprint": nil,
		})}
	case ai.Anthropic:
		return Answer{Body: mustJSON(map[string]any{
			"id": "msg_01aitest", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
			"content":     []any{map[string]any{"type": "text", "text": text}},
			"stop_reason": "end_turn", "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 19, "output_tokens": 10},
		})}
	case ai.Google:
		return Answer{Body: mustJSON(map[string]any{
			"candidates": []any{map[string]any{
				"content":      map[string]any{"parts": []any{map[string]any{"text": text}}, "role": "model"},
				"finishReason": "STOP", "index": 0,
			}},
			"usageMetadata": map[string]any{"promptTokenCount": 19, "candidatesTokenCount": 10, "totalTokenCount": 29},
			"modelVersion":  "gemini-2.0-flash", "responseId": "aitest",
		})}
	}
	panic("aitest: unknown vendor " + vendor)
}

// Blocked is the vendor's documented 200 answer whose reply was refused or
// filtered: an OpenAI refusal, an Anthropic stop_reason "refusal", a Gemini
// candidate with finishReason SAFETY.
func Blocked(vendor string) Answer {
	switch vendor {
	case ai.OpenAI:
		return Answer{Body: mustJSON(map[string]any{
			"id": "chatcmpl-aitest", "object": "chat.completion", "created": 1764115200, "model": "gpt-4o-mini-2024-07-18",
			"choices": []any{map[string]any{
				"index": 0, "logprobs": nil, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": nil, "refusal": "I'm sorry, I can't help with that.", "annotations": []any{}},
			}},
			"usage": map[string]any{"prompt_tokens": 19, "completion_tokens": 9, "total_tokens": 28},
		})}
	case ai.Anthropic:
		return Answer{Body: mustJSON(map[string]any{
			"id": "msg_01aitest", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
			"content": []any{}, "stop_reason": "refusal", "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 19, "output_tokens": 0},
		})}
	case ai.Google:
		return Answer{Body: mustJSON(map[string]any{
			"candidates": []any{map[string]any{
				"finishReason": "SAFETY", "index": 0,
				"safetyRatings": []any{map[string]any{"category": "HARM_CATEGORY_HARASSMENT", "probability": "HIGH", "blocked": true}},
			}},
			"usageMetadata": map[string]any{"promptTokenCount": 19, "totalTokenCount": 19},
			"modelVersion":  "gemini-2.0-flash",
		})}
	}
	panic("aitest: unknown vendor " + vendor)
}

// Error is the vendor's documented error answer for an HTTP status
// (400, 401, 403, 404, 429, 500, 503, 529...).
func Error(vendor string, status int) Answer {
	switch vendor {
	case ai.OpenAI:
		typ, code, msg := "invalid_request_error", any(nil), "Invalid request."
		switch {
		case status == 401:
			code, msg = "invalid_api_key", "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys."
		case status == 429:
			typ, code, msg = "requests", "rate_limit_exceeded", "Rate limit reached for requests. Please try again in 1s."
		case status >= 500:
			typ, msg = "server_error", "The server had an error while processing your request. Sorry about that!"
		}
		return Answer{Status: status, Body: mustJSON(map[string]any{
			"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code},
		})}
	case ai.Anthropic:
		typ := map[int]string{
			400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error",
			413: "request_too_large", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error",
		}[status]
		if typ == "" {
			typ = "api_error"
		}
		return Answer{Status: status, Body: mustJSON(map[string]any{
			"type": "error", "error": map[string]any{"type": typ, "message": fmt.Sprintf("fake %s", typ)},
		})}
	case ai.Google:
		st := map[int]string{
			400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED",
			500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
		}[status]
		if st == "" {
			st = "UNKNOWN"
		}
		return Answer{Status: status, Body: mustJSON(map[string]any{
			"error": map[string]any{"code": status, "message": fmt.Sprintf("fake %s", st), "status": st},
		})}
	}
	panic("aitest: unknown vendor " + vendor)
}
