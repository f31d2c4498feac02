package people_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/auth"
	"switchboard/ent"
	"switchboard/ent/organizationmember"
	"switchboard/ent/role"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
	"switchboard/internal/testkit"
	"switchboard/people"
	"switchboard/roles"
)

// org is one organization of a test: its people service, its roles by
// name, and a viewer's context per person.
type org struct {
	t     *testing.T
	c     *ent.Client
	s     *people.Service
	id    uuid.UUID
	roles map[string]uuid.UUID
	admin person
	// prefix makes the emails of the organization's people unique.
	prefix string
}

// person is a member (or not) and the context it acts in.
type person struct {
	id  uuid.UUID
	ctx context.Context
}

// openDB opens a fresh PostgreSQL database (SQLite without one) holding
// the permission catalogue.
func openDB(t *testing.T) *ent.Client {
	t.Helper()
	db := testkit.OpenDB(t)
	if _, err := access.EnsurePermissions(context.Background(), db.Client); err != nil {
		t.Fatal(err)
	}
	return db.Client
}

// newOrg creates an organization named Acme in c whose first Admin is
// admin. Its people's emails carry a prefix of their own, so that several
// organizations share a database.
func newOrg(t *testing.T, c *ent.Client) *org {
	t.Helper()
	ctx := context.Background()
	o := &org{t: t, c: c, prefix: uuid.NewString()[:8] + "."}
	o.s = &people.Service{Client: c, Roles: &roles.Service{Client: c}}
	ownerID := o.account("admin@example.com", false)
	created, err := access.CreateOrganization(ctx, c, "Acme", ownerID, true)
	if err != nil {
		t.Fatal(err)
	}
	o.id = created.ID
	rs, err := c.Role.Query().All(o.system())
	if err != nil {
		t.Fatal(err)
	}
	o.roles = map[string]uuid.UUID{}
	for _, r := range rs {
		o.roles[r.Name] = r.ID
	}
	o.admin = o.as(ownerID)
	return o
}

func (o *org) system() context.Context { return viewer.SystemContext(context.Background(), o.id) }

// account creates an account (no membership).
func (o *org) account(email string, superAdmin bool) uuid.UUID {
	o.t.Helper()
	hash, err := auth.HashPassword("correct horse battery")
	if err != nil {
		o.t.Fatal(err)
	}
	u, err := o.c.User.Create().SetEmail(o.prefix + email).SetFullName(email).SetPasswordHash(hash).
		SetIsSuperAdmin(superAdmin).Save(rule.Bypass(context.Background(), "test fixture"))
	if err != nil {
		o.t.Fatal(err)
	}
	return u.ID
}

// member creates an account that is a member with the role named role.
func (o *org) member(email, roleName string) person {
	o.t.Helper()
	id := o.account(email, false)
	err := o.c.OrganizationMember.Create().SetUserID(id).SetRoleID(o.roles[roleName]).SetIsDefault(true).Exec(o.system())
	if err != nil {
		o.t.Fatal(err)
	}
	return o.as(id)
}

// customRole creates a role granting keys.
func (o *org) customRole(name string, keys ...string) uuid.UUID {
	o.t.Helper()
	ro, err := (&roles.Service{Client: o.c}).Create(o.admin.ctx, roles.CreateInput{Name: name, Permissions: keys})
	if err != nil {
		o.t.Fatal(err)
	}
	o.roles[name] = ro.ID
	return ro.ID
}

// as is the context of userID acting in the organization with its role's
// permissions (a super admin's are all of them).
func (o *org) as(userID uuid.UUID) person {
	o.t.Helper()
	v := &viewer.Viewer{UserID: userID, OrgID: o.id, Permissions: map[string]bool{}}
	u, err := o.c.User.Get(rule.Bypass(context.Background(), "test fixture"), userID)
	if err != nil {
		o.t.Fatal(err)
	}
	v.SuperAdmin = u.IsSuperAdmin
	m, err := o.c.OrganizationMember.Query().Where(organizationmember.UserID(userID)).
		WithRole(func(q *ent.RoleQuery) { q.WithPermissions() }).Only(o.system())
	switch {
	case err == nil:
		v.RoleID = m.RoleID
		for _, p := range m.Edges.Role.Edges.Permissions {
			v.Permissions[p.Resource+":"+p.Action] = true
		}
	case !ent.IsNotFound(err):
		o.t.Fatal(err)
	}
	if v.SuperAdmin {
		for _, p := range access.Catalogue {
			v.Permissions[p.Key()] = true
		}
	}
	return person{id: userID, ctx: viewer.NewContext(context.Background(), v)}
}

