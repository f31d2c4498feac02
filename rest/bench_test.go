package rest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"switchboard/internal/apitest"
)

// BenchmarkListTeams measures an authenticated GET /api/teams through the
// whole middleware stack (JWT verification, user and membership check,
// permission, Redis rate limit, the query and its JSON) without the
// network: the handler is called in-process. On PostgreSQL and Redis when
// they answer. Run: go test -run '^$' -bench ListTeams -benchmem ./rest/
func BenchmarkListTeams(b *testing.B) {
	env := apitest.New(b)
	for i := 0; i < 10; i++ {
		env.Admin.Do(http.MethodPost, "/api/teams", map[string]any{"name": fmt.Sprintf("Team %02d", i)}).ExpectStatus(b, http.StatusCreated)
	}
	agent := env.NewUser(env.OrgID, "Agent")
	req := httptest.NewRequest(http.MethodGet, "/api/teams", nil)
	req.Header.Set("Authorization", "Bearer "+agent.Token)
	h := env.App.Handler
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}
