package roles_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/role"
	"switchboard/ent/rule"
	"switchboard/ent/ssoconfig"
	"switchboard/ent/viewer"
	"switchboard/internal/testkit"
	"switchboard/roles"
)

// fixture is one organization with its system roles, acted on by a
// system viewer (the roles' operations check no viewer of their own: the
// permission table does).
type fixture struct {
	c     *ent.Client
	s     *roles.Service
	ctx   context.Context
	owner uuid.UUID
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	db := testkit.OpenDB(t)
	if _, err := access.EnsurePermissions(ctx, db.Client); err != nil {
		t.Fatal(err)
	}
	u, err := db.Client.User.Create().SetEmail("owner@example.com").SetFullName("Owner").
		Save(rule.Bypass(ctx, "test fixture"))
	if err != nil {
		t.Fatal(err)
	}
	org, err := access.CreateOrganization(ctx, db.Client, "Acme", u.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{c: db.Client, s: &roles.Service{Client: db.Client}, ctx: viewer.SystemContext(ctx, org.ID), owner: u.ID}
}

func (f *fixture) roleID(t *testing.T, name string) uuid.UUID {
	t.Helper()
	ro, err := f.c.Role.Query().Where(role.Name(name)).Only(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ro.ID
}

func all() []string {
	var out []string
	for _, p := range access.Catalogue {
		out = append(out, p.Key())
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func TestCreate(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		name string
		in   roles.CreateInput
		code apperr.Code
		msg  string
	}{
		{name: "ErrNameRequired", in: roles.CreateInput{Name: "  ", Permissions: []string{}}, code: apperr.Invalid, msg: "name is required"},
		{name: "ErrNameTooLong", in: roles.CreateInput{Name: strings.Repeat("é", roles.MaxNameLength+1), Permissions: []string{}}, code: apperr.Invalid, msg: "name must be at most 100 characters"},
		{name: "ErrNameNUL", in: roles.CreateInput{Name: "a\x00b", Permissions: []string{}}, code: apperr.Invalid, msg: "NUL"},
		{name: "ErrNameTakenAnyCase", in: roles.CreateInput{Name: "agent", Permissions: []string{}}, code: apperr.Invalid, msg: "already exists"},
		{name: "ErrDescriptionTooLong", in: roles.CreateInput{Name: "Lead", Description: ptr(strings.Repeat("x", roles.MaxDescriptionLength+1)), Permissions: []string{}}, code: apperr.Invalid, msg: "description must be at most 500"},
		{name: "ErrPermissionsRequired", in: roles.CreateInput{Name: "Lead"}, code: apperr.Invalid, msg: "permissions is required"},
		{name: "ErrUnknownPermission", in: roles.CreateInput{Name: "Lead", Permissions: []string{"contacts:read", "contacts:fly"}}, code: apperr.Invalid, msg: `"contacts:fly"`},
		{name: "OK", in: roles.CreateInput{Name: " Lead ", Permissions: []string{"contacts:read", "teams:read", "contacts:read"}, IsDefault: ptr(true)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ro, err := f.s.Create(f.ctx, tc.in)
			testkit.ExpectError(t, err, tc.code, tc.msg)
			if err != nil {
				return
			}
			if ro.Name != "Lead" || len(ro.Edges.Permissions) != 2 || !ro.IsDefault || roles.IsAdminSeat(ro) {
				t.Fatalf("created %+v with %d permissions", ro, len(ro.Edges.Permissions))
			}
			defaults, err := f.c.Role.Query().Where(role.IsDefault(true)).Count(f.ctx)
			if err != nil || defaults != 1 {
				t.Fatalf("%d default roles, %v", defaults, err)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	f := newFixture(t)
	lead, err := f.s.Create(f.ctx, roles.CreateInput{Name: "Lead", Permissions: []string{"contacts:read"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.c.SSOConfig.Create().SetProvider(ssoconfig.ProviderGoogle).SetClientID("id").SetDefaultRole("lead").Exec(f.ctx); err != nil {
		t.Fatal(err)
	}
	admin, manager := f.roleID(t, access.RoleAdmin), f.roleID(t, access.RoleManager)
	for _, tc := range []struct {
		name string
		id   uuid.UUID
		in   roles.UpdateInput
		code apperr.Code
		msg  string
	}{
		{name: "ErrRenameSystemRole", id: manager, in: roles.UpdateInput{Name: ptr("Boss")}, code: apperr.Invalid, msg: "cannot be renamed"},
		{name: "ErrAdminLosesPermission", id: admin, in: roles.UpdateInput{Permissions: []string{"teams:read"}}, code: apperr.Invalid, msg: "always holds every permission"},
		{name: "OKAdminKeepsEveryPermission", id: admin, in: roles.UpdateInput{Description: ptr("Everything"), Permissions: all()}},
		{name: "ErrTakenName", id: lead.ID, in: roles.UpdateInput{Name: ptr("MANAGER")}, code: apperr.Invalid, msg: "already exists"},
		{name: "OKRenameFollowedBySSO", id: lead.ID, in: roles.UpdateInput{Name: ptr("Team lead")}},
		// Once Manager grants every permission too, the organization keeps
		// a system Admin seat whichever of the two loses one.
		{name: "OKManagerGetsEveryPermission", id: manager, in: roles.UpdateInput{Permissions: all()}},
		{name: "OKAdminLosesOneWhileManagerHoldsAll", id: admin, in: roles.UpdateInput{Permissions: all()[1:]}},
		{name: "ErrManagerIsNowTheLastSystemAdminSeat", id: manager, in: roles.UpdateInput{Permissions: []string{"contacts:read"}}, code: apperr.Invalid, msg: "always holds every permission"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, err := f.s.Get(f.ctx, tc.id)
			if err != nil {
				t.Fatal(err)
			}
			ro, err := f.s.Update(f.ctx, tc.id, tc.in)
			testkit.ExpectError(t, err, tc.code, tc.msg)
			if err == nil && !ro.UpdatedAt.After(before.UpdatedAt) {
				t.Fatalf("updated_at %v not after %v", ro.UpdatedAt, before.UpdatedAt)
			}
		})
	}
	sso, err := f.c.SSOConfig.Query().Only(f.ctx)
	if err != nil || sso.DefaultRole != "Team lead" {
		t.Fatalf("SSO default role %q, %v", sso.DefaultRole, err)
	}
}

func TestDelete(t *testing.T) {
	f := newFixture(t)
	mk := func(name string) uuid.UUID {
		ro, err := f.s.Create(f.ctx, roles.CreateInput{Name: name, Permissions: []string{"contacts:read"}})
		if err != nil {
			t.Fatal(err)
		}
		return ro.ID
	}
	held, invited, sso, free := mk("Held"), mk("Invited"), mk("Single sign-on"), mk("Free")
	if err := f.c.OrganizationMember.Update().SetRoleID(held).Exec(f.ctx); err != nil {
		t.Fatal(err)
	}
	err := f.c.Invitation.Create().SetEmail("invitee@example.com").SetRoleID(invited).
		SetExpiresAt(time.Now().Add(time.Hour)).Exec(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.c.SSOConfig.Create().SetProvider(ssoconfig.ProviderGithub).SetClientID("id").SetDefaultRole("single SIGN-ON").Exec(f.ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		id   uuid.UUID
		code apperr.Code
		msg  string
	}{
		{name: "ErrSystemRole", id: f.roleID(t, access.RoleAgent), code: apperr.Invalid, msg: "system role Agent cannot be deleted"},
		{name: "ErrHeldByMember", id: held, code: apperr.Invalid, msg: "1 member"},
		{name: "ErrPendingInvitation", id: invited, code: apperr.Invalid, msg: "1 pending invitation"},
		{name: "ErrSSODefaultRole", id: sso, code: apperr.Invalid, msg: "github SSO configuration"},
		{name: "ErrNotFound", id: uuid.New(), code: apperr.NotFound, msg: "role"},
		{name: "OK", id: free},
	} {
		t.Run(tc.name, func(t *testing.T) { testkit.ExpectError(t, f.s.Delete(f.ctx, tc.id), tc.code, tc.msg) })
	}
}

// TestAdminSeats: a role is an Admin seat by what it grants, not by its
// name.
func TestAdminSeats(t *testing.T) {
	f := newFixture(t)
	owners, err := f.s.Create(f.ctx, roles.CreateInput{Name: "Owners", Permissions: all()})
	if err != nil {
		t.Fatal(err)
	}
	almost, err := f.s.Create(f.ctx, roles.CreateInput{Name: "Almost", Permissions: all()[1:]})
	if err != nil {
		t.Fatal(err)
	}
	seats, err := f.s.AdminSeatIDs(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[uuid.UUID]bool{f.roleID(t, access.RoleAdmin): true, owners.ID: true}
	if len(seats) != len(want) {
		t.Fatalf("Admin seats %v, want Admin and Owners", seats)
	}
	for _, id := range seats {
		if !want[id] || id == almost.ID {
			t.Fatalf("Admin seats %v, want Admin and Owners", seats)
		}
	}
}
