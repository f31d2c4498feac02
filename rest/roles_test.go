package rest_test

import (
	"context"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent/organizationmember"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
)

func TestPermissionCatalogue(t *testing.T) {
	env := apitest.New(t)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	manager := env.NewUser(env.OrgID, access.RoleManager)

	t.Run("SortedCatalogue", func(t *testing.T) {
		res := manager.Do(http.MethodGet, "/api/permissions", nil).ExpectStatus(t, http.StatusOK)
		n := res.Len("data.permissions")
		if n != len(access.Catalogue) {
			t.Fatalf("%d permissions, want %d: %s", n, len(access.Catalogue), res.Raw)
		}
		var keys []string
		for i := range n {
			p := res.Get("data.permissions." + strconv.Itoa(i)).(map[string]any)
			if _, err := uuid.Parse(p["id"].(string)); err != nil || p["description"] == "" {
				t.Errorf("permission %d: %v", i, p)
			}
			keys = append(keys, p["resource"].(string)+"\x00"+p["action"].(string))
		}
		if !sort.StringsAreSorted(keys) {
			t.Errorf("not sorted by resource, action: %v", keys)
		}
	})
	t.Run("AgentForbidden", func(t *testing.T) {
		agent.Do(http.MethodGet, "/api/permissions", nil).ExpectError(t, http.StatusForbidden)
	})
	t.Run("Unauthenticated", func(t *testing.T) {
		env.Anonymous().Do(http.MethodGet, "/api/permissions", nil).ExpectError(t, http.StatusUnauthorized)
	})
}