// membership is userID's membership id.
func (o *org) membership(userID uuid.UUID) uuid.UUID {
	o.t.Helper()
	m, err := o.c.OrganizationMember.Query().Where(organizationmember.UserID(userID)).Only(o.system())
	if err != nil {
		o.t.Fatal(err)
	}
	return m.ID
}

func ptr[T any](v T) *T { return &v }

// TestLastAdminGuard: an organization keeps an active member in an Admin
// seat, a role granting every permission whatever its name.
func TestLastAdminGuard(t *testing.T) {
	c := openDB(t)
	for _, tc := range []struct {
		name string
		// other is the role of a second member, "" for none; inactive
		// deactivates that member first.
		other    string
		inactive bool
		change   func(o *org, admin uuid.UUID) error
		want     apperr.Code
	}{
		{name: "ErrRemoveLastAdmin", change: removeMember, want: apperr.Invalid},
		{name: "ErrDemoteLastAdmin", change: demoteToAgent, want: apperr.Invalid},
		{name: "ErrDeactivateLastAdmin", change: deactivate, want: apperr.Invalid},
		{name: "ErrLastActiveAdmin", other: access.RoleAdmin, inactive: true, change: removeMember, want: apperr.Invalid},
		{name: "ErrManagerIsNoAdmin", other: access.RoleManager, change: demoteToAgent, want: apperr.Invalid},
		{name: "OKAnotherAdmin", other: access.RoleAdmin, change: removeMember},
		{name: "OKDeactivateWithAnotherAdmin", other: access.RoleAdmin, change: deactivate},
		{name: "OKAnotherAdminSeatByPermissions", other: "Owners", change: demoteToAgent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newOrg(t, c)
			if tc.other == "Owners" {
				var all []string
				for _, p := range access.Catalogue {
					all = append(all, p.Key())
				}
				o.customRole("Owners", all...)
			}
			if tc.other != "" {
				other := o.member("other@example.com", tc.other)
				if tc.inactive {
					err := o.c.User.UpdateOneID(other.id).SetIsActive(false).Exec(rule.Bypass(context.Background(), "test fixture"))
					if err != nil {
						t.Fatal(err)
					}
				}
			}
			// A super admin (no member) acts on the first Admin's seat.
			msg := ""
			if tc.want != "" {
				msg = "last Admin"
			}
			testkit.ExpectError(t, tc.change(o, o.admin.id), tc.want, msg)
		})
	}
}

func removeMember(o *org, userID uuid.UUID) error {
	return o.s.RemoveMember(o.superAdmin().ctx, o.membership(userID))
}

func deactivate(o *org, userID uuid.UUID) error {
	_, err := o.s.UpdateUser(o.superAdmin().ctx, userID, people.UpdateUserInput{IsActive: ptr(false)})
	return err
}

func demoteToAgent(o *org, userID uuid.UUID) error {
	_, err := o.s.UpdateMemberRole(o.superAdmin().ctx, o.membership(userID), o.roles[access.RoleAgent])
	return err
}

// superAdmin is a super admin who is no member of the organization.
func (o *org) superAdmin() person {
	o.t.Helper()
	return o.as(o.account(uuid.NewString()[:8]+"@example.com", true))
}

