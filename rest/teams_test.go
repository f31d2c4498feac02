package rest_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/internal/apitest"
)

func TestTeams(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	manager := env.NewUser(env.OrgID, access.RoleManager)
	other := env.NewOrg("Elsewhere")

	created := admin.Do(http.MethodPost, "/api/teams", map[string]any{
		"name": "Support", "description": "Front line", "assignment_strategy": "load_balanced",
		"per_agent_timeout_secs": 90, "is_active": true,
	}).ExpectStatus(t, http.StatusCreated)
	teamID := created.String("data.team.id")
	foreign := other.Do(http.MethodPost, "/api/teams", map[string]any{"name": "Theirs"}).ExpectStatus(t, http.StatusCreated).String("data.team.id")

	t.Run("CreateShape", func(t *testing.T) {
		for path, want := range map[string]any{
			"data.team.name": "Support", "data.team.assignment_strategy": "load_balanced",
			"data.team.per_agent_timeout_secs": float64(90), "data.team.is_active": true,
			"data.team.member_count": float64(0), "data.team.created_by_name": "Administrator",
		} {
			if got := created.Get(path); got != want {
				t.Errorf("%s = %v, want %v", path, got, want)
			}
		}
	})
	t.Run("List", func(t *testing.T) {
		res := agent.Do(http.MethodGet, "/api/teams?search=supp", nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.teams") != 1 || res.Number("data.total") != 1 || res.Number("data.limit") != 50 || res.Number("data.page") != 1 {
			t.Fatalf("list: %s", res.Raw)
		}
		res = admin.Do(http.MethodGet, "/api/teams?search=theirs", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total") != 0 {
			t.Errorf("another org's team listed: %s", res.Raw)
		}
	})
	t.Run("ListBadPaging", func(t *testing.T) {
		admin.Do(http.MethodGet, "/api/teams?page=0", nil).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodGet, "/api/teams?limit=abc", nil).ExpectError(t, http.StatusBadRequest)
	})
	t.Run("Members", func(t *testing.T) {
		res := admin.Do(http.MethodPost, "/api/teams/"+teamID+"/members", map[string]any{
			"user_id": manager.UserID.String(), "role": "manager",
		}).ExpectStatus(t, http.StatusCreated)
		if res.String("data.member.role") != "manager" || res.String("data.member.email") == "" {
			t.Fatalf("member: %s", res.Raw)
		}
		admin.Do(http.MethodPost, "/api/teams/"+teamID+"/members", map[string]any{
			"user_id": agent.UserID.String(),
		}).ExpectStatus(t, http.StatusCreated)
		got := agent.Do(http.MethodGet, "/api/teams/"+teamID, nil).ExpectStatus(t, http.StatusOK)
		if got.Len("data.team.members") != 2 || got.Number("data.team.member_count") != 2 {
			t.Fatalf("team: %s", got.Raw)
		}
		list := admin.Do(http.MethodGet, "/api/teams", nil).ExpectStatus(t, http.StatusOK)
		if list.Number("data.teams.0.member_count") != 2 {
			t.Errorf("member_count in list: %s", list.Raw)
		}
		ms := admin.Do(http.MethodGet, "/api/teams/"+teamID+"/members", nil).ExpectStatus(t, http.StatusOK)
		if ms.Len("data.members") != 2 {
			t.Errorf("members: %s", ms.Raw)
		}
	})
	t.Run("TeamManagerMayUpdateAgentMayNot", func(t *testing.T) {
		manager.Do(http.MethodPut, "/api/teams/"+teamID, map[string]any{"description": "Managed"}).ExpectStatus(t, http.StatusOK)
		agent.Do(http.MethodPut, "/api/teams/"+teamID, map[string]any{"description": "Nope"}).ExpectError(t, http.StatusForbidden)
		agent.Do(http.MethodDelete, "/api/teams/"+teamID+"/members/"+manager.UserID.String(), nil).ExpectError(t, http.StatusForbidden)
	})
	t.Run("AdminOnlyCreateDelete", func(t *testing.T) {
		manager.Do(http.MethodPost, "/api/teams", map[string]any{"name": "X"}).ExpectError(t, http.StatusForbidden)
		agent.Do(http.MethodDelete, "/api/teams/"+teamID, nil).ExpectError(t, http.StatusForbidden)
	})
	t.Run("BadInput", func(t *testing.T) {
		cases := map[string]struct {
			method, path string
			body         any
		}{
			"Malformed":       {http.MethodPost, "/api/teams", `{"name":`},
			"WrongType":       {http.MethodPost, "/api/teams", `{"name": 12}`},
			"MissingName":     {http.MethodPost, "/api/teams", `{}`},
			"UnknownStrategy": {http.MethodPost, "/api/teams", map[string]any{"name": "A", "assignment_strategy": "random"}},
			"NegativeTimeout": {http.MethodPost, "/api/teams", map[string]any{"name": "A", "per_agent_timeout_secs": -1}},
			"InvalidUUID":     {http.MethodGet, "/api/teams/not-a-uuid", nil},
			"BadMemberRole":   {http.MethodPost, "/api/teams/" + teamID + "/members", map[string]any{"user_id": agent.UserID.String(), "role": "boss"}},
			"BadMemberUser":   {http.MethodPost, "/api/teams/" + teamID + "/members", map[string]any{"user_id": "x"}},
			"ForeignMember":   {http.MethodPost, "/api/teams/" + teamID + "/members", map[string]any{"user_id": other.UserID.String()}},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				admin.Do(tc.method, tc.path, tc.body).ExpectError(t, http.StatusBadRequest)
			})
		}
		t.Run("Duplicate", func(t *testing.T) {
			admin.Do(http.MethodPost, "/api/teams", map[string]any{"name": "Support"}).ExpectError(t, http.StatusConflict)
		})
	})
	t.Run("NotFound", func(t *testing.T) {
		for _, id := range []string{uuid.NewString(), foreign} {
			admin.Do(http.MethodGet, "/api/teams/"+id, nil).ExpectError(t, http.StatusNotFound)
			admin.Do(http.MethodPut, "/api/teams/"+id, map[string]any{"name": "Hijack"}).ExpectError(t, http.StatusNotFound)
			admin.Do(http.MethodDelete, "/api/teams/"+id, nil).ExpectError(t, http.StatusNotFound)
			admin.Do(http.MethodGet, "/api/teams/"+id+"/members", nil).ExpectError(t, http.StatusNotFound)
		}
		other.Do(http.MethodGet, "/api/teams/"+foreign, nil).ExpectStatus(t, http.StatusOK)
	})
	t.Run("RemoveMemberAndDelete", func(t *testing.T) {
		admin.Do(http.MethodDelete, "/api/teams/"+teamID+"/members/"+agent.UserID.String(), nil).ExpectStatus(t, http.StatusOK)
		admin.Do(http.MethodDelete, "/api/teams/"+teamID+"/members/"+agent.UserID.String(), nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodDelete, "/api/teams/"+teamID, nil).ExpectStatus(t, http.StatusOK)
		admin.Do(http.MethodGet, "/api/teams/"+teamID, nil).ExpectError(t, http.StatusNotFound)
	})
}

func TestNULCharactersRefused(t *testing.T) {
	env := apitest.New(t)
	for name, tc := range map[string]struct {
		method, path string
		body         any
	}{
		"QuerySearch": {http.MethodGet, "/api/teams?search=a%00b", nil},
		"JSONEscape":  {http.MethodPost, "/api/teams", `{"name":"a\u0000b"}`},
		"RoleSearch":  {http.MethodGet, "/api/roles?search=%00", nil},
		"UserSearch":  {http.MethodGet, "/api/users?search=%00", nil},
	} {
		t.Run(name, func(t *testing.T) {
			env.Admin.Do(tc.method, tc.path, tc.body).ExpectError(t, http.StatusBadRequest)
		})
	}
}
