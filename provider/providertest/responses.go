package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Response is a canned answer for Fake.Script.
type Response struct {
	Status int
	Header http.Header
	// Body is written as is when it is a []byte or a string, JSON-encoded
	// otherwise; nil writes no body.
	Body any
}

// JSON is an answer with status and body encoded as JSON.
func JSON(status int, body any) Response {
	return Response{Status: status, Body: body}
}

// GraphError is an answer carrying the platform's documented error object:
// {"error": {"message", "type", "code", "error_data": {"messaging_product",
// "details"}, "fbtrace_id"}}. Meta's messages usually start with the code,
// as in "(#131030) Recipient phone number not in allowed list".
func GraphError(status, code int, message, details string) Response {
	e := map[string]any{
		"message":    message,
		"type":       "OAuthException",
		"code":       code,
		"fbtrace_id": "AFakeTraceIdForTests0001",
	}
	if details != "" {
		e["error_data"] = map[string]any{"messaging_product": "whatsapp", "details": details}
	}
	return Response{Status: status, Body: map[string]any{"error": e}}
}

// RateLimited is the Cloud API's throughput error: HTTP 429, code 130429.
func RateLimited() Response {
	return GraphError(http.StatusTooManyRequests, 130429, "(#130429) Rate limit hit",
		"Message failed to send because there were too many messages sent from this phone number in a short period of time")
}

// Unavailable is a transient server failure: HTTP 503, code 2 (API Service).
func Unavailable() Response {
	return GraphError(http.StatusServiceUnavailable, 2, "(#2) Service temporarily unavailable",
		"Temporary due to downtime or due to being overloaded")
}

// InvalidParameter is the generic validation error: HTTP 400, code 100.
func InvalidParameter(details string) Response {
	return GraphError(http.StatusBadRequest, 100, "(#100) Invalid parameter", details)
}

// NotAllowedRecipient is the sandbox error for a recipient outside the
// test number's allowed list: HTTP 400, code 131030.
func NotAllowedRecipient() Response {
	return GraphError(http.StatusBadRequest, 131030, "(#131030) Recipient phone number not in allowed list",
		"Recipient phone number not in allowed list: Add recipient phone number to recipient list and try again.")
}

// InvalidToken is the answer to a missing, malformed or expired access token:
// HTTP 401, code 190.
func InvalidToken() Response {
	return GraphError(http.StatusUnauthorized, 190, "Invalid OAuth access token - Cannot parse access token", "")
}

// WithHeader returns r with header k set to v (for example Retry-After).
func (r Response) WithHeader(k, v string) Response {
	h := r.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set(k, v)
	r.Header = h
	return r
}

// ServeHTTP answers with r, so that a Response serves as a Handle handler
// for every request: f.Handle(pattern, Unavailable().ServeHTTP).
func (r Response) ServeHTTP(w http.ResponseWriter, _ *http.Request) { r.write(w) }

// Drop is a Handle handler that closes the connection without answering,
// as a platform that crashed or went away does.
func Drop(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }

// write sends r.
func (r Response) write(w http.ResponseWriter) {
	for k, vs := range r.Header {
		w.Header()[k] = vs
	}
	var body []byte
	switch b := r.Body.(type) {
	case nil:
	case []byte:
		body = b
	case string:
		body = []byte(b)
	default:
		var err error
		if body, err = json.Marshal(b); err != nil {
			panic(fmt.Sprintf("providertest: encoding answer: %v", err))
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		}
	}
	status := r.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
