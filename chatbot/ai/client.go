package ai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"switchboard/internal/retryafter"
	"switchboard/internal/sleep"
	"time"
)

// Defaults of Config.
const (
	DefaultOpenAIBaseURL    = "https://api.openai.com/v1"
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
	DefaultGoogleBaseURL    = "https://generativelanguage.googleapis.com"
	// DefaultTimeout bounds one attempt: connecting, sending, the vendor
	// writing the reply and reading it.
	DefaultTimeout = 20 * time.Second
	// DefaultRetryWait is the wait before the retry when the vendor sent
	// no Retry-After.
	DefaultRetryWait = time.Second
	// DefaultMaxRetryAfter is the longest Retry-After honoured; a longer
	// one ends the call at once (the contact gets the fallback message
	// rather than a reply minutes late).
	DefaultMaxRetryAfter = 10 * time.Second
	// DefaultMaxResponseBytes caps an answer's body: a chat reply within
	// MaxAITokens is far smaller.
	DefaultMaxResponseBytes int64 = 1 << 20
	// DefaultMaxTokens is sent when Request.MaxTokens is not positive
	// (Anthropic requires max_tokens).
	DefaultMaxTokens = 1024
	// AnthropicVersion is the anthropic-version header sent.
	AnthropicVersion = "2023-06-01"
)

// Config configures New. The zero value calls the vendors' public APIs.
type Config struct {
	// OpenAIBaseURL (AI_OPENAI_BASE_URL) is the base /chat/completions is
	// appended to; AnthropicBaseURL (AI_ANTHROPIC_BASE_URL) gets
	// /v1/messages; GoogleBaseURL (AI_GOOGLE_BASE_URL) gets
	// /v1beta/models/{model}:generateContent. Empty means the vendor's
	// public URL. A trailing slash is ignored.
	OpenAIBaseURL, AnthropicBaseURL, GoogleBaseURL string
	// HTTPClient sends the requests; default a client on a clone of
	// http.DefaultTransport (so HTTPS_PROXY is honoured). Redirects are
	// never followed whatever the client says: they would carry the key
	// header to another host.
	HTTPClient *http.Client
	// Timeout bounds each attempt (DefaultTimeout when zero or less).
	Timeout time.Duration
	// RetryWait is the wait before the one retry when the vendor sent no
	// Retry-After (DefaultRetryWait when zero or less).
	RetryWait time.Duration
	// MaxRetryAfter is the longest Retry-After waited for
	// (DefaultMaxRetryAfter when zero or less).
	MaxRetryAfter time.Duration
	// MaxResponseBytes caps each answer's body
	// (DefaultMaxResponseBytes when zero or less).
	MaxResponseBytes int64
	// Sleep waits d or until ctx is done (returning ctx.Err()); tests
	// record the waits instead. Default a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Logger receives retry records (never keys). Default: discard.
	Logger *slog.Logger
	// UserAgent is sent on every request. Default "switchboard".
	UserAgent string
}

// Client is the Replier of New: it calls the vendor the Request names. It
// is safe for concurrent use and holds no per-organization state.
type Client struct {
	bases         map[string]string
	badBase       map[string]error
	http          *http.Client
	timeout       time.Duration
	retryWait     time.Duration
	maxRetryAfter time.Duration
	maxBytes      int64
	sleep         func(context.Context, time.Duration) error
	log           *slog.Logger
	userAgent     string
}

var _ Replier = (*Client)(nil)

