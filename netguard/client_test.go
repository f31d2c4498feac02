package netguard_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"switchboard/internal/testkit"
	"switchboard/netguard"
)

// Public addresses of the fake network; they route to the test server.
const (
	publicAddr = "203.0.113.10"
	otherAddr  = "203.0.113.11"
)

// target is an httptest server that counts the requests each path gets.
type target struct {
	*httptest.Server
	hits map[string]*atomic.Int32
}

// hit returns how many requests path received.
func (s *target) hit(path string) int32 { return s.hits[path].Load() }

// MustTarget starts a server with these paths:
// /start redirects to the URL in its "to" parameter, /loop redirects to
// itself, /ok and /secret answer 200.
func MustTarget(tb testing.TB) *target {
	tb.Helper()
	s := &target{hits: map[string]*atomic.Int32{}}
	for _, p := range []string{"/start", "/loop", "/ok", "/secret"} {
		s.hits[p] = new(atomic.Int32)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/start", func(w http.ResponseWriter, r *http.Request) {
		s.hits["/start"].Add(1)
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		s.hits["/loop"].Add(1)
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		s.hits["/ok"].Add(1)
		io.WriteString(w, "ok")
	})
	mux.HandleFunc("/secret", func(w http.ResponseWriter, r *http.Request) {
		s.hits["/secret"].Add(1)
		io.WriteString(w, "internal secret")
	})
	s.Server = httptest.NewServer(mux)
	tb.Cleanup(s.Close)
	return s
}

// port is the server's port as a string.
func (s *target) port() string {
	return strconv.Itoa(s.Listener.Addr().(*net.TCPAddr).Port)
}

// fakeResolver answers from a table, like a DNS server the attacker runs.
type fakeResolver map[string][]string

func (r fakeResolver) LookupNetIP(_ context.Context, network, host string) ([]netip.Addr, error) {
	answers, ok := r[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var ips []netip.Addr
	for _, a := range answers {
		ip := netip.MustParseAddr(a)
		if (network == "ip4" && !ip.Is4()) || (network == "ip6" && !ip.Is6()) {
			continue
		}
		ips = append(ips, ip)
	}
	return ips, nil
}

// fakeNetwork routes the public test addresses (port 80) to srv. A
// connection to anything else fails the test: the guard must have refused
// it before connecting.
func fakeNetwork(t *testing.T, srv *target) func(ctx context.Context, network, address string) (net.Conn, error) {
	routes := map[string]bool{publicAddr + ":80": true, otherAddr + ":80": true}
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		if !routes[address] {
			t.Errorf("connected to %s: the guard should have refused it", address)
			return nil, fmt.Errorf("fake network: no route to %s", address)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, srv.Listener.Addr().String())
	}
}

// MustGuardedClient returns a client with AllowPrivate false whose DNS and
// network are fakes: hooks.example and other.example are public addresses
// served by srv, the other names point inside.
func MustGuardedClient(t *testing.T, srv *target, opts netguard.Options) *http.Client {
	t.Helper()
	opts.Resolver = fakeResolver{
		"hooks.example":    {publicAddr},
		"other.example":    {otherAddr},
		"mixed.example":    {"10.0.0.5", publicAddr},
		"rebind.example":   {"127.0.0.1"},
		"intranet.example": {"10.0.0.5"},
		"metadata.example": {"169.254.169.254", "fd00:ec2::254"},
	}
	c := netguard.NewClient(netguard.WithConnect(opts, fakeNetwork(t, srv)))
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func get(c *http.Client, rawURL string) (status int, body string, err error) {
	resp, err := c.Get(rawURL)
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func TestClientRedirectToBlockedAddress(t *testing.T) {
	srv := MustTarget(t)
	tests := []struct {
		name string
		to   string
		want error
	}{
		{name: "LoopbackLiteral", to: "http://127.0.0.1:" + srv.port() + "/secret", want: netguard.ErrBlockedAddress},
		{name: "IPv6Loopback", to: "http://[::1]:" + srv.port() + "/secret", want: netguard.ErrBlockedAddress},
		{name: "MappedLoopback", to: "http://[::ffff:127.0.0.1]:" + srv.port() + "/secret", want: netguard.ErrBlockedAddress},
		{name: "Unspecified", to: "http://0.0.0.0:" + srv.port() + "/secret", want: netguard.ErrBlockedAddress},
		{name: "Localhost", to: "http://localhost:" + srv.port() + "/secret", want: netguard.ErrBlockedAddress},
		{name: "Metadata", to: "http://169.254.169.254/latest/meta-data/", want: netguard.ErrBlockedAddress},
		// Names pass URL validation; the dialer refuses what they resolve to.
		{name: "RebindingName", to: "http://rebind.example:" + srv.port() + "/secret", want: netguard.ErrBlockedAddress},
		{name: "PrivateName", to: "http://intranet.example/secret", want: netguard.ErrBlockedAddress},
		{name: "MetadataName", to: "http://metadata.example/latest/meta-data/", want: netguard.ErrBlockedAddress},
		{name: "Userinfo", to: "http://admin:admin@other.example/ok", want: netguard.ErrInvalidURL},
		{name: "Scheme", to: "ftp://other.example/ok", want: netguard.ErrInvalidURL},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := MustGuardedClient(t, srv, netguard.Options{})
			before := srv.hit("/start")
			secrets := srv.hit("/secret")

			_, _, err := get(c, "http://hooks.example/start?to="+url.QueryEscape(tc.to))
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if got := srv.hit("/start") - before; got != 1 {
				t.Errorf("first hop reached the server %d times, want 1", got)
			}
			if got := srv.hit("/secret") - secrets; got != 0 {
				t.Errorf("blocked destination reached %d times", got)
			}
		})
	}

	t.Run("MessageNamesAddress", func(t *testing.T) {
		c := MustGuardedClient(t, srv, netguard.Options{})
		_, _, err := get(c, "http://hooks.example/start?to="+url.QueryEscape("http://rebind.example:"+srv.port()+"/secret"))
		var be *netguard.BlockedAddressError
		if !errors.As(err, &be) {
			t.Fatalf("err = %v, want *BlockedAddressError", err)
		}
		want := "destination rebind.example resolves to 127.0.0.1, which is not allowed (loopback)"
		if be.Error() != want {
			t.Errorf("message = %q, want %q", be.Error(), want)
		}
	})
}

