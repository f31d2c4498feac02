package chatbot

import (
	"encoding/json"
	"fmt"
	"strings"

	"switchboard/internal/placeholder"
)

// requestTemplate is a request an api_call or webhook node or an AI
// "api" context makes, with {{variables}} in its URL, headers and body.
// Body is a text template; BodyJSON (nodes only) a JSON value.
type requestTemplate struct {
	Method   string
	URL      string
	Headers  map[string]string
	Body     string
	BodyJSON json.RawMessage
}

// fill builds the request with the session's variables, each encoded for
// where it lands (internal/placeholder): percent-encoded in the URL's
// path segment or query, a JSON string in a JSON body, refused in a
// header when it holds a line break. So what a customer typed stays one
// value: it cannot reach another path, add a parameter or a JSON member,
// or add a header. Errors: a value the request cannot carry (a line
// break in a header, a path segment "..").
func (rt requestTemplate) fill(vars map[string]any) (HTTPRequest, error) {
	vals := variables(vars)
	method := strings.ToUpper(strings.TrimSpace(rt.Method))
	if method == "" {
		method = "GET"
	}
	target, err := placeholder.URL(rt.URL, vals)
	if err != nil {
		return HTTPRequest{}, fmt.Errorf("url: %w", err)
	}
	h := make(map[string]string, len(rt.Headers))
	contentType := ""
	for k, v := range rt.Headers {
		if h[k], err = placeholder.Header(v, vals); err != nil {
			return HTTPRequest{}, fmt.Errorf("header %s: %w", k, err)
		}
		if strings.EqualFold(k, "Content-Type") {
			contentType = h[k]
		}
	}
	body, err := rt.body(contentType, vals)
	if err != nil {
		return HTTPRequest{}, fmt.Errorf("body: %w", err)
	}
	return HTTPRequest{Method: method, URL: target, Headers: h, Body: body}, nil
}

// body is the filled body: a JSON value as JSON, a text as its content
// type says (JSON when none is set).
func (rt requestTemplate) body(contentType string, vals placeholder.Values) ([]byte, error) {
	if len(rt.BodyJSON) > 0 && string(rt.BodyJSON) != "null" {
		s, err := placeholder.JSON(string(rt.BodyJSON), vals)
		return []byte(s), err
	}
	if rt.Body == "" {
		return nil, nil
	}
	s, err := placeholder.Body(rt.Body, contentType, vals)
	return []byte(s), err
}

// variables gives a session's variables to placeholders: text as is,
// other values printed, missing ones empty.
func variables(vars map[string]any) placeholder.Values {
	return func(name string) (string, bool) {
		switch v := vars[name].(type) {
		case nil:
			return "", true
		case string:
			return v, true
		default:
			return fmt.Sprint(v), true
		}
	}
}
