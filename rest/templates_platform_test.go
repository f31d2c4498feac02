package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"switchboard/access"
	"switchboard/events"
	"switchboard/provider/providertest"
)

func TestTemplatePublishEditDelete(t *testing.T) {
	env, fake, admin := newTemplateEnv(t)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")
	live := wsDial(t, env.Server.URL, admin, false)
	creates := "/" + providertest.BusinessID + "/message_templates"

	id := admin.Do(http.MethodPost, "/api/templates", tplBody("order_shipped", nil)).ExpectStatus(t, http.StatusCreated).String("data.id")
	var platformID string
	t.Run("Publish", func(t *testing.T) {
		other.Do(http.MethodPost, "/api/templates/"+id+"/publish", nil).ExpectError(t, http.StatusNotFound)
		agent.Do(http.MethodPost, "/api/templates/"+id+"/publish", nil).ExpectError(t, http.StatusForbidden)
		res := admin.Do(http.MethodPost, "/api/templates/"+id+"/publish", nil).ExpectStatus(t, http.StatusOK)
		platformID = res.String("data.provider_template_id")
		if platformID == "" || res.String("data.status") != "PENDING" || res.String("data.message") == "" ||
			res.String("data.template.provider_template_id") != platformID || res.String("data.template.status") != "PENDING" {
			t.Fatalf("publish: %s", res.Raw)
		}
		reqs := fake.Find(http.MethodPost, creates)
		if len(reqs) != 1 {
			t.Fatalf("%d creates at the platform", len(reqs))
		}
		expectBody(t, reqs[0].JSON(t).(map[string]any), `{"name":"order_shipped","language":"en_US","category":"UTILITY",
			"components":[{"type":"BODY","text":"Hi {{1}}, your order {{2}} has shipped.","example":{"body_text":[["Ann","42"]]}}]}`)
		expectAuth(t, reqs, "Bearer")
		ev := wsWaitFor(t, live, events.FrameTemplateStatus)
		if ev.Payload["id"] != id || ev.Payload["status"] != "PENDING" || ev.Payload["previous_status"] != "DRAFT" ||
			ev.Payload["provider_template_id"] != platformID {
			t.Errorf("event: %+v", ev)
		}
	})
	t.Run("EditPublished", func(t *testing.T) {
		agent.Do(http.MethodPut, "/api/templates/"+id, tplBody("order_shipped", nil)).ExpectError(t, http.StatusForbidden)
		admin.Do(http.MethodPut, "/api/templates/"+id, tplBody("order_renamed", nil)).ExpectError(t, http.StatusBadRequest)
		res := admin.Do(http.MethodPut, "/api/templates/"+id, tplBody("order_shipped", map[string]any{
			"body_content": "Hello {{1}}, order {{2}} is on its way.", "footer_content": "Thanks",
		})).ExpectStatus(t, http.StatusOK)
		if res.String("data.body_content") != "Hello {{1}}, order {{2}} is on its way." || res.String("data.status") != "PENDING" {
			t.Fatalf("edit: %s", res.Raw)
		}
		reqs := fake.Find(http.MethodPost, "/"+platformID)
		if len(reqs) != 1 {
			t.Fatalf("%d edits at the platform", len(reqs))
		}
		expectBody(t, reqs[0].JSON(t).(map[string]any), `{"components":[
			{"type":"BODY","text":"Hello {{1}}, order {{2}} is on its way.","example":{"body_text":[["Ann","42"]]}},
			{"type":"FOOTER","text":"Thanks"}]}`)
		// A refused edit changes nothing here.
		fake.Script("POST /{id}", providertest.GraphError(http.StatusBadRequest, 100, "Invalid parameter", "Edits are limited"))
		res = admin.Do(http.MethodPut, "/api/templates/"+id, tplBody("order_shipped", map[string]any{"footer_content": "Bye"})).
			ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "Edits are limited") {
			t.Errorf("message: %s", res.Raw)
		}
		if got := admin.Do(http.MethodGet, "/api/templates/"+id, nil).String("data.footer_content"); got != "Thanks" {
			t.Errorf("footer after a refused edit: %q", got)
		}
	})
	t.Run("PublishErrors", func(t *testing.T) {
		dup := admin.Do(http.MethodPost, "/api/templates", tplBody("order_shipped", map[string]any{"language": "en"})).
			ExpectStatus(t, http.StatusCreated).String("data.id")
		fake.Script("POST /{waba}/message_templates", providertest.Response{Status: http.StatusBadRequest, Body: map[string]any{
			"error": map[string]any{"message": "Invalid parameter", "type": "OAuthException", "code": 100, "error_subcode": 2388040,
				"error_user_title": "Body text too long", "error_user_msg": "The body has too many characters."}}})
		res := admin.Do(http.MethodPost, "/api/templates/"+dup+"/publish", nil).ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "The body has too many characters.") {
			t.Errorf("message: %s", res.Raw)
		}
		fake.Script("POST /{waba}/message_templates", providertest.Unavailable(), providertest.Unavailable(),
			providertest.Unavailable(), providertest.Unavailable(), providertest.Unavailable())
		res = admin.Do(http.MethodPost, "/api/templates/"+dup+"/publish", nil).ExpectError(t, http.StatusServiceUnavailable)
		if !strings.Contains(res.String("message"), "Service temporarily unavailable") {
			t.Errorf("message: %s", res.Raw)
		}
		fake.Script("POST /{waba}/message_templates")
		if got := admin.Do(http.MethodGet, "/api/templates/"+dup, nil).String("data.status"); got != "DRAFT" {
			t.Errorf("status after failed publishes: %s", got)
		}
		media := admin.Do(http.MethodPost, "/api/templates", tplBody("with_image", map[string]any{"header_type": "IMAGE"})).
			ExpectStatus(t, http.StatusCreated).String("data.id")
		res = admin.Do(http.MethodPost, "/api/templates/"+media+"/publish", nil).ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "upload-media") {
			t.Errorf("message: %s", res.Raw)
		}
	})
	t.Run("DeletePublished", func(t *testing.T) {
		other.Do(http.MethodDelete, "/api/templates/"+id, nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodDelete, "/api/templates/"+id, nil).ExpectStatus(t, http.StatusOK)
		reqs := fake.Find(http.MethodDelete, creates)
		if len(reqs) != 1 || reqs[0].Query.Get("name") != "order_shipped" || reqs[0].Query.Get("hsm_id") != platformID {
			t.Fatalf("platform deletes: %+v", reqs)
		}
		admin.Do(http.MethodGet, "/api/templates/"+id, nil).ExpectError(t, http.StatusNotFound)
		for _, tp := range fake.Templates() {
			if tp.ID == platformID {
				t.Error("the platform still holds the template")
			}
		}
	})
}