// TestAdminSeatsNeedAnAdmin: a role holding users:* but not every
// permission cannot grant, take away or remove an Admin seat, however the
// seat's role is named.
func TestAdminSeatsNeedAnAdmin(t *testing.T) {
	o := newOrg(t, openDB(t))
	var all []string
	for _, p := range access.Catalogue {
		all = append(all, p.Key())
	}
	owners := o.customRole("Owners", all...)
	o.customRole("People", "users:read", "users:create", "users:update", "users:delete")
	hr := o.member("hr@example.com", "People")
	agent := o.member("agent@example.com", access.RoleAgent)
	secondAdmin := o.member("admin2@example.com", access.RoleAdmin)
	for _, tc := range []struct {
		name   string
		change func() error
		want   apperr.Code
	}{
		{name: "ErrInviteAsAdmin", want: apperr.Forbidden, change: func() error {
			_, err := o.s.AddMember(hr.ctx, people.AddMemberInput{Email: ptr("new@example.com"), RoleID: ptr(o.roles[access.RoleAdmin])})
			return err
		}},
		{name: "ErrInviteToCustomAdminSeat", want: apperr.Forbidden, change: func() error {
			_, err := o.s.CreateUser(hr.ctx, people.CreateUserInput{Email: "new@example.com", RoleID: &owners})
			return err
		}},
		{name: "ErrPromote", want: apperr.Forbidden, change: func() error {
			_, err := o.s.UpdateMemberRole(hr.ctx, o.membership(agent.id), owners)
			return err
		}},
		{name: "ErrRemoveAdmin", want: apperr.Forbidden, change: func() error {
			return o.s.DeleteUser(hr.ctx, secondAdmin.id)
		}},
		{name: "OKInviteAsAgent", change: func() error {
			res, err := o.s.AddMember(hr.ctx, people.AddMemberInput{Email: ptr("new@example.com")})
			if err == nil && (res.Invitation == nil || res.Invitation.RoleID != o.roles[access.RoleAgent]) {
				t.Fatalf("addition %+v, want an invitation with the default role", res)
			}
			return err
		}},
		{name: "OKAdminPromotes", change: func() error {
			_, err := o.s.UpdateMemberRole(o.admin.ctx, o.membership(agent.id), owners)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { testkit.ExpectError(t, tc.change(), tc.want, "") })
	}
}

// TestIdentityIsThePersons: membership gives no power over a person's
// name, password or active flag.
func TestIdentityIsThePersons(t *testing.T) {
	o := newOrg(t, openDB(t))
	agent := o.member("agent@example.com", access.RoleAgent)
	key := agent.ctx
	kv := *viewer.FromContext(key)
	kv.APIKeyID = uuid.New()
	key = viewer.NewContext(context.Background(), &kv)
	for _, tc := range []struct {
		name string
		ctx  context.Context
		in   people.UpdateUserInput
		want apperr.Code
	}{
		{name: "ErrAdminRenames", ctx: o.admin.ctx, in: people.UpdateUserInput{FullName: ptr("Renamed")}, want: apperr.Forbidden},
		{name: "ErrAdminSetsPassword", ctx: o.admin.ctx, in: people.UpdateUserInput{Password: ptr("another horse battery")}, want: apperr.Forbidden},
		{name: "ErrAPIKeyRenamesOwner", ctx: key, in: people.UpdateUserInput{FullName: ptr("Renamed")}, want: apperr.Forbidden},
		{name: "ErrNameTooLong", ctx: agent.ctx, in: people.UpdateUserInput{FullName: ptr(strings.Repeat("é", people.MaxFullNameLength+1))}, want: apperr.Invalid},
		{name: "ErrNameNUL", ctx: agent.ctx, in: people.UpdateUserInput{FullName: ptr("a\x00b")}, want: apperr.Invalid},
		{name: "OKSelfRenames", ctx: agent.ctx, in: people.UpdateUserInput{FullName: ptr(" Ada ")}},
		{name: "OKSuperAdminRenames", ctx: o.superAdmin().ctx, in: people.UpdateUserInput{FullName: ptr("Ada Agent")}},
		{name: "OKAdminChangesRole", ctx: o.admin.ctx, in: people.UpdateUserInput{RoleID: ptr(o.roles[access.RoleManager])}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := o.s.UpdateUser(tc.ctx, agent.id, tc.in)
			testkit.ExpectError(t, err, tc.want, "")
		})
	}
	m, err := o.s.User(o.admin.ctx, agent.id)
	if err != nil || m.Edges.User.FullName != "Ada Agent" || m.Edges.Role.Name != access.RoleManager {
		t.Fatalf("after the changes: %+v %v", m, err)
	}
}

