package app_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/gorilla/websocket"

	"switchboard/app"
	"switchboard/config"
	"switchboard/events"
	"switchboard/internal/apitest"
)

func TestSecurityHeaders(t *testing.T) {
	env := apitest.New(t)
	for _, tc := range []struct {
		name, method, path, body string
		auth, noStore            bool
	}{
		{"Health", http.MethodGet, "/healthz", "", false, false},
		{"Metrics", http.MethodGet, "/metrics", "", false, false},
		{"AuthenticatedAPI", http.MethodGet, "/api/me", "", true, true},
		{"LoginCarryingTokens", http.MethodPost, "/api/auth/login", `{"email":"admin@example.com","password":"` + apitest.AdminPassword + `"}`, false, true},
		{"APIError", http.MethodGet, "/api/nope", "", true, true},
		{"Unauthenticated", http.MethodGet, "/api/teams", "", false, true},
		{"GraphQL", http.MethodPost, "/graphql", `{"query":"{ viewer { user { id } } }"}`, true, true},
		{"NoRoute", http.MethodGet, "/index.html", "", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := env.Anonymous()
			if tc.auth {
				c = env.Admin
			}
			var body any
			if tc.body != "" {
				body = tc.body
			}
			r := c.Do(tc.method, tc.path, body)
			if r.Status >= 500 {
				t.Fatalf("status %d", r.Status)
			}
			if got := r.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options %q", got)
			}
			if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "default-src 'none'") {
				t.Errorf("Content-Security-Policy %q", csp)
			}
			if got := r.Header.Get("Cache-Control"); tc.noStore && got != "no-store" {
				t.Errorf("Cache-Control %q, want no-store", got)
			}
		})
	}
}

// get fetches url with an optional bearer token.
func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const metricName = "switchboard_http_requests_total"

func TestMetricsProtection(t *testing.T) {
	t.Run("DefaultOpenOnMainListener", func(t *testing.T) {
		env := apitest.New(t)
		if code, body := get(t, env.Server.URL+"/metrics", ""); code != http.StatusOK || !strings.Contains(body, metricName) {
			t.Fatalf("/metrics: %d %.200s", code, body)
		}
	})
	t.Run("Token", func(t *testing.T) {
		env := apitest.New(t, apitest.Setting{Name: "METRICS_TOKEN", Value: "s3cret-metrics"})
		for _, tc := range []struct {
			name, token string
			want        int
		}{
			{"Missing", "", http.StatusUnauthorized},
			{"Wrong", "s3cret-metricz", http.StatusUnauthorized},
			{"Prefix", "s3cret", http.StatusUnauthorized},
			{"AccessTokenIsNotIt", env.Admin.Token, http.StatusUnauthorized},
			{"Right", "s3cret-metrics", http.StatusOK},
		} {
			t.Run(tc.name, func(t *testing.T) {
				code, body := get(t, env.Server.URL+"/metrics", tc.token)
				if code != tc.want || (code == http.StatusOK) != strings.Contains(body, metricName) {
					t.Fatalf("/metrics: %d %.200s", code, body)
				}
			})
		}
	})
	t.Run("OwnListener", func(t *testing.T) {
		env := apitest.New(t, apitest.Setting{Name: "METRICS_ADDR", Value: "127.0.0.1:0"})
		if code, body := get(t, env.Server.URL+"/metrics", ""); code != http.StatusNotFound || strings.Contains(body, metricName) {
			t.Fatalf("/metrics on the main listener: %d %.200s", code, body)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- env.App.ServeMetrics(ctx, ln) }()
		t.Cleanup(func() { cancel(); <-done })
		if code, body := get(t, "http://"+ln.Addr().String()+"/metrics", ""); code != http.StatusOK || !strings.Contains(body, metricName) {
			t.Fatalf("/metrics on METRICS_ADDR: %d %.200s", code, body)
		}
		if code, _ := get(t, "http://"+ln.Addr().String()+"/api/me", env.Admin.Token); code != http.StatusNotFound {
			t.Fatalf("the API on METRICS_ADDR: %d", code)
		}
	})
}

