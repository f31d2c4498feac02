package rest_test

import (
	"net/http"
	"testing"

	"switchboard/access"
	"switchboard/internal/apitest"
)

// meKeys are the fields of GET /api/me the web client reads: the spec's
// User plus organization_name and settings.
var meKeys = append([]string{"organization_name", "settings"}, userKeys...)

func TestMeIsTheUser(t *testing.T) {
	env := apitest.New(t)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")

	t.Run("Agent", func(t *testing.T) {
		res := agent.Do(http.MethodGet, "/api/me", nil).ExpectStatus(t, http.StatusOK)
		expectKeys(t, res, "data", meKeys...)
		expectKeys(t, res, "data.role", "id", "name", "description", "is_system", "permissions")
		expectKeys(t, res, "data.role.permissions.0", "id", "resource", "action")
		expectKeys(t, res, "data.settings", "email_notifications", "new_message_alerts", "campaign_updates", "notification_sound")
		if res.String("data.id") != agent.UserID.String() || res.String("data.organization_id") != env.OrgID.String() ||
			res.String("data.organization_name") != "Default" || res.String("data.role.name") != access.RoleAgent ||
			res.Get("data.role.is_system") != true || res.String("data.role_id") != res.String("data.role.id") ||
			res.Len("data.role.permissions") != 9 {
			t.Fatalf("me: %s", res.Raw)
		}
		if res.Get("data.settings.new_message_alerts") != true || res.String("data.settings.notification_sound") != "default" {
			t.Errorf("default settings: %s", res.Raw)
		}
	})
	t.Run("LoginAnswersTheSameUser", func(t *testing.T) {
		res := login(env, userEmail(t, env, agent), apitest.UserPassword).ExpectStatus(t, http.StatusOK)
		expectKeys(t, res, "data.user", meKeys...)
		expectKeys(t, res, "data.user.role.permissions.0", "id", "resource", "action")
	})
	t.Run("SuperAdminWithoutRoleHoldsEveryPermission", func(t *testing.T) {
		admin := *env.Admin
		admin.Org = other.OrgID.String()
		res := admin.Do(http.MethodGet, "/api/me", nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.organization_id") != other.OrgID.String() || res.String("data.organization_name") != "Elsewhere" ||
			res.Get("data.is_super_admin") != true || res.Len("data.role.permissions") != len(access.Catalogue) ||
			res.String("data.role.permissions.0.id") == "" {
			t.Fatalf("me: %s", res.Raw)
		}
	})
	t.Run("GraphQLViewerAgrees", func(t *testing.T) {
		rest := agent.Do(http.MethodGet, "/api/me", nil).ExpectStatus(t, http.StatusOK)
		res := agent.GraphQL(`{ viewer { user { id email } organization { name }
			grantedPermissions { id resource action } settings { newMessageAlerts notificationSound } } }`, nil).
			ExpectStatus(t, http.StatusOK)
		if res.Get("errors") != nil || res.String("data.viewer.user.id") != rest.String("data.id") ||
			res.String("data.viewer.organization.name") != rest.String("data.organization_name") ||
			res.Len("data.viewer.grantedPermissions") != rest.Len("data.role.permissions") ||
			res.String("data.viewer.settings.notificationSound") != "default" {
			t.Fatalf("viewer: %s; rest: %s", res.Raw, rest.Raw)
		}
	})
	t.Run("ErrAnonymous", func(t *testing.T) {
		env.Anonymous().Do(http.MethodGet, "/api/me", nil).ExpectError(t, http.StatusUnauthorized)
	})
}

func TestMyOrganizations(t *testing.T) {
	env := apitest.New(t)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")
	path := "/api/me/organizations"

	t.Run("OneMembership", func(t *testing.T) {
		res := agent.Do(http.MethodGet, path, nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.organizations") != 1 {
			t.Fatalf("organizations: %s", res.Raw)
		}
		expectKeys(t, res, "data.organizations.0", "organization_id", "name", "slug", "role_name", "is_default")
		if res.String("data.organizations.0.organization_id") != env.OrgID.String() ||
			res.String("data.organizations.0.role_name") != access.RoleAgent || res.Get("data.organizations.0.is_default") != true {
			t.Errorf("organization: %s", res.Raw)
		}
	})
	t.Run("SecondMembershipWithItsRole", func(t *testing.T) {
		mustJoin(t, other, agent)
		res := agent.Do(http.MethodGet, path, nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.organizations") != 2 || res.String("data.organizations.1.organization_id") != other.OrgID.String() ||
			res.String("data.organizations.1.name") != "Elsewhere" || res.Get("data.organizations.1.is_default") != false {
			t.Fatalf("organizations: %s", res.Raw)
		}
	})
	t.Run("OnlyTheViewersOwn", func(t *testing.T) {
		res := other.Do(http.MethodGet, path, nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.organizations") != 1 || res.String("data.organizations.0.organization_id") != other.OrgID.String() {
			t.Fatalf("organizations: %s", res.Raw)
		}
	})
	t.Run("ErrAnonymous", func(t *testing.T) {
		env.Anonymous().Do(http.MethodGet, path, nil).ExpectError(t, http.StatusUnauthorized)
	})
}

func TestMySettings(t *testing.T) {
	env := apitest.New(t)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	manager := env.NewUser(env.OrgID, access.RoleManager)
	path := "/api/me/settings"

	t.Run("OKPartialUpdateKeepsTheRest", func(t *testing.T) {
		res := agent.Do(http.MethodPut, path, map[string]any{"new_message_alerts": false, "notification_sound": "chime"}).
			ExpectStatus(t, http.StatusOK)
		if res.Get("data.new_message_alerts") != false || res.String("data.notification_sound") != "chime" ||
			res.Get("data.email_notifications") != true {
			t.Fatalf("settings: %s", res.Raw)
		}
		agent.Do(http.MethodPut, path, map[string]any{"campaign_updates": false}).ExpectStatus(t, http.StatusOK)
		me := agent.Do(http.MethodGet, "/api/me", nil).ExpectStatus(t, http.StatusOK)
		if me.Get("data.settings.new_message_alerts") != false || me.Get("data.settings.campaign_updates") != false ||
			me.String("data.settings.notification_sound") != "chime" || me.Get("data.settings.email_notifications") != true {
			t.Fatalf("me: %s", me.Raw)
		}
	})
	t.Run("OnlyTheViewersOwn", func(t *testing.T) {
		me := manager.Do(http.MethodGet, "/api/me", nil).ExpectStatus(t, http.StatusOK)
		if me.Get("data.settings.new_message_alerts") != true {
			t.Fatalf("another user's settings changed: %s", me.Raw)
		}
	})
	t.Run("GraphQL", func(t *testing.T) {
		res := manager.GraphQL(`mutation($in: UpdateUserSettingsInput!) { updateMySettings(input: $in) {
			emailNotifications newMessageAlerts notificationSound } }`,
			map[string]any{"in": map[string]any{"emailNotifications": false}}).ExpectStatus(t, http.StatusOK)
		if res.Get("errors") != nil || res.Get("data.updateMySettings.emailNotifications") != false ||
			res.Get("data.updateMySettings.newMessageAlerts") != true {
			t.Fatalf("graphql: %s", res.Raw)
		}
		bad := manager.GraphQL(`mutation { updateMySettings(input: {notificationSound: "Bad Sound!"}) { notificationSound } }`, nil)
		if bad.GraphQLErrorCode() != "invalid" {
			t.Errorf("bad sound over GraphQL: %s", bad.Raw)
		}
	})
	badRequests(t, agent, http.MethodPut, path, map[string]any{
		"ErrMalformedJSON": "{",
		"ErrEmptyBody":     "",
		"ErrEmptyObject":   `{}`,
		"ErrNotObject":     `[true]`,
		"ErrUnknownKey":    `{"theme": "dark"}`,
		"ErrWrongType":     `{"new_message_alerts": "no"}`,
		"ErrNull":          `{"campaign_updates": null}`,
		"ErrBadSound":      `{"notification_sound": "../../etc/passwd"}`,
		"ErrLongSound":     `{"notification_sound": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}`,
	})
	t.Run("ErrAnonymous", func(t *testing.T) {
		env.Anonymous().Do(http.MethodPut, path, map[string]any{"campaign_updates": true}).ExpectError(t, http.StatusUnauthorized)
	})
}
