package rest_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/auth"
	"switchboard/ent"
	"switchboard/ent/invitation"
	"switchboard/ent/organizationmember"
	"switchboard/ent/role"
	"switchboard/ent/rule"
	"switchboard/ent/teammember"
	"switchboard/ent/user"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
)

// orgRoleID returns the id of the role called name in orgID.
func orgRoleID(t *testing.T, env *apitest.Env, orgID uuid.UUID, name string) string {
	t.Helper()
	r, err := env.Client().Role.Query().Where(role.Name(name)).Only(viewer.SystemContext(context.Background(), orgID))
	if err != nil {
		t.Fatalf("role %s: %v", name, err)
	}
	return r.ID.String()
}

// issueAPIKey stores an API key of c's user in c's organization and
// returns the full key.
func issueAPIKey(t *testing.T, env *apitest.Env, c *apitest.Client) string {
	t.Helper()
	full, prefix, hash := auth.GenerateAPIKey()
	err := env.Client().APIKey.Create().SetName("test key").SetKeyPrefix(prefix).SetKeyHash(hash).
		SetUserID(c.UserID).Exec(viewer.SystemContext(context.Background(), c.OrgID))
	if err != nil {
		t.Fatalf("api key: %v", err)
	}
	return full
}

// memberIDOf returns the membership id of userID in the organization c
// acts in, as the members list shows it.
func memberIDOf(t *testing.T, c *apitest.Client, userID uuid.UUID) string {
	t.Helper()
	res := c.Do(http.MethodGet, "/api/organizations/members?limit=100", nil).ExpectStatus(t, http.StatusOK)
	for i := 0; i < res.Len("data.members"); i++ {
		if res.String("data.members."+strconv.Itoa(i)+".user_id") == userID.String() {
			return res.String("data.members." + strconv.Itoa(i) + ".id")
		}
	}
	t.Fatalf("user %s is not in the members list: %s", userID, res.Raw)
	return ""
}

// expectKeys fails unless the object at path has every key (null values
// count: the key must be present).
func expectKeys(t *testing.T, res *apitest.Response, path string, keys ...string) {
	t.Helper()
	obj, ok := res.Get(path).(map[string]any)
	if !ok {
		t.Fatalf("%s is not an object: %s", path, res.Raw)
	}
	for _, k := range keys {
		if _, ok := obj[k]; !ok {
			t.Errorf("%s has no %q: %s", path, k, res.Raw)
		}
	}
}

// badRequests sends each body to method path and expects 400.
func badRequests(t *testing.T, c *apitest.Client, method, path string, bodies map[string]any) {
	t.Helper()
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			c.Do(method, path, body).ExpectError(t, http.StatusBadRequest)
		})
	}
}

var memberKeys = []string{"id", "user_id", "organization_id", "role_id", "role_name", "is_default",
	"email", "full_name", "is_active", "created_at"}

