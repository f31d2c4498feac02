package provider_test

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"testing"
	"time"

	"switchboard/provider"
	"switchboard/provider/providertest"
)

// MustJSONEqual fails the test unless got and want hold the same JSON value.
func MustJSONEqual(tb testing.TB, got []byte, want string) {
	tb.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		tb.Fatalf("body is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		tb.Fatalf("bad expected JSON: %v\n%s", err, want)
	}
	if !reflect.DeepEqual(g, w) {
		gb, _ := json.MarshalIndent(g, "", "  ")
		wb, _ := json.MarshalIndent(w, "", "  ")
		tb.Fatalf("JSON differs\n got: %s\nwant: %s", gb, wb)
	}
}

// MustOneRequest returns the only request the fake received.
func MustOneRequest(tb testing.TB, f *providertest.Fake) providertest.Request {
	tb.Helper()
	reqs := f.Requests()
	if len(reqs) != 1 {
		tb.Fatalf("got %d requests, want 1: %+v", len(reqs), reqs)
	}
	return reqs[0]
}

// MustRequestLine checks method, full path (with version) and bearer token.
func MustRequestLine(tb testing.TB, r providertest.Request, method, path string) {
	tb.Helper()
	if r.Method != method || r.Path != path {
		tb.Fatalf("request = %s %s, want %s %s", r.Method, r.Path, method, path)
	}
	if got, want := r.Header.Get("Authorization"), "Bearer "+providertest.AccessToken; got != want {
		tb.Fatalf("Authorization = %q, want %q", got, want)
	}
}

// sleeper records the waits the client asks for, without waiting.
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeper) Waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// newFake starts a fake and a client for it whose waits go to a sleeper.
func newFake(t *testing.T, opts ...provider.Options) (*providertest.Fake, *provider.Client, *sleeper) {
	t.Helper()
	f := providertest.New(t)
	s := &sleeper{}
	var o provider.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Sleep == nil {
		o.Sleep = s.Sleep
	}
	return f, f.Client(o), s
}
