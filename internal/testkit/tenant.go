package testkit

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
)

// NewOrg creates an organization named name and returns its id and a
// system viewer's context acting in it (what workers use: every tenant
// rule applies, no permission is checked).
func NewOrg(tb testing.TB, db *ent.Client, name string) (uuid.UUID, context.Context) {
	tb.Helper()
	ctx := context.Background()
	o, err := db.Organization.Create().SetName(name).SetSlug(name + "-" + uuid.NewString()[:8]).
		Save(rule.Bypass(ctx, "test fixture: an organization"))
	if err != nil {
		tb.Fatalf("organization %s: %v", name, err)
	}
	return o.ID, viewer.SystemContext(ctx, o.ID)
}

// NewMember creates a user who is a member of org (with a role of its
// own) and returns a context acting as that user in org, holding
// permissions ("resource:action") and nothing else.
func NewMember(tb testing.TB, db *ent.Client, org uuid.UUID, name string, permissions ...string) context.Context {
	tb.Helper()
	ctx := context.Background()
	sctx := viewer.SystemContext(ctx, org)
	u, err := db.User.Create().SetEmail(uuid.NewString()[:8] + "@example.com").SetFullName(name).
		Save(rule.Bypass(ctx, "test fixture: a user"))
	if err != nil {
		tb.Fatalf("user %s: %v", name, err)
	}
	r, err := db.Role.Create().SetName(name + " role").Save(sctx)
	if err != nil {
		tb.Fatalf("role of %s: %v", name, err)
	}
	if err := db.OrganizationMember.Create().SetUserID(u.ID).SetRoleID(r.ID).Exec(sctx); err != nil {
		tb.Fatalf("member %s: %v", name, err)
	}
	perms := make(map[string]bool, len(permissions))
	for _, p := range permissions {
		perms[p] = true
	}
	return viewer.NewContext(ctx, &viewer.Viewer{UserID: u.ID, OrgID: org, RoleID: r.ID, RoleName: r.Name, Permissions: perms})
}
