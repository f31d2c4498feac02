package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"switchboard/internal/sleep"
	"time"
)

// Defaults of Options and Account.
const (
	DefaultBaseURL       = "https://graph.facebook.com"
	DefaultAPIVersion    = "v21.0"
	DefaultTimeout       = 30 * time.Second
	DefaultMaxRetries    = 3
	DefaultMaxRetryAfter = time.Minute
)

// Options configure a Client. The zero value is usable.
type Options struct {
	// BaseURL is the Graph API base (config PROVIDER_BASE_URL), without the
	// version segment. Default DefaultBaseURL.
	BaseURL string
	// HTTPClient sends the requests. Default a plain &http.Client{}; its own
	// Timeout, if any, applies on top of Timeout.
	HTTPClient *http.Client
	// Timeout bounds one attempt, including reading the response body.
	// Default DefaultTimeout.
	Timeout time.Duration
	// MaxRetries is the number of retries after the first attempt. Zero means
	// DefaultMaxRetries; a negative value disables retries.
	MaxRetries int
	// Backoff returns the wait before retry number attempt (0 for the first
	// retry). Default DefaultBackoff.
	Backoff func(attempt int) time.Duration
	// Sleep waits d or until ctx is done, whichever comes first, and returns
	// ctx.Err() in the latter case. Tests inject a recorder. Default a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// MaxRetryAfter is the longest Retry-After the client waits in-process;
	// a longer one ends the call with an *Error carrying RetryAfter so that the
	// caller's queue can reschedule. Default DefaultMaxRetryAfter.
	MaxRetryAfter time.Duration
	// Logger receives retry and failure records (never tokens). Default: discard.
	Logger *slog.Logger
	// UserAgent is sent on every request. Default "switchboard".
	UserAgent string
}

// Account holds the credentials and coordinates of one call.
type Account struct {
	PhoneID     string // phone number id: messages, media, profile
	BusinessID  string // WhatsApp Business Account id: subscribed apps
	AccessToken string // system user or user access token
	APIVersion  string // such as "v21.0"; empty means DefaultAPIVersion
}

// String describes the account without its access token, so that %v and %+v
// never leak it.
func (a Account) String() string {
	return fmt.Sprintf("{PhoneID:%s BusinessID:%s APIVersion:%s AccessToken:%s}",
		a.PhoneID, a.BusinessID, a.APIVersion, redactedIf(a.AccessToken != ""))
}

// GoString is String for %#v.
func (a Account) GoString() string { return "provider.Account" + a.String() }

// LogValue makes slog print the account without its access token.
func (a Account) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("phone_id", a.PhoneID),
		slog.String("business_id", a.BusinessID),
		slog.String("api_version", a.APIVersion),
	)
}

func redactedIf(set bool) string {
	if set {
		return "[redacted]"
	}
	return ""
}

var versionRE = regexp.MustCompile(`^v[0-9]+\.[0-9]+$`)

// version returns the account's Graph API version or DefaultAPIVersion.
func (a Account) version() (string, error) {
	v := a.APIVersion
	if v == "" {
		v = DefaultAPIVersion
	}
	if !versionRE.MatchString(v) {
		return "", fmt.Errorf("%w: api version %q is not of the form v21.0", ErrInvalid, v)
	}
	return v, nil
}

// Client calls the WhatsApp Cloud API. It is safe for concurrent use and
// holds no per-account state: every call takes the Account it acts for.
type Client struct {
	base          *url.URL
	baseErr       error
	http          *http.Client
	timeout       time.Duration
	maxRetries    int
	backoff       func(int) time.Duration
	sleep         func(context.Context, time.Duration) error
	maxRetryAfter time.Duration
	log           *slog.Logger
	userAgent     string
}

