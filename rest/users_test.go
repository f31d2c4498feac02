package rest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent/invitation"
	"switchboard/ent/permission"
	"switchboard/ent/rule"
	"switchboard/ent/user"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
)

var userKeys = []string{"id", "organization_id", "email", "full_name", "role_id", "is_active",
	"is_available", "is_super_admin", "created_at", "updated_at", "role"}

func TestUsers(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	manager := env.NewUser(env.OrgID, access.RoleManager)
	other := env.NewOrg("Elsewhere")
	anon := env.Anonymous()
	ctx := context.Background()
	managerRole := orgRoleID(t, env, env.OrgID, access.RoleManager)
	agentRole := orgRoleID(t, env, env.OrgID, access.RoleAgent)
	const password = "a-good-long-password"

	t.Run("List", func(t *testing.T) {
		t.Run("OKShape", func(t *testing.T) {
			res := manager.Do(http.MethodGet, "/api/users", nil).ExpectStatus(t, http.StatusOK)
			if res.Len("data.users") != 3 || res.Number("data.total") != 3 || res.Number("data.page") != 1 || res.Number("data.limit") != 50 {
				t.Fatalf("users: %s", res.Raw)
			}
			expectKeys(t, res, "data.users.0", userKeys...)
			expectKeys(t, res, "data.users.0.role", "id", "name", "description")
			if res.String("data.users.0.email") != "admin@example.com" || res.String("data.users.0.role.name") != access.RoleAdmin ||
				res.String("data.users.0.role_id") != res.String("data.users.0.role.id") ||
				res.String("data.users.0.organization_id") != env.OrgID.String() || res.Get("data.users.0.is_super_admin") != true {
				t.Errorf("first user: %s", res.Raw)
			}
			if _, ok := res.Get("data.users.0").(map[string]any)["password_hash"]; ok {
				t.Errorf("password hash shown: %s", res.Raw)
			}
		})
		t.Run("Search", func(t *testing.T) {
			res := admin.Do(http.MethodGet, "/api/users?search=AGENT", nil).ExpectStatus(t, http.StatusOK)
			if res.Number("data.total") != 1 || res.String("data.users.0.id") != agent.UserID.String() ||
				res.String("data.users.0.role.name") != access.RoleAgent {
				t.Fatalf("search: %s", res.Raw)
			}
		})
		t.Run("OtherOrgNotListed", func(t *testing.T) {
			res := admin.Do(http.MethodGet, "/api/users?search=owner-", nil).ExpectStatus(t, http.StatusOK)
			if res.Number("data.total") != 0 {
				t.Fatalf("another organization's user listed: %s", res.Raw)
			}
		})
		t.Run("ErrBadPaging", func(t *testing.T) {
			admin.Do(http.MethodGet, "/api/users?page=-1", nil).ExpectError(t, http.StatusBadRequest)
		})
		t.Run("ErrAgentForbidden", func(t *testing.T) {
			agent.Do(http.MethodGet, "/api/users", nil).ExpectError(t, http.StatusForbidden)
		})
		t.Run("ErrAnonymous", func(t *testing.T) {
			anon.Do(http.MethodGet, "/api/users", nil).ExpectError(t, http.StatusUnauthorized)
		})
	})

	t.Run("Get", func(t *testing.T) {
		res := admin.Do(http.MethodGet, "/api/users/"+agent.UserID.String(), nil).ExpectStatus(t, http.StatusOK)
		expectKeys(t, res, "data", userKeys...)
		if res.String("data.id") != agent.UserID.String() || res.String("data.role.name") != access.RoleAgent ||
			res.String("data.role_id") != agentRole || res.Get("data.is_active") != true {
			t.Fatalf("user: %s", res.Raw)
		}
		for name, tc := range map[string]struct {
			c    *apitest.Client
			id   string
			want int
		}{
			"ErrUnknown":       {admin, uuid.NewString(), http.StatusNotFound},
			"ErrOtherOrgUser":  {admin, other.UserID.String(), http.StatusNotFound},
			"ErrNotUUID":       {admin, "xyz", http.StatusBadRequest},
			"ErrAgent":         {agent, manager.UserID.String(), http.StatusForbidden},
			"ErrAnonymous":     {anon, agent.UserID.String(), http.StatusUnauthorized},
			"ErrOtherOrgAdmin": {other, agent.UserID.String(), http.StatusNotFound},
		} {
			t.Run(name, func(t *testing.T) {
				tc.c.Do(http.MethodGet, "/api/users/"+tc.id, nil).ExpectError(t, tc.want)
			})
		}
	})

	t.Run("Create", func(t *testing.T) {
		t.Run("OKWithPassword", func(t *testing.T) {
			res := admin.Do(http.MethodPost, "/api/users", map[string]any{
				"email": "Carol@Example.com", "full_name": " Carol ", "password": password, "role_id": managerRole,
			}).ExpectStatus(t, http.StatusCreated)
			expectKeys(t, res, "data", userKeys...)
			if res.String("data.email") != "carol@example.com" || res.String("data.full_name") != "Carol" ||
				res.String("data.role.name") != access.RoleManager || res.Get("data.is_active") != true ||
				res.String("data.organization_id") != env.OrgID.String() {
				t.Fatalf("created: %s", res.Raw)
			}
			carol := env.Login("carol@example.com", password)
			if carol.OrgID != env.OrgID {
				t.Fatalf("carol logs into %s", carol.OrgID)
			}
		})
		t.Run("OKDefaultRole", func(t *testing.T) {
			res := admin.Do(http.MethodPost, "/api/users", map[string]any{
				"email": "dave@example.com", "full_name": "Dave", "password": password,
			}).ExpectStatus(t, http.StatusCreated)
			if res.String("data.role.name") != access.RoleAgent {
				t.Fatalf("default role: %s", res.Raw)
			}
		})
		t.Run("OKInvitationThenRegister", func(t *testing.T) {
			res := admin.Do(http.MethodPost, "/api/users", map[string]any{
				"email": "erin@example.com", "full_name": "Erin", "role_id": managerRole,
			}).ExpectStatus(t, http.StatusCreated)
			expectKeys(t, res, "data.invitation", "id", "email", "role_id", "invited_by_id", "expires_at", "created_at")
			if res.String("data.message") == "" || res.String("data.invitation.email") != "erin@example.com" ||
				res.String("data.invitation.role_id") != managerRole {
				t.Fatalf("invitation: %s", res.Raw)
			}
			anon.Do(http.MethodPost, "/api/auth/register", map[string]any{
				"email": "erin@example.com", "password": password, "full_name": "Erin",
				"organization_id": env.OrgID.String(),
			}).ExpectStatus(t, http.StatusCreated)
			inv, err := env.Client().Invitation.Query().Where(invitation.Email("erin@example.com")).
				Only(viewer.SystemContext(ctx, env.OrgID))
			if err != nil || inv.AcceptedAt == nil {
				t.Fatalf("invitation not accepted: %v %+v", err, inv)
			}
			list := admin.Do(http.MethodGet, "/api/users?search=erin", nil).ExpectStatus(t, http.StatusOK)
			if list.Number("data.total") != 1 || list.String("data.users.0.role.name") != access.RoleManager {
				t.Fatalf("registered user: %s", list.Raw)
			}
		})
		t.Run("ErrRegisterWithoutInvitation", func(t *testing.T) {
			anon.Do(http.MethodPost, "/api/auth/register", map[string]any{
				"email": "frank@example.com", "password": password, "full_name": "Frank",
				"organization_id": env.OrgID.String(),
			}).ExpectError(t, http.StatusForbidden)
		})
		t.Run("ErrOtherOrgRole", func(t *testing.T) {
			admin.Do(http.MethodPost, "/api/users", map[string]any{
				"email": "gina@example.com", "full_name": "Gina", "password": password,
				"role_id": orgRoleID(t, env, other.OrgID, access.RoleAdmin),
			}).ExpectError(t, http.StatusNotFound)
		})
		badRequests(t, admin, http.MethodPost, "/api/users", map[string]any{
			"ErrMalformedJSON":     "{",
			"ErrEmailWrongType":    `{"email": 5, "full_name": "X", "password": "a-good-long-password"}`,
			"ErrRoleIDWrongType":   `{"email": "h@example.com", "full_name": "H", "role_id": 5}`,
			"ErrRoleIDNotUUID":     `{"email": "h@example.com", "full_name": "H", "role_id": "nope"}`,
			"ErrEmailRequired":     `{"full_name": "H", "password": "a-good-long-password"}`,
			"ErrBadEmail":          `{"email": "h@", "full_name": "H", "password": "a-good-long-password"}`,
			"ErrFullNameRequired":  `{"email": "h@example.com", "password": "a-good-long-password"}`,
			"ErrPasswordTooShort":  `{"email": "h@example.com", "full_name": "H", "password": "short"}`,
			"ErrPasswordEmpty":     `{"email": "h@example.com", "full_name": "H", "password": ""}`,
			"ErrEmailTaken":        map[string]any{"email": "carol@example.com", "full_name": "C", "password": password},
			"ErrPasswordWrongType": `{"email": "h@example.com", "full_name": "H", "password": 123456789012}`,
		})
		t.Run("OKAccountElsewhereInvited", func(t *testing.T) {
			res := admin.Do(http.MethodPost, "/api/users", map[string]any{"email": userEmail(t, env, other), "full_name": "O"}).
				ExpectStatus(t, http.StatusCreated)
			if res.String("data.invitation.id") == "" {
				t.Fatalf("not an invitation: %s", res.Raw)
			}
		})
		t.Run("ErrManagerForbidden", func(t *testing.T) {
			manager.Do(http.MethodPost, "/api/users", map[string]any{
				"email": "i@example.com", "full_name": "I", "password": password,
			}).ExpectError(t, http.StatusForbidden)
		})
		t.Run("ErrAnonymous", func(t *testing.T) {
			anon.Do(http.MethodPost, "/api/users", map[string]any{"email": "i@example.com"}).ExpectError(t, http.StatusUnauthorized)
		})
	})

	t.Run("Update", func(t *testing.T) {
		target := env.NewUser(env.OrgID, access.RoleAgent)
		path := "/api/users/" + target.UserID.String()
		t.Run("OKFields", func(t *testing.T) {
			res := admin.Do(http.MethodPut, path, map[string]any{"full_name": "Renamed", "role_id": managerRole}).
				ExpectStatus(t, http.StatusOK)
			expectKeys(t, res, "data", userKeys...)
			if res.String("data.full_name") != "Renamed" || res.String("data.role.name") != access.RoleManager {
				t.Fatalf("updated: %s", res.Raw)
			}
		})
		t.Run("OKPasswordEndsSessions", func(t *testing.T) {
			email := userEmail(t, env, target)
			admin.Do(http.MethodPut, path, map[string]any{"password": "another-long-password"}).ExpectStatus(t, http.StatusOK)
			target.Do(http.MethodGet, "/api/me", nil).ExpectError(t, http.StatusUnauthorized)
			*target = *env.Login(email, "another-long-password")
		})
		t.Run("DeactivationEndsAccessAtNextRequest", func(t *testing.T) {
			target.Do(http.MethodGet, "/api/me", nil).ExpectStatus(t, http.StatusOK)
			res := admin.Do(http.MethodPut, path, map[string]any{"is_active": false}).ExpectStatus(t, http.StatusOK)
			if res.Get("data.is_active") != false {
				t.Fatalf("deactivated: %s", res.Raw)
			}
			target.Do(http.MethodGet, "/api/me", nil).ExpectError(t, http.StatusUnauthorized)
			env.Anonymous().Do(http.MethodPost, "/api/auth/login", map[string]any{
				"email": res.String("data.email"), "password": "another-long-password",
			}).ExpectError(t, http.StatusUnauthorized)
			admin.Do(http.MethodPut, path, map[string]any{"is_active": true}).ExpectStatus(t, http.StatusOK)
			target.Do(http.MethodGet, "/api/me", nil).ExpectStatus(t, http.StatusOK)
		})
		t.Run("ErrDeactivateSelf", func(t *testing.T) {
			admin.Do(http.MethodPut, "/api/users/"+admin.UserID.String(), map[string]any{"is_active": false}).
				ExpectError(t, http.StatusBadRequest)
		})
		t.Run("ErrDemoteLastAdminSelf", func(t *testing.T) {
			res := admin.Do(http.MethodPut, "/api/users/"+admin.UserID.String(), map[string]any{"role_id": agentRole}).
				ExpectError(t, http.StatusBadRequest)
			if !strings.Contains(res.String("message"), "last Admin") {
				t.Errorf("message: %s", res.Raw)
			}
		})
		t.Run("ErrSetOwnPassword", func(t *testing.T) {
			admin.Do(http.MethodPut, "/api/users/"+admin.UserID.String(), map[string]any{"password": "yet-another-password"}).
				ExpectError(t, http.StatusBadRequest)
		})
		t.Run("AccountSharedWithAnotherOrg", func(t *testing.T) {
			// The agent also joins Elsewhere; its admin manages the
			// agent's role there, not the shared account.
			mustJoin(t, other, agent)
			p := "/api/users/" + agent.UserID.String()
			other.Do(http.MethodPut, p, map[string]any{"password": "hijacked-password"}).ExpectError(t, http.StatusForbidden)
			other.Do(http.MethodPut, p, map[string]any{"is_active": false}).ExpectError(t, http.StatusForbidden)
			other.Do(http.MethodPut, p, map[string]any{"full_name": "Agent Smith"}).ExpectError(t, http.StatusForbidden)
			other.Do(http.MethodPut, "/api/users/"+admin.UserID.String(), map[string]any{"full_name": "X"}).
				ExpectError(t, http.StatusNotFound)
			// A super admin may; the reset ends the agent's sessions.
			email := userEmail(t, env, agent)
			admin.Do(http.MethodPut, p, map[string]any{"password": "super-admin-reset"}).ExpectStatus(t, http.StatusOK)
			agent.Do(http.MethodGet, "/api/me", nil).ExpectError(t, http.StatusUnauthorized)
			*agent = *env.Login(email, "super-admin-reset")
		})
		badRequests(t, admin, http.MethodPut, path, map[string]any{
			"ErrMalformedJSON":     "{",
			"ErrIsActiveWrongType": `{"is_active": "yes"}`,
			"ErrRoleIDWrongType":   `{"role_id": 5}`,
			"ErrRoleIDNotUUID":     `{"role_id": "nope"}`,
			"ErrFullNameEmpty":     `{"full_name": "  "}`,
			"ErrFullNameTooLong":   map[string]any{"full_name": strings.Repeat("x", 201)},
			"ErrPasswordTooShort":  `{"password": "short"}`,
			"ErrEmptyBody":         "",
		})
		for name, tc := range map[string]struct {
			c    *apitest.Client
			id   string
			want int
		}{
			"ErrNotUUID":          {admin, "nope", http.StatusBadRequest},
			"ErrUnknown":          {admin, uuid.NewString(), http.StatusNotFound},
			"ErrOtherOrgUser":     {admin, other.UserID.String(), http.StatusNotFound},
			"ErrManagerForbidden": {manager, target.UserID.String(), http.StatusForbidden},
			"ErrAnonymous":        {anon, target.UserID.String(), http.StatusUnauthorized},
		} {
			t.Run(name, func(t *testing.T) {
				tc.c.Do(http.MethodPut, "/api/users/"+tc.id, map[string]any{"full_name": "Z"}).ExpectError(t, tc.want)
			})
		}
		t.Run("ErrOtherOrgRole", func(t *testing.T) {
			admin.Do(http.MethodPut, path, map[string]any{"role_id": orgRoleID(t, env, other.OrgID, access.RoleAgent)}).
				ExpectError(t, http.StatusNotFound)
		})
	})

	t.Run("OnlyAdminsManageAdmins", func(t *testing.T) {
		// A custom role with every users:* permission is not an Admin: it
		// may manage other members but neither grant nor touch an Admin seat.
		sctx := viewer.SystemContext(ctx, env.OrgID)
		perms, err := env.Client().Permission.Query().Where(permission.Resource("users")).IDs(sctx)
		if err != nil || len(perms) != 4 {
			t.Fatalf("users permissions: %v %v", perms, err)
		}
		if err := env.Client().Role.Create().SetName("Supervisor").AddPermissionIDs(perms...).Exec(sctx); err != nil {
			t.Fatal(err)
		}
		sup := env.NewUser(env.OrgID, "Supervisor")
		adminRole := orgRoleID(t, env, env.OrgID, access.RoleAdmin)
		self := "/api/users/" + sup.UserID.String()
		for name, tc := range map[string]struct {
			method, path string
			body         any
		}{
			"ErrPromoteSelf":        {http.MethodPut, self, map[string]any{"role_id": adminRole}},
			"ErrPromoteViaMembers":  {http.MethodPut, "/api/organizations/members/" + memberIDOf(t, sup, sup.UserID), map[string]any{"role_id": adminRole}},
			"ErrCreateAdmin":        {http.MethodPost, "/api/users", map[string]any{"email": "boss@example.com", "full_name": "Boss", "password": password, "role_id": adminRole}},
			"ErrInviteAdmin":        {http.MethodPost, "/api/organizations/members", map[string]any{"email": "boss@example.com", "role_id": adminRole}},
			"ErrResetAdminPassword": {http.MethodPut, "/api/users/" + admin.UserID.String(), map[string]any{"password": "taken-over-password"}},
			"ErrDeactivateAdmin":    {http.MethodPut, "/api/users/" + admin.UserID.String(), map[string]any{"is_active": false}},
			"ErrDemoteAdmin":        {http.MethodPut, "/api/users/" + admin.UserID.String(), map[string]any{"role_id": agentRole}},
			"ErrRemoveAdmin":        {http.MethodDelete, "/api/users/" + admin.UserID.String(), nil},
		} {
			t.Run(name, func(t *testing.T) {
				sup.Do(tc.method, tc.path, tc.body).ExpectError(t, http.StatusForbidden)
			})
		}
		t.Run("OKManagesOthers", func(t *testing.T) {
			sup.Do(http.MethodPost, "/api/users", map[string]any{
				"email": "helper@example.com", "full_name": "Helper", "role_id": managerRole,
			}).ExpectStatus(t, http.StatusCreated)
			helper := env.NewUser(env.OrgID, access.RoleManager)
			sup.Do(http.MethodPut, "/api/users/"+helper.UserID.String(), map[string]any{"role_id": agentRole}).
				ExpectStatus(t, http.StatusOK)
		})
	})

	t.Run("Delete", func(t *testing.T) {
		t.Run("OKOnlyOrganizationKeepsAccount", func(t *testing.T) {
			// The account is the person's: removal ends the membership
			// only, even in their only organization.
			gone := env.NewUser(env.OrgID, access.RoleAgent)
			admin.Do(http.MethodDelete, "/api/users/"+gone.UserID.String(), nil).ExpectStatus(t, http.StatusOK)
			admin.Do(http.MethodGet, "/api/users/"+gone.UserID.String(), nil).ExpectError(t, http.StatusNotFound)
			gone.Do(http.MethodGet, "/api/me", nil).ExpectError(t, http.StatusForbidden)
			u, err := env.Client().User.Query().Where(user.ID(gone.UserID)).Only(rule.Bypass(ctx, "test"))
			if err != nil || !u.IsActive {
				t.Fatalf("account: %v %+v", err, u)
			}
		})
		t.Run("OKOtherMembershipKeepsAccount", func(t *testing.T) {
			// The agent belongs to both organizations (see Update).
			other.Do(http.MethodDelete, "/api/users/"+agent.UserID.String(), nil).ExpectStatus(t, http.StatusOK)
			other.Do(http.MethodGet, "/api/users/"+agent.UserID.String(), nil).ExpectError(t, http.StatusNotFound)
			agent.Do(http.MethodGet, "/api/me", nil).ExpectStatus(t, http.StatusOK)
		})
		t.Run("ErrLastAdminSelf", func(t *testing.T) {
			res := other.Do(http.MethodDelete, "/api/users/"+other.UserID.String(), nil).ExpectError(t, http.StatusBadRequest)
			if !strings.Contains(res.String("message"), "last Admin") {
				t.Errorf("message: %s", res.Raw)
			}
		})
		t.Run("OKLeaveOnlyOrganization", func(t *testing.T) {
			second := env.NewUser(other.OrgID, access.RoleAdmin)
			second.Do(http.MethodDelete, "/api/users/"+second.UserID.String(), nil).ExpectStatus(t, http.StatusOK)
			second.Do(http.MethodGet, "/api/me", nil).ExpectError(t, http.StatusForbidden)
		})
		for name, tc := range map[string]struct {
			c    *apitest.Client
			id   string
			want int
		}{
			"ErrNotUUID":        {admin, "nope", http.StatusBadRequest},
			"ErrUnknown":        {admin, uuid.NewString(), http.StatusNotFound},
			"ErrOtherOrgUser":   {admin, other.UserID.String(), http.StatusNotFound},
			"ErrAgentForbidden": {agent, manager.UserID.String(), http.StatusForbidden},
			"ErrAnonymous":      {anon, manager.UserID.String(), http.StatusUnauthorized},
		} {
			t.Run(name, func(t *testing.T) {
				tc.c.Do(http.MethodDelete, "/api/users/"+tc.id, nil).ExpectError(t, tc.want)
			})
		}
	})
}
