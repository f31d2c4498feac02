package rest_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent/organizationmember"
	"switchboard/ent/rule"
	"switchboard/ent/ssoconfig"
	"switchboard/internal/apitest"
	"switchboard/sso"
)

// The refusals of a sign-in whose identity links to no account, and of
// an organization's provider asked to sign in a super admin.
const (
	notLinkedGoogle = "no account is linked to this sign-in: if you already have an account, sign in with your password and link google from your profile"
	notLinkedCustom = "no account is linked to this sign-in: if you already have an account, sign in with your password and link custom from your profile"
	superAdminSSO   = "a super admin cannot sign in through an organization's identity provider"
)

// ssoEnv is an application whose Google provider is the fake identity
// provider, with the bootstrap organization's Google configured
// (allowed_domains empty, auto-creation as given).
func ssoEnv(t *testing.T) (*apitest.Env, *fakeIdP) {
	t.Helper()
	env := apitest.New(t)
	idp := newFakeIdP(t)
	env.App.SSO.Providers = map[ssoconfig.Provider]sso.Endpoints{
		ssoconfig.ProviderGoogle: {Issuer: idp.URL, Scopes: []string{"openid", "email", "profile"}},
	}
	return env, idp
}

// configureSSO saves provider for the organization of admin.
func configureSSO(t *testing.T, admin *apitest.Client, idp *fakeIdP, provider string, autoCreate bool) {
	t.Helper()
	body := map[string]any{"client_id": "client-1", "client_secret": "idp-secret", "is_enabled": true, "allow_auto_create": autoCreate}
	if provider == "custom" {
		body["auth_url"], body["token_url"], body["user_info_url"] = idp.URL+"/auth", idp.URL+"/token", idp.URL+"/userinfo"
	}
	admin.Do(http.MethodPut, "/api/settings/sso/"+provider, body).ExpectStatus(t, http.StatusOK)
}

// memberships lists the organizations userID belongs to.
func memberships(t *testing.T, env *apitest.Env, userID uuid.UUID) map[uuid.UUID]bool {
	t.Helper()
	ms, err := env.Client().OrganizationMember.Query().Where(organizationmember.UserID(userID)).
		All(rule.Bypass(context.Background(), "test reads memberships"))
	if err != nil {
		t.Fatal(err)
	}
	orgs := map[uuid.UUID]bool{}
	for _, m := range ms {
		orgs[m.OrganizationID] = true
	}
	return orgs
}

// expectRefused checks that a callback answered with the login page and
// message, and set no session.
func expectRefused(t *testing.T, resp *http.Response, message string) {
	t.Helper()
	want := "http://localhost:8080/login?sso_error=" + url.QueryEscape(message)
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != want {
		t.Fatalf("callback: %d %q, want %q", resp.StatusCode, resp.Header.Get("Location"), want)
	}
	if c := respCookie(resp, "whm_access"); c != nil {
		t.Fatalf("a refused sign-in set a session: %v", resp.Cookies())
	}
}

