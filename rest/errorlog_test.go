package rest_test

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"testing"

	"switchboard/provider/providertest"
	"switchboard/rest"
)

func TestStatusLogLevel(t *testing.T) {
	for status, want := range map[int]slog.Level{
		http.StatusOK: slog.LevelDebug, http.StatusBadRequest: slog.LevelDebug, http.StatusNotFound: slog.LevelDebug,
		http.StatusNotImplemented: slog.LevelDebug, http.StatusServiceUnavailable: slog.LevelWarn,
		http.StatusInternalServerError: slog.LevelError, http.StatusBadGateway: slog.LevelError,
	} {
		if got := rest.StatusLogLevel(status); got != want {
			t.Errorf("StatusLogLevel(%d) = %v, want %v", status, got, want)
		}
	}
}

// records keeps the records logged through it.
type records struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, rec.Clone())
	return nil
}
func (r *records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *records) WithGroup(string) slog.Handler      { return r }

// failures returns the level of each "request failed" record of path.
func (r *records) failures(path string) []slog.Level {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []slog.Level
	for _, rec := range r.recs {
		rec.Attrs(func(a slog.Attr) bool {
			if a.Key == "path" && a.Value.String() == path && rec.Message == "request failed" {
				out = append(out, rec.Level)
			}
			return true
		})
	}
	return out
}

// TestErrorAnswersLogLevel checks how the REST error writer logs: the
// spec's 501 answers not at all, a platform outage (503) at warn.
func TestErrorAnswersLogLevel(t *testing.T) {
	env, fake := newAccountEnv(t)
	mustCreateAccount(t, env.Admin, acctBody("Main", nil))
	rec := &records{}
	prev := slog.Default()
	slog.SetDefault(slog.New(rec))
	t.Cleanup(func() { slog.SetDefault(prev) })

	for _, path := range []string{"/api/analytics/messages", "/api/analytics/chatbot"} {
		env.Admin.Do(http.MethodGet, path, nil).ExpectError(t, http.StatusNotImplemented)
		if got := rec.failures(path); len(got) != 0 {
			t.Errorf("%s logged at %v", path, got)
		}
	}
	fake.Handle("GET /{waba}/flows", providertest.Drop)
	env.Admin.Do(http.MethodPost, "/api/flows/sync", map[string]any{"chat_account": "Main"}).ExpectError(t, http.StatusServiceUnavailable)
	if got := rec.failures("/api/flows/sync"); len(got) != 1 || got[0] != slog.LevelWarn {
		t.Errorf("platform outage logged at %v, want once at WARN", got)
	}
}