func TestTemplateSync(t *testing.T) {
	env, fake, admin := newTemplateEnv(t)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	// A local draft that the platform also has (created elsewhere) is
	// matched by name and language.
	draft := admin.Do(http.MethodPost, "/api/templates", tplBody("order_shipped", nil)).ExpectStatus(t, http.StatusCreated).String("data.id")
	shippedID := fake.AddTemplate(providertest.Template{Name: "order_shipped", Language: "en_US", Status: "APPROVED", Category: "UTILITY",
		Quality: "GREEN", Components: []map[string]any{
			{"type": "HEADER", "format": "TEXT", "text": "Order {{1}}", "example": map[string]any{"header_text": []any{"A1"}}},
			{"type": "BODY", "text": "Hi {{1}}, order {{2}}.", "example": map[string]any{"body_text": []any{[]any{"Ann", "42"}}}},
			{"type": "BUTTONS", "buttons": []any{map[string]any{"type": "URL", "text": "Track", "url": "https://a.example/{{1}}"}}},
		}})
	fake.AddTemplate(providertest.Template{Name: "login_code", Language: "en", Status: "APPROVED", Category: "AUTHENTICATION",
		Components: []map[string]any{
			{"type": "BODY", "text": "{{1}} is your code.", "add_security_recommendation": true},
			{"type": "FOOTER", "text": "Expires in 5 minutes.", "code_expiration_minutes": 5},
			{"type": "BUTTONS", "buttons": []any{map[string]any{"type": "OTP", "otp_type": "COPY_CODE", "text": "Copy code"}}},
		}})
	for i := range 148 {
		fake.AddTemplate(providertest.Template{Name: fmt.Sprintf("promo_%03d", i), Language: "en", Status: "REJECTED", Category: "MARKETING",
			Components: []map[string]any{{"type": "HEADER", "format": "IMAGE", "example": map[string]any{"header_handle": []any{"https://x/h.jpg"}}},
				{"type": "BODY", "text": "Sale!"}}})
	}
	fake.AddTemplate(providertest.Template{WABA: "999", Name: "not_ours", Language: "en", Status: "APPROVED", Category: "UTILITY",
		Components: []map[string]any{{"type": "BODY", "text": "x"}}})

	agent.Do(http.MethodPost, "/api/templates/sync", map[string]any{"chat_account": "Main"}).ExpectError(t, http.StatusForbidden)
	badRequests(t, admin, http.MethodPost, "/api/templates/sync", map[string]any{
		"ErrNoAccount": `{}`, "ErrUnknownAccount": map[string]any{"chat_account": "Nope"}, "ErrWrongType": `{"chat_account": 1}`,
	})
	res := admin.Do(http.MethodPost, "/api/templates/sync", map[string]any{"chat_account": "Main"}).ExpectStatus(t, http.StatusOK)
	if res.Number("data.count") != 150 || res.String("data.message") == "" {
		t.Fatalf("sync: %s", res.Raw)
	}
	lists := fake.Find(http.MethodGet, "/"+providertest.BusinessID+"/message_templates")
	if len(lists) != 2 || lists[0].Query.Get("after") != "" || lists[1].Query.Get("after") == "" {
		t.Fatalf("list calls: %d", len(lists))
	}
	got := admin.Do(http.MethodGet, "/api/templates/"+draft, nil).ExpectStatus(t, http.StatusOK)
	for path, want := range map[string]any{
		"data.provider_template_id": shippedID, "data.status": "APPROVED", "data.quality_rating": "GREEN",
		"data.header_type": "TEXT", "data.header_content": "Order {{1}}", "data.body_content": "Hi {{1}}, order {{2}}.",
		"data.sample_values.0": "Ann", "data.sample_values.2": "A1", "data.buttons.0.url": "https://a.example/{{1}}",
	} {
		if v := got.Get(path); v != want {
			t.Errorf("%s = %#v, want %#v", path, v, want)
		}
	}
	auth := admin.Do(http.MethodGet, "/api/templates?category=AUTHENTICATION", nil).ExpectStatus(t, http.StatusOK)
	if auth.Number("data.total") != 1 || auth.Get("data.templates.0.code_expiration_minutes") != float64(5) ||
		auth.Get("data.templates.0.add_security_recommendation") != true {
		t.Errorf("authentication template: %s", auth.Raw)
	}
	if n := admin.Do(http.MethodGet, "/api/templates?status=REJECTED&limit=1", nil).Number("data.total"); n != 148 {
		t.Errorf("%v rejected templates", n)
	}
	// A second sync updates in place.
	res = admin.Do(http.MethodPost, "/api/templates/sync", map[string]any{"chat_account": "Main"}).ExpectStatus(t, http.StatusOK)
	if n := admin.Do(http.MethodGet, "/api/templates", nil).Number("data.total"); res.Number("data.count") != 150 || n != 150 {
		t.Errorf("after a second sync: count %v, total %v", res.Get("data.count"), n)
	}
	// The platform's failure is a 503 with its text.
	fake.Script("GET /{waba}/message_templates", providertest.GraphError(http.StatusInternalServerError, 1, "(#1) An unknown error occurred", ""),
		providertest.GraphError(http.StatusInternalServerError, 1, "(#1) An unknown error occurred", ""),
		providertest.GraphError(http.StatusInternalServerError, 1, "(#1) An unknown error occurred", ""),
		providertest.GraphError(http.StatusInternalServerError, 1, "(#1) An unknown error occurred", ""),
		providertest.GraphError(http.StatusInternalServerError, 1, "(#1) An unknown error occurred", ""))
	admin.Do(http.MethodPost, "/api/templates/sync", map[string]any{"chat_account": "Main"}).ExpectError(t, http.StatusServiceUnavailable)
}
