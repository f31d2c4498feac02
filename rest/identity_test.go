package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent/rule"
	"switchboard/internal/apitest"
)

// emailOf reads a user's email past the privacy rules.
func emailOf(t *testing.T, env *apitest.Env, id uuid.UUID) string {
	t.Helper()
	u, err := env.Client().User.Get(rule.Bypass(context.Background(), "test reads a fixture"), id)
	if err != nil {
		t.Fatal(err)
	}
	return u.Email
}

// mustJoin has adder add person to adder's organization (an invitation,
// as for anyone but a super admin) and person accept it.
func mustJoin(t *testing.T, adder, person *apitest.Client) {
	t.Helper()
	adder.Do(http.MethodPost, "/api/organizations/members", map[string]any{"user_id": person.UserID}).
		ExpectStatus(t, http.StatusCreated)
	list := person.Do(http.MethodGet, "/api/me/invitations", nil).ExpectStatus(t, http.StatusOK)
	for i := 0; i < list.Len("data.invitations"); i++ {
		if list.String(fmt.Sprintf("data.invitations.%d.organization_id", i)) == adder.OrgID.String() {
			person.Do(http.MethodPost, "/api/me/invitations/"+list.String(fmt.Sprintf("data.invitations.%d.id", i))+"/accept", nil).
				ExpectStatus(t, http.StatusOK)
			return
		}
	}
	t.Fatalf("no invitation to %s: %s", adder.OrgID, list.Raw)
}

