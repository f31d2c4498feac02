package rest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
	"switchboard/provider/providertest"
)

// mustSeedAccount stores an account named name in organization org.
func mustSeedAccount(t *testing.T, env *apitest.Env, org uuid.UUID, name, phoneID string) {
	t.Helper()
	err := env.Client().Account.Create().SetName(name).SetPhoneID(phoneID).SetBusinessID(providertest.BusinessID).
		Exec(viewer.SystemContext(context.Background(), org))
	if err != nil {
		t.Fatal(err)
	}
}

// expectInvalidNaming checks a 400 envelope whose message names field.
func expectInvalidNaming(t *testing.T, res *apitest.Response, field string) {
	t.Helper()
	res.ExpectError(t, http.StatusBadRequest)
	if !strings.Contains(res.String("message"), field) {
		t.Fatalf("message %q does not name %s", res.String("message"), field)
	}
}

// expectGraphQLInvalidNaming checks a GraphQL error of code invalid whose
// message names field, without data.
func expectGraphQLInvalidNaming(t *testing.T, res *apitest.Response, field string) {
	t.Helper()
	if res.GraphQLErrorCode() != "invalid" || !strings.Contains(res.String("errors.0.message"), field) {
		t.Fatalf("want an invalid error naming %s: %s", field, res.Raw)
	}
}

// TestContactChatAccountIsAnAccount: a contact's chat_account names one
// of the organization's accounts (or is empty); an unknown name or
// another organization's is refused on create and update, over REST and
// GraphQL.
func TestContactChatAccountIsAnAccount(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	other := env.NewOrg("Elsewhere")
	mustSeedAccount(t, env, env.OrgID, "Main", "100000000000901")
	mustSeedAccount(t, env, other.OrgID, "Theirs", "100000000000902")
	contactID := mustCreateContact(t, admin, map[string]any{"phone_number": "15550190001"})
	const createGQL = `mutation($a: String) { createContact(input: {phoneNumber: "15550190002", chatAccount: $a}) { id } }`
	const updateGQL = `mutation($id: ID!, $a: String) { updateContact(id: $id, input: {chatAccount: $a}) { chatAccount } }`

	for _, tc := range []struct{ name, account string }{
		{"Unknown", "Nope"},
		{"AnotherOrganizations", "Theirs"},
		{"OtherCase", "main"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectInvalidNaming(t, admin.Do(http.MethodPost, "/api/contacts",
				map[string]any{"phone_number": "15550190002", "chat_account": tc.account}), "chat_account")
			expectInvalidNaming(t, admin.Do(http.MethodPut, "/api/contacts/"+contactID,
				map[string]any{"chat_account": tc.account}), "chat_account")
			expectGraphQLInvalidNaming(t, admin.GraphQL(createGQL, map[string]any{"a": tc.account}), "chat_account")
			expectGraphQLInvalidNaming(t, admin.GraphQL(updateGQL, map[string]any{"id": contactID, "a": tc.account}), "chat_account")
		})
	}
	if res := admin.Do(http.MethodGet, "/api/contacts/"+contactID, nil).ExpectStatus(t, http.StatusOK); res.String("data.chat_account") != "" {
		t.Fatalf("a refused update changed chat_account: %s", res.Raw)
	}

	t.Run("OwnAccount", func(t *testing.T) {
		res := admin.Do(http.MethodPut, "/api/contacts/"+contactID, map[string]any{"chat_account": " Main "}).ExpectStatus(t, http.StatusOK)
		if res.String("data.chat_account") != "Main" {
			t.Fatalf("chat_account: %s", res.Raw)
		}
		res = admin.GraphQL(createGQL, map[string]any{"a": "Main"})
		if res.Get("errors") != nil || res.String("data.createContact.id") == "" {
			t.Fatalf("create with an own account: %s", res.Raw)
		}
	})
	t.Run("EmptyStaysAllowed", func(t *testing.T) {
		res := admin.Do(http.MethodPut, "/api/contacts/"+contactID, map[string]any{"chat_account": ""}).ExpectStatus(t, http.StatusOK)
		if res.String("data.chat_account") != "" {
			t.Fatalf("chat_account: %s", res.Raw)
		}
		mustCreateContact(t, admin, map[string]any{"phone_number": "15550190003", "chat_account": ""})
	})
}

// TestAccountPhoneIDIsCanonical: the platform's ids are decimal numbers
// without a leading zero, so "0" + an id held elsewhere is not a second
// holder of the same number: it is refused, over REST and GraphQL.
func TestAccountPhoneIDIsCanonical(t *testing.T) {
	env, _ := newAccountEnv(t)
	admin := env.Admin
	other := env.NewOrg("Elsewhere")
	id := mustCreateAccount(t, admin, acctBody("Main", nil))
	padded := "0" + providertest.PhoneID

	t.Run("REST", func(t *testing.T) {
		expectInvalidNaming(t, other.Do(http.MethodPost, "/api/accounts",
			acctBody("Mine", map[string]any{"phone_id": padded, "business_id": newBusinessID()})), "phone_id")
		expectInvalidNaming(t, admin.Do(http.MethodPut, "/api/accounts/"+id, map[string]any{"phone_id": padded}), "phone_id")
		expectInvalidNaming(t, admin.Do(http.MethodPost, "/api/accounts",
			acctBody("Zero", map[string]any{"phone_id": "0", "business_id": newBusinessID()})), "phone_id")
		expectInvalidNaming(t, admin.Do(http.MethodPost, "/api/accounts",
			acctBody("Padded business", map[string]any{"phone_id": newPhoneID(), "business_id": "0" + newBusinessID()})), "business_id")
	})
	t.Run("GraphQL", func(t *testing.T) {
		res := other.GraphQL(`mutation($p: String!, $b: String!) { createAccount(input: {name: "Mine over GraphQL", phoneID: $p,
			businessID: $b, accessToken: "tok"}) { id } }`, map[string]any{"p": padded, "b": newBusinessID()})
		expectGraphQLInvalidNaming(t, res, "phone_id")
		res = admin.GraphQL(`mutation($id: ID!, $p: String) { updateAccount(id: $id, input: {phoneID: $p}) { phoneID } }`,
			map[string]any{"id": id, "p": padded})
		expectGraphQLInvalidNaming(t, res, "phone_id")
	})
	if res := admin.Do(http.MethodGet, "/api/accounts/"+id, nil); res.String("data.phone_id") != providertest.PhoneID {
		t.Fatalf("a refused update changed phone_id: %s", res.Raw)
	}
}