// New returns a Client for cfg, defaults filled in. An unusable base URL
// is reported by every call to that vendor rather than here (config
// validation already refuses one at start).
func New(cfg Config) *Client {
	c := &Client{
		bases: map[string]string{}, badBase: map[string]error{},
		timeout: cfg.Timeout, retryWait: cfg.RetryWait, maxRetryAfter: cfg.MaxRetryAfter,
		maxBytes: cfg.MaxResponseBytes, sleep: cfg.Sleep, log: cfg.Logger, userAgent: cfg.UserAgent,
	}
	for vendor, base := range map[string][2]string{
		OpenAI:    {cfg.OpenAIBaseURL, DefaultOpenAIBaseURL},
		Anthropic: {cfg.AnthropicBaseURL, DefaultAnthropicBaseURL},
		Google:    {cfg.GoogleBaseURL, DefaultGoogleBaseURL},
	} {
		b := strings.TrimRight(base[0], "/")
		if b == "" {
			b = base[1]
		}
		u, err := url.Parse(b)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			c.badBase[vendor] = fmt.Errorf("%w: %s base URL %q is not an http(s) URL without query", ErrInvalid, vendor, b)
		}
		c.bases[vendor] = b
	}
	hc := http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	if cfg.HTTPClient != nil {
		hc = *cfg.HTTPClient
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.http = &hc
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.retryWait <= 0 {
		c.retryWait = DefaultRetryWait
	}
	if c.maxRetryAfter <= 0 {
		c.maxRetryAfter = DefaultMaxRetryAfter
	}
	if c.maxBytes <= 0 {
		c.maxBytes = DefaultMaxResponseBytes
	}
	if c.sleep == nil {
		c.sleep = sleep.For
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.userAgent == "" {
		c.userAgent = "switchboard"
	}
	return c
}

// Reply writes the reply to req with the vendor req.Provider names. Errors
// are ErrInvalid (nothing sent), *Error (the vendor's error answer, after
// the one retry for 429 and 5xx), ErrBlocked, ErrNoReply,
// ErrUnexpectedResponse, ErrResponseTooLarge, or a transport error
// (timeouts included); every one names the vendor and none holds the key.
func (c *Client) Reply(ctx context.Context, req Request) (string, error) {
	build, ok := builders[req.Provider]
	if !ok {
		return "", fmt.Errorf("%w: unknown provider %q", ErrInvalid, req.Provider)
	}
	if err := c.badBase[req.Provider]; err != nil {
		return "", err
	}
	if strings.TrimSpace(req.Model) == "" {
		return "", fmt.Errorf("%w: %s: no model", ErrInvalid, req.Provider)
	}
	if req.APIKey == "" {
		return "", fmt.Errorf("%w: %s: no API key", ErrInvalid, req.Provider)
	}
	if req.MaxTokens <= 0 {
		req.MaxTokens = DefaultMaxTokens
	}
	call, err := build(c.bases[req.Provider], req)
	if err != nil {
		return "", fmt.Errorf("%w (%s)", err, req.Provider)
	}
	body, err := c.send(ctx, req.Provider, req.APIKey, call)
	if err != nil {
		return "", err
	}
	text, err := call.decode(body)
	if err != nil {
		return "", fmt.Errorf("ai: %s: %w", req.Provider, err)
	}
	return text, nil
}

// call is one vendor request, built once and sent up to twice.
type call struct {
	url    string
	header http.Header
	body   []byte
	decode func([]byte) (string, error)
}

// builders make each vendor's call from a Request whose provider, model,
// key and max tokens are checked.
var builders = map[string]func(base string, req Request) (*call, error){
	OpenAI:    openAICall,
	Anthropic: anthropicCall,
	Google:    googleCall,
}

func jsonBody(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// The payloads are structs of strings and ints: encoding cannot fail.
	_ = enc.Encode(v)
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// send posts the call, retrying once on 429 and 5xx, and returns the body of
// the 2xx answer.
func (c *Client) send(ctx context.Context, vendor, key string, cl *call) ([]byte, error) {
	for attempt := 0; ; attempt++ {
		body, err := c.attempt(ctx, vendor, key, cl)
		var verr *Error
		if err == nil || !errors.As(err, &verr) || !verr.Retryable() || attempt > 0 {
			return body, err
		}
		wait := c.retryWait
		if verr.RetryAfter > 0 {
			if verr.RetryAfter > c.maxRetryAfter {
				return nil, err
			}
			wait = verr.RetryAfter
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return nil, err
		}
		c.log.LogAttrs(ctx, slog.LevelWarn, "ai reply retrying",
			slog.String("vendor", vendor), slog.Int("status", verr.Status), slog.Duration("wait", wait))
		if serr := c.sleep(ctx, wait); serr != nil {
			return nil, fmt.Errorf("ai: %s: %w (after %v)", vendor, serr, err)
		}
	}
}

// attempt makes one exchange within the per-attempt timeout.
func (c *Client) attempt(ctx context.Context, vendor, key string, cl *call) ([]byte, error) {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(actx, http.MethodPost, cl.url, bytes.NewReader(cl.body))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, vendor, err)
	}
	for k, v := range cl.header {
		hr.Header[k] = v
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	hr.Header.Set("User-Agent", c.userAgent)
	resp, err := c.http.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("ai: %s: %w", vendor, redactURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, readError(resp, vendor, key)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("ai: %s: reading the answer: %w", vendor, redactURLError(err))
	}
	if int64(len(body)) > c.maxBytes {
		return nil, fmt.Errorf("ai: %s: %w (over %d bytes)", vendor, ErrResponseTooLarge, c.maxBytes)
	}
	return body, nil
}

// redactURLError keeps a *url.Error's operation and cause but not its URL:
// it holds the model name and base, never the key, yet logs need neither.
func redactURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// maxErrorBytes bounds the part of an error answer read for its message.
const maxErrorBytes = 64 << 10

// readError turns a non-2xx answer into an *Error. The three vendors'
// error bodies share {"error": {"message", "type" | "status" | "code"}}.
func readError(resp *http.Response, vendor, key string) *Error {
	e := &Error{Vendor: vendor, Status: resp.StatusCode, RetryAfter: retryafter.Parse(resp.Header.Get("Retry-After"), time.Now())}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
	var body struct {
		Error struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Status  string          `json:"status"`
			Code    json.RawMessage `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &body) == nil {
		e.Message = cleanMessage(body.Error.Message, key)
		e.Type = body.Error.Type
		if e.Type == "" {
			e.Type = body.Error.Status
		}
		var code string
		if e.Type == "" && json.Unmarshal(body.Error.Code, &code) == nil {
			e.Type = code
		}
		e.Type = cleanMessage(e.Type, key)
	}
	return e
}
