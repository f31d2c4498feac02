package outbound_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"switchboard/outbound"
)

func TestNewOutcome(t *testing.T) {
	resp := func(code int, header ...string) *http.Response {
		r := &http.Response{StatusCode: code, Status: fmt.Sprintf("%d %s", code, http.StatusText(code)), Header: http.Header{}}
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		return r
	}
	tests := []struct {
		name string
		resp *http.Response
		err  error
		want outbound.Outcome
	}{
		{
			name: "OK",
			resp: resp(200),
			want: outbound.Outcome{StatusCode: 200, Duration: time.Second},
		},
		{
			name: "ServerError",
			resp: resp(500),
			want: outbound.Outcome{StatusCode: 500, Duration: time.Second, Error: "HTTP 500 Internal Server Error"},
		},
		{
			name: "RateLimited",
			resp: resp(429, "Retry-After", "30"),
			want: outbound.Outcome{StatusCode: 429, Duration: time.Second, Error: "HTTP 429 Too Many Requests", RetryAfter: "30"},
		},
		{
			name: "NoStatusText",
			resp: &http.Response{StatusCode: 599, Header: http.Header{}},
			want: outbound.Outcome{StatusCode: 599, Duration: time.Second, Error: "HTTP 599"},
		},
		{
			name: "ConnectionRefused",
			err:  fmt.Errorf("Post %q: dial tcp: %w", "https://hooks.example", syscall.ECONNREFUSED),
			want: outbound.Outcome{Duration: time.Second, Error: `Post "https://hooks.example": dial tcp: connection refused`},
		},
		{
			name: "DeadlineExceeded",
			err:  fmt.Errorf("Post: %w", context.DeadlineExceeded),
			want: outbound.Outcome{Duration: time.Second, Error: "Post: context deadline exceeded", Timeout: true},
		},
		{
			name: "NoResponse",
			want: outbound.Outcome{Duration: time.Second, Error: "no response"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := outbound.NewOutcome(tc.resp, tc.err, time.Second)
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestOutcomeErrorTruncated(t *testing.T) {
	tests := []struct {
		name string
		msg  string
	}{
		{name: "ASCII", msg: strings.Repeat("x", 5000)},
		{name: "MultiByteAtBoundary", msg: strings.Repeat("x", 1023) + strings.Repeat("é", 100)},
		{name: "FourByteRunes", msg: strings.Repeat("😀", 400)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := outbound.NewOutcome(nil, errors.New(tc.msg), 0)
			if len(o.Error) > outbound.MaxErrorBytes {
				t.Errorf("Error is %d bytes, want at most %d", len(o.Error), outbound.MaxErrorBytes)
			}
			if len(o.Error) < outbound.MaxErrorBytes-3 {
				t.Errorf("Error is %d bytes, cut more than a character short of %d", len(o.Error), outbound.MaxErrorBytes)
			}
			if !utf8.ValidString(o.Error) || !strings.HasPrefix(tc.msg, o.Error) {
				t.Errorf("Error is not a valid prefix of the message")
			}
		})
	}

	t.Run("Sanitised", func(t *testing.T) {
		o := outbound.NewOutcome(nil, errors.New("bad\x00byte \xff end"), 0)
		if o.Error != "badbyte \uFFFD end" {
			t.Errorf("Error = %q", o.Error)
		}
	})
}

// TestOutcomeClientTimeout records a real client timeout.
func TestOutcomeClientTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release // never answers in time
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first
	c := &http.Client{Timeout: 50 * time.Millisecond}

	start := time.Now()
	resp, err := c.Post(srv.URL, "application/json", strings.NewReader(`{}`))
	if resp != nil {
		resp.Body.Close()
	}
	o := outbound.NewOutcome(resp, err, time.Since(start))
	if !o.Timeout || o.StatusCode != 0 || o.Error == "" || o.Succeeded() {
		t.Fatalf("got %+v, want a timeout without status", o)
	}
	if d := outbound.NextAttempt(1, o, time.Now()); d.Action != outbound.ActionRetry || d.Delay != 5*time.Second {
		t.Errorf("NextAttempt = %+v, want retry after 5s", d)
	}
}
