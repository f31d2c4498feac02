package rest_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/ent/template"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/internal/apitest"
	"switchboard/internal/testkit"
)

// templateChange is a template webhook delivery of business account
// 987654321 (the webhook env's account).
func templateChange(field, value string) string {
	return fmt.Sprintf(`{"object":"whatsapp_business_account","entry":[{"id":"987654321","time":1700000000,
"changes":[{"field":%q,"value":%s}]}]}`, field, value)
}

func TestTemplateWebhookUpdates(t *testing.T) {
	e := newWebhookEnv(t)
	live := wsDial(t, e.Server.URL, e.Admin, false)
	mustCreateWebhook(t, e.Admin, webhookBody("Templates", "https://hooks.example.com/templates",
		map[string]any{"events": []string{"template:status"}}))
	subscribed := subscribeGraphQL(t, e.Env, `subscription { templateStatusChanged { id status qualityRating category } }`)
	newTpl := func(name, platformID string) *ent.Template {
		t.Helper()
		tp, err := e.Client().Template.Create().SetChatAccount("Main").SetName(name).SetLanguage("en_US").
			SetCategory(template.CategoryMARKETING).SetBodyContent("Hi").SetStatus("PENDING").
			SetProviderTemplateID(platformID).Save(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		return tp
	}
	stored := func(id uuid.UUID) *ent.Template {
		t.Helper()
		tp, err := e.Client().Template.Get(e.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return tp
	}
	promo := newTpl("promo", "1234567890")
	unlinked := newTpl("welcome", "")

	// Another organization that connected the same business account id
	// later receives none of its template changes.
	other := e.NewOrg("Elsewhere")
	otherOrg := uuid.MustParse(other.Do(http.MethodGet, "/api/me", nil).String("data.organization_id"))
	octx := viewer.SystemContext(e.ctx, otherOrg)
	if err := e.Client().Account.Create().SetName("Main").SetPhoneID("222333444555").SetBusinessID("987654321").Exec(octx); err != nil {
		t.Fatal(err)
	}
	theirs, err := e.Client().Template.Create().SetChatAccount("Main").SetName("promo").SetLanguage("en_US").
		SetCategory(template.CategoryMARKETING).SetBodyContent("Hi").SetStatus("PENDING").SetProviderTemplateID("1234567890").Save(octx)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("ErrBadSignature", func(t *testing.T) {
		body := templateChange("message_template_status_update", `{"event":"APPROVED","message_template_id":1234567890}`)
		e.post(t, body, "sha256=00").ExpectError(t, http.StatusUnauthorized)
	})
	t.Run("Approved", func(t *testing.T) {
		body := templateChange("message_template_status_update", `{"event":"APPROVED","message_template_id":1234567890,
"message_template_name":"promo","message_template_language":"en_US","reason":"NONE"}`)
		e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
		ev := wsWaitFor(t, live, events.FrameTemplateStatus)
		if ev.Payload["id"] != promo.ID.String() || ev.Payload["status"] != "APPROVED" || ev.Payload["previous_status"] != "PENDING" {
			t.Errorf("event: %+v", ev)
		}
		if got := stored(promo.ID).Status; got != "APPROVED" {
			t.Errorf("status %s", got)
		}
	})
	t.Run("RejectedByNameAndLanguage", func(t *testing.T) {
		body := templateChange("message_template_status_update", `{"event":"REJECTED","message_template_id":"555","message_template_name":"welcome",
"message_template_language":"en_US","reason":"INCORRECT_CATEGORY"}`)
		e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
		ev := wsWaitFor(t, live, events.FrameTemplateStatus)
		if ev.Payload["id"] != unlinked.ID.String() || ev.Payload["status"] != "REJECTED" || ev.Payload["reason"] != "INCORRECT_CATEGORY" {
			t.Errorf("event: %+v", ev)
		}
		if got := stored(unlinked.ID); got.Status != "REJECTED" || got.ProviderTemplateID != "555" {
			t.Errorf("stored %s %s", got.Status, got.ProviderTemplateID)
		}
	})
	t.Run("Quality", func(t *testing.T) {
		body := templateChange("message_template_quality_update", `{"previous_quality_score":"GREEN","new_quality_score":"YELLOW",
"message_template_id":1234567890,"message_template_name":"promo","message_template_language":"en_US"}`)
		e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
		ev := wsWaitFor(t, live, events.FrameTemplateStatus)
		if ev.Payload["quality_rating"] != "YELLOW" {
			t.Errorf("event: %+v", ev)
		}
	})
	t.Run("Category", func(t *testing.T) {
		body := templateChange("template_category_update", `{"message_template_id":1234567890,"message_template_name":"promo",
"message_template_language":"en_US","previous_category":"MARKETING","new_category":"UTILITY"}`)
		e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
		ev := wsWaitFor(t, live, events.FrameTemplateStatus)
		if ev.Payload["category"] != "UTILITY" {
			t.Errorf("event: %+v", ev)
		}
		e.drained(t)
		if got := stored(promo.ID); got.Category != template.CategoryUTILITY || got.QualityRating != "YELLOW" || got.Status != "APPROVED" {
			t.Errorf("stored %+v", got)
		}
	})
	t.Run("UnknownTemplateAndBusinessIgnored", func(t *testing.T) {
		body := templateChange("message_template_status_update", `{"event":"APPROVED","message_template_id":42,"message_template_name":"nope","message_template_language":"en"}`)
		e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
		unknown := `{"object":"whatsapp_business_account","entry":[{"id":"111","changes":[{"field":"message_template_status_update","value":{"event":"APPROVED","message_template_id":1}}]}]}`
		e.post(t, unknown, "").ExpectStatus(t, http.StatusOK)
		e.drained(t)
	})
	// Four changes: four outbound deliveries and four subscription payloads.
	testkit.Eventually(t, "four template:status deliveries and subscription payloads", func() bool {
		n, err := e.Client().WebhookDelivery.Query().Count(e.ctx)
		return err == nil && n == 4 && len(subscribed()) == 4
	})
	if got := subscribed()[3]; got["id"] != promo.ID.String() || got["category"] != "UTILITY" || got["qualityRating"] != "YELLOW" {
		t.Errorf("last subscription payload: %v", got)
	}
	ds, err := e.Client().WebhookDelivery.Query().All(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.Event != "template:status" {
			t.Errorf("delivery of %s", d.Event)
		}
	}
	tp, err := e.Client().Template.Get(octx, theirs.ID)
	if err != nil {
		t.Fatal(err)
	}
	if tp.Status != "PENDING" || tp.Category != template.CategoryMARKETING || tp.QualityRating != "UNKNOWN" {
		t.Errorf("another organization's template changed: %+v", tp)
	}
}

// subscribeGraphQL subscribes the Admin to one GraphQL subscription over
// graphql-transport-ws and returns a function listing the payloads of its
// one field received so far.
func subscribeGraphQL(t *testing.T, env *apitest.Env, query string) func() []map[string]any {
	t.Helper()
	conn := env.Admin.SubscribeGraphQL(t, query)
	var mu sync.Mutex
	var got []map[string]any
	go func() {
		for {
			var m struct {
				Type    string `json:"type"`
				Payload struct {
					Data map[string]map[string]any `json:"data"`
				} `json:"payload"`
			}
			if conn.ReadJSON(&m) != nil {
				return
			}
			mu.Lock()
			for _, v := range m.Payload.Data {
				got = append(got, v)
			}
			mu.Unlock()
		}
	}()
	return func() []map[string]any {
		mu.Lock()
		defer mu.Unlock()
		return append([]map[string]any(nil), got...)
	}
}
