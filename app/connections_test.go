package app_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"switchboard/internal/apitest"
	"switchboard/internal/testkit"
)

// dripBody writes one byte of body every 50 ms until the connection
// fails or the test ends, as a client holding a connection open would.
func dripBody(t *testing.T, conn net.Conn) {
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if _, err := conn.Write([]byte("a")); err != nil {
					return
				}
			}
		}
	}()
}

// TestUploadDeadlineNeedsAuthentication: an upload route gives
// HTTP_UPLOAD_TIMEOUT only to a request whose headers authenticate; any
// other is answered 401 without its body being read and keeps
// HTTP_READ_TIMEOUT, so dripping a body cannot hold the connection.
func TestUploadDeadlineNeedsAuthentication(t *testing.T) {
	env := apitest.New(t,
		apitest.Setting{Name: "HTTP_READ_TIMEOUT", Value: "500ms"},
		apitest.Setting{Name: "HTTP_UPLOAD_TIMEOUT", Value: "2m"},
	)
	// Generous against a busy machine, far below HTTP_UPLOAD_TIMEOUT.
	const wait = 20 * time.Second
	// A body under net/http's 256 KiB post-handler read, which it would
	// drain until the read deadline.
	head := func(path, credential string) string {
		return "POST " + path + " HTTP/1.1\r\nHost: x\r\n" + credential +
			"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n--b\r\n"
	}
	for _, tc := range []struct {
		name, path, credential string
		status                 int
	}{
		{"Anonymous", "/api/messages/media", "", http.StatusUnauthorized},
		{"BadBearer", "/api/messages/media", "Authorization: Bearer not-a-token\r\n", http.StatusUnauthorized},
		{"UnknownAPIKey", "/api/templates/upload-media", "X-API-Key: whm_00000000000000000000000000000000\r\n", http.StatusUnauthorized},
		{"BadOrganizationHeader", "/api/org/audio", "Authorization: Bearer " + env.Admin.Token + "\r\nX-Organization-ID: nope\r\n", http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := rawRequest(t, env, head(tc.path, tc.credential))
			dripBody(t, conn)
			_ = conn.SetReadDeadline(time.Now().Add(wait))
			rd := bufio.NewReader(conn)
			resp, err := http.ReadResponse(rd, nil)
			if err != nil {
				t.Fatalf("no answer before the body: %v", err)
			}
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			_, err = io.Copy(io.Discard, rd)
			if errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("the server still holds the connection after %s", wait)
			}
		})
	}
	t.Run("AuthenticatedSlowUpload", func(t *testing.T) {
		// Past HTTP_READ_TIMEOUT, an authenticated upload's body still
		// reaches its handler whole.
		expectSlowUploadServed(t, env, wait)
	})
}

// dialFrom opens a TCP connection to the test server from the loopback
// address local (127.0.0.0/8 is all loopback), so that the test's other
// clients do not share its count.
func dialFrom(t *testing.T, env *apitest.Env, local string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	conn, err := d.Dial("tcp", env.Server.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// healthOn sends GET /healthz on conn and returns the status, or the
// error that ended the connection instead.
func healthOn(conn net.Conn) (int, error) {
	if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return 0, err
	}
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// expectServed fails unless conn answers GET /healthz with 200.
func expectServed(t *testing.T, conn net.Conn) {
	t.Helper()
	if status, err := healthOn(conn); err != nil || status != http.StatusOK {
		t.Fatalf("healthz: %d %v", status, err)
	}
}

// expectRefusedConn fails unless the server ends conn without an answer.
func expectRefusedConn(t *testing.T, conn net.Conn) {
	t.Helper()
	status, err := healthOn(conn)
	if err == nil {
		t.Fatalf("connection over the limit answered %d", status)
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatal("connection over the limit is neither served nor closed")
	}
}

// TestConnectionsPerAddress: at most HTTP_MAX_CONNS_PER_ADDRESS plain HTTP
// connections per client address; one more is closed unanswered, and a
// place frees when a connection closes. WebSockets and trusted proxies
// are not counted.
func TestConnectionsPerAddress(t *testing.T) {
	const limit = 3
	env := apitest.New(t, apitest.Setting{Name: "HTTP_MAX_CONNS_PER_ADDRESS", Value: "3"})
	const client = "127.0.0.2"

	t.Run("OneMoreIsRefused", func(t *testing.T) {
		var open []net.Conn
		for range limit {
			conn := dialFrom(t, env, client)
			expectServed(t, conn)
			open = append(open, conn)
		}
		expectRefusedConn(t, dialFrom(t, env, client))
		expectServed(t, dialFrom(t, env, "127.0.0.3")) // another address has its own count

		open[0].Close()
		// The server sees the close when its read of that connection
		// ends; until then the place is taken.
		var status int
		var err error
		if !testkit.Poll(20*time.Second, func() bool {
			status, err = healthOn(dialFrom(t, env, client))
			return err == nil && status == http.StatusOK
		}) {
			t.Fatalf("no place after a connection closed: %d %v", status, err)
		}
		for _, conn := range open[1:] {
			conn.Close()
		}
	})

	t.Run("WebSocketsAreNotCounted", func(t *testing.T) {
		d := websocket.Dialer{NetDial: func(network, addr string) (net.Conn, error) {
			return (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.4")}}).Dial(network, addr)
		}}
		url := "ws" + strings.TrimPrefix(env.Server.URL, "http") + "/ws?token="
		for range limit + 1 {
			tok := env.Admin.Do(http.MethodGet, "/api/auth/ws-token", nil).String("data.token")
			ws, resp, err := d.Dial(url+tok, nil)
			if err != nil {
				t.Fatalf("dial /ws: %v (%v)", err, resp)
			}
			t.Cleanup(func() { ws.Close() })
			if m := wsReadJSON(t, ws); m["type"] != "connected" {
				t.Fatalf("first message: %v", m)
			}
		}
		expectServed(t, dialFrom(t, env, "127.0.0.4"))
	})

	t.Run("TrustedProxyIsNotCounted", func(t *testing.T) {
		env := apitest.New(t, apitest.Setting{Name: "HTTP_MAX_CONNS_PER_ADDRESS", Value: "3"},
			apitest.Setting{Name: "TRUSTED_PROXIES", Value: client})
		for range limit + 2 {
			expectServed(t, dialFrom(t, env, client))
		}
	})
}