// TestMembershipGivesNoPowerOverIdentity: anyone can create an
// organization and add people to it; that must give no power over their
// account (shared by every organization they belong to), and must not tell
// who has an account.
func TestMembershipGivesNoPowerOverIdentity(t *testing.T) {
	env := apitest.New(t)
	victim := env.NewUser(env.OrgID, access.RoleAgent)
	victimEmail := emailOf(t, env, victim.UserID)
	victimPath := "/api/users/" + victim.UserID.String()
	attacker := env.NewOrg("Evil Co")
	nameOf := func() string {
		return env.Admin.Do(http.MethodGet, victimPath, nil).ExpectStatus(t, http.StatusOK).String("data.full_name")
	}
	before := nameOf()

	t.Run("AddingByEmailOnlyInvites", func(t *testing.T) {
		attacker.Do(http.MethodPost, "/api/organizations/members", map[string]any{"email": victimEmail}).
			ExpectStatus(t, http.StatusCreated)
		attacker.Do(http.MethodGet, victimPath, nil).ExpectError(t, http.StatusNotFound)
		attacker.Do(http.MethodPut, victimPath, map[string]any{"full_name": "Pwned"}).ExpectError(t, http.StatusNotFound)
		if got := nameOf(); got != before {
			t.Fatalf("renamed to %q", got)
		}
	})
	t.Run("AddingByUserIDOnlyInvites", func(t *testing.T) {
		other := env.NewUser(env.OrgID, access.RoleAgent)
		attacker.Do(http.MethodPost, "/api/organizations/members", map[string]any{"user_id": other.UserID}).
			ExpectStatus(t, http.StatusCreated)
		attacker.Do(http.MethodGet, "/api/users/"+other.UserID.String(), nil).ExpectError(t, http.StatusNotFound)
	})
	t.Run("UnknownAndKnownEmailsAnswerAlike", func(t *testing.T) {
		known := attacker.Do(http.MethodPost, "/api/organizations/members", map[string]any{"email": victimEmail})
		unknown := attacker.Do(http.MethodPost, "/api/organizations/members", map[string]any{"email": "nobody-here@example.com"})
		if known.Status != unknown.Status ||
			strings.ReplaceAll(string(known.Raw), victimEmail, "X") != strings.ReplaceAll(string(unknown.Raw), "nobody-here@example.com", "X") {
			t.Errorf("answers differ:\n%s\n%s", known.Raw, unknown.Raw)
		}
		knownUser := attacker.Do(http.MethodPost, "/api/users", map[string]any{"email": victimEmail, "full_name": "V"})
		unknownUser := attacker.Do(http.MethodPost, "/api/users", map[string]any{"email": "nobody-else@example.com", "full_name": "V"})
		if knownUser.Status != unknownUser.Status || knownUser.Status != http.StatusCreated {
			t.Errorf("create user answers %d and %d:\n%s\n%s", knownUser.Status, unknownUser.Status, knownUser.Raw, unknownUser.Raw)
		}
	})
	t.Run("OnlyASuperAdminSetsAnotherPersonsPassword", func(t *testing.T) {
		attacker.Do(http.MethodPost, "/api/users", map[string]any{
			"email": "fresh-person@example.com", "full_name": "Fresh", "password": "a-password-of-mine-123",
		}).ExpectError(t, http.StatusBadRequest)
	})
	t.Run("SuperAdminIsNotAddedByOthers", func(t *testing.T) {
		attacker.Do(http.MethodPost, "/api/organizations/members", map[string]any{"email": "admin@example.com"}).
			ExpectStatus(t, http.StatusCreated)
		attacker.Do(http.MethodPost, "/api/organizations/members", map[string]any{"user_id": env.Admin.UserID}).
			ExpectStatus(t, http.StatusCreated)
		attacker.Do(http.MethodGet, "/api/users/"+env.Admin.UserID.String(), nil).ExpectError(t, http.StatusNotFound)
	})
	t.Run("TheInviteeDecides", func(t *testing.T) {
		list := victim.Do(http.MethodGet, "/api/me/invitations", nil).ExpectStatus(t, http.StatusOK)
		if list.Len("data.invitations") != 1 || list.String("data.invitations.0.organization_name") != "Evil Co" {
			t.Fatalf("invitations: %s", list.Raw)
		}
		id := list.String("data.invitations.0.id")
		attacker.Do(http.MethodPost, "/api/me/invitations/"+id+"/accept", nil).ExpectError(t, http.StatusNotFound)
		victim.Do(http.MethodPost, "/api/me/invitations/"+id+"/accept", nil).ExpectStatus(t, http.StatusOK)
		victim.Do(http.MethodPost, "/api/me/invitations/"+id+"/accept", nil).ExpectError(t, http.StatusNotFound)
		attacker.Do(http.MethodGet, victimPath, nil).ExpectStatus(t, http.StatusOK)
	})
	t.Run("MembersAdminManagesTheRoleOnly", func(t *testing.T) {
		for name, body := range map[string]map[string]any{
			"Name":     {"full_name": "Pwned"},
			"Active":   {"is_active": false},
			"Password": {"password": "a-password-of-mine-123"},
		} {
			t.Run(name, func(t *testing.T) {
				attacker.Do(http.MethodPut, victimPath, body).ExpectError(t, http.StatusForbidden)
			})
		}
		agentRole := attacker.Do(http.MethodGet, "/api/roles?search=Manager", nil).ExpectStatus(t, http.StatusOK).String("data.roles.0.id")
		attacker.Do(http.MethodPut, victimPath, map[string]any{"role_id": agentRole}).ExpectStatus(t, http.StatusOK)
		if got := nameOf(); got != before {
			t.Fatalf("renamed to %q", got)
		}
		if _, err := env.App.Access.Login(context.Background(), victimEmail, apitest.UserPassword, "192.0.2.1"); err != nil {
			t.Fatalf("the victim cannot log in any more: %v", err)
		}
	})
	t.Run("AnAdminOfTheHomeOrganizationNeither", func(t *testing.T) {
		admin := env.NewUser(env.OrgID, access.RoleAdmin)
		admin.Do(http.MethodPut, victimPath, map[string]any{"full_name": "Renamed"}).ExpectError(t, http.StatusForbidden)
		if code := admin.GraphQL(`mutation($id: ID!) { updateUser(id: $id, input: {fullName: "Renamed"}) { id } }`,
			map[string]any{"id": victim.UserID}).GraphQLErrorCode(); code != "forbidden" {
			t.Errorf("GraphQL updateUser: code %q", code)
		}
	})
	t.Run("RemovalKeepsTheAccount", func(t *testing.T) {
		attacker.Do(http.MethodDelete, victimPath, nil).ExpectStatus(t, http.StatusOK)
		only := env.NewUser(env.OrgID, access.RoleAgent)
		admin := env.NewUser(env.OrgID, access.RoleAdmin)
		admin.Do(http.MethodDelete, "/api/users/"+only.UserID.String(), nil).ExpectStatus(t, http.StatusOK)
		u, err := env.Client().User.Get(rule.Bypass(context.Background(), "test"), only.UserID)
		if err != nil || !u.IsActive {
			t.Fatalf("removing the membership changed the account: %+v %v", u, err)
		}
	})
	t.Run("TheSuperAdminMay", func(t *testing.T) {
		env.Admin.Do(http.MethodPut, victimPath, map[string]any{"full_name": "Renamed By Operator"}).ExpectStatus(t, http.StatusOK)
		if got := nameOf(); got != "Renamed By Operator" {
			t.Fatalf("name %q", got)
		}
	})
}