// TestInvitationIsThePersonsChoice: adding an account makes an
// invitation, which only the person accepts; a super admin adds at once.
func TestInvitationIsThePersonsChoice(t *testing.T) {
	o := newOrg(t, openDB(t))
	invitee := o.account("invitee@example.com", false)
	res, err := o.s.AddMember(o.admin.ctx, people.AddMemberInput{UserID: &invitee})
	if err != nil || res.Invitation == nil || res.Member != nil {
		t.Fatalf("add by an Admin: %+v %v", res, err)
	}
	// The invitee belongs to no organization yet: their viewer acts in
	// the inviting one without a role.
	self := o.as(invitee)
	kv := *viewer.FromContext(self.ctx)
	kv.APIKeyID = uuid.New()
	_, err = o.s.AcceptInvitation(viewer.NewContext(context.Background(), &kv), res.Invitation.ID)
	testkit.ExpectError(t, err, apperr.Forbidden, "")
	_, err = o.s.AcceptInvitation(o.admin.ctx, res.Invitation.ID)
	testkit.ExpectError(t, err, apperr.NotFound, "")

	pending, err := o.s.MyInvitations(self.ctx)
	if err != nil || len(pending) != 1 || pending[0].OrganizationName != "Acme" || pending[0].RoleName != access.RoleAgent {
		t.Fatalf("pending: %+v %v", pending, err)
	}
	joined, err := o.s.AcceptInvitation(self.ctx, res.Invitation.ID)
	if err != nil || joined.ID != o.id {
		t.Fatalf("accept: %+v %v", joined, err)
	}
	mine, err := o.s.MyOrganizations(self.ctx)
	if err != nil || len(mine) != 1 || !mine[0].IsDefault || mine[0].RoleName != access.RoleAgent {
		t.Fatalf("memberships: %+v %v", mine, err)
	}
	_, err = o.s.AddMember(o.admin.ctx, people.AddMemberInput{UserID: &invitee})
	testkit.ExpectError(t, err, apperr.Invalid, "")

	direct := o.account("direct@example.com", false)
	res, err = o.s.AddMember(o.superAdmin().ctx, people.AddMemberInput{UserID: &direct})
	if err != nil || res.Member == nil || res.Member.Edges.User.ID != direct {
		t.Fatalf("add by a super admin: %+v %v", res, err)
	}
}

// TestChangePassword: only the person, with their current password.
func TestChangePassword(t *testing.T) {
	o := newOrg(t, openDB(t))
	agent := o.member("agent@example.com", access.RoleAgent)
	kv := *viewer.FromContext(agent.ctx)
	kv.APIKeyID = uuid.New()
	key := viewer.NewContext(context.Background(), &kv)
	for _, tc := range []struct {
		name string
		ctx  context.Context
		in   people.ChangePasswordInput
		want apperr.Code
	}{
		{name: "ErrAPIKey", ctx: key, in: people.ChangePasswordInput{CurrentPassword: "correct horse battery", NewPassword: "another horse battery"}, want: apperr.Forbidden},
		{name: "ErrWrongCurrent", ctx: agent.ctx, in: people.ChangePasswordInput{CurrentPassword: "wrong", NewPassword: "another horse battery"}, want: apperr.Invalid},
		{name: "ErrPolicy", ctx: agent.ctx, in: people.ChangePasswordInput{CurrentPassword: "correct horse battery", NewPassword: "short"}, want: apperr.Invalid},
		{name: "OK", ctx: agent.ctx, in: people.ChangePasswordInput{CurrentPassword: "correct horse battery", NewPassword: "another horse battery"}},
		{name: "ErrOldPasswordGone", ctx: agent.ctx, in: people.ChangePasswordInput{CurrentPassword: "correct horse battery", NewPassword: "third horse battery"}, want: apperr.Invalid},
	} {
		t.Run(tc.name, func(t *testing.T) { testkit.ExpectError(t, o.s.ChangePassword(tc.ctx, tc.in), tc.want, "") })
	}
}

// TestCreateOrganization: a person signed in owns the new organization as
// its Admin; an API key cannot create one.
func TestCreateOrganization(t *testing.T) {
	o := newOrg(t, openDB(t))
	kv := *viewer.FromContext(o.admin.ctx)
	kv.APIKeyID = uuid.New()
	_, err := o.s.CreateOrganization(viewer.NewContext(context.Background(), &kv), people.CreateOrganizationInput{Name: "Beta"})
	testkit.ExpectError(t, err, apperr.Forbidden, "")
	_, err = o.s.CreateOrganization(o.admin.ctx, people.CreateOrganizationInput{Name: " "})
	testkit.ExpectError(t, err, apperr.Invalid, "")
	beta, err := o.s.CreateOrganization(o.admin.ctx, people.CreateOrganizationInput{Name: "Beta"})
	if err != nil {
		t.Fatal(err)
	}
	admin, err := o.c.Role.Query().Where(role.IsSystem(true)).WithPermissions().All(viewer.SystemContext(context.Background(), beta.ID))
	if err != nil {
		t.Fatal(err)
	}
	seats := 0
	for _, ro := range admin {
		if roles.IsAdminSeat(ro) {
			seats++
		}
	}
	mine, err := o.s.MyOrganizations(o.admin.ctx)
	if err != nil || len(mine) != 2 || seats != 1 || mine[1].RoleName != access.RoleAdmin || mine[1].IsDefault {
		t.Fatalf("memberships %+v (%d Admin seats), %v", mine, seats, err)
	}
}
