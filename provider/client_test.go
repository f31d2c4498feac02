package provider_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"switchboard/provider"
	"switchboard/provider/providertest"
)

var hello = provider.OutgoingMessage{To: "16505551234", Text: &provider.Text{Body: "hello"}}

func TestErrorMapping(t *testing.T) {
	tests := []struct {
		name    string
		answer  providertest.Response
		want    provider.Error
		wantMsg string
		retry   bool
	}{
		{
			name:   "RecipientNotAllowed",
			answer: providertest.NotAllowedRecipient(),
			want: provider.Error{Status: 400, Code: 131030, Type: "OAuthException",
				Message:   "(#131030) Recipient phone number not in allowed list",
				Details:   "Recipient phone number not in allowed list: Add recipient phone number to recipient list and try again.",
				FBTraceID: "AFakeTraceIdForTests0001"},
			wantMsg: "provider: (#131030) Recipient phone number not in allowed list: " +
				"Recipient phone number not in allowed list: Add recipient phone number to recipient list and try again.",
		},
		{
			name:    "InvalidToken",
			answer:  providertest.InvalidToken(),
			want:    provider.Error{Status: 401, Code: 190, Type: "OAuthException", Message: "Invalid OAuth access token - Cannot parse access token", FBTraceID: "AFakeTraceIdForTests0001"},
			wantMsg: "provider: (#190) Invalid OAuth access token - Cannot parse access token",
		},
		{
			name: "SubcodeAndUserMessage",
			answer: providertest.JSON(400, map[string]any{"error": map[string]any{
				"message": "Invalid parameter", "type": "OAuthException", "code": 100, "error_subcode": 2494010,
				"error_user_msg": "The template does not exist", "fbtrace_id": "T1"}}),
			want:    provider.Error{Status: 400, Code: 100, Subcode: 2494010, Type: "OAuthException", Message: "Invalid parameter", Details: "The template does not exist", FBTraceID: "T1"},
			wantMsg: "provider: (#100) Invalid parameter: The template does not exist",
		},
		{
			name: "ErrorDataAsString",
			answer: providertest.JSON(400, map[string]any{"error": map[string]any{
				"message": "(#100) Invalid parameter", "type": "OAuthException", "code": 100, "error_data": "{\"blame\":1}"}}),
			want:    provider.Error{Status: 400, Code: 100, Type: "OAuthException", Message: "(#100) Invalid parameter"},
			wantMsg: "provider: (#100) Invalid parameter",
		},
		{
			name:    "NotJSON",
			answer:  providertest.Response{Status: 403, Body: "<html>\n<body>Forbidden by proxy</body>\n</html>"},
			want:    provider.Error{Status: 403, Details: "<html> <body>Forbidden by proxy</body> </html>"},
			wantMsg: "provider: HTTP 403 Forbidden: <html> <body>Forbidden by proxy</body> </html>",
		},
		{
			name: "TokenEchoedIsRedacted",
			answer: providertest.GraphError(400, 190, "Malformed access token "+providertest.AccessToken,
				"token "+providertest.AccessToken+" is bad"),
			want: provider.Error{Status: 400, Code: 190, Type: "OAuthException", Message: "Malformed access token [redacted]",
				Details: "token [redacted] is bad", FBTraceID: "AFakeTraceIdForTests0001"},
			wantMsg: "provider: (#190) Malformed access token [redacted]: token [redacted] is bad",
		},
		{
			name:    "Throttled",
			answer:  providertest.RateLimited().WithHeader("Retry-After", "120"),
			want:    provider.Error{Status: 429, Code: 130429, Type: "OAuthException", Message: "(#130429) Rate limit hit", Details: "Message failed to send because there were too many messages sent from this phone number in a short period of time", FBTraceID: "AFakeTraceIdForTests0001", RetryAfter: 2 * time.Minute},
			wantMsg: "provider: (#130429) Rate limit hit: Message failed to send because there were too many messages sent from this phone number in a short period of time",
			retry:   true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c, _ := newFake(t, provider.Options{MaxRetries: -1})
			f.Script("POST /{phone}/messages", tt.answer)
			_, err := c.SendMessage(context.Background(), f.Account(), hello)
			var perr *provider.Error
			if !errors.As(err, &perr) {
				t.Fatalf("err = %#v, want *provider.Error", err)
			}
			if *perr != tt.want {
				t.Errorf("Error =\n %+v\nwant\n %+v", *perr, tt.want)
			}
			if err.Error() != tt.wantMsg {
				t.Errorf("Error() =\n %q\nwant\n %q", err.Error(), tt.wantMsg)
			}
			if strings.Contains(err.Error(), providertest.AccessToken) {
				t.Errorf("error text leaks the token")
			}
			if got := provider.IsRetryable(err); got != tt.retry {
				t.Errorf("IsRetryable = %v, want %v", got, tt.retry)
			}
		})
	}
}