func TestRoles(t *testing.T) {
	env := apitest.New(t)
	admin := env.NewUser(env.OrgID, access.RoleAdmin)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")
	sysCtx := viewer.SystemContext(context.Background(), env.OrgID)

	roleID := func(t *testing.T, c *apitest.Client, name string) string {
		t.Helper()
		res := c.Do(http.MethodGet, "/api/roles?search="+url.QueryEscape(name), nil).ExpectStatus(t, http.StatusOK)
		for i := range res.Len("data.roles") {
			if res.String("data.roles."+strconv.Itoa(i)+".name") == name {
				return res.String("data.roles." + strconv.Itoa(i) + ".id")
			}
		}
		t.Fatalf("role %s not found: %s", name, res.Raw)
		return ""
	}
	adminRole := roleID(t, admin, access.RoleAdmin)
	managerRole := roleID(t, admin, access.RoleManager)
	agentRole := roleID(t, admin, access.RoleAgent)
	foreignRole := other.Do(http.MethodPost, "/api/roles", map[string]any{
		"name": "Theirs", "permissions": []string{"teams:read"},
	}).ExpectStatus(t, http.StatusCreated).String("data.id")

	created := admin.Do(http.MethodPost, "/api/roles", map[string]any{
		"name": "Support Lead", "description": "Leads the inbox",
		"permissions": []string{"teams:read", "contacts:read", "teams:read"},
	}).ExpectStatus(t, http.StatusCreated)
	leadID := created.String("data.id")

	t.Run("ListSystemRoles", func(t *testing.T) {
		res := admin.Do(http.MethodGet, "/api/roles", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total") != 4 || res.Number("data.limit") != 50 || res.Number("data.page") != 1 {
			t.Fatalf("list: %s", res.Raw)
		}
		want := map[string]int{}
		for _, sr := range access.SystemRoles() {
			want[sr.Name] = len(sr.Permissions)
		}
		want["Support Lead"] = 2
		for i := range res.Len("data.roles") {
			r := res.Get("data.roles." + strconv.Itoa(i)).(map[string]any)
			name := r["name"].(string)
			if int(r["permission_count"].(float64)) != want[name] {
				t.Errorf("%s permission_count %v, want %d", name, r["permission_count"], want[name])
			}
			// Beyond the spec, for the peer web client, which counts
			// them in its roles column: the permissions, as in a single
			// read.
			if ps, ok := r["permissions"].([]any); !ok || len(ps) != want[name] {
				t.Errorf("%s: list carries permissions %v, want %d", name, r["permissions"], want[name])
			} else if p, _ := ps[0].(map[string]any); p["resource"] == nil || p["action"] == nil || p["id"] == nil {
				t.Errorf("%s: permission %v", name, ps[0])
			}
			if r["is_system"] != (name != "Support Lead") {
				t.Errorf("%s is_system %v", name, r["is_system"])
			}
			if r["is_default"] != (name == access.RoleAgent) {
				t.Errorf("%s is_default %v", name, r["is_default"])
			}
		}
		theirs := admin.Do(http.MethodGet, "/api/roles?search=theirs", nil).ExpectStatus(t, http.StatusOK)
		if theirs.Number("data.total") != 0 {
			t.Errorf("another org's role listed: %s", theirs.Raw)
		}
		paged := admin.Do(http.MethodGet, "/api/roles?limit=2&page=2", nil).ExpectStatus(t, http.StatusOK)
		if paged.Len("data.roles") != 2 || paged.Number("data.total") != 4 {
			t.Errorf("paging: %s", paged.Raw)
		}
	})
	t.Run("CreateShape", func(t *testing.T) {
		for path, want := range map[string]any{
			"data.name": "Support Lead", "data.description": "Leads the inbox", "data.is_system": false,
			"data.is_default": false, "data.permission_count": float64(2),
			"data.permissions.0.resource": "contacts", "data.permissions.0.action": "read",
			"data.permissions.1.resource": "teams",
		} {
			if got := created.Get(path); got != want {
				t.Errorf("%s = %v, want %v", path, got, want)
			}
		}
		if created.Len("data.permissions") != 2 || created.String("data.permissions.0.id") == "" ||
			created.String("data.permissions.0.description") == "" {
			t.Errorf("permissions: %s", created.Raw)
		}
		for _, f := range []string{"data.created_at", "data.updated_at"} {
			if _, err := time.Parse(time.RFC3339, created.String(f)); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
	})
	t.Run("Get", func(t *testing.T) {
		res := admin.Do(http.MethodGet, "/api/roles/"+adminRole, nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.permissions") != len(access.Catalogue) || res.Get("data.is_system") != true {
			t.Errorf("admin role: %s", res.Raw)
		}
	})
	t.Run("Default", func(t *testing.T) {
		res := admin.Do(http.MethodPost, "/api/roles", map[string]any{
			"name": "Newcomer", "permissions": []string{}, "is_default": true,
		}).ExpectStatus(t, http.StatusCreated)
		if res.Get("data.is_default") != true || res.Number("data.permission_count") != 0 {
			t.Fatalf("create default: %s", res.Raw)
		}
		newcomer := res.String("data.id")
		if admin.Do(http.MethodGet, "/api/roles/"+agentRole, nil).Get("data.is_default") != false {
			t.Error("Agent still default after another role became default")
		}
		admin.Do(http.MethodPut, "/api/roles/"+agentRole, map[string]any{"is_default": true}).ExpectStatus(t, http.StatusOK)
		if admin.Do(http.MethodGet, "/api/roles/"+newcomer, nil).Get("data.is_default") != false {
			t.Error("Newcomer still default after Agent became default again")
		}
		admin.Do(http.MethodDelete, "/api/roles/"+newcomer, nil).ExpectStatus(t, http.StatusOK)
	})
	t.Run("UpdateCustom", func(t *testing.T) {
		res := admin.Do(http.MethodPut, "/api/roles/"+leadID, map[string]any{
			"name": "Inbox Lead", "description": "Renamed",
		}).ExpectStatus(t, http.StatusOK)
		if res.String("data.name") != "Inbox Lead" || res.String("data.description") != "Renamed" ||
			res.Number("data.permission_count") != 2 {
			t.Fatalf("update without permissions changed them: %s", res.Raw)
		}
		res = admin.Do(http.MethodPut, "/api/roles/"+leadID, map[string]any{
			"permissions": []string{"messages:read"},
		}).ExpectStatus(t, http.StatusOK)
		if res.Number("data.permission_count") != 1 || res.String("data.permissions.0.resource") != "messages" {
			t.Fatalf("permissions not replaced: %s", res.Raw)
		}
		// The permission objects a role is read with are taken back as
		// they are (the peer web client saves a role that way).
		res = admin.Do(http.MethodPut, "/api/roles/"+leadID, map[string]any{
			"permissions": []map[string]any{{"id": "x", "resource": "teams", "action": "read"}, {"resource": "messages", "action": "read"}},
		}).ExpectStatus(t, http.StatusOK)
		if res.Number("data.permission_count") != 2 {
			t.Fatalf("permission objects: %s", res.Raw)
		}
		for name, body := range map[string]string{
			"ObjectWithoutAction": `{"permissions": [{"resource": "teams"}]}`,
			"NumberInList":        `{"permissions": [5]}`,
			"UnknownPermission":   `{"permissions": [{"resource": "teams", "action": "fly"}]}`,
		} {
			t.Run(name, func(t *testing.T) {
				admin.Do(http.MethodPut, "/api/roles/"+leadID, body).ExpectError(t, http.StatusBadRequest)
			})
		}
	})
	t.Run("SystemRoles", func(t *testing.T) {
		res := admin.Do(http.MethodPut, "/api/roles/"+managerRole, map[string]any{
			"name": access.RoleManager, "description": "Runs the floor",
			"permissions": []string{"contacts:read", "teams:read"},
		}).ExpectStatus(t, http.StatusOK)
		if res.String("data.description") != "Runs the floor" || res.Number("data.permission_count") != 2 {
			t.Fatalf("system role edit: %s", res.Raw)
		}
		var all []string
		for _, p := range access.Catalogue {
			all = append(all, p.Key())
		}
		admin.Do(http.MethodPut, "/api/roles/"+adminRole, map[string]any{
			"description": "Everything", "permissions": all,
		}).ExpectStatus(t, http.StatusOK)
	})
	t.Run("PermissionChangeTakesEffectAtOnce", func(t *testing.T) {
		viewerRole := admin.Do(http.MethodPost, "/api/roles", map[string]any{
			"name": "Viewer", "permissions": []string{"teams:read"},
		}).ExpectStatus(t, http.StatusCreated)
		id := viewerRole.String("data.id")
		user := env.NewUser(env.OrgID, "Viewer")
		user.Do(http.MethodGet, "/api/teams", nil).ExpectStatus(t, http.StatusOK)
		user.Do(http.MethodGet, "/api/roles", nil).ExpectError(t, http.StatusForbidden)

		granted := admin.Do(http.MethodPut, "/api/roles/"+id, map[string]any{
			"permissions": []string{"teams:read", "roles:read"},
		}).ExpectStatus(t, http.StatusOK)
		if granted.String("data.updated_at") == viewerRole.String("data.updated_at") {
			t.Errorf("updated_at not bumped: %s", granted.Raw)
		}
		user.Do(http.MethodGet, "/api/roles", nil).ExpectStatus(t, http.StatusOK)

		admin.Do(http.MethodPut, "/api/roles/"+id, map[string]any{"permissions": []string{}}).ExpectStatus(t, http.StatusOK)
		user.Do(http.MethodGet, "/api/teams", nil).ExpectError(t, http.StatusForbidden)
		user.Do(http.MethodGet, "/api/roles", nil).ExpectError(t, http.StatusForbidden)

		// Two edits back to back still both take effect.
		admin.Do(http.MethodPut, "/api/roles/"+id, map[string]any{"permissions": []string{"teams:read"}}).ExpectStatus(t, http.StatusOK)
		admin.Do(http.MethodPut, "/api/roles/"+id, map[string]any{"permissions": []string{"roles:read"}}).ExpectStatus(t, http.StatusOK)
		user.Do(http.MethodGet, "/api/roles", nil).ExpectStatus(t, http.StatusOK)
		user.Do(http.MethodGet, "/api/teams", nil).ExpectError(t, http.StatusForbidden)
	})
	t.Run("DeleteInUse", func(t *testing.T) {
		id := roleID(t, admin, "Viewer")
		res := admin.Do(http.MethodDelete, "/api/roles/"+id, nil).ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "1 member") {
			t.Errorf("message %q does not count the members", res.String("message"))
		}
		// Reassign the holder to Agent, then leave a pending invitation.
		err := env.Client().OrganizationMember.Update().
			Where(organizationmember.RoleID(uuid.MustParse(id))).
			SetRoleID(uuid.MustParse(agentRole)).Exec(sysCtx)
		if err != nil {
			t.Fatal(err)
		}
		inv, err := env.Client().Invitation.Create().SetEmail("invitee@example.com").
			SetRoleID(uuid.MustParse(id)).SetExpiresAt(time.Now().Add(24 * time.Hour)).Save(sysCtx)
		if err != nil {
			t.Fatal(err)
		}
		res = admin.Do(http.MethodDelete, "/api/roles/"+id, nil).ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "1 pending invitation") {
			t.Errorf("message %q does not count the invitations", res.String("message"))
		}
		if err := inv.Update().SetAcceptedAt(time.Now()).Exec(sysCtx); err != nil {
			t.Fatal(err)
		}
		del := admin.Do(http.MethodDelete, "/api/roles/"+id, nil).ExpectStatus(t, http.StatusOK)
		if del.String("data.message") == "" {
			t.Errorf("delete: %s", del.Raw)
		}
		admin.Do(http.MethodGet, "/api/roles/"+id, nil).ExpectError(t, http.StatusNotFound)
	})
	t.Run("SSODefaultRoleFollowsRename", func(t *testing.T) {
		admin.Do(http.MethodPost, "/api/roles", map[string]any{
			"name": "SSO Users", "permissions": []string{"contacts:read"},
		}).ExpectStatus(t, http.StatusCreated)
		id := roleID(t, admin, "SSO Users")
		admin.Do(http.MethodPut, "/api/settings/sso/google", map[string]any{
			"client_id": "cid", "client_secret": "s3cret-value", "is_enabled": true,
			"allow_auto_create": true, "default_role": "sso users",
		}).ExpectStatus(t, http.StatusOK)
		admin.Do(http.MethodPut, "/api/roles/"+id, map[string]any{"name": "Federated"}).ExpectStatus(t, http.StatusOK)
		cfg := admin.Do(http.MethodGet, "/api/settings/sso", nil).ExpectStatus(t, http.StatusOK)
		if cfg.String("data.0.default_role") != "Federated" {
			t.Errorf("SSO default_role after rename: %s", cfg.Raw)
		}
		res := admin.Do(http.MethodDelete, "/api/roles/"+id, nil).ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "google") {
			t.Errorf("message %q does not name the SSO configuration", res.String("message"))
		}
		admin.Do(http.MethodDelete, "/api/settings/sso/google", nil).ExpectStatus(t, http.StatusOK)
		admin.Do(http.MethodDelete, "/api/roles/"+id, nil).ExpectStatus(t, http.StatusOK)
	})
	t.Run("BadInput", func(t *testing.T) {
		cases := map[string]struct {
			method, path string
			body         any
			inMessage    string
		}{
			"Malformed":             {http.MethodPost, "/api/roles", `{`, ""},
			"NameWrongType":         {http.MethodPost, "/api/roles", `{"name": 1, "permissions": []}`, ""},
			"PermissionsWrongType":  {http.MethodPost, "/api/roles", `{"name": "X", "permissions": "teams:read"}`, ""},
			"PermissionItemType":    {http.MethodPost, "/api/roles", `{"name": "X", "permissions": [1]}`, ""},
			"DefaultWrongType":      {http.MethodPost, "/api/roles", `{"name": "X", "permissions": [], "is_default": "yes"}`, ""},
			"NameMissing":           {http.MethodPost, "/api/roles", map[string]any{"permissions": []string{}}, "name"},
			"NameBlank":             {http.MethodPost, "/api/roles", map[string]any{"name": " ", "permissions": []string{}}, "name"},
			"NameTooLong":           {http.MethodPost, "/api/roles", map[string]any{"name": strings.Repeat("r", 101), "permissions": []string{}}, "name"},
			"DescriptionTooLong":    {http.MethodPost, "/api/roles", map[string]any{"name": "Long", "description": strings.Repeat("d", 501), "permissions": []string{}}, "description"},
			"PermissionsMissing":    {http.MethodPost, "/api/roles", map[string]any{"name": "X"}, "permissions"},
			"UnknownPermission":     {http.MethodPost, "/api/roles", map[string]any{"name": "X", "permissions": []string{"teams:read", "rockets:launch"}}, "rockets:launch"},
			"UnknownAction":         {http.MethodPost, "/api/roles", map[string]any{"name": "X", "permissions": []string{"messages:delete"}}, "messages:delete"},
			"DuplicateName":         {http.MethodPost, "/api/roles", map[string]any{"name": "Inbox Lead", "permissions": []string{}}, "already exists"},
			"DuplicateNameCase":     {http.MethodPost, "/api/roles", map[string]any{"name": "agent", "permissions": []string{}}, "already exists"},
			"UpdateUnknownPerm":     {http.MethodPut, "/api/roles/" + leadID, map[string]any{"permissions": []string{"nope"}}, "nope"},
			"UpdateDuplicateName":   {http.MethodPut, "/api/roles/" + leadID, map[string]any{"name": "MANAGER"}, "already exists"},
			"UpdateMalformed":       {http.MethodPut, "/api/roles/" + leadID, `{"name":`, ""},
			"RenameSystemRole":      {http.MethodPut, "/api/roles/" + agentRole, map[string]any{"name": "Operator"}, "renamed"},
			"AdminPermissionsFixed": {http.MethodPut, "/api/roles/" + adminRole, map[string]any{"permissions": []string{"teams:read"}}, "Admin"},
			"DeleteSystemRole":      {http.MethodDelete, "/api/roles/" + managerRole, nil, "system role"},
			"GetInvalidUUID":        {http.MethodGet, "/api/roles/123", nil, "UUID"},
			"UpdateInvalidUUID":     {http.MethodPut, "/api/roles/123", map[string]any{"name": "X"}, "UUID"},
			"DeleteInvalidUUID":     {http.MethodDelete, "/api/roles/123", nil, "UUID"},
			"ListBadLimit":          {http.MethodGet, "/api/roles?limit=-1", nil, "limit"},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				res := admin.Do(tc.method, tc.path, tc.body).ExpectError(t, http.StatusBadRequest)
				if !strings.Contains(res.String("message"), tc.inMessage) {
					t.Errorf("message %q does not mention %q", res.String("message"), tc.inMessage)
				}
			})
		}
	})
	t.Run("AgentForbidden", func(t *testing.T) {
		cases := map[string]struct {
			method, path string
			body         any
		}{
			"List":   {http.MethodGet, "/api/roles", nil},
			"Get":    {http.MethodGet, "/api/roles/" + leadID, nil},
			"Create": {http.MethodPost, "/api/roles", map[string]any{"name": "Mine", "permissions": []string{}}},
			"Update": {http.MethodPut, "/api/roles/" + agentRole, map[string]any{"permissions": []string{"roles:update"}}},
			"Delete": {http.MethodDelete, "/api/roles/" + leadID, nil},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				agent.Do(tc.method, tc.path, tc.body).ExpectError(t, http.StatusForbidden)
			})
		}
	})
	t.Run("Unauthenticated", func(t *testing.T) {
		env.Anonymous().Do(http.MethodGet, "/api/roles", nil).ExpectError(t, http.StatusUnauthorized)
		env.Anonymous().Do(http.MethodDelete, "/api/roles/"+leadID, nil).ExpectError(t, http.StatusUnauthorized)
	})
	t.Run("NotFound", func(t *testing.T) {
		for name, id := range map[string]string{"Unknown": uuid.NewString(), "OtherOrg": foreignRole} {
			t.Run(name, func(t *testing.T) {
				admin.Do(http.MethodGet, "/api/roles/"+id, nil).ExpectError(t, http.StatusNotFound)
				admin.Do(http.MethodPut, "/api/roles/"+id, map[string]any{"description": "Hijack"}).ExpectError(t, http.StatusNotFound)
				admin.Do(http.MethodDelete, "/api/roles/"+id, nil).ExpectError(t, http.StatusNotFound)
			})
		}
		theirs := other.Do(http.MethodGet, "/api/roles/"+foreignRole, nil).ExpectStatus(t, http.StatusOK)
		if theirs.String("data.description") != "" {
			t.Errorf("another org's role was changed: %s", theirs.Raw)
		}
	})
	t.Run("DeleteCustom", func(t *testing.T) {
		admin.Do(http.MethodDelete, "/api/roles/"+leadID, nil).ExpectStatus(t, http.StatusOK)
		admin.Do(http.MethodGet, "/api/roles/"+leadID, nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodDelete, "/api/roles/"+leadID, nil).ExpectError(t, http.StatusNotFound)
	})
}
