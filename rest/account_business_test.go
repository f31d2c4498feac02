package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"switchboard/provider/providertest"
)

// TestAccountBusinessIDBelongsToOneOrganization: template changes arrive
// by business account id, so an organization that registered another's
// business_id would receive its template updates; it is refused with 409,
// while one organization may connect several numbers of its business
// account.
func TestAccountBusinessIDBelongsToOneOrganization(t *testing.T) {
	env, _ := newAccountEnv(t)
	first := mustCreateAccount(t, env.Admin, acctBody("Main", nil))
	second := mustCreateAccount(t, env.Admin, acctBody("Second line", map[string]any{"phone_id": newPhoneID()}))
	intruder := env.NewOrg("Intruder Co")
	refused := func(t *testing.T, msg string) {
		t.Helper()
		if !strings.Contains(msg, "business_id") || strings.Contains(msg, "Default") || strings.Contains(msg, env.OrgID.String()) {
			t.Errorf("message %q", msg)
		}
	}

	t.Run("CreateInAnotherOrganization", func(t *testing.T) {
		res := intruder.Do(http.MethodPost, "/api/accounts", acctBody("Theirs", map[string]any{"phone_id": newPhoneID()})).
			ExpectError(t, http.StatusConflict)
		refused(t, res.String("message"))
		if n := intruder.Do(http.MethodGet, "/api/accounts", nil).Len("data.accounts"); n != 0 {
			t.Errorf("the refused create left %d accounts", n)
		}
	})
	own := mustCreateAccount(t, intruder, acctBody("Own", map[string]any{"phone_id": newPhoneID(), "business_id": newBusinessID()}))
	t.Run("UpdateInAnotherOrganization", func(t *testing.T) {
		res := intruder.Do(http.MethodPut, "/api/accounts/"+own, map[string]any{"business_id": providertest.BusinessID}).
			ExpectError(t, http.StatusConflict)
		refused(t, res.String("message"))
		if b := intruder.Do(http.MethodGet, "/api/accounts/"+own, nil).String("data.business_id"); b == providertest.BusinessID {
			t.Error("the refused update changed business_id")
		}
	})
	t.Run("GraphQL", func(t *testing.T) {
		res := intruder.GraphQL(`mutation($in: CreateAccountInput!) { createAccount(input: $in) { id } }`, map[string]any{"in": map[string]any{
			"name": "Stolen", "phoneID": newPhoneID(), "businessID": providertest.BusinessID, "accessToken": acctToken,
		}})
		if code := res.GraphQLErrorCode(); code != "conflict" {
			t.Fatalf("code %q, want conflict: %s", code, res.Raw)
		}
	})
	t.Run("FreedWhenNoAccountUsesIt", func(t *testing.T) {
		env.Admin.Do(http.MethodDelete, "/api/accounts/"+first, nil).ExpectStatus(t, http.StatusOK)
		intruder.Do(http.MethodPut, "/api/accounts/"+own, map[string]any{"business_id": providertest.BusinessID}).
			ExpectError(t, http.StatusConflict) // the second line still uses it
		env.Admin.Do(http.MethodPut, "/api/accounts/"+second, map[string]any{"business_id": newBusinessID()}).ExpectStatus(t, http.StatusOK)
		intruder.Do(http.MethodPut, "/api/accounts/"+own, map[string]any{"business_id": providertest.BusinessID}).ExpectStatus(t, http.StatusOK)
		res := env.Admin.Do(http.MethodPut, "/api/accounts/"+second, map[string]any{"business_id": providertest.BusinessID}).
			ExpectError(t, http.StatusConflict)
		refused(t, res.String("message"))
	})
}