func TestClientAllowedDestinations(t *testing.T) {
	srv := MustTarget(t)

	t.Run("OK", func(t *testing.T) {
		c := MustGuardedClient(t, srv, netguard.Options{})
		status, body, err := get(c, "http://hooks.example/ok")
		if err != nil || status != http.StatusOK || body != "ok" {
			t.Fatalf("got %d %q %v, want 200 ok", status, body, err)
		}
	})

	t.Run("RedirectToPublicHost", func(t *testing.T) {
		c := MustGuardedClient(t, srv, netguard.Options{})
		status, body, err := get(c, "http://hooks.example/start?to="+url.QueryEscape("http://other.example/ok"))
		if err != nil || status != http.StatusOK || body != "ok" {
			t.Fatalf("got %d %q %v, want 200 ok", status, body, err)
		}
	})

	t.Run("MixedAnswersUsePublicAddress", func(t *testing.T) {
		// The fake network fails the test if 10.0.0.5 is dialled.
		c := MustGuardedClient(t, srv, netguard.Options{})
		status, _, err := get(c, "http://mixed.example/ok")
		if err != nil || status != http.StatusOK {
			t.Fatalf("got %d %v, want 200", status, err)
		}
	})

	t.Run("ErrUnknownHost", func(t *testing.T) {
		c := MustGuardedClient(t, srv, netguard.Options{})
		_, _, err := get(c, "http://nowhere.example/ok")
		var dnsErr *net.DNSError
		if !errors.As(err, &dnsErr) {
			t.Fatalf("err = %v, want *net.DNSError", err)
		}
	})
}

func TestClientRealDialer(t *testing.T) {
	srv := MustTarget(t)

	t.Run("ErrLoopbackLiteral", func(t *testing.T) {
		c := netguard.NewClient(netguard.Options{})
		_, _, err := get(c, srv.URL+"/secret")
		if !errors.Is(err, netguard.ErrBlockedAddress) {
			t.Fatalf("err = %v, want ErrBlockedAddress", err)
		}
		if srv.hit("/secret") != 0 {
			t.Error("loopback server was reached")
		}
	})

	t.Run("ErrRebindingName", func(t *testing.T) {
		c := netguard.NewClient(netguard.Options{Resolver: fakeResolver{"rebind.example": {"127.0.0.1"}}})
		_, _, err := get(c, "http://rebind.example:"+srv.port()+"/secret")
		if !errors.Is(err, netguard.ErrBlockedAddress) {
			t.Fatalf("err = %v, want ErrBlockedAddress", err)
		}
		if srv.hit("/secret") != 0 {
			t.Error("loopback server was reached")
		}
	})

	t.Run("AllowPrivate", func(t *testing.T) {
		c := netguard.NewClient(netguard.Options{AllowPrivate: true})
		status, body, err := get(c, srv.URL+"/ok")
		if err != nil || status != http.StatusOK || body != "ok" {
			t.Fatalf("got %d %q %v, want 200 ok", status, body, err)
		}
	})

	t.Run("AllowPrivateFollowsRedirectToLoopback", func(t *testing.T) {
		c := netguard.NewClient(netguard.Options{AllowPrivate: true})
		before := srv.hit("/secret")
		status, _, err := get(c, srv.URL+"/start?to="+url.QueryEscape(srv.URL+"/secret"))
		if err != nil || status != http.StatusOK {
			t.Fatalf("got %d %v, want 200", status, err)
		}
		if srv.hit("/secret")-before != 1 {
			t.Error("redirect target was not reached")
		}
	})
}

