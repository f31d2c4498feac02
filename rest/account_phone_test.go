package rest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/ent/message"
	"switchboard/ent/rule"
	"switchboard/provider/providertest"
)

// TestAccountPhoneIDBelongsToOneOrganization: an organization that
// registers another organization's phone_id would receive its inbound
// messages; every way of claiming a held phone_id is refused with 409,
// without saying who holds it.
func TestAccountPhoneIDBelongsToOneOrganization(t *testing.T) {
	env, _ := newAccountEnv(t)
	holderID := mustCreateAccount(t, env.Admin, acctBody("Main", nil))
	intruder := env.NewOrg("Intruder Co")
	expectHeldRefusal := func(t *testing.T, res interface{ String(string) string }) {
		t.Helper()
		msg := res.String("message")
		if !strings.Contains(msg, "phone_id") {
			t.Errorf("message %q does not name phone_id", msg)
		}
		for _, hint := range []string{"Main", "Default", env.OrgID.String(), holderID} {
			if strings.Contains(msg, hint) {
				t.Errorf("message %q hints at the holder (%s)", msg, hint)
			}
		}
	}

	t.Run("CreateInAnotherOrganization", func(t *testing.T) {
		res := intruder.Do(http.MethodPost, "/api/accounts", acctBody("Stolen", nil)).ExpectError(t, http.StatusConflict)
		expectHeldRefusal(t, res)
	})
	t.Run("CreateInTheSameOrganization", func(t *testing.T) {
		res := env.Admin.Do(http.MethodPost, "/api/accounts", acctBody("Twin", nil)).ExpectError(t, http.StatusConflict)
		expectHeldRefusal(t, res)
	})
	t.Run("UpdateToAHeldPhoneID", func(t *testing.T) {
		own := mustCreateAccount(t, intruder, acctBody("Own", map[string]any{"phone_id": "222333444555", "business_id": newBusinessID()}))
		res := intruder.Do(http.MethodPut, "/api/accounts/"+own, map[string]any{"phone_id": providertest.PhoneID}).
			ExpectError(t, http.StatusConflict)
		expectHeldRefusal(t, res)
		got := intruder.Do(http.MethodGet, "/api/accounts/"+own, nil).ExpectStatus(t, http.StatusOK)
		if p := got.String("data.phone_id"); p != "222333444555" {
			t.Errorf("refused update left phone_id %q", p)
		}
	})
	t.Run("GraphQL", func(t *testing.T) {
		res := intruder.GraphQL(`mutation($in: CreateAccountInput!) { createAccount(input: $in) { id } }`, map[string]any{"in": map[string]any{
			"name": "Stolen", "phoneID": providertest.PhoneID, "businessID": providertest.BusinessID, "accessToken": acctToken,
		}})
		if code := res.GraphQLErrorCode(); code != "conflict" {
			t.Fatalf("code %q, want conflict: %s", code, res.Raw)
		}
	})
	t.Run("FreedWhenTheHolderDisconnects", func(t *testing.T) {
		env.Admin.Do(http.MethodDelete, "/api/accounts/"+holderID, nil).ExpectStatus(t, http.StatusOK)
		mustCreateAccount(t, intruder, acctBody("Now mine", nil))
	})
}

// TestWebhookIgnoresSetAsideAccount: an account the uniqueness migration
// set aside (it holds no phone_id) receives nothing; the holder does.
func TestWebhookIgnoresSetAsideAccount(t *testing.T) {
	env := newWebhookEnv(t)
	other := env.NewOrg("Legacy Co")
	otherOrg := other.OrgID
	ctx := rule.Bypass(context.Background(), "test fixture: a row from before the uniqueness migration")
	_, err := env.App.DB.SQL.ExecContext(ctx, `INSERT INTO accounts (id, created_at, updated_at, name, phone_id, business_id, status, organization_id, app_secret_encrypted)
		VALUES ($1, now(), now(), 'Legacy', $2, '987654321', 'suspended', $3, $4)`,
		uuid.New(), testPhoneID, otherOrg, env.App.Resolver.Secrets.Seal([]byte("legacy-secret")))
	if err != nil {
		t.Fatal(err)
	}
	body := messagesPayload("4915112345678", "Ana", textMessage("4915112345678", "wamid.SETASIDE1", time.Now().Unix(), "hello"))
	env.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
	env.drained(t)
	msgs, err := env.Client().Message.Query().Where(message.ChatMessageID("wamid.SETASIDE1")).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].OrganizationID != env.OrgID {
		t.Fatalf("message stored %d times (%v); want once, in the holder's organization", len(msgs), msgs)
	}
}
