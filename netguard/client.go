// Package netguard keeps requests made on a user's behalf (outbound webhooks,
// custom action webhooks, chatbot api_call and webhook nodes, AI context API
// fetches, header_media_url downloads) away from our own network: loopback,
// private, link-local, metadata and other non-public addresses are refused
// after DNS resolution, at connect time, on every redirect hop, unless the
// operator allows private destinations (OUTBOUND_ALLOW_PRIVATE). Every client
// it builds has a timeout and a response size cap.
//
// The package owns the address policy and the HTTP client built on it. It
// must not know who makes the request or why, and it reads no configuration:
// callers pass Options.
package netguard

import (
	"fmt"
	"net/http"
	"time"
)

// Defaults for zero Options fields.
const (
	// DefaultTimeout matches the outbound webhook timeout of the contract.
	DefaultTimeout = 15 * time.Second
	// DefaultMaxResponseBytes is enough for any API answer we parse.
	DefaultMaxResponseBytes int64 = 10 << 20
	// DefaultMaxRedirects is how many redirects a client follows.
	DefaultMaxRedirects = 5
	// NoRedirects as Options.MaxRedirects makes the client return 3xx
	// responses as they are (outbound webhooks treat them as failures).
	NoRedirects = -1

	maxResponseHeaderBytes = 64 << 10
	maxConnsPerHost        = 64
)

// Options configure NewClient. The zero value is the safe default.
type Options struct {
	// AllowPrivate lets requests reach loopback, private, link-local and
	// metadata addresses: for local development and tests only.
	AllowPrivate bool
	// Timeout bounds the whole exchange: connecting, every redirect and
	// reading the body. Zero or less means DefaultTimeout.
	Timeout time.Duration
	// MaxResponseBytes caps every response body (after decompression).
	// Zero or less means DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// MaxRedirects is how many redirects are followed; zero means
	// DefaultMaxRedirects and a negative value (NoRedirects) follows none.
	MaxRedirects int
	// Resolver looks up host names; nil means net.DefaultResolver. Its
	// answers are checked like any other, so it cannot widen the policy.
	Resolver Resolver

	// connect replaces the guarded net.Dialer in tests (export_test.go), so
	// a fake public address can lead to an httptest server.
	connect connectFunc
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if o.MaxRedirects == 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	return o
}

// NewClient returns an HTTP client for requests made on a user's behalf.
//
// Unless opts.AllowPrivate, it refuses blocked destinations (see CheckIP)
// with an error matching ErrBlockedAddress: a redirect whose URL names one is
// stopped before it is followed, and every connection, first hop or
// redirect, is checked after DNS resolution against the address the socket
// actually connects to, which also defeats DNS rebinding. Proxy settings from
// the environment are ignored, since a proxy would hide the destination from
// the check. Reads past opts.MaxResponseBytes fail with ErrResponseTooLarge,
// redirects past opts.MaxRedirects with ErrTooManyRedirects.
//
// At most maxConnsPerHost connections to one host are open at once, and
// all of them are kept for reuse (net/http keeps 2 idle and opens without
// limit): webhook drains post whole batches to one receiver at the same
// time, and a pool smaller than what is in flight closed and reopened
// connections all the time (~200 new connections a second per receiver
// at 2,000 deliveries/s). Requests past the limit wait for a connection,
// within their timeout.
func NewClient(opts Options) *http.Client {
	opts = opts.withDefaults()
	g := newGuard(opts)
	base := &http.Transport{
		Proxy:                  nil,
		DialContext:            g.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           4 * maxConnsPerHost,
		MaxIdleConnsPerHost:    maxConnsPerHost,
		MaxConnsPerHost:        maxConnsPerHost,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: maxResponseHeaderBytes,
	}
	return &http.Client{
		Transport:     &limitTransport{base: base, limit: opts.MaxResponseBytes},
		Timeout:       opts.Timeout,
		CheckRedirect: checkRedirect(opts.MaxRedirects, opts.AllowPrivate),
	}
}

// checkRedirect refuses a redirect past the limit, or to a URL that
// ValidateURL would refuse; the dialer checks the hop's resolved address.
func checkRedirect(maxRedirects int, allowPrivate bool) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if maxRedirects < 0 {
			return http.ErrUseLastResponse
		}
		if len(via) > maxRedirects {
			return fmt.Errorf("%w: stopped after %d redirects", ErrTooManyRedirects, maxRedirects)
		}
		return ValidateURL(req.URL.String(), allowPrivate)
	}
}
