package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"switchboard/app"
	"switchboard/config"
)

// TestEmbeddedDefaultSmoke boots the whole server as `go run .` does with
// no configuration (embedded SQLite and in-process Redis, generated secrets
// and admin password), logs in with the printed credentials, and uses REST
// and GraphQL over a real listener, then shuts down gracefully.
func TestEmbeddedDefaultSmoke(t *testing.T) {
	dir := t.TempDir()
	vars := map[string]string{"DATA_DIR": dir, "LISTEN_ADDR": "127.0.0.1:0", "COOKIE_SECURE": "false"}
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.New(ctx, cfg, log, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	if a.DB.Postgres() || !a.KV.Embedded() {
		t.Fatal("not on the embedded engines")
	}
	if !a.Bootstrap.Created || a.Bootstrap.Password == "" || a.Bootstrap.Email != "admin@localhost" {
		t.Fatalf("bootstrap: %+v", a.Bootstrap)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()

	call := func(method, path, token string, body any) (int, map[string]any) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, base+path, rd)
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer res.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(res.Body).Decode(&out)
		return res.StatusCode, out
	}

	if st, _ := call(http.MethodGet, "/healthz", "", nil); st != http.StatusOK {
		t.Fatalf("healthz: %d", st)
	}
	st, login := call(http.MethodPost, "/api/auth/login", "", map[string]string{
		"email": a.Bootstrap.Email, "password": a.Bootstrap.Password,
	})
	if st != http.StatusOK {
		t.Fatalf("login: %d %v", st, login)
	}
	token := login["data"].(map[string]any)["access_token"].(string)
	if st, body := call(http.MethodPost, "/api/teams", token, map[string]string{"name": "Support"}); st != http.StatusCreated {
		t.Fatalf("create team: %d %v", st, body)
	}
	if st, body := call(http.MethodGet, "/api/teams", token, nil); st != http.StatusOK || body["data"].(map[string]any)["total"].(float64) != 1 {
		t.Fatalf("list teams: %d %v", st, body)
	}
	st, gql := call(http.MethodPost, "/graphql", token, map[string]string{
		"query": `{ viewer { user { email } permissions } teams(first: 5) { totalCount edges { node { name memberCount } } } }`,
	})
	if st != http.StatusOK || gql["errors"] != nil {
		t.Fatalf("graphql: %d %v", st, gql)
	}
	if st, _ := call(http.MethodGet, "/metrics", "", nil); st != http.StatusOK {
		t.Fatalf("metrics: %d", st)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(40 * time.Second):
		t.Fatal("graceful shutdown did not finish")
	}

	// A second start on the same data directory reuses secrets and data and
	// does not bootstrap again.
	_ = a.Close()
	cfg2, err := config.Load(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	b, err := app.New(context.Background(), cfg2, log, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Bootstrap.Created {
		t.Fatal("bootstrapped twice")
	}
	if cfg2.JWTSecret != cfg.JWTSecret || cfg2.EncryptionKey != cfg.EncryptionKey {
		t.Fatal("generated secrets were not kept in DATA_DIR")
	}
}