func TestRetry(t *testing.T) {
	bare429 := providertest.Response{Status: 429, Body: "Too Many Requests"}
	tests := []struct {
		name     string
		call     string // "send" or "get"
		script   []providertest.Response
		opts     provider.Options
		wantReqs int
		wantErr  bool
		// wantWaits are the sleeps asked for between attempts.
		wantWaits []time.Duration
	}{
		{name: "SendRateLimitedThenOK", call: "send", script: []providertest.Response{providertest.RateLimited()},
			wantReqs: 2, wantWaits: []time.Duration{0}},
		{name: "SendUnavailableThenOK", call: "send", script: []providertest.Response{providertest.Unavailable()},
			wantReqs: 2, wantWaits: []time.Duration{0}},
		{name: "SendPlain500ThenOK", call: "send", script: []providertest.Response{{Status: 500, Body: "oops"}},
			wantReqs: 2, wantWaits: []time.Duration{0}},
		{name: "SendThrottleCodeOn400ThenOK", call: "send",
			script:   []providertest.Response{providertest.GraphError(400, 4, "(#4) Application request limit reached", "")},
			wantReqs: 2, wantWaits: []time.Duration{0}},
		{name: "SendNoRetryOn400", call: "send", script: []providertest.Response{providertest.InvalidParameter("bad")},
			wantReqs: 1, wantErr: true},
		{name: "SendNoRetryOnRecipientNotAllowed", call: "send", script: []providertest.Response{providertest.NotAllowedRecipient()},
			wantReqs: 1, wantErr: true},
		{name: "SendNoRetryOnBare429", call: "send", script: []providertest.Response{bare429},
			wantReqs: 1, wantErr: true},
		{name: "GetRetriesBare429", call: "get", script: []providertest.Response{bare429},
			wantReqs: 2, wantWaits: []time.Duration{0}},
		{name: "GetNoRetryOn404", call: "get", script: []providertest.Response{providertest.GraphError(404, 100, "Unsupported get request.", "")},
			wantReqs: 1, wantErr: true},
		{name: "GivesUpAfterMaxRetries", call: "send",
			script: []providertest.Response{providertest.Unavailable(), providertest.Unavailable(), providertest.Unavailable(), providertest.Unavailable()},
			opts:   provider.Options{Backoff: func(a int) time.Duration { return time.Duration(a+1) * time.Millisecond }},
			// Three retries after the first attempt, each with its own backoff.
			wantReqs: 4, wantErr: true, wantWaits: []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond}},
		{name: "MaxRetriesOption", call: "send", opts: provider.Options{MaxRetries: 1},
			script:   []providertest.Response{providertest.Unavailable(), providertest.Unavailable()},
			wantReqs: 2, wantErr: true, wantWaits: []time.Duration{0}},
		{name: "RetriesDisabled", call: "get", opts: provider.Options{MaxRetries: -1},
			script:   []providertest.Response{providertest.Unavailable()},
			wantReqs: 1, wantErr: true},
		{name: "RetryAfterHonoured", call: "send",
			script:   []providertest.Response{providertest.RateLimited().WithHeader("Retry-After", "7")},
			wantReqs: 2, wantWaits: []time.Duration{7 * time.Second}},
		{name: "RetryAfterDateHonoured", call: "get",
			script: []providertest.Response{providertest.Unavailable().WithHeader("Retry-After",
				time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))},
			opts:     provider.Options{MaxRetryAfter: 2 * time.Hour},
			wantReqs: 2},
		{name: "RetryAfterBeyondLimitEndsCall", call: "send",
			script:   []providertest.Response{providertest.RateLimited().WithHeader("Retry-After", "3600")},
			wantReqs: 1, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.opts.Backoff == nil {
				tt.opts.Backoff = func(int) time.Duration { return 0 }
			}
			f, c, s := newFake(t, tt.opts)
			f.Script("POST /{phone}/messages", tt.script...)
			f.Script("GET /{id}", tt.script...)
			var err error
			if tt.call == "send" {
				_, err = c.SendMessage(context.Background(), f.Account(), hello)
			} else {
				_, err = c.PhoneNumberInfo(context.Background(), f.Account())
			}
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if n := len(f.Requests()); n != tt.wantReqs {
				t.Errorf("%d requests, want %d", n, tt.wantReqs)
			}
			if tt.wantWaits != nil && !reflect.DeepEqual(s.Waits(), tt.wantWaits) {
				t.Errorf("waits = %v, want %v", s.Waits(), tt.wantWaits)
			}
			if tt.wantWaits == nil && !tt.wantErr && len(s.Waits()) != tt.wantReqs-1 {
				t.Errorf("waits = %v, want %d", s.Waits(), tt.wantReqs-1)
			}
		})
	}
}