// New returns a Client with opts, defaults filled in. An unusable BaseURL is
// reported by every call rather than here.
func New(opts Options) *Client {
	c := &Client{
		http:          opts.HTTPClient,
		timeout:       opts.Timeout,
		maxRetries:    opts.MaxRetries,
		backoff:       opts.Backoff,
		sleep:         opts.Sleep,
		maxRetryAfter: opts.MaxRetryAfter,
		log:           opts.Logger,
		userAgent:     opts.UserAgent,
	}
	base := strings.TrimRight(opts.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	switch {
	case err != nil:
		c.baseErr = fmt.Errorf("provider: base URL: %w", err)
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "":
		c.baseErr = fmt.Errorf("provider: base URL %q must be an http(s) URL without query", base)
	default:
		c.base = u
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	switch {
	case c.maxRetries == 0:
		c.maxRetries = DefaultMaxRetries
	case c.maxRetries < 0:
		c.maxRetries = 0
	}
	if c.backoff == nil {
		c.backoff = DefaultBackoff
	}
	if c.sleep == nil {
		c.sleep = sleep.For
	}
	if c.maxRetryAfter <= 0 {
		c.maxRetryAfter = DefaultMaxRetryAfter
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.userAgent == "" {
		c.userAgent = "switchboard"
	}
	return c
}

// DefaultBackoff is exponential backoff with full jitter: a random wait in
// [0, min(5s, 250ms·2^attempt)].
func DefaultBackoff(attempt int) time.Duration {
	const base, ceiling = 250 * time.Millisecond, 5 * time.Second
	d := ceiling
	if attempt < 0 {
		attempt = 0
	}
	if attempt < 5 {
		d = min(base<<attempt, ceiling)
	}
	return rand.N(d + 1)
}

// request is one logical call; send may make several attempts of it.
type request struct {
	method string
	url    *url.URL
	// what names the call in logs and errors: method and path, no query.
	what        string
	contentType string
	// header holds extra headers, set verbatim (keys are not canonicalised).
	header map[string]string
	// newBody returns a fresh body for each attempt; nil means no body.
	newBody func() (io.Reader, error)
	length  int64
	// idempotent calls are retried on any transient failure; others only
	// when the request provably did no work (see retryable).
	idempotent bool
	// oauth selects "Authorization: OAuth <token>" (Resumable Upload API)
	// instead of "Bearer".
	oauth bool
}

// endpoint builds {base}/{version}/{segments...} with each segment escaped.
func (c *Client) endpoint(acc Account, query url.Values, segments ...string) (*url.URL, error) {
	if c.baseErr != nil {
		return nil, c.baseErr
	}
	v, err := acc.version()
	if err != nil {
		return nil, err
	}
	parts := []string{c.base.EscapedPath(), v}
	for _, s := range segments {
		if s == "" {
			return nil, fmt.Errorf("%w: empty id in path", ErrInvalid)
		}
		parts = append(parts, url.PathEscape(s))
	}
	raw := strings.Join(parts, "/")
	p, err := url.PathUnescape(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	u := *c.base
	u.Path, u.RawPath, u.RawQuery = p, raw, query.Encode()
	return &u, nil
}

func jsonRequest(method string, u *url.URL, payload any) (*request, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(payload); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	b := bytes.TrimRight(buf.Bytes(), "\n")
	return &request{
		method:      method,
		url:         u,
		contentType: "application/json",
		newBody:     bytesBody(b),
		length:      int64(len(b)),
	}, nil
}

func getRequest(u *url.URL) *request {
	return &request{method: http.MethodGet, url: u, idempotent: true}
}

func bytesBody(b []byte) func() (io.Reader, error) {
	return func() (io.Reader, error) { return bytes.NewReader(b), nil }
}

// send runs r with retries and returns a 2xx response whose body the caller
// must consume and then release with done.
func (c *Client) send(ctx context.Context, acc Account, r *request) (*http.Response, func(), error) {
	if acc.AccessToken == "" {
		return nil, nil, fmt.Errorf("%w: account has no access token", ErrInvalid)
	}
	if r.what == "" {
		r.what = r.method + " " + r.url.EscapedPath()
	}
	for attempt := 0; ; attempt++ {
		resp, cancel, err := c.attempt(ctx, acc.AccessToken, r)
		if err == nil && resp.StatusCode >= 200 && resp.StatusCode < 300 {
			return resp, func() { resp.Body.Close(); cancel() }, nil
		}
		var (
			retry      bool
			retryAfter time.Duration
			failure    error
		)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, nil, fmt.Errorf("provider: %s: %w", r.what, cerr)
			}
			var te *transportError
			if !errors.As(err, &te) {
				te = &transportError{what: r.what, err: err}
			}
			retry = te.retryable(r.idempotent)
			failure = te
		} else {
			perr := readError(resp, acc.AccessToken)
			resp.Body.Close()
			cancel()
			retry = perr.retryable(r.idempotent)
			retryAfter = perr.RetryAfter
			failure = perr
		}
		if !retry || attempt >= c.maxRetries {
			// A definitive answer is the caller's to report; giving up on a
			// transient failure is worth a warning.
			level := slog.LevelDebug
			if retry {
				level = slog.LevelWarn
			}
			c.log.LogAttrs(ctx, level, "provider call failed",
				slog.String("call", r.what), slog.Int("attempts", attempt+1), slog.String("error", failure.Error()))
			return nil, nil, failure
		}
		wait := c.backoff(attempt)
		if retryAfter > 0 {
			if retryAfter > c.maxRetryAfter {
				c.log.LogAttrs(ctx, slog.LevelWarn, "provider call throttled beyond in-process wait",
					slog.String("call", r.what), slog.Duration("retry_after", retryAfter))
				return nil, nil, failure
			}
			wait = retryAfter
		}
		c.log.LogAttrs(ctx, slog.LevelWarn, "provider call retrying",
			slog.String("call", r.what), slog.Int("attempt", attempt+1),
			slog.Duration("wait", wait), slog.String("error", failure.Error()))
		if serr := c.sleep(ctx, wait); serr != nil {
			return nil, nil, fmt.Errorf("provider: %s: %w", r.what, serr)
		}
	}
}

// attempt makes one HTTP exchange. On success the returned cancel must be
// called once the body is consumed. A failure without an answer is a
// *transportError.
func (c *Client) attempt(ctx context.Context, token string, r *request) (*http.Response, context.CancelFunc, error) {
	var body io.Reader
	if r.newBody != nil {
		b, err := r.newBody()
		if err != nil {
			return nil, nil, &transportError{what: r.what, err: err, permanent: true}
		}
		body = b
	}
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	req, err := http.NewRequestWithContext(actx, r.method, r.url.String(), body)
	if err != nil {
		cancel()
		return nil, nil, &transportError{what: r.what, err: err, permanent: true}
	}
	if body != nil {
		req.ContentLength = r.length
		if r.length == 0 {
			req.Body = http.NoBody
		}
	}
	scheme := "Bearer "
	if r.oauth {
		scheme = "OAuth "
	}
	req.Header.Set("Authorization", scheme+token)
	req.Header.Set("User-Agent", c.userAgent)
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	for k, v := range r.header {
		req.Header[k] = []string{v}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		cancel()
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // the URL is already in what, without its query
		}
		return nil, nil, &transportError{what: r.what, err: err}
	}
	return resp, cancel, nil
}

// doJSON runs r and decodes a JSON answer into out (nil: discard).
func (c *Client) doJSON(ctx context.Context, acc Account, r *request, out any) error {
	resp, done, err := c.send(ctx, acc, r)
	if err != nil {
		return err
	}
	defer done()
	body := io.LimitReader(resp.Body, maxJSONBody)
	if out == nil {
		_, err := io.Copy(io.Discard, body)
		if err != nil {
			return fmt.Errorf("provider: %s: reading answer: %w", r.what, err)
		}
		return nil
	}
	if err := json.NewDecoder(body).Decode(out); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrUnexpectedResponse, r.what, err)
	}
	return nil
}

const maxJSONBody = 8 << 20

// successAnswer is the {"success": true} answer of Graph write calls.
type successAnswer struct {
	Success bool `json:"success"`
}

func (c *Client) doSuccess(ctx context.Context, acc Account, r *request) error {
	var a successAnswer
	if err := c.doJSON(ctx, acc, r, &a); err != nil {
		return err
	}
	if !a.Success {
		return fmt.Errorf("%w: %s: success is false", ErrUnexpectedResponse, r.what)
	}
	return nil
}
