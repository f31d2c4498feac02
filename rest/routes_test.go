package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/internal/apitest"
	"switchboard/rest"
)

// reviewedPublic lists every route that takes no credentials. Adding a
// public route means adding it here, in review.
var reviewedPublic = map[string]bool{
	"POST /api/auth/register":     true,
	"POST /api/auth/login":        true,
	"POST /api/auth/refresh":      true,
	"POST /api/auth/logout":       true,
	"GET /api/auth/sso/providers": true,
	"GET /api/webhook":            true,
	"POST /api/webhook":           true,
}

func TestRouteTableDeclaresPermissions(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range (&rest.API{}).Routes() {
		key := r.Method + " " + r.Path
		if seen[key] {
			t.Errorf("%s: listed twice", key)
		}
		seen[key] = true
		switch {
		case r.Perm == "":
			t.Errorf("%s: no permission and no public mark", key)
		case r.Perm == rest.Public && !reviewedPublic[key]:
			t.Errorf("%s: public but not in the reviewed list", key)
		case r.Perm != rest.Public && r.Perm != rest.Authenticated && !access.ValidPermission(r.Perm):
			t.Errorf("%s: permission %q is not in the catalogue", key, r.Perm)
		}
		if r.Handle == nil {
			t.Errorf("%s: no handler", key)
		}
	}
}

// TestAgentRefusedWhereRoleLacksPermission walks the route table and
// checks that an Agent gets 403 on every route its role lacks.
func TestAgentRefusedWhereRoleLacksPermission(t *testing.T) {
	env := apitest.New(t)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	agentPerms := map[string]bool{}
	for _, sr := range access.SystemRoles() {
		if sr.Name == access.RoleAgent {
			for _, p := range sr.Permissions {
				agentPerms[p] = true
			}
		}
	}
	checked := 0
	for _, r := range (&rest.API{}).Routes() {
		if r.Perm == rest.Public || r.Perm == rest.Authenticated || agentPerms[r.Perm] {
			continue
		}
		path := fillParams(r.Path)
		var body any
		if r.Method != http.MethodGet {
			body = "{}"
		}
		res := agent.Do(r.Method, path, body)
		if res.Status != http.StatusForbidden {
			t.Errorf("%s %s (%s): status %d, want 403", r.Method, r.Path, r.Perm, res.Status)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no route checked")
	}
}

func fillParams(path string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, ":") {
			if p == ":provider" {
				parts[i] = "google"
				continue
			}
			parts[i] = uuid.NewString()
		}
	}
	return strings.Join(parts, "/")
}
