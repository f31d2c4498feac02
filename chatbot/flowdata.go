package chatbot

import (
	"encoding/json"
	"strconv"
	"strings"
)

// decodeJSON reads an api_call's answer; a body that is not JSON reads as
// its text.
func decodeJSON(b []byte) any {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return string(b)
	}
	return v
}

// lookup reads a response_mapping path in a decoded JSON answer: names
// and array indexes separated by dots ("data.items.0.name"), an optional
// leading "$." or "$". Missing values read as nil.
func lookup(doc any, path string) any {
	path = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(path), "$"), ".")
	if path == "" {
		return doc
	}
	cur := doc
	for _, part := range strings.Split(path, ".") {
		switch v := cur.(type) {
		case map[string]any:
			cur = v[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(v) {
				return nil
			}
			cur = v[i]
		default:
			return nil
		}
	}
	return cur
}

// substituteBody is a request body with the session's variables: a JSON
// string body is sent as its substituted text, any other JSON value as
// JSON with its strings substituted.
func substituteBody(raw json.RawMessage, vars map[string]any) []byte {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil
	}
	if s, ok := v.(string); ok {
		if s == "" {
			return nil
		}
		return []byte(Substitute(s, vars))
	}
	b, _ := json.Marshal(substituteValue(v, vars))
	return b
}

func substituteValue(v any, vars map[string]any) any {
	switch t := v.(type) {
	case string:
		return Substitute(t, vars)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = substituteValue(x, vars)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = substituteValue(x, vars)
		}
		return out
	}
	return v
}