// TestControl checks the net.Dialer hook on its own: it sees the socket's
// address just before connect, whatever resolved it.
func TestControl(t *testing.T) {
	srv := MustTarget(t)

	t.Run("ErrDialLoopback", func(t *testing.T) {
		d := net.Dialer{Control: netguard.Control}
		conn, err := d.Dial("tcp", srv.Listener.Addr().String())
		if err == nil {
			conn.Close()
		}
		if !errors.Is(err, netguard.ErrBlockedAddress) {
			t.Fatalf("err = %v, want ErrBlockedAddress", err)
		}
	})

	tests := []struct {
		address string
		want    error
	}{
		{"8.8.8.8:443", nil},
		{"[2606:4700:4700::1111]:443", nil},
		{"127.0.0.1:80", netguard.ErrBlockedAddress},
		{"[::1]:80", netguard.ErrBlockedAddress},
		{"[::ffff:169.254.169.254]:80", netguard.ErrBlockedAddress},
		{"[fe80::1%eth0]:80", netguard.ErrBlockedAddress},
		{"not an address", netguard.ErrBlockedAddress},
	}
	for _, tc := range tests {
		t.Run(tc.address, func(t *testing.T) {
			if err := netguard.Control("tcp", tc.address, nil); !errors.Is(err, tc.want) {
				t.Fatalf("Control(%q) = %v, want %v", tc.address, err, tc.want)
			}
		})
	}
}

func TestClientRedirectLimit(t *testing.T) {
	srv := MustTarget(t)

	t.Run("ErrTooManyRedirects", func(t *testing.T) {
		c := netguard.NewClient(netguard.Options{AllowPrivate: true, MaxRedirects: 2})
		before := srv.hit("/loop")
		_, _, err := get(c, srv.URL+"/loop")
		if !errors.Is(err, netguard.ErrTooManyRedirects) {
			t.Fatalf("err = %v, want ErrTooManyRedirects", err)
		}
		if got := srv.hit("/loop") - before; got != 3 {
			t.Errorf("requests = %d, want 3 (the first and 2 redirects)", got)
		}
	})

	t.Run("DefaultFive", func(t *testing.T) {
		c := netguard.NewClient(netguard.Options{AllowPrivate: true})
		before := srv.hit("/loop")
		_, _, err := get(c, srv.URL+"/loop")
		if !errors.Is(err, netguard.ErrTooManyRedirects) {
			t.Fatalf("err = %v, want ErrTooManyRedirects", err)
		}
		if got := srv.hit("/loop") - before; got != 1+netguard.DefaultMaxRedirects {
			t.Errorf("requests = %d, want %d", got, 1+netguard.DefaultMaxRedirects)
		}
	})

	t.Run("NoRedirects", func(t *testing.T) {
		c := netguard.NewClient(netguard.Options{AllowPrivate: true, MaxRedirects: netguard.NoRedirects})
		resp, err := c.Get(srv.URL + "/loop")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusFound {
			t.Errorf("status = %d, want 302", resp.StatusCode)
		}
	})
}

