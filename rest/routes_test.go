package rest_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"

	"switchboard/access"
	"switchboard/graph"
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
	// Issue 13: the browser arrives without a session (SSO), or opens the
	// redirect in a new tab where the token is the capability.
	"GET /api/auth/sso/:provider/init":        true,
	"GET /api/auth/sso/:provider/callback":    true,
	"GET /api/custom-actions/redirect/:token": true,
	// Issue 14: a media element opens a signed recording link (HMAC over
	// path and expiry, 15 minutes) without a bearer token.
	"GET /api/call-recordings/*key": true,
	// Issue 15: the API's own description.
	"GET /api/openapi.json": true,
	"GET /api/openapi.yaml": true,
}

// TestRouteTableDeclaresPermissions: every row names an operation of the
// permission table, public operations are reviewed, permissions exist.
func TestRouteTableDeclaresPermissions(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range (&rest.API{}).Routes() {
		key := r.Method + " " + r.Path
		if seen[key] {
			t.Errorf("%s: listed twice", key)
		}
		seen[key] = true
		op, ok := access.OperationOf(r.Op)
		switch {
		case !ok:
			t.Errorf("%s: operation %q is not in access.Operations", key, r.Op)
		case op.Perm == access.Public && !reviewedPublic[key]:
			t.Errorf("%s: public but not in the reviewed list", key)
		case op.Perm != access.Public && op.Perm != access.Authenticated && !access.ValidPermission(op.Perm):
			t.Errorf("%s: permission %q is not in the catalogue", key, op.Perm)
		}
		if r.Handle == nil {
			t.Errorf("%s: no handler", key)
		}
	}
}

// TestOneOperationTableServesBothTransports walks every REST row and every
// GraphQL root field: each names an operation of access.Operations, so a
// REST route and the GraphQL field of the same operation require the same
// permission and the same transaction; an operation served by one
// transport only says why; entity and field reads name real types.
func TestOneOperationTableServesBothTransports(t *testing.T) {
	restOps := map[string]bool{}
	for _, r := range (&rest.API{}).Routes() {
		restOps[r.Op] = true
	}
	schema := graph.NewExecutableSchema(graph.Config{Resolvers: &graph.Resolver{}}).Schema()
	gqlOps := map[string]bool{}
	for _, root := range []*ast.Definition{schema.Query, schema.Mutation, schema.Subscription} {
		for _, f := range root.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			gqlOps[f.Name] = true
			if _, ok := access.OperationOf(f.Name); !ok {
				t.Errorf("GraphQL %s.%s: no operation in access.Operations", root.Name, f.Name)
			}
		}
	}
	for _, name := range access.OperationNames() {
		op := access.Operations[name]
		switch op.Only.Name {
		case "":
			if !restOps[name] || !gqlOps[name] {
				t.Errorf("%s: served by REST %v and GraphQL %v; serve both or say which only and why", name, restOps[name], gqlOps[name])
			}
		case "rest":
			if !restOps[name] || gqlOps[name] || op.Only.Why == "" {
				t.Errorf("%s: REST only (%q), but REST %v, GraphQL %v", name, op.Only.Why, restOps[name], gqlOps[name])
			}
		case "graphql":
			typ, field, isField := strings.Cut(name, ".")
			def := schema.Types[typ]
			switch {
			case op.Only.Why == "" || restOps[name]:
				t.Errorf("%s: GraphQL only (%q), but REST %v", name, op.Only.Why, restOps[name])
			case gqlOps[name]:
			case def == nil:
				t.Errorf("%s: neither a GraphQL root field nor a type", name)
			case isField && def.Fields.ForName(field) == nil:
				t.Errorf("%s: %s has no field %s", name, typ, field)
			}
		default:
			t.Errorf("%s: unknown transport %q", name, op.Only.Name)
		}
	}
	for _, def := range schema.Types {
		if def.Kind == ast.Object && slices.Contains(def.Interfaces, "Node") {
			if _, ok := access.OperationOf(def.Name); !ok {
				t.Errorf("entity %s has no read permission in access.Operations", def.Name)
			}
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
		perm := access.MustOperation(r.Op).Perm
		if perm == access.Public || perm == access.Authenticated || agentPerms[perm] {
			continue
		}
		path := fillParams(r.Path)
		var body any
		if r.Method != http.MethodGet {
			body = "{}"
		}
		res := agent.Do(r.Method, path, body)
		if res.Status != http.StatusForbidden {
			t.Errorf("%s %s (%s): status %d, want 403", r.Method, r.Path, perm, res.Status)
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