func TestOrganizations(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	manager := env.NewUser(env.OrgID, access.RoleManager)
	other := env.NewOrg("Elsewhere")
	anon := env.Anonymous()
	ctx := context.Background()

	t.Run("List", func(t *testing.T) {
		t.Run("SuperAdminSeesAll", func(t *testing.T) {
			res := admin.Do(http.MethodGet, "/api/organizations", nil).ExpectStatus(t, http.StatusOK)
			if res.Len("data.organizations") != 2 {
				t.Fatalf("organizations: %s", res.Raw)
			}
			expectKeys(t, res, "data.organizations.0", "id", "name", "slug", "created_at")
		})
		t.Run("AdminSeesOwnOnly", func(t *testing.T) {
			res := other.Do(http.MethodGet, "/api/organizations", nil).ExpectStatus(t, http.StatusOK)
			if res.Len("data.organizations") != 1 || res.String("data.organizations.0.id") != other.OrgID.String() {
				t.Fatalf("organizations: %s", res.Raw)
			}
		})
		t.Run("ErrAgentForbidden", func(t *testing.T) {
			agent.Do(http.MethodGet, "/api/organizations", nil).ExpectError(t, http.StatusForbidden)
		})
		t.Run("ErrManagerForbidden", func(t *testing.T) {
			manager.Do(http.MethodGet, "/api/organizations", nil).ExpectError(t, http.StatusForbidden)
		})
		t.Run("ErrAnonymous", func(t *testing.T) {
			anon.Do(http.MethodGet, "/api/organizations", nil).ExpectError(t, http.StatusUnauthorized)
		})
	})

	t.Run("Current", func(t *testing.T) {
		res := agent.Do(http.MethodGet, "/api/organizations/current", nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.id") != env.OrgID.String() || res.String("data.name") == "" || res.String("data.slug") == "" {
			t.Fatalf("current: %s", res.Raw)
		}
		expectKeys(t, res, "data", "id", "name", "slug", "created_at")
		res = other.Do(http.MethodGet, "/api/organizations/current", nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.name") != "Elsewhere" {
			t.Fatalf("current of the other org: %s", res.Raw)
		}
		anon.Do(http.MethodGet, "/api/organizations/current", nil).ExpectError(t, http.StatusUnauthorized)
	})

	t.Run("Create", func(t *testing.T) {
		var created string
		t.Run("OKCreatorBecomesAdmin", func(t *testing.T) {
			res := agent.Do(http.MethodPost, "/api/organizations", map[string]any{"name": "Second Shop"}).
				ExpectStatus(t, http.StatusCreated)
			created = res.String("data.id")
			if res.String("data.name") != "Second Shop" || !strings.HasPrefix(res.String("data.slug"), "second-shop-") {
				t.Fatalf("created: %s", res.Raw)
			}
			expectKeys(t, res, "data", "id", "name", "slug", "created_at")
			sw := agent.Do(http.MethodPost, "/api/auth/switch-org", map[string]any{"organization_id": created}).
				ExpectStatus(t, http.StatusOK)
			if sw.String("data.user.role.name") != access.RoleAdmin || sw.String("data.user.organization_id") != created {
				t.Fatalf("creator is not Admin of the new organization: %s", sw.Raw)
			}
			roles, err := env.Client().Role.Query().Where(role.IsSystem(true)).
				Count(viewer.SystemContext(ctx, uuid.MustParse(created)))
			if err != nil || roles != 3 {
				t.Fatalf("system roles of the new organization: %d, %v", roles, err)
			}
			// The creator's default organization does not change.
			me := agent.Do(http.MethodGet, "/api/me", nil).ExpectStatus(t, http.StatusOK)
			mine := agent.Do(http.MethodGet, "/api/me/organizations", nil).ExpectStatus(t, http.StatusOK)
			if me.String("data.organization_id") != env.OrgID.String() || mine.Len("data.organizations") != 2 {
				t.Fatalf("me: %s; organizations: %s", me.Raw, mine.Raw)
			}
		})
		t.Run("ErrAPIKeyForbidden", func(t *testing.T) {
			key := issueAPIKey(t, env, other)
			env.WithAPIKey(key).Do(http.MethodPost, "/api/organizations", map[string]any{"name": "By key"}).
				ExpectError(t, http.StatusForbidden)
		})
		t.Run("ErrAnonymous", func(t *testing.T) {
			anon.Do(http.MethodPost, "/api/organizations", map[string]any{"name": "X"}).ExpectError(t, http.StatusUnauthorized)
		})
		badRequests(t, agent, http.MethodPost, "/api/organizations", map[string]any{
			"ErrMalformedJSON": "{",
			"ErrNameWrongType": `{"name": 5}`,
			"ErrNameRequired":  `{}`,
			"ErrNameBlank":     `{"name": "   "}`,
			"ErrNameTooLong":   map[string]any{"name": strings.Repeat("n", 201)},
		})
	})

	t.Run("Members", func(t *testing.T) {
		t.Run("ListShape", func(t *testing.T) {
			res := admin.Do(http.MethodGet, "/api/organizations/members", nil).ExpectStatus(t, http.StatusOK)
			if res.Len("data.members") != 3 || res.Number("data.total") != 3 || res.Number("data.page") != 1 || res.Number("data.limit") != 50 {
				t.Fatalf("members: %s", res.Raw)
			}
			expectKeys(t, res, "data.members.0", memberKeys...)
			if res.String("data.members.0.email") != "admin@example.com" || res.String("data.members.0.role_name") != access.RoleAdmin ||
				res.Get("data.members.0.is_active") != true || res.Get("data.members.0.is_default") != true ||
				res.String("data.members.0.organization_id") != env.OrgID.String() {
				t.Errorf("first member: %s", res.Raw)
			}
		})
		t.Run("SearchCaseInsensitive", func(t *testing.T) {
			email := userEmail(t, env, agent)
			res := manager.Do(http.MethodGet, "/api/organizations/members?search="+strings.ToUpper(email), nil).ExpectStatus(t, http.StatusOK)
			if res.Number("data.total") != 1 || res.String("data.members.0.user_id") != agent.UserID.String() ||
				res.String("data.members.0.role_name") != access.RoleAgent {
				t.Fatalf("search by email: %s", res.Raw)
			}
			res = admin.Do(http.MethodGet, "/api/organizations/members?search=manager%20USER", nil).ExpectStatus(t, http.StatusOK)
			if res.Number("data.total") != 1 || res.String("data.members.0.user_id") != manager.UserID.String() {
				t.Fatalf("search by name: %s", res.Raw)
			}
		})
		t.Run("Paging", func(t *testing.T) {
			res := admin.Do(http.MethodGet, "/api/organizations/members?limit=1&page=2", nil).ExpectStatus(t, http.StatusOK)
			if res.Len("data.members") != 1 || res.Number("data.total") != 3 || res.Number("data.page") != 2 || res.Number("data.limit") != 1 {
				t.Fatalf("page 2: %s", res.Raw)
			}
			admin.Do(http.MethodGet, "/api/organizations/members?page=0", nil).ExpectError(t, http.StatusBadRequest)
			admin.Do(http.MethodGet, "/api/organizations/members?limit=x", nil).ExpectError(t, http.StatusBadRequest)
		})
		t.Run("OtherOrgNotListed", func(t *testing.T) {
			res := admin.Do(http.MethodGet, "/api/organizations/members?search=owner-", nil).ExpectStatus(t, http.StatusOK)
			if res.Number("data.total") != 0 {
				t.Fatalf("another organization's member listed: %s", res.Raw)
			}
		})
		t.Run("ErrAgentForbidden", func(t *testing.T) {
			agent.Do(http.MethodGet, "/api/organizations/members", nil).ExpectError(t, http.StatusForbidden)
		})
		t.Run("ErrAnonymous", func(t *testing.T) {
			anon.Do(http.MethodGet, "/api/organizations/members", nil).ExpectError(t, http.StatusUnauthorized)
		})
	})

	t.Run("AddMember", func(t *testing.T) {
		path := "/api/organizations/members"
		t.Run("OKByUserID", func(t *testing.T) {
			res := admin.Do(http.MethodPost, path, map[string]any{
				"user_id": other.UserID.String(), "role_id": orgRoleID(t, env, env.OrgID, access.RoleManager),
			}).ExpectStatus(t, http.StatusCreated)
			if res.String("data.message") == "" {
				t.Fatalf("no message: %s", res.Raw)
			}
			list := admin.Do(http.MethodGet, path+"?search="+userEmail(t, env, other), nil).ExpectStatus(t, http.StatusOK)
			if list.Number("data.total") != 1 || list.String("data.members.0.role_name") != access.RoleManager ||
				list.Get("data.members.0.is_default") != false {
				t.Fatalf("added member: %s", list.Raw)
			}
		})
		t.Run("OKByEmailDefaultRole", func(t *testing.T) {
			outsider := env.NewUser(other.OrgID, access.RoleAgent)
			email := userEmail(t, env, outsider)
			admin.Do(http.MethodPost, path, map[string]any{"email": strings.ToUpper(email)}).ExpectStatus(t, http.StatusCreated)
			list := admin.Do(http.MethodGet, path+"?search="+email, nil).ExpectStatus(t, http.StatusOK)
			if list.Number("data.total") != 1 || list.String("data.members.0.role_name") != access.RoleAgent {
				t.Fatalf("added by email: %s", list.Raw)
			}
			t.Run("ErrAlreadyMember", func(t *testing.T) {
				admin.Do(http.MethodPost, path, map[string]any{"email": email}).ExpectError(t, http.StatusBadRequest)
				admin.Do(http.MethodPost, path, map[string]any{"user_id": outsider.UserID.String()}).ExpectError(t, http.StatusBadRequest)
			})
		})
		t.Run("InvitationThenRegister", func(t *testing.T) {
			email := "newcomer@example.com"
			res := admin.Do(http.MethodPost, path, map[string]any{"email": email}).ExpectStatus(t, http.StatusCreated)
			if !strings.Contains(res.String("data.message"), "Invitation") {
				t.Fatalf("message: %s", res.Raw)
			}
			sctx := viewer.SystemContext(ctx, env.OrgID)
			inv, err := env.Client().Invitation.Query().Where(invitation.Email(email)).Only(sctx)
			if err != nil {
				t.Fatalf("invitation: %v", err)
			}
			if d := time.Until(inv.ExpiresAt); d < 7*24*time.Hour-time.Minute || d > 7*24*time.Hour {
				t.Errorf("invitation expires in %v, want 7 days", d)
			}
			if inv.RoleID.String() != orgRoleID(t, env, env.OrgID, access.RoleAgent) || inv.InvitedByID == nil || *inv.InvitedByID != admin.UserID {
				t.Errorf("invitation: %+v", inv)
			}
			// Inviting again refreshes the one invitation with the new role.
			admin.Do(http.MethodPost, path, map[string]any{
				"email": email, "role_id": orgRoleID(t, env, env.OrgID, access.RoleManager),
			}).ExpectStatus(t, http.StatusCreated)
			invs, err := env.Client().Invitation.Query().Where(invitation.Email(email)).All(sctx)
			if err != nil || len(invs) != 1 || invs[0].RoleID.String() != orgRoleID(t, env, env.OrgID, access.RoleManager) ||
				!invs[0].ExpiresAt.After(inv.ExpiresAt) {
				t.Fatalf("re-invited: %v %+v", err, invs)
			}
			reg := anon.Do(http.MethodPost, "/api/auth/register", map[string]any{
				"email": email, "password": "a-long-enough-password", "full_name": "New Comer",
				"organization_id": env.OrgID.String(),
			}).ExpectStatus(t, http.StatusCreated)
			if reg.String("data.user.role.name") != access.RoleManager {
				t.Fatalf("registered with role: %s", reg.Raw)
			}
			list := admin.Do(http.MethodGet, path+"?search=newcomer", nil).ExpectStatus(t, http.StatusOK)
			if list.Number("data.total") != 1 || list.String("data.members.0.full_name") != "New Comer" {
				t.Fatalf("registered member: %s", list.Raw)
			}
		})
		t.Run("ErrRegisterWithoutInvitation", func(t *testing.T) {
			anon.Do(http.MethodPost, "/api/auth/register", map[string]any{
				"email": "uninvited@example.com", "password": "a-long-enough-password", "full_name": "Nobody",
				"organization_id": env.OrgID.String(),
			}).ExpectError(t, http.StatusForbidden)
		})
		t.Run("ErrUnknownUserID", func(t *testing.T) {
			admin.Do(http.MethodPost, path, map[string]any{"user_id": uuid.NewString()}).ExpectError(t, http.StatusNotFound)
		})
		t.Run("ErrUnknownRole", func(t *testing.T) {
			admin.Do(http.MethodPost, path, map[string]any{"email": "x@example.com", "role_id": uuid.NewString()}).
				ExpectError(t, http.StatusNotFound)
		})
		t.Run("ErrOtherOrgRole", func(t *testing.T) {
			admin.Do(http.MethodPost, path, map[string]any{
				"email": "y@example.com", "role_id": orgRoleID(t, env, other.OrgID, access.RoleAdmin),
			}).ExpectError(t, http.StatusNotFound)
			n, err := env.Client().Invitation.Query().Where(invitation.Email("y@example.com")).
				Count(rule.Bypass(ctx, "test"))
			if err != nil || n != 0 {
				t.Fatalf("invitation made with another org's role: %d %v", n, err)
			}
		})
		badRequests(t, admin, http.MethodPost, path, map[string]any{
			"ErrMalformedJSON":      "{",
			"ErrRoleIDWrongType":    `{"email": "z@example.com", "role_id": 5}`,
			"ErrRoleIDNotUUID":      `{"email": "z@example.com", "role_id": "nope"}`,
			"ErrUserIDNotUUID":      `{"user_id": "nope"}`,
			"ErrEmailWrongType":     `{"email": true}`,
			"ErrNeitherUserNorMail": `{}`,
			"ErrBoth":               map[string]any{"user_id": agent.UserID.String(), "email": "z@example.com"},
			"ErrBadEmail":           `{"email": "not-an-email"}`,
			"ErrEmptyBody":          "",
		})
		t.Run("ErrAgentForbidden", func(t *testing.T) {
			agent.Do(http.MethodPost, path, map[string]any{"email": "z@example.com"}).ExpectError(t, http.StatusForbidden)
		})
		t.Run("ErrManagerForbidden", func(t *testing.T) {
			manager.Do(http.MethodPost, path, map[string]any{"email": "z@example.com"}).ExpectError(t, http.StatusForbidden)
		})
		t.Run("ErrAnonymous", func(t *testing.T) {
			anon.Do(http.MethodPost, path, map[string]any{"email": "z@example.com"}).ExpectError(t, http.StatusUnauthorized)
		})
	})

	t.Run("UpdateMember", func(t *testing.T) {
		agentMember := memberIDOf(t, admin, agent.UserID)
		path := "/api/organizations/members/" + agentMember
		t.Run("OK", func(t *testing.T) {
			res := admin.Do(http.MethodPut, path, map[string]any{"role_id": orgRoleID(t, env, env.OrgID, access.RoleManager)}).
				ExpectStatus(t, http.StatusOK)
			if res.String("data.message") == "" {
				t.Fatalf("no message: %s", res.Raw)
			}
			// The new role applies at the agent's next request.
			agent.Do(http.MethodGet, "/api/organizations/members", nil).ExpectStatus(t, http.StatusOK)
			admin.Do(http.MethodPut, path, map[string]any{"role_id": orgRoleID(t, env, env.OrgID, access.RoleAgent)}).
				ExpectStatus(t, http.StatusOK)
			agent.Do(http.MethodGet, "/api/organizations/members", nil).ExpectError(t, http.StatusForbidden)
		})
		badRequests(t, admin, http.MethodPut, path, map[string]any{
			"ErrMalformedJSON":   "{",
			"ErrRoleIDWrongType": `{"role_id": 5}`,
			"ErrRoleIDNotUUID":   `{"role_id": "nope"}`,
			"ErrRoleIDRequired":  `{}`,
		})
		t.Run("ErrPathNotUUID", func(t *testing.T) {
			admin.Do(http.MethodPut, "/api/organizations/members/not-a-uuid", map[string]any{
				"role_id": orgRoleID(t, env, env.OrgID, access.RoleAgent),
			}).ExpectError(t, http.StatusBadRequest)
		})
		t.Run("ErrUnknownMember", func(t *testing.T) {
			admin.Do(http.MethodPut, "/api/organizations/members/"+uuid.NewString(), map[string]any{
				"role_id": orgRoleID(t, env, env.OrgID, access.RoleAgent),
			}).ExpectError(t, http.StatusNotFound)
		})
		t.Run("ErrOtherOrgMember", func(t *testing.T) {
			foreign := memberIDOf(t, other, other.UserID)
			admin.Do(http.MethodPut, "/api/organizations/members/"+foreign, map[string]any{
				"role_id": orgRoleID(t, env, env.OrgID, access.RoleAgent),
			}).ExpectError(t, http.StatusNotFound)
		})
		t.Run("ErrOtherOrgRole", func(t *testing.T) {
			admin.Do(http.MethodPut, path, map[string]any{"role_id": orgRoleID(t, env, other.OrgID, access.RoleAdmin)}).
				ExpectError(t, http.StatusNotFound)
		})
		t.Run("ErrManagerForbidden", func(t *testing.T) {
			manager.Do(http.MethodPut, path, map[string]any{"role_id": orgRoleID(t, env, env.OrgID, access.RoleManager)}).
				ExpectError(t, http.StatusForbidden)
		})
		t.Run("ErrAnonymous", func(t *testing.T) {
			anon.Do(http.MethodPut, path, map[string]any{"role_id": orgRoleID(t, env, env.OrgID, access.RoleManager)}).
				ExpectError(t, http.StatusUnauthorized)
		})
	})

	t.Run("LastAdminGuard", func(t *testing.T) {
		// In Elsewhere the owner is the only Admin.
		own := memberIDOf(t, other, other.UserID)
		agentRole := orgRoleID(t, env, other.OrgID, access.RoleAgent)
		t.Run("ErrDemoteSelf", func(t *testing.T) {
			res := other.Do(http.MethodPut, "/api/organizations/members/"+own, map[string]any{"role_id": agentRole}).
				ExpectError(t, http.StatusBadRequest)
			if !strings.Contains(res.String("message"), "last Admin") {
				t.Errorf("message: %s", res.Raw)
			}
		})
		t.Run("ErrRemoveSelf", func(t *testing.T) {
			res := other.Do(http.MethodDelete, "/api/organizations/members/"+own, nil).ExpectError(t, http.StatusBadRequest)
			if !strings.Contains(res.String("message"), "last Admin") {
				t.Errorf("message: %s", res.Raw)
			}
		})
		t.Run("OKWithAnotherAdmin", func(t *testing.T) {
			second := env.NewUser(other.OrgID, access.RoleAdmin)
			other.Do(http.MethodPut, "/api/organizations/members/"+own, map[string]any{"role_id": agentRole}).
				ExpectStatus(t, http.StatusOK)
			secondMember := memberIDOf(t, second, second.UserID)
			second.Do(http.MethodDelete, "/api/organizations/members/"+secondMember, nil).ExpectError(t, http.StatusBadRequest)
			second.Do(http.MethodPut, "/api/organizations/members/"+secondMember, map[string]any{"role_id": agentRole}).
				ExpectError(t, http.StatusBadRequest)
			// Promote the owner back, then the second Admin may leave.
			second.Do(http.MethodPut, "/api/organizations/members/"+own, map[string]any{
				"role_id": orgRoleID(t, env, other.OrgID, access.RoleAdmin),
			}).ExpectStatus(t, http.StatusOK)
			second.Do(http.MethodDelete, "/api/organizations/members/"+secondMember, nil).ExpectStatus(t, http.StatusOK)
			second.Do(http.MethodGet, "/api/organizations/current", nil).ExpectError(t, http.StatusForbidden)
		})
		t.Run("ConcurrentDemotionsKeepOneAdmin", func(t *testing.T) {
			a := env.NewUser(other.OrgID, access.RoleAdmin)
			aMember := uuid.MustParse(memberIDOf(t, a, a.UserID))
			other.Do(http.MethodPut, "/api/organizations/members/"+own, map[string]any{"role_id": agentRole}).
				ExpectStatus(t, http.StatusOK)
			b := env.NewUser(other.OrgID, access.RoleAdmin)
			bMember := uuid.MustParse(memberIDOf(t, b, b.UserID))
			// A and B, the two Admins, demote each other in overlapping
			// transactions: the second must wait for the first and then
			// refuse, or the organization would be left without an Admin.
			r, db := env.App.Resolver, env.Client()
			asViewer := func(c *apitest.Client, tx *ent.Tx) context.Context {
				v, err := env.App.Access.ViewerFor(ctx, c.UserID, other.OrgID)
				if err != nil {
					t.Fatal(err)
				}
				return ent.NewTxContext(viewer.NewContext(ctx, v), tx)
			}
			tx1, err := db.Tx(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tx1.Rollback() }()
			if _, err := r.People.UpdateMemberRole(asViewer(a, tx1), bMember, uuid.MustParse(agentRole)); err != nil {
				t.Fatalf("first demotion: %v", err)
			}
			tx2, err := db.Tx(ctx)
			if err != nil {
				t.Fatal(err)
			}
			ctx2 := asViewer(b, tx2)
			done := make(chan error, 1)
			go func() {
				_, err := r.People.UpdateMemberRole(ctx2, aMember, uuid.MustParse(agentRole))
				if err != nil {
					_ = tx2.Rollback()
					done <- err
					return
				}
				done <- tx2.Commit()
			}()
			select {
			case err := <-done:
				t.Fatalf("second demotion did not wait for the first (err %v)", err)
			case <-time.After(300 * time.Millisecond):
			}
			if err := tx1.Commit(); err != nil {
				t.Fatal(err)
			}
			if err := <-done; apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), "last Admin") {
				t.Fatalf("second demotion: %v, want the last-Admin refusal", err)
			}
			admins, err := db.OrganizationMember.Query().
				Where(organizationmember.RoleID(uuid.MustParse(orgRoleID(t, env, other.OrgID, access.RoleAdmin)))).
				IDs(viewer.SystemContext(ctx, other.OrgID))
			if err != nil || len(admins) != 1 || admins[0] != aMember {
				t.Fatalf("admins left: %v %v", admins, err)
			}
			// Make the owner the only Admin again.
			a.Do(http.MethodPut, "/api/organizations/members/"+own, map[string]any{
				"role_id": orgRoleID(t, env, other.OrgID, access.RoleAdmin),
			}).ExpectStatus(t, http.StatusOK)
			for _, m := range []uuid.UUID{aMember, bMember} {
				other.Do(http.MethodDelete, "/api/organizations/members/"+m.String(), nil).ExpectStatus(t, http.StatusOK)
			}
		})
		t.Run("InactiveAdminDoesNotCount", func(t *testing.T) {
			idle := env.NewUser(other.OrgID, access.RoleAdmin)
			if err := env.Client().User.UpdateOneID(idle.UserID).SetIsActive(false).Exec(rule.Bypass(ctx, "test")); err != nil {
				t.Fatal(err)
			}
			other.Do(http.MethodDelete, "/api/organizations/members/"+own, nil).ExpectError(t, http.StatusBadRequest)
		})
	})

	t.Run("RemoveMember", func(t *testing.T) {
		team := admin.Do(http.MethodPost, "/api/teams", map[string]any{"name": "Floor"}).
			ExpectStatus(t, http.StatusCreated).String("data.team.id")
		admin.Do(http.MethodPost, "/api/teams/"+team+"/members", map[string]any{"user_id": manager.UserID.String()}).
			ExpectStatus(t, http.StatusCreated)
		member := memberIDOf(t, admin, manager.UserID)
		t.Run("ErrAgentForbidden", func(t *testing.T) {
			agent.Do(http.MethodDelete, "/api/organizations/members/"+member, nil).ExpectError(t, http.StatusForbidden)
		})
		t.Run("ErrAnonymous", func(t *testing.T) {
			anon.Do(http.MethodDelete, "/api/organizations/members/"+member, nil).ExpectError(t, http.StatusUnauthorized)
		})
		t.Run("OK", func(t *testing.T) {
			res := admin.Do(http.MethodDelete, "/api/organizations/members/"+member, nil).ExpectStatus(t, http.StatusOK)
			if res.String("data.message") == "" {
				t.Fatalf("no message: %s", res.Raw)
			}
			// The account remains, active; the membership and team seat are gone.
			u, err := env.Client().User.Query().Where(user.ID(manager.UserID)).Only(rule.Bypass(ctx, "test"))
			if err != nil || !u.IsActive {
				t.Fatalf("account after removal: %v %+v", err, u)
			}
			seats, err := env.Client().TeamMember.Query().Where(teammember.UserID(manager.UserID)).
				Count(viewer.SystemContext(ctx, env.OrgID))
			if err != nil || seats != 0 {
				t.Fatalf("team seats after removal: %d %v", seats, err)
			}
			manager.Do(http.MethodGet, "/api/organizations/current", nil).ExpectError(t, http.StatusForbidden)
		})
		t.Run("ErrAlreadyRemoved", func(t *testing.T) {
			admin.Do(http.MethodDelete, "/api/organizations/members/"+member, nil).ExpectError(t, http.StatusNotFound)
		})
		t.Run("ErrOtherOrgMember", func(t *testing.T) {
			admin.Do(http.MethodDelete, "/api/organizations/members/"+memberIDOf(t, other, other.UserID), nil).
				ExpectError(t, http.StatusNotFound)
		})
		t.Run("ErrPathNotUUID", func(t *testing.T) {
			admin.Do(http.MethodDelete, "/api/organizations/members/123", nil).ExpectError(t, http.StatusBadRequest)
		})
	})
}