// signedInAs checks that a callback started a session of userID in orgID.
func signedInAs(t *testing.T, env *apitest.Env, resp *http.Response, userID, orgID uuid.UUID) {
	t.Helper()
	acc := respCookie(resp, "whm_access")
	if resp.StatusCode != http.StatusFound || acc == nil {
		t.Fatalf("callback: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	me := env.WithToken(acc.Value).Do(http.MethodGet, "/api/me", nil).ExpectStatus(t, http.StatusOK)
	if me.String("data.id") != userID.String() || me.String("data.organization_id") != orgID.String() {
		t.Fatalf("signed in as %s", me.Raw)
	}
}

func email(t *testing.T, c *apitest.Client) string {
	t.Helper()
	return c.Do(http.MethodGet, "/api/me", nil).ExpectStatus(t, http.StatusOK).String("data.email")
}

// TestSSOTakeover repeats the probe of issue 28: an organization's Admin
// saves an identity provider that vouches for someone else's verified
// e-mail. Every victim, in every organization and of every role, the super
// admin included, is refused, and no membership is added to their account,
// whether the provider is OpenID Connect or plain OAuth2 (custom).
func TestSSOTakeover(t *testing.T) {
	env, idp := ssoEnv(t)
	evil := env.NewOrg("Evil")
	evilQuery := "?organization_id=" + evil.OrgID.String()
	configureSSO(t, evil, idp, "google", true)
	configureSSO(t, evil, idp, "custom", true)
	evilAgent := env.NewUser(evil.OrgID, access.RoleAgent)
	victims := map[string]*apitest.Client{
		"SuperAdmin":        env.Admin,
		"OtherOrgAdmin":     env.NewUser(env.OrgID, access.RoleAdmin),
		"OtherOrgManager":   env.NewUser(env.OrgID, access.RoleManager),
		"OtherOrgAgent":     env.NewUser(env.OrgID, access.RoleAgent),
		"SameOrgAgent":      evilAgent,
		"OtherOrganization": env.NewOrg("Victim"),
	}
	for name, victim := range victims {
		for _, provider := range []string{"google", "custom"} {
			t.Run(name+"/"+provider, func(t *testing.T) {
				before := memberships(t, env, victim.UserID)
				// The attacker's provider vouches for the victim's address
				// under a subject of the attacker's choosing.
				idp.signIn(idpPerson{Email: strings.ToUpper(email(t, victim)), Verified: true, Subject: "attacker-" + name})
				resp, _ := ssoFlow(t, env, provider, evilQuery)
				message := notLinkedGoogle
				if provider == "custom" {
					message = notLinkedCustom
				}
				// An unlinked super admin is refused like anyone unlinked:
				// the answer does not tell who is a super admin.
				expectRefused(t, resp, message)
				after := memberships(t, env, victim.UserID)
				if len(after) != len(before) || (after[evil.OrgID] && !before[evil.OrgID]) {
					t.Fatalf("memberships changed: %v -> %v", before, after)
				}
			})
		}
	}
	t.Run("ConfigNeedsSettingsUpdate", func(t *testing.T) {
		// Only an Admin saves a provider, over either transport.
		for _, c := range []*apitest.Client{env.NewUser(evil.OrgID, access.RoleManager), evilAgent} {
			c.Do(http.MethodPut, "/api/settings/sso/custom", map[string]any{"client_id": "x", "is_enabled": true, "allow_auto_create": true}).
				ExpectError(t, http.StatusForbidden)
			res := c.GraphQL(`mutation { saveSSOConfig(input: {provider: custom, clientID: "x", isEnabled: true, allowAutoCreate: true}) { provider } }`, nil)
			if res.GraphQLErrorCode() != "forbidden" {
				t.Fatalf("saveSSOConfig: %s", res.Raw)
			}
		}
	})
}

// TestSSOPreAccountHijack: an attacker invites the address of a new hire
// into their own organization and registers it with their own password
// before the person first signs in through their employer's provider. The
// employer's sign-in is refused (the account is not linked), the
// attacker's account gains nothing, and the registration did not tell the
// attacker which addresses have accounts.
func TestSSOPreAccountHijack(t *testing.T) {
	env, idp := ssoEnv(t)
	attacker := env.NewOrg("Attacker")
	employer := env.NewOrg("Employer")
	configureSSO(t, employer, idp, "google", true)
	const newHire = "newhire@b.example"
	attacker.Do(http.MethodPost, "/api/organizations/members", map[string]any{"email": newHire}).ExpectStatus(t, http.StatusCreated)
	reg := env.Anonymous().Do(http.MethodPost, "/api/auth/register", map[string]any{
		"email": newHire, "password": "attacker-password-1", "full_name": "New Hire", "organization_id": attacker.OrgID,
	}).ExpectStatus(t, http.StatusCreated)
	squatter := uuid.MustParse(reg.String("data.user.id"))

	idp.signIn(idpPerson{Email: newHire, Verified: true, Subject: "employer-subject-of-new-hire"})
	resp, _ := ssoFlow(t, env, "google", "?organization_id="+employer.OrgID.String())
	expectRefused(t, resp, notLinkedGoogle)
	if memberships(t, env, squatter)[employer.OrgID] {
		t.Fatal("the squatted account inherited the employer's membership")
	}

	t.Run("RegisterHidesAccounts", func(t *testing.T) {
		// An invited address that has an account and an address without
		// an invitation are refused alike.
		existing := email(t, env.NewUser(env.OrgID, access.RoleAgent))
		attacker.Do(http.MethodPost, "/api/organizations/members", map[string]any{"email": existing}).ExpectStatus(t, http.StatusCreated)
		register := func(address string) *apitest.Response {
			return env.Anonymous().Do(http.MethodPost, "/api/auth/register", map[string]any{
				"email": address, "password": "attacker-password-1", "full_name": "X", "organization_id": attacker.OrgID,
			})
		}
		a, b := register(existing), register("nobody-"+uuid.NewString()[:8]+"@b.example")
		if a.Status != b.Status || a.String("message") != b.String("message") || a.Status < 400 {
			t.Fatalf("an existing account answers %d %q, an uninvited address %d %q", a.Status, a.String("message"), b.Status, b.String("message"))
		}
	})
}

// ssoLink starts linking provider from c's session and walks the browser
// through the provider; it returns the callback's answer.
func ssoLink(t *testing.T, env *apitest.Env, c *apitest.Client, provider string) *http.Response {
	t.Helper()
	res := c.Do(http.MethodPost, "/api/auth/sso/"+provider+"/link", nil).ExpectStatus(t, http.StatusOK)
	var state string
	for _, ck := range (&http.Response{Header: res.Header}).Cookies() {
		if ck.Name == "whm_sso_state" {
			state = ck.Value
		}
	}
	authURL := res.String("data.auth_url")
	if state == "" || !strings.Contains(authURL, "state="+state) {
		t.Fatalf("link: state cookie %q, auth_url %q", state, authURL)
	}
	idpResp, err := noRedirects.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	idpResp.Body.Close()
	back, _ := url.Parse(idpResp.Header.Get("Location"))
	return ssoCallback(t, env, back.Path+"?"+back.RawQuery, state)
}

// TestSSOLink: a person links the provider from their own session; from
// then on the provider's subject signs them in, whatever e-mail it sends.
func TestSSOLink(t *testing.T) {
	env, idp := ssoEnv(t)
	configureSSO(t, env.Admin, idp, "google", false)
	orgQuery := "?organization_id=" + env.OrgID.String()
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	agentEmail := email(t, agent)

	idp.signIn(idpPerson{Email: agentEmail, Verified: true, Subject: "agent-subject"})
	resp, _ := ssoFlow(t, env, "google", orgQuery)
	expectRefused(t, resp, notLinkedGoogle)

	resp = ssoLink(t, env, agent, "google")
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "http://localhost:8080/?sso_linked=google" {
		t.Fatalf("link callback: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if respCookie(resp, "whm_access") != nil {
		t.Fatal("linking started another session")
	}
	ids := agent.Do(http.MethodGet, "/api/me/sso-identities", nil).ExpectStatus(t, http.StatusOK)
	if ids.Len("data.identities") != 1 || ids.String("data.identities.0.provider") != "google" ||
		ids.String("data.identities.0.subject") != "agent-subject" || ids.String("data.identities.0.email") != agentEmail {
		t.Fatalf("identities: %s", ids.Raw)
	}
	identityID := ids.String("data.identities.0.id")

	t.Run("SignsIn", func(t *testing.T) {
		resp, _ := ssoFlow(t, env, "google", orgQuery)
		signedInAs(t, env, resp, agent.UserID, env.OrgID)
	})
	t.Run("SubjectNotEmail", func(t *testing.T) {
		// The person's address changed at the provider: the subject
		// still signs them in.
		idp.signIn(idpPerson{Email: "renamed@example.org", Verified: true, Subject: "agent-subject"})
		resp, _ := ssoFlow(t, env, "google", orgQuery)
		signedInAs(t, env, resp, agent.UserID, env.OrgID)
		// Another subject with the person's address does not.
		idp.signIn(idpPerson{Email: agentEmail, Verified: true, Subject: "someone-else"})
		resp, _ = ssoFlow(t, env, "google", orgQuery)
		expectRefused(t, resp, notLinkedGoogle)
	})
	t.Run("ErrSubjectLinkedElsewhere", func(t *testing.T) {
		other := env.NewUser(env.OrgID, access.RoleManager)
		idp.signIn(idpPerson{Email: email(t, other), Verified: true, Subject: "agent-subject"})
		expectRefused(t, ssoLink(t, env, other, "google"), "this identity is already linked to another account")
	})
	t.Run("ErrSuperAdminLinks", func(t *testing.T) {
		env.Admin.Do(http.MethodPost, "/api/auth/sso/google/link", nil).ExpectError(t, http.StatusForbidden)
	})
	t.Run("ErrAPIKeyLinks", func(t *testing.T) {
		key := env.Admin.Do(http.MethodPost, "/api/api-keys", map[string]any{"name": "k"}).ExpectStatus(t, http.StatusCreated).String("data.key")
		env.WithAPIKey(key).Do(http.MethodPost, "/api/auth/sso/google/link", nil).ExpectError(t, http.StatusForbidden)
	})
	t.Run("OwnIdentitiesOnly", func(t *testing.T) {
		other := env.NewUser(env.OrgID, access.RoleAdmin)
		if n := other.Do(http.MethodGet, "/api/me/sso-identities", nil).ExpectStatus(t, http.StatusOK).Len("data.identities"); n != 0 {
			t.Fatalf("another member sees %d identities", n)
		}
		other.Do(http.MethodDelete, "/api/me/sso-identities/"+identityID, nil).ExpectError(t, http.StatusNotFound)
		gql := other.GraphQL(`{ mySSOIdentities { id } }`, nil)
		if gql.Len("data.mySSOIdentities") != 0 {
			t.Fatalf("GraphQL: %s", gql.Raw)
		}
		gql = other.GraphQL(`mutation($id: ID!) { unlinkSSOIdentity(id: $id) }`, map[string]any{"id": identityID})
		if gql.GraphQLErrorCode() != "not_found" {
			t.Fatalf("GraphQL unlink of another's identity: %s", gql.Raw)
		}
		gql = other.GraphQL(`query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": identityID})
		if gql.Get("data.node") != nil {
			t.Fatalf("node of another's identity: %s", gql.Raw)
		}
		mine := agent.GraphQL(`{ mySSOIdentities { id provider subject email } }`, nil)
		if mine.String("data.mySSOIdentities.0.id") != identityID {
			t.Fatalf("GraphQL: %s", mine.Raw)
		}
	})
	t.Run("RemovedMemberRefused", func(t *testing.T) {
		// A linked person removed from the organization is refused, and
		// is not added back.
		removed := env.NewUser(env.OrgID, access.RoleAgent)
		idp.signIn(idpPerson{Email: email(t, removed), Verified: true, Subject: "removed-subject"})
		if resp := ssoLink(t, env, removed, "google"); resp.StatusCode != http.StatusFound || respCookie(resp, "whm_access") != nil {
			t.Fatalf("link: %d", resp.StatusCode)
		}
		env.Admin.Do(http.MethodDelete, "/api/users/"+removed.UserID.String(), nil).ExpectStatus(t, http.StatusOK)
		resp, _ := ssoFlow(t, env, "google", orgQuery)
		expectRefused(t, resp, "this account is not a member of the organization")
		if memberships(t, env, removed.UserID)[env.OrgID] {
			t.Fatal("single sign-on added the membership back")
		}
	})
	t.Run("SuperAdminLinkedRefused", func(t *testing.T) {
		// A person made super admin after linking is no longer signed in
		// by the organization's provider.
		promoted := env.NewUser(env.OrgID, access.RoleAgent)
		idp.signIn(idpPerson{Email: email(t, promoted), Verified: true, Subject: "promoted-subject"})
		ssoLink(t, env, promoted, "google")
		if err := env.Client().User.UpdateOneID(promoted.UserID).SetIsSuperAdmin(true).
			Exec(rule.Bypass(context.Background(), "test promotes")); err != nil {
			t.Fatal(err)
		}
		resp, _ := ssoFlow(t, env, "google", orgQuery)
		expectRefused(t, resp, superAdminSSO)
	})
	t.Run("Unlink", func(t *testing.T) {
		agent.Do(http.MethodDelete, "/api/me/sso-identities/"+identityID, nil).ExpectStatus(t, http.StatusOK)
		idp.signIn(idpPerson{Email: agentEmail, Verified: true, Subject: "agent-subject"})
		resp, _ := ssoFlow(t, env, "google", orgQuery)
		expectRefused(t, resp, notLinkedGoogle)
	})
	t.Run("AutoCreateLinksNewAccount", func(t *testing.T) {
		configureSSO(t, env.Admin, idp, "google", true)
		idp.signIn(idpPerson{Email: "brand-new@example.org", Verified: true, Subject: "new-subject"})
		resp, _ := ssoFlow(t, env, "google", orgQuery)
		acc := respCookie(resp, "whm_access")
		if acc == nil {
			t.Fatalf("auto-create: %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		fresh := env.WithToken(acc.Value)
		ids := fresh.Do(http.MethodGet, "/api/me/sso-identities", nil).ExpectStatus(t, http.StatusOK)
		if ids.String("data.identities.0.subject") != "new-subject" {
			t.Fatalf("the created account is not linked: %s", ids.Raw)
		}
		// Auto-creation still never takes over an existing account.
		idp.signIn(idpPerson{Email: agentEmail, Verified: true, Subject: "agent-subject-2"})
		resp, _ = ssoFlow(t, env, "google", orgQuery)
		expectRefused(t, resp, notLinkedGoogle)
	})
}
