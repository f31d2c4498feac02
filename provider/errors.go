package provider

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"switchboard/internal/retryafter"
)

// Sentinel errors, wrapped with detail; test them with errors.Is.
var (
	// ErrInvalid: the call's arguments fail validation (nothing was sent).
	ErrInvalid = errors.New("provider: invalid request")
	// ErrUnexpectedResponse: a 2xx answer that does not have the documented shape.
	ErrUnexpectedResponse = errors.New("provider: unexpected response")
	// ErrMediaTooLarge: a download exceeds the caller's byte limit.
	ErrMediaTooLarge = errors.New("provider: media exceeds size limit")
)

// Error is an error answer of the Graph API, the documented
// {"error": {"message", "type", "code", "error_subcode",
// "error_data": {"details"}, "fbtrace_id"}} object plus the HTTP status.
// Meta recommends handling errors by Code (and Details), not by Subcode or
// Status. Answers that are not Graph JSON (a proxy's 502 page) carry only
// Status and, in Details, the start of the body.
type Error struct {
	Status    int
	Code      int
	Subcode   int
	Type      string
	Message   string
	Details   string
	FBTraceID string
	// RetryAfter is the server's Retry-After, when it sent one.
	RetryAfter time.Duration
}

// Error reads like "provider: (#131030) Recipient phone number not in
// allowed list: <details>".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("provider: ")
	switch {
	case e.Message == "":
		fmt.Fprintf(&b, "HTTP %d", e.Status)
		if t := http.StatusText(e.Status); t != "" {
			b.WriteString(" " + t)
		}
	case e.Code != 0 && !strings.HasPrefix(e.Message, "(#"):
		fmt.Fprintf(&b, "(#%d) %s", e.Code, e.Message)
	default:
		b.WriteString(e.Message)
	}
	if e.Details != "" && e.Details != e.Message {
		b.WriteString(": " + e.Details)
	}
	return b.String()
}

// transientCodes are Graph and Cloud API error codes that say the call was
// refused for load or throttling, not for its content, so that the same call
// may succeed later: 1 API Unknown (possible server error), 2 API Service
// (temporary downtime or overload), 4 application rate limit, 17 user rate
// limit, 613 calls-per-hour limit, 80007 WhatsApp Business Account rate
// limit, 130429 Cloud API throughput reached, 131000 something went wrong,
// 131048 spam rate limit, 131056 pair rate limit (too many messages to one
// user), 133004 server temporarily unavailable.
var transientCodes = map[int]bool{
	1: true, 2: true, 4: true, 17: true, 613: true,
	80007: true, 130429: true, 131000: true, 131048: true, 131056: true, 133004: true,
}

// Temporary reports whether the same call may succeed later: HTTP 429 or
// 5xx, or a throttling/transient error code.
func (e *Error) Temporary() bool {
	return e.Status == http.StatusTooManyRequests || e.Status >= 500 || transientCodes[e.Code]
}

// retryable decides whether the client retries in-process.
//
// Idempotent calls (GET) are retried whenever Temporary. Message sends and
// other POSTs have no idempotency key at Meta, so they are retried only when
// the answer says the request was refused before doing work: a throttling or
// transient error code (whatever the status), or a 5xx (Meta answers 5xx when
// the service is unavailable; the rare 5xx after acceptance may duplicate a
// message, which is preferred to dropping it). A bare 429 to a POST without a
// Graph code is not retried here; IsRetryable still reports it, so the
// caller's queue can try again later.
func (e *Error) retryable(idempotent bool) bool {
	if idempotent {
		return e.Temporary()
	}
	return e.Status >= 500 || transientCodes[e.Code]
}

// transportError is a failure without an HTTP answer: connection refused,
// reset, timeout, a body that could not be produced.
type transportError struct {
	what      string
	err       error
	permanent bool // building the request failed: trying again cannot help
}