func TestClientResponseSizeCap(t *testing.T) {
	const limit = 1024
	payload := bytes.Repeat([]byte("x"), 4*limit)
	mux := http.NewServeMux()
	mux.HandleFunc("/declared", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(payload)))
		w.Write(payload)
	})
	mux.HandleFunc("/chunked", func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < len(payload); i += 256 {
			w.Write(payload[i : i+256])
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/exact", func(w http.ResponseWriter, r *http.Request) {
		w.Write(payload[:limit])
	})
	mux.HandleFunc("/gzip", func(w http.ResponseWriter, r *http.Request) {
		// Small on the wire, large once the transport decompresses it.
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		zw.Write(bytes.Repeat([]byte{0}, 1<<20))
		zw.Close()
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c := netguard.NewClient(netguard.Options{AllowPrivate: true, MaxResponseBytes: limit})
	t.Cleanup(c.CloseIdleConnections)

	for _, path := range []string{"/declared", "/chunked", "/gzip"} {
		t.Run("ErrTooLarge"+path, func(t *testing.T) {
			status, body, err := get(c, srv.URL+path)
			if !errors.Is(err, netguard.ErrResponseTooLarge) {
				t.Fatalf("err = %v, want ErrResponseTooLarge", err)
			}
			if status != http.StatusOK {
				t.Errorf("status = %d, want 200 (the status stays readable)", status)
			}
			if len(body) > limit {
				t.Errorf("read %d bytes, more than the limit %d", len(body), limit)
			}
			want := fmt.Sprintf("response body exceeds the limit of %d bytes", limit)
			if !strings.Contains(err.Error(), want) {
				t.Errorf("message = %q, want it to contain %q", err.Error(), want)
			}
		})
	}

	t.Run("AtLimit", func(t *testing.T) {
		status, body, err := get(c, srv.URL+"/exact")
		if err != nil || status != http.StatusOK || len(body) != limit {
			t.Fatalf("got %d, %d bytes, %v; want 200, %d bytes", status, len(body), err, limit)
		}
	})
}

func TestLimitBody(t *testing.T) {
	newResp := func(body string, contentLength int64) *http.Response {
		return &http.Response{Body: io.NopCloser(strings.NewReader(body)), ContentLength: contentLength}
	}
	tests := []struct {
		name          string
		body          string
		contentLength int64
		limit         int64
		wantBody      string
		wantErr       bool
	}{
		{name: "Under", body: "hello", contentLength: -1, limit: 10, wantBody: "hello"},
		{name: "Exact", body: "0123456789", contentLength: 10, limit: 10, wantBody: "0123456789"},
		{name: "ErrOverUnknownLength", body: "0123456789A", contentLength: -1, limit: 10, wantBody: "0123456789", wantErr: true},
		{name: "ErrDeclaredTooLong", body: "0123456789A", contentLength: 11, limit: 10, wantBody: "", wantErr: true},
		{name: "ErrZeroLimit", body: "a", contentLength: -1, limit: 0, wantBody: "", wantErr: true},
		{name: "EmptyZeroLimit", body: "", contentLength: 0, limit: 0, wantBody: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := newResp(tc.body, tc.contentLength)
			netguard.LimitBody(resp, tc.limit)
			got, err := io.ReadAll(resp.Body)
			if string(got) != tc.wantBody {
				t.Errorf("body = %q, want %q", got, tc.wantBody)
			}
			if tc.wantErr != errors.Is(err, netguard.ErrResponseTooLarge) {
				t.Errorf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if tc.wantErr {
				// The error sticks.
				if _, err := resp.Body.Read(make([]byte, 1)); !errors.Is(err, netguard.ErrResponseTooLarge) {
					t.Errorf("second read err = %v, want ErrResponseTooLarge", err)
				}
			}
		})
	}

	t.Run("NilResponse", func(t *testing.T) {
		netguard.LimitBody(nil, 10)
		netguard.LimitBody(&http.Response{}, 10)
	})
}

func TestClientTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release // never answers in time
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first
	c := netguard.NewClient(netguard.Options{AllowPrivate: true, Timeout: 100 * time.Millisecond})
	t.Cleanup(c.CloseIdleConnections)

	_, _, err := get(c, srv.URL)
	if err == nil {
		t.Fatal("err = nil, want a timeout")
	}
	var netErr net.Error
	if !errors.As(err, &netErr) || !netErr.Timeout() {
		t.Fatalf("err = %v, want a timeout error", err)
	}
}

// TestClientConnectionsPerHost sends more requests at once than a client
// opens connections to one host, twice: the extra requests wait for a
// connection instead of dialing, and the second wave reuses the first's.
func TestClientConnectionsPerHost(t *testing.T) {
	const requests = netguard.MaxConnsPerHost + 36
	var dialed, inFlight, most, wave atomic.Int32
	release := [2]chan struct{}{make(chan struct{}), make(chan struct{})}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-release[wave.Load()]
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dialed.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c := netguard.NewClient(netguard.Options{AllowPrivate: true, Timeout: time.Minute})
	t.Cleanup(c.CloseIdleConnections)

	for w := range 2 {
		wave.Store(int32(w))
		errs := make(chan error, requests)
		for range requests {
			go func() {
				status, _, err := get(c, srv.URL)
				if err == nil && status != http.StatusOK {
					err = fmt.Errorf("status %d", status)
				}
				errs <- err
			}()
		}
		if !testkit.Poll(time.Minute, func() bool { return inFlight.Load() >= netguard.MaxConnsPerHost }) {
			close(release[w])
			t.Fatalf("wave %d: only %d requests reached the server", w, inFlight.Load())
		}
		close(release[w])
		for range requests {
			if err := <-errs; err != nil {
				t.Fatalf("wave %d: %v", w, err)
			}
		}
	}
	if got := dialed.Load(); got != netguard.MaxConnsPerHost {
		t.Errorf("%d connections opened for two waves of %d requests, want %d", got, requests, netguard.MaxConnsPerHost)
	}
	if got := most.Load(); got != netguard.MaxConnsPerHost {
		t.Errorf("at most %d requests in flight, want %d", got, netguard.MaxConnsPerHost)
	}
}
