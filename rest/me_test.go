package rest_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent"
	"switchboard/ent/agentbreak"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
)

// breaksOf returns the agent breaks of userID in orgID, oldest first.
func breaksOf(t *testing.T, env *apitest.Env, orgID, userID uuid.UUID) []*ent.AgentBreak {
	t.Helper()
	bs, err := env.Client().AgentBreak.Query().Where(agentbreak.UserID(userID)).
		Order(ent.Asc(agentbreak.FieldStartedAt)).All(viewer.SystemContext(context.Background(), orgID))
	if err != nil {
		t.Fatalf("breaks: %v", err)
	}
	return bs
}

// openBreaks counts the breaks without an end.
func openBreaks(bs []*ent.AgentBreak) int {
	n := 0
	for _, b := range bs {
		if b.EndedAt == nil {
			n++
		}
	}
	return n
}

func TestMe(t *testing.T) {
	env := apitest.New(t)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")
	anon := env.Anonymous()

	t.Run("Availability", func(t *testing.T) {
		path := "/api/me/availability"
		t.Run("GoingUnavailableOpensBreak", func(t *testing.T) {
			res := agent.Do(http.MethodPut, path, map[string]any{"is_available": false}).ExpectStatus(t, http.StatusOK)
			expectKeys(t, res, "data", userKeys...)
			if res.Get("data.is_available") != false || res.String("data.id") != agent.UserID.String() ||
				res.String("data.role.name") != access.RoleAgent {
				t.Fatalf("user: %s", res.Raw)
			}
			bs := breaksOf(t, env, env.OrgID, agent.UserID)
			if len(bs) != 1 || openBreaks(bs) != 1 {
				t.Fatalf("breaks: %+v", bs)
			}
			me := agent.Do(http.MethodGet, "/api/me", nil).ExpectStatus(t, http.StatusOK)
			if me.Get("data.is_available") != false {
				t.Errorf("me: %s", me.Raw)
			}
		})
		t.Run("IdempotentWhileUnavailable", func(t *testing.T) {
			agent.Do(http.MethodPut, path, map[string]any{"is_available": false}).ExpectStatus(t, http.StatusOK)
			if bs := breaksOf(t, env, env.OrgID, agent.UserID); len(bs) != 1 || openBreaks(bs) != 1 {
				t.Fatalf("breaks: %+v", bs)
			}
		})
		t.Run("ComingBackClosesBreak", func(t *testing.T) {
			res := agent.Do(http.MethodPut, path, map[string]any{"is_available": true}).ExpectStatus(t, http.StatusOK)
			if res.Get("data.is_available") != true {
				t.Fatalf("user: %s", res.Raw)
			}
			bs := breaksOf(t, env, env.OrgID, agent.UserID)
			if len(bs) != 1 || openBreaks(bs) != 0 || bs[0].EndedAt.Before(bs[0].StartedAt) {
				t.Fatalf("breaks: %+v", bs)
			}
			ended := *bs[0].EndedAt
			agent.Do(http.MethodPut, path, map[string]any{"is_available": true}).ExpectStatus(t, http.StatusOK)
			if bs := breaksOf(t, env, env.OrgID, agent.UserID); len(bs) != 1 || openBreaks(bs) != 0 || !bs[0].EndedAt.Equal(ended) {
				t.Fatalf("breaks after a second return: %+v", bs)
			}
		})
		t.Run("SecondBreakIsNewRow", func(t *testing.T) {
			agent.Do(http.MethodPut, path, map[string]any{"is_available": false}).ExpectStatus(t, http.StatusOK)
			if bs := breaksOf(t, env, env.OrgID, agent.UserID); len(bs) != 2 || openBreaks(bs) != 1 || bs[1].EndedAt != nil {
				t.Fatalf("breaks: %+v", bs)
			}
		})
		t.Run("ComingBackInAnotherOrgClosesBreak", func(t *testing.T) {
			mustJoin(t, other, agent)
			there := *agent
			there.Org = other.OrgID.String()
			res := there.Do(http.MethodPut, path, map[string]any{"is_available": true}).ExpectStatus(t, http.StatusOK)
			if res.String("data.organization_id") != other.OrgID.String() || res.Get("data.is_available") != true {
				t.Fatalf("user: %s", res.Raw)
			}
			if bs := breaksOf(t, env, env.OrgID, agent.UserID); len(bs) != 2 || openBreaks(bs) != 0 {
				t.Fatalf("breaks in the first organization: %+v", bs)
			}
			if bs := breaksOf(t, env, other.OrgID, agent.UserID); len(bs) != 0 {
				t.Fatalf("breaks in the second organization: %+v", bs)
			}
		})
		badRequests(t, agent, http.MethodPut, path, map[string]any{
			"ErrMalformedJSON": "{",
			"ErrRequired":      `{}`,
			"ErrWrongType":     `{"is_available": "no"}`,
			"ErrNull":          `{"is_available": null}`,
			"ErrEmptyBody":     "",
		})
		t.Run("ErrAnonymous", func(t *testing.T) {
			anon.Do(http.MethodPut, path, map[string]any{"is_available": false}).ExpectError(t, http.StatusUnauthorized)
		})
	})

	t.Run("Password", func(t *testing.T) {
		path := "/api/me/password"
		email := userEmail(t, env, agent)
		t.Run("ErrWrongCurrent", func(t *testing.T) {
			res := agent.Do(http.MethodPut, path, map[string]any{
				"current_password": "not-my-password", "new_password": "a-brand-new-password",
			}).ExpectError(t, http.StatusBadRequest)
			if res.String("message") != "current password is incorrect" {
				t.Errorf("message: %s", res.Raw)
			}
		})
		badRequests(t, agent, http.MethodPut, path, map[string]any{
			"ErrMalformedJSON":    "{",
			"ErrCurrentRequired":  `{"new_password": "a-brand-new-password"}`,
			"ErrNewRequired":      map[string]any{"current_password": apitest.UserPassword},
			"ErrNewTooShort":      map[string]any{"current_password": apitest.UserPassword, "new_password": "short"},
			"ErrCurrentWrongType": `{"current_password": 12, "new_password": "a-brand-new-password"}`,
		})
		t.Run("ErrAPIKeyForbidden", func(t *testing.T) {
			key := issueAPIKey(t, env, other)
			env.WithAPIKey(key).Do(http.MethodPut, path, map[string]any{
				"current_password": apitest.UserPassword, "new_password": "a-brand-new-password",
			}).ExpectError(t, http.StatusForbidden)
			env.Login(userEmail(t, env, other), apitest.UserPassword)
		})
		t.Run("ErrAnonymous", func(t *testing.T) {
			anon.Do(http.MethodPut, path, map[string]any{
				"current_password": apitest.UserPassword, "new_password": "a-brand-new-password",
			}).ExpectError(t, http.StatusUnauthorized)
		})
		t.Run("OK", func(t *testing.T) {
			elsewhere := env.Login(email, apitest.UserPassword)
			res := agent.Do(http.MethodPut, path, map[string]any{
				"current_password": apitest.UserPassword, "new_password": "a-brand-new-password",
			}).ExpectStatus(t, http.StatusOK)
			if res.String("data.message") == "" {
				t.Fatalf("no message: %s", res.Raw)
			}
			anon.Do(http.MethodPost, "/api/auth/login", map[string]any{"email": email, "password": apitest.UserPassword}).
				ExpectError(t, http.StatusUnauthorized)
			env.Login(email, "a-brand-new-password")
			// The session that changed the password goes on; others end.
			agent.Do(http.MethodGet, "/api/me", nil).ExpectStatus(t, http.StatusOK)
			elsewhere.Do(http.MethodGet, "/api/me", nil).ExpectError(t, http.StatusUnauthorized)
		})
	})
}