// TestPprofListener: the profiling endpoints are served only on their own
// listener (PPROF_ADDR), never on the API's.
func TestPprofListener(t *testing.T) {
	env := apitest.New(t)
	if code, body := get(t, env.Server.URL+"/debug/pprof/", ""); code != http.StatusNotFound || strings.Contains(body, "goroutine") {
		t.Fatalf("/debug/pprof/ on the main listener: %d %.200s", code, body)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- env.App.ServePprof(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	if code, body := get(t, "http://"+ln.Addr().String()+"/debug/pprof/", ""); code != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Fatalf("/debug/pprof/ on PPROF_ADDR: %d %.200s", code, body)
	}
	if code, _ := get(t, "http://"+ln.Addr().String()+"/api/me", env.Admin.Token); code != http.StatusNotFound {
		t.Fatalf("the API on PPROF_ADDR: %d", code)
	}
}

// anonStatuses sends n anonymous requests, the i-th with header set to
// value(i), and returns their statuses.
func anonStatuses(t *testing.T, env *apitest.Env, n int, header string, value func(int) string) []int {
	t.Helper()
	var out []int
	for i := range n {
		req, _ := http.NewRequest(http.MethodGet, env.Server.URL+"/api/nope", nil)
		if header != "" {
			req.Header.Set(header, value(i))
		}
		out = append(out, env.Send(req).Status)
	}
	return out
}

func limited(statuses []int) bool {
	for _, s := range statuses {
		if s == http.StatusTooManyRequests {
			return true
		}
	}
	return false
}

func TestClientAddress(t *testing.T) {
	const perMinute = "4"
	spoofed := func(i int) string { return "203.0.113." + string(rune('1'+i)) }
	t.Run("UntrustedPeerCannotPickItsAddress", func(t *testing.T) {
		env := apitest.New(t, apitest.Setting{Name: "RATE_LIMIT_ANON_PER_MINUTE", Value: perMinute})
		for _, h := range []string{"X-Forwarded-For", "X-Real-IP"} {
			if got := anonStatuses(t, env, 6, h, spoofed); !limited(got) {
				t.Fatalf("%s from an untrusted peer changed the bucket: %v", h, got)
			}
		}
	})
	t.Run("TrustedProxyForwards", func(t *testing.T) {
		env := apitest.New(t, apitest.Setting{Name: "RATE_LIMIT_ANON_PER_MINUTE", Value: perMinute},
			apitest.Setting{Name: "TRUSTED_PROXIES", Value: "127.0.0.0/8, ::1"})
		if got := anonStatuses(t, env, 6, "X-Forwarded-For", spoofed); limited(got) {
			t.Fatalf("clients behind a trusted proxy share one bucket: %v", got)
		}
		if got := anonStatuses(t, env, 6, "X-Real-IP", func(i int) string { return "198.51.100." + string(rune('1'+i)) }); limited(got) {
			t.Fatalf("X-Real-IP of a trusted proxy ignored: %v", got)
		}
		same := func(int) string { return "192.0.2.9" }
		if got := anonStatuses(t, env, 6, "X-Forwarded-For", same); !limited(got) {
			t.Fatalf("the forwarded client is not limited: %v", got)
		}
	})
	t.Run("InvalidCIDRIsAConfigError", func(t *testing.T) {
		_, err := loadConfig(map[string]string{"TRUSTED_PROXIES": "10.0.0.0/8,not-a-cidr"})
		if err == nil || !strings.Contains(err.Error(), "TRUSTED_PROXIES") {
			t.Fatalf("config error: %v", err)
		}
	})
}

// rawRequest opens a TCP connection to the test server and writes head.
func rawRequest(t *testing.T, env *apitest.Env, head string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", env.Server.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	return conn
}

// expectCut reads until the server ends the connection (an answer such as
// 408 or 400 may come first); a connection still open after wait fails.
func expectCut(t *testing.T, conn net.Conn, wait time.Duration) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(wait))
	_, err := io.Copy(io.Discard, bufio.NewReader(conn))
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the server still holds the connection after %s", wait)
	}
}

