package rest_test

import (
	"encoding/json"
	"strings"
	"testing"

	"switchboard/access"
	"switchboard/rest"
)

// TestOpenAPIPermissionStatesMembershipRules: a route whose operation
// applies a membership rule besides its permission says so in its
// x-permission (team update and membership changes: teams:read is not
// enough, an Agent holding it is refused), and every other route's
// x-permission is its permission alone.
func TestOpenAPIPermissionStatesMembershipRules(t *testing.T) {
	j, _, err := rest.BuildOpenAPI((&rest.API{}).Routes())
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
			Permission  string `json:"x-permission"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(j, &doc); err != nil {
		t.Fatal(err)
	}
	permissionOf := func(method, path string) string {
		t.Helper()
		op, ok := doc.Paths[path][strings.ToLower(method)]
		if !ok {
			t.Fatalf("%s %s: not in the document", method, path)
		}
		return op.Permission
	}
	const managesTeam = "teams:read, and teams:update or a manager seat of the team"
	for _, tc := range []struct {
		name, method, path, want string
	}{
		{"UpdateTeam", "PUT", "/api/teams/{id}", managesTeam},
		{"AddTeamMember", "POST", "/api/teams/{id}/members", managesTeam},
		{"RemoveTeamMember", "DELETE", "/api/teams/{id}/members/{user_id}", managesTeam},
		{"ReadTeamUnchanged", "GET", "/api/teams/{id}", "teams:read"},
		{"CreateTeamUnchanged", "POST", "/api/teams", "teams:create"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := permissionOf(tc.method, tc.path); got != tc.want {
				t.Errorf("x-permission %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("EveryRouteStatesItsRequirement", func(t *testing.T) {
		for _, r := range (&rest.API{}).Routes() {
			op := access.MustOperation(r.Op)
			got := permissionOf(r.Method, rest.OpenAPIPath(r.Path))
			if got != op.Requirement() {
				t.Errorf("%s %s: x-permission %q, want %q", r.Method, r.Path, got, op.Requirement())
			}
			if op.Rule != nil && !strings.Contains(got, op.Rule.Requires) {
				t.Errorf("%s %s: x-permission %q does not name the rule %s", r.Method, r.Path, got, op.Rule.Name)
			}
		}
	})
}
