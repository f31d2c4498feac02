package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"switchboard/access"
	"switchboard/internal/apitest"
	"switchboard/provider/providertest"
)

// TestGraphQLSecretFields checks by introspection that credentials exist
// only as has* flags (and the account's webhook verify token, which the
// spec shows).
func TestGraphQLSecretFields(t *testing.T) {
	env := apitest.New(t)
	for typ, allowed := range map[string]map[string]bool{
		"Account":             {"hasAccessToken": true, "webhookVerifyToken": true, "hasAppSecret": true},
		"WebhookSubscription": {"hasSecret": true},
		"SSOConfig":           {"hasSecret": true, "tokenURL": true},
	} {
		t.Run(typ, func(t *testing.T) {
			for _, f := range typeFields(t, env.Admin, typ) {
				lower := strings.ToLower(f)
				if (strings.Contains(lower, "token") || strings.Contains(lower, "secret")) && !allowed[f] {
					t.Errorf("%s.%s may expose a credential", typ, f)
				}
			}
		})
	}
}

func TestGraphQLAccounts(t *testing.T) {
	e := newMessagingEnv(t)
	admin, agent, other := e.Admin, e.NewUser(e.OrgID, access.RoleAgent), e.NewOrg("Other")
	secrets := []string{testAccessToken, testAppSecret}

	r := mustGraphQL(t, admin, `query($id: ID!) { accounts { id name hasAccessToken }
		account(id: $id) { name phoneID webhookVerifyToken hasAccessToken hasAppSecret isDefaultOutgoing createdByName updatedByName } }`,
		vars{"id": e.accountID})
	expectNoSecret(t, r, secrets...)
	if r.Len("data.accounts") != 1 || r.Get("data.account.hasAccessToken") != true || r.Get("data.account.hasAppSecret") != true ||
		r.Get("data.account.isDefaultOutgoing") != true || r.String("data.account.createdByName") == "" ||
		r.String("data.account.webhookVerifyToken") == "" || r.String("data.account.phoneID") != providertest.PhoneID {
		t.Fatalf("account: %s", r.Raw)
	}
	// Another organization has its own business account (one belongs to
	// one organization).
	theirs := accountInput("Theirs", "100000000000001")
	theirs["businessID"] = "300000000000001"
	foreignID := mustGraphQL(t, other, createAccountOp, vars{"in": theirs}).String("data.createAccount.id")

	t.Run("CreateAndUpdateHideSecrets", func(t *testing.T) {
		in := accountInput("Second", "100000000000002")
		delete(in, "appSecret")
		r := mustGraphQL(t, admin, createAccountOp, vars{"in": in})
		expectNoSecret(t, r, secrets...)
		id := r.String("data.createAccount.id")
		if r.Get("data.createAccount.hasAppSecret") != false || r.Get("data.createAccount.isDefaultOutgoing") != false {
			t.Fatalf("createAccount: %s", r.Raw)
		}
		r = mustGraphQL(t, admin, `mutation($id: ID!, $in: UpdateAccountInput!) { updateAccount(id: $id, input: $in) {
			name hasAccessToken hasAppSecret isDefaultOutgoing updatedByName } }`,
			vars{"id": id, "in": vars{"name": "Renamed", "accessToken": " ", "appSecret": "new-" + testAppSecret, "isDefaultOutgoing": true}})
		expectNoSecret(t, r, append(secrets, "new-"+testAppSecret)...)
		if r.String("data.updateAccount.name") != "Renamed" || r.Get("data.updateAccount.hasAccessToken") != true ||
			r.Get("data.updateAccount.hasAppSecret") != true || r.Get("data.updateAccount.isDefaultOutgoing") != true {
			t.Fatalf("updateAccount: %s", r.Raw)
		}
		if r := mustGraphQL(t, admin, `mutation($id: ID!) { deleteAccount(id: $id) }`, vars{"id": id}); r.Get("data.deleteAccount") != true {
			t.Fatalf("deleteAccount: %s", r.Raw)
		}
		r = mustGraphQL(t, admin, `query($id: ID!) { account(id: $id) { isDefaultOutgoing } }`, vars{"id": e.accountID})
		if r.Get("data.account.isDefaultOutgoing") != true {
			t.Fatalf("the default did not return to Main: %s", r.Raw)
		}
	})
	t.Run("PlatformCalls", func(t *testing.T) {
		r := mustGraphQL(t, admin, `mutation($id: ID!) { testAccount(id: $id) { id displayPhoneNumber verifiedName isTestNumber } }`,
			vars{"id": e.accountID})
		if r.String("data.testAccount.displayPhoneNumber") == "" {
			t.Fatalf("testAccount: %s", r.Raw)
		}
		if r := mustGraphQL(t, admin, `mutation($id: ID!) { subscribeAccount(id: $id) }`, vars{"id": e.accountID}); r.Get("data.subscribeAccount") != true ||
			!e.fake.Subscribed(providertest.BusinessID) {
			t.Fatalf("subscribeAccount: %s", r.Raw)
		}
		r = mustGraphQL(t, admin, `mutation($id: ID!, $in: BusinessProfileInput!) { updateAccountBusinessProfile(id: $id, input: $in) {
			about websites } }`, vars{"id": e.accountID, "in": vars{"messagingProduct": "whatsapp", "about": "Open 9-5", "websites": []string{"https://example.com"}}})
		if r.String("data.updateAccountBusinessProfile.about") != "Open 9-5" || r.String("data.updateAccountBusinessProfile.websites.0") != "https://example.com" {
			t.Fatalf("updateAccountBusinessProfile: %s", r.Raw)
		}
		r = mustGraphQL(t, admin, `query($id: ID!) { accountBusinessProfile(id: $id) { messagingProduct about } }`, vars{"id": e.accountID})
		if r.String("data.accountBusinessProfile.about") != "Open 9-5" {
			t.Fatalf("accountBusinessProfile: %s", r.Raw)
		}
	})

	update := `mutation($id: ID!, $in: UpdateAccountInput!) { updateAccount(id: $id, input: $in) { id } }`
	profile := `mutation($id: ID!, $in: BusinessProfileInput!) { updateAccountBusinessProfile(id: $id, input: $in) { about } }`
	bad := func(k string, v any) vars {
		in := accountInput("Bad")
		in[k] = v
		return vars{"in": in}
	}
	runErrorCases(t, []errorCase{
		{"ErrAPIVersion", admin, createAccountOp, bad("apiVersion", "21"), "invalid"},
		{"ErrPhoneID", admin, createAccountOp, bad("phoneID", "abc"), "invalid"},
		{"ErrNameTaken", admin, createAccountOp, bad("name", "Main"), "invalid"},
		{"ErrUnsetDefault", admin, update, vars{"id": e.accountID, "in": vars{"isDefaultOutgoing": false}}, "invalid"},
		{"ErrProfileProduct", admin, profile, vars{"id": e.accountID, "in": vars{"about": "x"}}, "invalid"},
		{"AgentCreateForbidden", agent, createAccountOp, vars{"in": accountInput("Agent's")}, "forbidden"},
		{"AgentListForbidden", agent, `{ accounts { id } }`, nil, "forbidden"},
		{"CrossTenantGet", admin, `query($id: ID!) { account(id: $id) { id } }`, vars{"id": foreignID}, "not_found"},
		{"CrossTenantProfile", admin, `query($id: ID!) { accountBusinessProfile(id: $id) { about } }`, vars{"id": foreignID}, "not_found"},
		{"CrossTenantUpdate", admin, update, vars{"id": foreignID, "in": vars{"name": "X"}}, "not_found"},
		{"CrossTenantTest", admin, `mutation($id: ID!) { testAccount(id: $id) { id } }`, vars{"id": foreignID}, "not_found"},
		{"CrossTenantDelete", admin, `mutation($id: ID!) { deleteAccount(id: $id) }`, vars{"id": foreignID}, "not_found"},
	})
}

// typeFields introspects the field names of a GraphQL type.
func typeFields(t *testing.T, c *apitest.Client, name string) []string {
	t.Helper()
	r := mustGraphQL(t, c, `query($name: String!) { __type(name: $name) { fields { name } } }`, vars{"name": name})
	var out []string
	for i := range r.Len("data.__type.fields") {
		out = append(out, r.String(fmt.Sprintf("data.__type.fields.%d.name", i)))
	}
	if len(out) == 0 {
		t.Fatalf("type %s has no fields: %s", name, r.Raw)
	}
	return out
}

// expectNoSecret fails when a response shows a credential.
func expectNoSecret(t *testing.T, res *apitest.Response, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(string(res.Raw), s) {
			t.Errorf("response shows the secret %q: %s", s, res.Raw)
		}
	}
}
