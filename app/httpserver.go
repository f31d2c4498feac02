package app

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"switchboard/media"
	"switchboard/rest"
)

// NewHTTPServer is the server Serve runs for the application's handler,
// with the configured timeouts: a slow client cannot hold a connection
// longer than HTTP_READ_HEADER_TIMEOUT for its headers, HTTP_READ_TIMEOUT
// for the whole request and HTTP_WRITE_TIMEOUT until the answer is out
// (WebSocket upgrades and authenticated long transfers set their own
// deadlines: see connectionDeadlines), nor keep an idle connection past
// HTTP_IDLE_TIMEOUT; and one client address holds at most
// HTTP_MAX_CONNS_PER_ADDRESS connections (see connLimit).
func (a *App) NewHTTPServer() *http.Server {
	srv := a.newServer(a.Handler)
	srv.ConnState = newConnLimit(a.Cfg.HTTPConnsPerAddress, a.Cfg.TrustedProxies, a.Log).track
	return srv
}

func (a *App) newServer(h http.Handler) *http.Server {
	c := a.Cfg
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: c.HTTPReadHeaderTimeout,
		ReadTimeout:       c.HTTPReadTimeout,
		WriteTimeout:      c.HTTPWriteTimeout,
		IdleTimeout:       c.HTTPIdleTimeout,
	}
}

// longTransfers are the routes whose requests or answers may be large
// files: their deadlines are HTTP_UPLOAD_TIMEOUT from the start instead.
// TestLongTransfersAreRoutes keeps them in step with the route table.
var longTransfers = []string{
	http.MethodPost + " /api/messages/media",
	http.MethodPost + " /api/messages/template",
	http.MethodPost + " /api/accounts/:id/business_profile/photo",
	http.MethodPost + " /api/templates/upload-media",
	http.MethodPost + " /api/org/audio",
	http.MethodPost + " /api/ivr-flows/audio",
	http.MethodGet + " " + media.URLPrefix + "*key",
}

// connectionDeadlines gives long transfers HTTP_UPLOAD_TIMEOUT instead of
// the server's read and write timeouts, once the request's headers
// authenticate it: the credential is in the headers, so it is checked
// before a byte of the body is read. Any other request to those routes
// keeps HTTP_READ_TIMEOUT, and its refusal (from the route's guard) closes
// the connection instead of reading the body first, so a client without
// credentials cannot hold a connection by dripping a body. WebSockets need
// nothing here: net/http clears a connection's deadlines when it is
// hijacked, and each WebSocket then keeps its own.
func (a *App) connectionDeadlines(api *rest.API) gin.HandlerFunc {
	return func(c *gin.Context) {
		if slices.Contains(longTransfers, c.Request.Method+" "+c.FullPath()) {
			if _, err := api.Authenticate(c); err != nil {
				// net/http drains an unread body before answering unless
				// the answer closes the connection.
				c.Header("Connection", "close")
			} else {
				a.extendDeadlines(c)
			}
		}
		c.Next()
	}
}

// extendDeadlines sets the connection's deadlines HTTP_UPLOAD_TIMEOUT from
// now.
func (a *App) extendDeadlines(c *gin.Context) {
	until := time.Now().Add(a.Cfg.HTTPUploadTimeout)
	rc := http.NewResponseController(c.Writer)
	if err := errors.Join(rc.SetReadDeadline(until), rc.SetWriteDeadline(until)); err != nil {
		a.Log.Warn("setting the deadlines of a long transfer", "err", err)
	}
}

// securityHeaders are on every answer: no content sniffing, no framing and
// no active content (a stored media file that looks like HTML runs
// nothing; the GraphiQL page and its assets replace the policy with their
// own), and no caching of API answers (which carry tokens and tenant
// data; stored media set their own).
func securityHeaders() gin.HandlerFunc {
	return func(c *gin.Context) {
		h := c.Writer.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; sandbox")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		if p := c.Request.URL.Path; strings.HasPrefix(p, "/api/") || p == "/graphql" {
			h.Set("Cache-Control", "no-store")
		}
		c.Next()
	}
}

// metricsEndpoint serves /metrics, behind METRICS_TOKEN when one is set.
func (a *App) metricsEndpoint() http.Handler {
	h := a.Metrics.handler()
	if a.Cfg.MetricsToken == "" {
		return h
	}
	want := sha256.Sum256([]byte(a.Cfg.MetricsToken))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		var got [sha256.Size]byte
		if len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") {
			got = sha256.Sum256([]byte(strings.TrimSpace(auth[7:])))
		}
		// Digests have one length, so the comparison time says nothing
		// about the token.
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			http.Error(w, "metrics need Authorization: Bearer <METRICS_TOKEN>", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// ServeMetrics serves /metrics alone on ln (METRICS_ADDR) until ctx is
// done.
func (a *App) ServeMetrics(ctx context.Context, ln net.Listener) error {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", a.metricsEndpoint())
	srv := a.newServer(mux)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}
}
