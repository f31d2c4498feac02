package rest_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"switchboard/access"
	"switchboard/internal/apitest"
	"switchboard/internal/testkit"
)

// TestHeaderValuesWriteOnly: the header values of custom action webhooks
// (a CRM's bearer token) and of outbound webhook subscriptions reach only
// members who may edit them (settings:update, webhooks:update); everyone
// else reads the header names with empty values and has_headers, over
// REST, GraphQL and node(id:). Executing an action still sends the
// values.
func TestHeaderValuesWriteOnly(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	const actionSecret, hookSecret = "Bearer crm-secret-4f1", "wh-secret-9c2"
	received := make(chan string, 1)
	crm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		received <- r.Header.Get("Authorization")
	}))
	defer crm.Close()
	actionID := admin.Do(http.MethodPost, "/api/custom-actions", map[string]any{
		"name": "Ticket", "action_type": "webhook", "config": map[string]any{
			"url": crm.URL + "/t", "headers": map[string]any{"Authorization": actionSecret}},
	}).ExpectStatus(t, http.StatusCreated).String("data.id")
	hookID, _ := mustCreateWebhook(t, admin, webhookBody("CRM", "https://hooks.example.com/crm", map[string]any{
		"headers": map[string]string{"X-Token": hookSecret},
	}))
	admin.Do(http.MethodPost, "/api/roles", map[string]any{"name": "Webhook auditor", "permissions": []string{"webhooks:read"}}).
		ExpectStatus(t, http.StatusCreated)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	manager := env.NewUser(env.OrgID, access.RoleManager)
	auditor := env.NewUser(env.OrgID, "Webhook auditor")

	actionReads := func(c *apitest.Client) []*apitest.Response {
		return []*apitest.Response{
			c.Do(http.MethodGet, "/api/custom-actions", nil).ExpectStatus(t, http.StatusOK),
			c.Do(http.MethodGet, "/api/custom-actions/"+actionID, nil).ExpectStatus(t, http.StatusOK),
			c.GraphQL(`{ customActions { customActions { config } } }`, nil),
			c.GraphQL(`query($id: ID!) { customAction(id: $id) { config } }`, map[string]any{"id": actionID}),
			c.GraphQL(`query($id: ID!) { node(id: $id) { ... on CustomAction { config } } }`, map[string]any{"id": actionID}),
		}
	}
	hookReads := func(c *apitest.Client) []*apitest.Response {
		return []*apitest.Response{
			c.Do(http.MethodGet, "/api/webhooks", nil).ExpectStatus(t, http.StatusOK),
			c.Do(http.MethodGet, "/api/webhooks/"+hookID, nil).ExpectStatus(t, http.StatusOK),
			c.GraphQL(`{ webhookSubscriptions { edges { node { headers } } } }`, nil),
			c.GraphQL(`query($id: ID!) { webhookSubscription(id: $id) { headers } }`, map[string]any{"id": hookID}),
			c.GraphQL(`query($id: ID!) { node(id: $id) { ... on WebhookSubscription { headers } } }`, map[string]any{"id": hookID}),
		}
	}
	// expect checks that every answer names the header and shows its
	// value exactly when visible.
	expect := func(t *testing.T, rs []*apitest.Response, name, secret string, visible bool) {
		t.Helper()
		for _, r := range rs {
			raw := string(r.Raw)
			if errs, _ := r.Body["errors"].([]any); len(errs) > 0 {
				t.Fatalf("GraphQL errors: %s", raw)
			}
			if !strings.Contains(raw, name) || strings.Contains(raw, secret) != visible {
				t.Errorf("name %s shown, value shown %v (want %v): %s", name, strings.Contains(raw, secret), visible, raw)
			}
		}
	}

	t.Run("AgentSeesNoActionHeaderValue", func(t *testing.T) { expect(t, actionReads(agent), "Authorization", actionSecret, false) })
	t.Run("ManagerSeesNoActionHeaderValue", func(t *testing.T) { expect(t, actionReads(manager), "Authorization", actionSecret, false) })
	t.Run("AdminSeesActionHeaderValue", func(t *testing.T) { expect(t, actionReads(admin), "Authorization", actionSecret, true) })
	t.Run("AuditorSeesNoWebhookHeaderValue", func(t *testing.T) { expect(t, hookReads(auditor), "X-Token", hookSecret, false) })
	// A Manager holds webhooks:update: they edit subscriptions (and could
	// point one at their own server), so they see what they edit.
	t.Run("ManagerSeesWebhookHeaderValue", func(t *testing.T) { expect(t, hookReads(manager), "X-Token", hookSecret, true) })
	t.Run("AdminSeesWebhookHeaderValue", func(t *testing.T) { expect(t, hookReads(admin), "X-Token", hookSecret, true) })
	t.Run("AuditorSeesNoValueThroughADelivery", func(t *testing.T) {
		admin.Do(http.MethodPost, "/api/contacts", map[string]any{"phone_number": "+15550004002"}).ExpectStatus(t, http.StatusCreated)
		const q = `query($id: ID!) { webhookDeliveries(subscriptionId: $id) { edges { node { subscription { headers } } } } }`
		var res *apitest.Response
		testkit.Eventually(t, "a delivery of contact:created", func() bool {
			res = auditor.GraphQL(q, map[string]any{"id": hookID})
			return res.Len("data.webhookDeliveries.edges") > 0
		})
		expect(t, []*apitest.Response{res}, "X-Token", hookSecret, false)
	})
	t.Run("AgentReadsNoSubscription", func(t *testing.T) {
		agent.Do(http.MethodGet, "/api/webhooks/"+hookID, nil).ExpectError(t, http.StatusForbidden)
	})
	t.Run("AgentExecutesWithTheValue", func(t *testing.T) {
		contactID := admin.Do(http.MethodPost, "/api/contacts", map[string]any{"phone_number": "+15550004001"}).
			ExpectStatus(t, http.StatusCreated).String("data.id")
		res := agent.Do(http.MethodPost, "/api/custom-actions/"+actionID+"/execute", map[string]any{"contact_id": contactID}).
			ExpectStatus(t, http.StatusOK)
		if res.Get("data.success") != true || <-received != actionSecret {
			t.Fatalf("execute: %s", res.Raw)
		}
	})
	t.Run("HasHeaders", func(t *testing.T) {
		if r := agent.Do(http.MethodGet, "/api/custom-actions/"+actionID, nil); r.Get("data.has_headers") != true ||
			r.String("data.config.headers.Authorization") != "" {
			t.Errorf("action: %s", r.Raw)
		}
		if r := auditor.Do(http.MethodGet, "/api/webhooks/"+hookID, nil); r.Get("data.has_headers") != true ||
			r.String("data.headers.X-Token") != "" {
			t.Errorf("webhook: %s", r.Raw)
		}
	})
}