func (e *transportError) Error() string { return "provider: " + e.what + ": " + e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// Temporary reports whether trying later may help.
func (e *transportError) Temporary() bool {
	return !e.permanent && !errors.Is(e.err, context.Canceled)
}

// retryable allows idempotent calls to be retried after any network failure,
// and other calls only when the connection was never made (nothing was sent).
func (e *transportError) retryable(idempotent bool) bool {
	if !e.Temporary() {
		return false
	}
	if idempotent {
		return true
	}
	var op *net.OpError
	return errors.As(e.err, &op) && op.Op == "dial"
}

// Unreachable reports whether err is a failure to reach the platform (no
// HTTP answer: the name did not resolve, the connection was refused or
// broke, no answer in time, the TLS handshake failed) and, if so, the text
// to store and show for it: "the platform could not be reached" and the
// kind of failure. The error itself names the addresses involved (the
// DNS resolver's, the platform's, a proxy's), which belong in the log
// only.
func Unreachable(err error) (string, bool) {
	var te *transportError
	if !errors.As(err, &te) || te.permanent || errors.Is(err, context.Canceled) {
		return "", false
	}
	const text = "the platform could not be reached"
	if kind := networkFailure(te.err); kind != "" {
		return text + " (" + kind + ")", true
	}
	return text, true
}

// networkFailure names the kind of a network error in a few words, or "".
func networkFailure(err error) string {
	var (
		dns      *net.DNSError
		netErr   net.Error
		certErr  *tls.CertificateVerificationError
		alertErr tls.AlertError
		recErr   tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &dns):
		return "DNS lookup failed"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.As(err, &certErr), errors.As(err, &alertErr), errors.As(err, &recErr):
		return "TLS handshake failed"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed"
	}
	return ""
}

// IsRetryable reports whether err is a provider failure that may succeed if
// the same call is made again later: an *Error that is Temporary, or a
// network failure or timeout. Validation errors, context cancellation and
// definitive Graph errors (bad parameter, recipient not allowed, expired
// token) are not. For message sends, a network failure after the request
// was written may have delivered the message: retrying may duplicate it.
func IsRetryable(err error) bool {
	if err == nil {
		return false
	}
	var t interface{ Temporary() bool }
	if errors.As(err, &t) {
		return t.Temporary()
	}
	return false
}

// graphErrorBody is the documented error envelope.
type graphErrorBody struct {
	Error *struct {
		Message      string          `json:"message"`
		Type         string          `json:"type"`
		Code         int             `json:"code"`
		Subcode      int             `json:"error_subcode"`
		ErrorData    json.RawMessage `json:"error_data"`
		FBTraceID    string          `json:"fbtrace_id"`
		ErrorUserMsg string          `json:"error_user_msg"`
	} `json:"error"`
}

// readError maps a non-2xx answer to *Error, with the token scrubbed from
// any text the server echoed.
func readError(resp *http.Response, token string) *Error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	e := &Error{Status: resp.StatusCode, RetryAfter: retryafter.Parse(resp.Header.Get("Retry-After"), time.Now())}
	var body graphErrorBody
	if json.Unmarshal(raw, &body) == nil && body.Error != nil {
		ge := body.Error
		e.Code, e.Subcode, e.Type, e.Message, e.FBTraceID = ge.Code, ge.Subcode, ge.Type, ge.Message, ge.FBTraceID
		var data struct {
			Details string `json:"details"`
		}
		if len(ge.ErrorData) > 0 && json.Unmarshal(ge.ErrorData, &data) == nil {
			e.Details = data.Details
		}
		if e.Details == "" {
			e.Details = ge.ErrorUserMsg
		}
	} else {
		e.Details = snippet(raw)
	}
	if token != "" {
		e.Message = strings.ReplaceAll(e.Message, token, "[redacted]")
		e.Details = strings.ReplaceAll(e.Details, token, "[redacted]")
	}
	return e
}

// snippet returns the start of a non-JSON error body as one line of text.
func snippet(b []byte) string {
	const limit = 200
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > limit {
		s = strings.ToValidUTF8(s[:limit], "") + "…"
	}
	return s
}
