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
