package rest_test

import (
	"fmt"
	"net/http"
	"testing"

	"switchboard/access"
	"switchboard/ent/campaign"
	"switchboard/ent/webhookdelivery"
	"switchboard/internal/testkit"
)

func TestCampaignGraphQL(t *testing.T) {
	e := newCampaignEnv(t)
	agent := e.NewUser(e.OrgID, access.RoleAgent)
	e.Admin.Do(http.MethodPost, "/api/webhooks", map[string]any{
		"name": "Campaigns", "url": "http://127.0.0.1:9/hook", "events": []string{"campaign:status", "campaign:progress"},
	}).ExpectStatus(t, http.StatusCreated)

	res := e.Admin.GraphQL(`mutation($t: ID!) { createCampaign(input: {name: "Via GraphQL", chatAccount: "Main", templateId: $t}) {
		id name status templateName totalRecipients } }`, map[string]any{"t": e.tpl.ID.String()})
	id := res.String("data.createCampaign.id")
	if id == "" || res.String("data.createCampaign.status") != "draft" ||
		res.String("data.createCampaign.templateName") != "promo" {
		t.Fatalf("create: %s", res.Raw)
	}
	imp := e.Admin.GraphQL(`mutation($c: ID!, $r: [CampaignRecipientInput!]!) { importCampaignRecipients(campaignId: $c, recipients: $r) {
		imported duplicates invalid errors { index message } } }`, map[string]any{"c": id, "r": []map[string]any{
		{"phoneNumber": "+15559990001", "recipientName": "A", "templateParams": map[string]any{"1": "Ann", "2": "5%"}},
		{"phoneNumber": "+15559990001", "templateParams": map[string]any{"1": "Ann", "2": "5%"}},
		{"phoneNumber": "+15559990002", "templateParams": map[string]any{"1": "Bo", "2": "5%"}},
		{"phoneNumber": "bad"},
	}})
	if imp.Number("data.importCampaignRecipients.imported") != 2 || imp.Number("data.importCampaignRecipients.duplicates") != 1 ||
		imp.Number("data.importCampaignRecipients.invalid") != 1 {
		t.Fatalf("import: %s", imp.Raw)
	}
	list := e.Admin.GraphQL(`{ campaigns(search: "graphql", limit: 5) { total campaigns { id templateName totalRecipients } } }`, nil)
	if list.Number("data.campaigns.total") != 1 || list.String("data.campaigns.campaigns.0.id") != id ||
		list.Number("data.campaigns.campaigns.0.totalRecipients") != 2 {
		t.Fatalf("list: %s", list.Raw)
	}
	recips := e.Admin.GraphQL(`query($c: ID!) { campaignRecipients(campaignId: $c, limit: 1) { total recipients { phoneNumber status } } }`,
		map[string]any{"c": id})
	if recips.Number("data.campaignRecipients.total") != 2 || recips.Len("data.campaignRecipients.recipients") != 1 {
		t.Fatalf("recipients: %s", recips.Raw)
	}

	next := graphqlSubscribe(t, &webhookEnv{Env: e.Env}, fmt.Sprintf(`subscription { campaignProgress(id: %q) {
		id status sentCount totalRecipients } }`, id))
	start := e.Admin.GraphQL(`mutation($c: ID!) { startCampaign(id: $c) { status } }`, map[string]any{"c": id})
	if start.GraphQLErrorCode() != "" {
		t.Fatalf("start: %s", start.Raw)
	}
	for {
		p := next()
		if p["id"] != id {
			t.Fatalf("progress of another campaign: %v", p)
		}
		if p["status"] == "completed" {
			if p["sentCount"] != float64(2) {
				t.Fatalf("completed with %v", p)
			}
			break
		}
	}
	e.waitCampaign(t, id, campaign.StatusCompleted)
	testkit.Eventually(t, "campaign webhooks", func() bool {
		n, err := e.Client().WebhookDelivery.Query().Where(webhookdelivery.EventEQ("campaign:status")).Count(e.ctx)
		return err == nil && n >= 2
	})

	for _, q := range []struct{ who, query, code string }{
		{"admin", `mutation($c: ID!) { pauseCampaign(id: $c) { id } }`, "invalid"},
		{"admin", `mutation($c: ID!) { retryFailedCampaign(id: $c) { retryCount } }`, "invalid"},
		{"admin", `mutation($c: ID!) { updateCampaign(id: $c, input: {name: "x"}) { id } }`, "invalid"},
		{"other", `query($c: ID!) { campaign(id: $c) { id } }`, "not_found"},
		{"other", `mutation($c: ID!) { cancelCampaign(id: $c) { id } }`, "not_found"},
		{"agent", `query($c: ID!) { campaign(id: $c) { id } }`, "forbidden"},
		{"agent", `mutation($c: ID!) { deleteCampaign(id: $c) }`, "forbidden"},
		{"admin", `query { campaigns(limit: 0) { total } }`, "invalid"},
		{"admin", `query { campaigns(status: "running") { total } }`, "invalid"},
	} {
		client := e.Admin
		switch q.who {
		case "other":
			client = e.other
		case "agent":
			client = agent
		}
		if code := client.GraphQL(q.query, map[string]any{"c": id}).GraphQLErrorCode(); code != q.code {
			t.Errorf("%s %s: code %q, want %q", q.who, q.query, code, q.code)
		}
	}
	if del := e.Admin.GraphQL(`mutation($c: ID!) { deleteCampaign(id: $c) }`, map[string]any{"c": id}); del.Get("data.deleteCampaign") != true {
		t.Fatalf("delete: %s", del.Raw)
	}
}
