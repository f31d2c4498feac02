package outbound

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxErrorBytes caps Outcome.Error, which is stored with every attempt.
const MaxErrorBytes = 1024

// Outcome is the record of one delivery attempt.
type Outcome struct {
	// StatusCode is the HTTP status, or 0 when no response arrived.
	StatusCode int
	// Duration is how long the attempt took.
	Duration time.Duration
	// Error says why the attempt failed, at most MaxErrorBytes of valid
	// UTF-8 without NUL bytes; empty on success.
	Error string
	// Timeout reports that the attempt ran out of time.
	Timeout bool
	// RetryAfter is the response's Retry-After header, as sent.
	RetryAfter string
}

// NewOutcome records an attempt from what http.Client.Do returned and how
// long it took. It does not read or close resp.Body.
func NewOutcome(resp *http.Response, err error, d time.Duration) Outcome {
	o := Outcome{Duration: d}
	if resp != nil {
		o.StatusCode = resp.StatusCode
		o.RetryAfter = resp.Header.Get("Retry-After")
	}
	switch {
	case err != nil:
		o.Error = truncateError(err.Error())
		var netErr net.Error
		o.Timeout = errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout()
	case resp == nil:
		o.Error = "no response"
	case !o.Succeeded():
		status := resp.Status
		if status == "" {
			status = strconv.Itoa(resp.StatusCode)
		}
		o.Error = truncateError("HTTP " + status)
	}
	return o
}

// Succeeded reports a 2xx answer.
func (o Outcome) Succeeded() bool {
	return o.StatusCode >= 200 && o.StatusCode <= 299
}

// truncateError makes s storable: valid UTF-8, no NUL (PostgreSQL text
// refuses it), at most MaxErrorBytes, cut on a character boundary.
func truncateError(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "")
	if len(s) <= MaxErrorBytes {
		return s
	}
	cut := MaxErrorBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