func TestSlowClients(t *testing.T) {
	env := apitest.New(t,
		apitest.Setting{Name: "HTTP_READ_HEADER_TIMEOUT", Value: "1s"},
		apitest.Setting{Name: "HTTP_READ_TIMEOUT", Value: "1s"},
		apitest.Setting{Name: "HTTP_WRITE_TIMEOUT", Value: "1s"},
		apitest.Setting{Name: "HTTP_IDLE_TIMEOUT", Value: "1s"},
	)
	// Generous against a busy machine, far below the 65 s a stalled body
	// was held before.
	const wait = 20 * time.Second
	t.Run("StalledBody", func(t *testing.T) {
		conn := rawRequest(t, env, "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
		expectCut(t, conn, wait)
	})
	t.Run("StalledHeaders", func(t *testing.T) {
		conn := rawRequest(t, env, "GET /healthz HTTP/1.1\r\nHost: x\r\n")
		expectCut(t, conn, wait)
	})
	t.Run("IdleKeepAlive", func(t *testing.T) {
		conn := rawRequest(t, env, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("healthz: %v %v", resp, err)
		}
		expectCut(t, conn, wait)
	})
	t.Run("UploadGetsUploadTimeout", func(t *testing.T) {
		// A multipart upload that takes longer than HTTP_READ_TIMEOUT
		// reaches its handler whole.
		expectSlowUploadServed(t, env, wait)
	})
	t.Run("WebSocketsOutliveThem", func(t *testing.T) {
		ws := wsConnect(t, env, env.Admin)
		gql := graphqlWSConnect(t, env, env.Admin)
		time.Sleep(2500 * time.Millisecond) // past every timeout above
		if err := env.App.Events.Record(context.Background(), events.Event{
			Type: events.ContactUpdated, OrgID: env.OrgID, Payload: map[string]string{"id": "x"},
		}); err != nil {
			t.Fatal(err)
		}
		if m := wsReadJSON(t, ws); m["type"] != events.FrameContactUpdated {
			t.Fatalf("/ws after the timeouts: %v", m)
		}
		if err := gql.WriteJSON(map[string]any{"type": "ping"}); err != nil {
			t.Fatal(err)
		}
		for {
			m := wsReadJSON(t, gql)
			if m["type"] == "pong" {
				break
			}
			if m["type"] != "ka" && m["type"] != "ping" {
				t.Fatalf("GraphQL WebSocket after the timeouts: %v", m)
			}
		}
	})
}

// TestLongTransfersAreRoutes keeps the routes given HTTP_UPLOAD_TIMEOUT in
// step with the route table.
func TestLongTransfersAreRoutes(t *testing.T) {
	env := apitest.New(t)
	var routes []string
	for _, r := range env.App.Handler.(*gin.Engine).Routes() {
		routes = append(routes, r.Method+" "+r.Path)
	}
	for _, lt := range app.LongTransfers {
		if !slices.Contains(routes, lt) {
			t.Errorf("%s is not a route", lt)
		}
	}
}

// wsConnect opens /ws for c and reads its connected message.
func wsConnect(t *testing.T, env *apitest.Env, c *apitest.Client) *websocket.Conn {
	t.Helper()
	conn, resp, err := wsDial(env, c)
	if err != nil {
		t.Fatalf("dial /ws: %v (%v)", err, resp)
	}
	t.Cleanup(func() { conn.Close() })
	if m := wsReadJSON(t, conn); m["type"] != "connected" {
		t.Fatalf("first message: %v", m)
	}
	return conn
}

// wsDial dials /ws with a fresh ws token of c.
func wsDial(env *apitest.Env, c *apitest.Client) (*websocket.Conn, *http.Response, error) {
	tok := c.Do(http.MethodGet, "/api/auth/ws-token", nil).String("data.token")
	return websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(env.Server.URL, "http")+"/ws?token="+tok, nil)
}

// graphqlWSConnect opens the GraphQL WebSocket for c and completes its
// init.
func graphqlWSConnect(t *testing.T, env *apitest.Env, c *apitest.Client) *websocket.Conn {
	t.Helper()
	conn, resp, err := graphqlWSDial(env)
	if err != nil {
		t.Fatalf("dial /graphql: %v (%v)", err, resp)
	}
	t.Cleanup(func() { conn.Close() })
	tok := c.Do(http.MethodGet, "/api/auth/ws-token", nil).String("data.token")
	if err := conn.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]any{"token": tok}}); err != nil {
		t.Fatal(err)
	}
	if m := wsReadJSON(t, conn); m["type"] != "connection_ack" {
		t.Fatalf("init: %v", m)
	}
	return conn
}

func graphqlWSDial(env *apitest.Env) (*websocket.Conn, *http.Response, error) {
	dialer := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}
	return dialer.Dial("ws"+strings.TrimPrefix(env.Server.URL, "http")+"/graphql", nil)
}

func wsReadJSON(t *testing.T, conn *websocket.Conn) map[string]any {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var m map[string]any
	if err := conn.ReadJSON(&m); err != nil {
		t.Fatalf("reading the WebSocket: %v", err)
	}
	return m
}

func loadConfig(vars map[string]string) (*config.Config, error) {
	return config.Load(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
}

// expectSlowUploadServed sends an authenticated multipart upload whose
// body arrives 1.5 s after its headers, longer than the test's
// HTTP_READ_TIMEOUT, and expects it to reach its handler whole (here: the
// account does not exist, 404) within wait.
func expectSlowUploadServed(t *testing.T, env *apitest.Env, wait time.Duration) {
	t.Helper()
	conn := rawRequest(t, env, "POST /api/accounts/0190f1d2-0000-7000-8000-000000000001/business_profile/photo HTTP/1.1\r\n"+
		"Host: x\r\nAuthorization: Bearer "+env.Admin.Token+"\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 87\r\n\r\n"+
		"--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"p.png\"\r\n\r\n")
	time.Sleep(1500 * time.Millisecond) // a body later than HTTP_READ_TIMEOUT: time passing is what is tested
	if _, err := io.WriteString(conn, "\x89PNG\r\n\x1a\n\r\n--b--\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(wait))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("slow upload: %v", err)
	}
	if resp.StatusCode != http.StatusNotFound {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("slow upload: %d %s", resp.StatusCode, b)
	}
}