func TestRetryAfterBeyondLimitKeepsRetryAfter(t *testing.T) {
	f, c, _ := newFake(t)
	f.Script("POST /{phone}/messages", providertest.RateLimited().WithHeader("Retry-After", "3600"))
	_, err := c.SendMessage(context.Background(), f.Account(), hello)
	var perr *provider.Error
	if !errors.As(err, &perr) || perr.RetryAfter != time.Hour {
		t.Fatalf("err = %v, want *Error with RetryAfter 1h", err)
	}
	if !provider.IsRetryable(err) {
		t.Errorf("IsRetryable = false for a throttled send")
	}
}

// hijackClose answers the first n requests by dropping the connection.
func hijackClose(t *testing.T, n int32) (http.HandlerFunc, *atomic.Int32) {
	var seen atomic.Int32
	return func(w http.ResponseWriter, r *http.Request) {
		if seen.Add(1) > n {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"id":"1","display_phone_number":"+1 555","messaging_product":"whatsapp","contacts":[{"wa_id":"1"}],"messages":[{"id":"wamid.X"}]}`)
			return
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		conn.Close()
	}, &seen
}

func TestNetworkFailures(t *testing.T) {
	t.Run("GetRetriedAfterDroppedConnection", func(t *testing.T) {
		f, c, _ := newFake(t)
		h, seen := hijackClose(t, 1)
		f.Handle("GET /{id}", h)
		if _, err := c.PhoneNumberInfo(context.Background(), f.Account()); err != nil {
			t.Fatalf("PhoneNumberInfo: %v", err)
		}
		if seen.Load() != 2 {
			t.Errorf("%d attempts, want 2", seen.Load())
		}
	})
	t.Run("SendNotRetriedAfterDroppedConnection", func(t *testing.T) {
		f, c, _ := newFake(t)
		h, seen := hijackClose(t, 1)
		f.Handle("POST /{phone}/messages", h)
		_, err := c.SendMessage(context.Background(), f.Account(), hello)
		if err == nil {
			t.Fatal("SendMessage succeeded, want the transport error")
		}
		if seen.Load() != 1 {
			t.Errorf("%d attempts, want 1: the message may have been delivered", seen.Load())
		}
		if !provider.IsRetryable(err) {
			t.Errorf("IsRetryable(%v) = false", err)
		}
	})
	t.Run("SendRetriedWhenConnectionRefused", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		s := &sleeper{}
		c := provider.New(provider.Options{BaseURL: url, Sleep: s.Sleep, Backoff: func(int) time.Duration { return 0 }})
		acc := provider.Account{PhoneID: "1", AccessToken: "t"}
		_, err := c.SendMessage(context.Background(), acc, hello)
		if err == nil || !provider.IsRetryable(err) {
			t.Fatalf("err = %v, want a retryable transport error", err)
		}
		if len(s.Waits()) != provider.DefaultMaxRetries {
			t.Errorf("%d retries, want %d: nothing was sent, so retrying is safe", len(s.Waits()), provider.DefaultMaxRetries)
		}
	})
	t.Run("GetRetriedAfterAttemptTimeout", func(t *testing.T) {
		f, c, _ := newFake(t, provider.Options{Timeout: 20 * time.Millisecond, MaxRetries: 2})
		f.Handle("GET /{id}", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		_, err := c.PhoneNumberInfo(context.Background(), f.Account())
		if !errors.Is(err, context.DeadlineExceeded) || !provider.IsRetryable(err) {
			t.Fatalf("err = %v, want a retryable deadline error", err)
		}
		if n := len(f.Requests()); n != 3 {
			t.Errorf("%d requests, want 3", n)
		}
	})
}

func TestContextCancellation(t *testing.T) {
	t.Run("CanceledBeforeCall", func(t *testing.T) {
		f, c, s := newFake(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := c.SendMessage(ctx, f.Account(), hello)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if provider.IsRetryable(err) {
			t.Errorf("IsRetryable = true for a canceled call")
		}
		if len(s.Waits()) != 0 {
			t.Errorf("retried a canceled call")
		}
	})
	t.Run("CanceledDuringBackoff", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		f := providertest.New(t)
		c := f.Client(provider.Options{Sleep: func(ctx context.Context, _ time.Duration) error {
			cancel()
			return ctx.Err()
		}})
		f.Script("POST /{phone}/messages", providertest.RateLimited(), providertest.RateLimited())
		_, err := c.SendMessage(ctx, f.Account(), hello)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if n := len(f.Requests()); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})
	t.Run("CanceledWhileWaitingForAnswer", func(t *testing.T) {
		f, c, s := newFake(t)
		started := make(chan struct{})
		f.Handle("GET /{id}", func(w http.ResponseWriter, r *http.Request) {
			close(started)
			<-r.Context().Done()
		})
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-started; cancel() }()
		_, err := c.PhoneNumberInfo(ctx, f.Account())
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if len(s.Waits()) != 0 {
			t.Errorf("retried a canceled call")
		}
	})
	t.Run("DefaultSleepStopsOnCancel", func(t *testing.T) {
		f := providertest.New(t)
		// The real sleep with a long backoff: only cancellation can end it.
		c := provider.New(provider.Options{BaseURL: f.URL, Backoff: func(int) time.Duration { return time.Hour }})
		ctx, cancel := context.WithCancel(context.Background())
		var calls atomic.Int32
		f.Handle("POST /{phone}/messages", func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) > 1 {
				t.Error("retried after cancellation")
			}
			w.WriteHeader(http.StatusServiceUnavailable)
			cancel()
		})
		_, err := c.SendMessage(ctx, f.Account(), hello)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

func TestIsRetryable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"Nil", nil, false},
		{"Invalid", fmt.Errorf("%w: x", provider.ErrInvalid), false},
		{"Canceled", context.Canceled, false},
		{"Plain", errors.New("boom"), false},
		{"BadParameter", &provider.Error{Status: 400, Code: 100}, false},
		{"ExpiredToken", &provider.Error{Status: 401, Code: 190}, false},
		{"Status429", &provider.Error{Status: 429}, true},
		{"Status503", &provider.Error{Status: 503}, true},
		{"ThroughputCodeOn400", &provider.Error{Status: 400, Code: 130429}, true},
		{"PairRateLimit", &provider.Error{Status: 400, Code: 131056}, true},
		{"Wrapped", fmt.Errorf("sending: %w", &provider.Error{Status: 500}), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := provider.IsRetryable(tt.err); got != tt.want {
				t.Errorf("IsRetryable(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

func TestDefaultBackoff(t *testing.T) {
	for attempt := -1; attempt < 12; attempt++ {
		t.Run(fmt.Sprint("Attempt", attempt), func(t *testing.T) {
			ceiling := 5 * time.Second
			if a := max(attempt, 0); a < 5 {
				ceiling = min(250*time.Millisecond<<a, ceiling)
			}
			for range 200 {
				if d := provider.DefaultBackoff(attempt); d < 0 || d > ceiling {
					t.Fatalf("DefaultBackoff(%d) = %v, want within [0, %v]", attempt, d, ceiling)
				}
			}
		})
	}
}

func TestRequestURL(t *testing.T) {
	tests := []struct {
		name     string
		base     string // appended to the fake's URL
		version  string
		phoneID  string
		wantPath string
	}{
		{name: "DefaultVersion", wantPath: "/v21.0/" + providertest.PhoneID + "/messages"},
		{name: "AccountVersion", version: "v23.0", wantPath: "/v23.0/" + providertest.PhoneID + "/messages"},
		{name: "TrailingSlashBase", base: "/", wantPath: "/v21.0/" + providertest.PhoneID + "/messages"},
		{name: "BasePathPrefix", base: "/graph", wantPath: "/graph/v21.0/" + providertest.PhoneID + "/messages"},
		{name: "IDIsEscaped", phoneID: "12/../34", wantPath: "/v21.0/12%2F..%2F34/messages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gotPath, gotUA string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				gotPath, gotUA = r.URL.EscapedPath(), r.Header.Get("User-Agent")
				fmt.Fprint(w, `{"messages":[{"id":"wamid.X"}]}`)
			}))
			defer srv.Close()
			c := provider.New(provider.Options{BaseURL: srv.URL + tt.base, UserAgent: "sb-test"})
			acc := provider.Account{PhoneID: providertest.PhoneID, AccessToken: "t", APIVersion: tt.version}
			if tt.phoneID != "" {
				acc.PhoneID = tt.phoneID
			}
			if _, err := c.SendMessage(context.Background(), acc, hello); err != nil {
				t.Fatalf("SendMessage: %v", err)
			}
			if gotPath != tt.wantPath {
				t.Errorf("path = %q, want %q", gotPath, tt.wantPath)
			}
			if gotUA != "sb-test" {
				t.Errorf("User-Agent = %q", gotUA)
			}
		})
	}
	t.Run("ErrBadBaseURL", func(t *testing.T) {
		c := provider.New(provider.Options{BaseURL: "ftp://graph"})
		_, err := c.SendMessage(context.Background(), provider.Account{PhoneID: "1", AccessToken: "t"}, hello)
		if err == nil || !strings.Contains(err.Error(), "base URL") {
			t.Fatalf("err = %v, want a base URL error", err)
		}
	})
}

func TestTokenNeverPrintedOrLogged(t *testing.T) {
	acc := provider.Account{PhoneID: "1", BusinessID: "2", AccessToken: "EAASecretToken", APIVersion: "v21.0"}
	t.Run("Formatting", func(t *testing.T) {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			if s := fmt.Sprintf(verb, acc); strings.Contains(s, acc.AccessToken) {
				t.Errorf("%s prints the token: %s", verb, s)
			}
		}
	})
	t.Run("Slog", func(t *testing.T) {
		var buf bytes.Buffer
		slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "account", acc)
		if strings.Contains(buf.String(), acc.AccessToken) || !strings.Contains(buf.String(), `"phone_id":"1"`) {
			t.Errorf("slog output = %s", buf.String())
		}
	})
	t.Run("RetryLogs", func(t *testing.T) {
		var buf bytes.Buffer
		f := providertest.New(t)
		c := f.Client(provider.Options{Logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
		f.Script("POST /{phone}/messages", providertest.Unavailable(), providertest.InvalidToken())
		a := f.Account()
		a.AccessToken = acc.AccessToken
		if _, err := c.SendMessage(context.Background(), a, hello); err == nil {
			t.Fatal("want an error")
		}
		if buf.Len() == 0 {
			t.Fatal("nothing logged")
		}
		if strings.Contains(buf.String(), acc.AccessToken) {
			t.Errorf("log leaks the token: %s", buf.String())
		}
	})
}
