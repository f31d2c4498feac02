package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/internal/apitest"
	"switchboard/provider/providertest"
)

var templateKeys = []string{"id", "chat_account", "provider_template_id", "name", "display_name", "language", "category",
	"status", "header_type", "header_content", "body_content", "footer_content", "buttons", "sample_values",
	"add_security_recommendation", "code_expiration_minutes", "quality_rating", "created_by_name", "updated_by_name",
	"created_at", "updated_at"}

// tplBody is a valid template create body with overrides (nil deletes).
func tplBody(name string, overrides map[string]any) map[string]any {
	b := map[string]any{
		"chat_account": "Main", "name": name, "language": "en_US", "category": "UTILITY",
		"body_content":  "Hi {{1}}, your order {{2}} has shipped.",
		"sample_values": []string{"Ann", "42"},
	}
	for k, v := range overrides {
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
	}
	return b
}

func newTemplateEnv(t *testing.T) (*apitest.Env, *providertest.Fake, *apitest.Client) {
	t.Helper()
	env, fake := newAccountEnv(t)
	admin := env.NewUser(env.OrgID, access.RoleAdmin)
	mustCreateAccount(t, admin, acctBody("Main", nil))
	return env, fake, admin
}

func TestTemplatesCRUD(t *testing.T) {
	env, _, admin := newTemplateEnv(t)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	manager := env.NewUser(env.OrgID, access.RoleManager)
	other := env.NewOrg("Elsewhere")
	mustCreateAccount(t, other, acctBody("Main", map[string]any{"phone_id": newPhoneID(), "business_id": "555000111222"}))

	var id string
	t.Run("Create", func(t *testing.T) {
		res := admin.Do(http.MethodPost, "/api/templates", tplBody("order_shipped", map[string]any{
			"header_type": "TEXT", "header_content": "Order from {{1}}", "footer_content": "Reply STOP to opt out",
			"sample_values": []string{"Ann", "42", "ACME"},
			"buttons": []map[string]any{
				{"type": "URL", "text": "Track", "url": "https://shop.example/track/{{1}}", "example": "42"},
				{"type": "QUICK_REPLY", "text": "Thanks"},
			},
		})).ExpectStatus(t, http.StatusCreated)
		expectKeys(t, res, "data", templateKeys...)
		id = res.String("data.id")
		for path, want := range map[string]any{
			"data.status": "DRAFT", "data.quality_rating": "UNKNOWN", "data.provider_template_id": "",
			"data.display_name": "order_shipped", "data.header_type": "TEXT", "data.chat_account": "Main",
			"data.buttons.0.type": "URL", "data.buttons.1.text": "Thanks", "data.sample_values.2": "ACME",
			"data.created_by_name": "Admin User", "data.code_expiration_minutes": nil,
		} {
			if got := res.Get(path); got != want {
				t.Errorf("%s = %#v, want %#v", path, got, want)
			}
		}
	})
	t.Run("ErrDuplicate", func(t *testing.T) {
		res := admin.Do(http.MethodPost, "/api/templates", tplBody("order_shipped", map[string]any{"sample_values": []string{"a", "b"}})).
			ExpectError(t, http.StatusConflict)
		if !strings.Contains(res.String("message"), "already has a template") {
			t.Errorf("message: %s", res.Raw)
		}
		// Another language is another template.
		admin.Do(http.MethodPost, "/api/templates", tplBody("order_shipped", map[string]any{"language": "es"})).
			ExpectStatus(t, http.StatusCreated)
		// Another organization has its own names.
		other.Do(http.MethodPost, "/api/templates", tplBody("order_shipped", nil)).ExpectStatus(t, http.StatusCreated)
	})
	t.Run("Authentication", func(t *testing.T) {
		res := manager.Do(http.MethodPost, "/api/templates", map[string]any{
			"chat_account": "Main", "name": "login_code", "language": "en", "category": "AUTHENTICATION",
			"add_security_recommendation": true, "code_expiration_minutes": 10,
		}).ExpectStatus(t, http.StatusCreated)
		if res.Get("data.code_expiration_minutes") != float64(10) || res.Get("data.add_security_recommendation") != true ||
			res.String("data.buttons.0.type") != "OTP" || res.String("data.buttons.0.otp_type") != "COPY_CODE" {
			t.Errorf("authentication template: %s", res.Raw)
		}
	})
	t.Run("ErrAgentCannotWrite", func(t *testing.T) {
		agent.Do(http.MethodPost, "/api/templates", tplBody("agent_one", nil)).ExpectError(t, http.StatusForbidden)
		agent.Do(http.MethodPut, "/api/templates/"+id, tplBody("order_shipped", nil)).ExpectError(t, http.StatusForbidden)
		agent.Do(http.MethodDelete, "/api/templates/"+id, nil).ExpectError(t, http.StatusForbidden)
		agent.Do(http.MethodPost, "/api/templates/"+id+"/publish", nil).ExpectError(t, http.StatusForbidden)
		agent.Do(http.MethodPost, "/api/templates/sync", map[string]any{"chat_account": "Main"}).ExpectError(t, http.StatusForbidden)
		env.Anonymous().Do(http.MethodGet, "/api/templates", nil).ExpectError(t, http.StatusUnauthorized)
	})

	two := []string{"a", "b"}
	long := func(n int) string { return strings.Repeat("x", n) }
	badRequests(t, admin, http.MethodPost, "/api/templates", map[string]any{
		"ErrMalformedJSON":        "{",
		"ErrEmptyBody":            "",
		"ErrNoAccount":            tplBody("a_b", map[string]any{"chat_account": nil}),
		"ErrUnknownAccount":       tplBody("a_b", map[string]any{"chat_account": "Nope"}),
		"ErrNoName":               tplBody("", nil),
		"ErrNameUppercase":        tplBody("Order", nil),
		"ErrNameSpace":            tplBody("order shipped", nil),
		"ErrNameTooLong":          tplBody(strings.Repeat("a", 513), nil),
		"ErrNoLanguage":           tplBody("a_b", map[string]any{"language": ""}),
		"ErrBadLanguage":          tplBody("a_b", map[string]any{"language": "english!"}),
		"ErrNoCategory":           tplBody("a_b", map[string]any{"category": nil}),
		"ErrBadCategory":          tplBody("a_b", map[string]any{"category": "PROMO"}),
		"ErrBadHeaderType":        tplBody("a_b", map[string]any{"header_type": "AUDIO"}),
		"ErrNoBody":               tplBody("a_b", map[string]any{"body_content": nil, "sample_values": nil}),
		"ErrBodyTooLong":          tplBody("a_b", map[string]any{"body_content": "a " + long(1024), "sample_values": nil}),
		"ErrGapInVariables":       tplBody("a_b", map[string]any{"body_content": "Hi {{1}} and {{3}}."}),
		"ErrMixedVariables":       tplBody("a_b", map[string]any{"body_content": "Hi {{1}} and {{name}}."}),
		"ErrMalformedVariable":    tplBody("a_b", map[string]any{"body_content": "Hi {{first name}} x", "sample_values": []string{"a"}}),
		"ErrStartsWithVariable":   tplBody("a_b", map[string]any{"body_content": "{{1}} is here {{2}} ok", "sample_values": two}),
		"ErrMissingSamples":       tplBody("a_b", map[string]any{"sample_values": []string{"a"}}),
		"ErrTooManySamples":       tplBody("a_b", map[string]any{"sample_values": []string{"a", "b", "c"}}),
		"ErrEmptySample":          tplBody("a_b", map[string]any{"sample_values": []string{"a", " "}}),
		"ErrSamplesWrongType":     tplBody("a_b", map[string]any{"sample_values": "a,b"}),
		"ErrTwoHeaderVariables":   tplBody("a_b", map[string]any{"header_type": "TEXT", "header_content": "{{1}} {{2}}", "sample_values": []string{"a", "b", "c", "d"}}),
		"ErrHeaderTextMissing":    tplBody("a_b", map[string]any{"header_type": "TEXT"}),
		"ErrHeaderTextTooLong":    tplBody("a_b", map[string]any{"header_type": "TEXT", "header_content": long(61)}),
		"ErrContentWithoutHeader": tplBody("a_b", map[string]any{"header_content": "x"}),
		"ErrFooterTooLong":        tplBody("a_b", map[string]any{"footer_content": long(61)}),
		"ErrFooterVariable":       tplBody("a_b", map[string]any{"footer_content": "Bye {{1}}"}),
		"ErrSecurityNotAuth":      tplBody("a_b", map[string]any{"add_security_recommendation": true}),
		"ErrExpirationNotAuth":    tplBody("a_b", map[string]any{"code_expiration_minutes": 5}),
		"ErrExpirationZero":       map[string]any{"chat_account": "Main", "name": "otp", "language": "en", "category": "AUTHENTICATION", "code_expiration_minutes": 0},
		"ErrExpiration91":         map[string]any{"chat_account": "Main", "name": "otp", "language": "en", "category": "AUTHENTICATION", "code_expiration_minutes": 91},
		"ErrAuthHeader":           map[string]any{"chat_account": "Main", "name": "otp", "language": "en", "category": "AUTHENTICATION", "header_type": "TEXT", "header_content": "x"},
		"ErrAuthQuickReply":       map[string]any{"chat_account": "Main", "name": "otp", "language": "en", "category": "AUTHENTICATION", "buttons": []map[string]any{{"type": "QUICK_REPLY", "text": "x"}}},
		"ErrAuthOneTap":           map[string]any{"chat_account": "Main", "name": "otp", "language": "en", "category": "AUTHENTICATION", "buttons": []map[string]any{{"type": "OTP", "otp_type": "ONE_TAP"}}},
		"ErrButtonNoType":         tplBody("a_b", map[string]any{"buttons": []map[string]any{{"text": "x"}}}),
		"ErrButtonBadType":        tplBody("a_b", map[string]any{"buttons": []map[string]any{{"type": "CALL", "text": "x"}}}),
		"ErrButtonNoText":         tplBody("a_b", map[string]any{"buttons": []map[string]any{{"type": "QUICK_REPLY"}}}),
		"ErrButtonTextTooLong":    tplBody("a_b", map[string]any{"buttons": []map[string]any{{"type": "QUICK_REPLY", "text": long(26)}}}),
		"ErrElevenButtons":        tplBody("a_b", map[string]any{"buttons": repeatButtons(11)}),
		"ErrThreeURLButtons":      tplBody("a_b", map[string]any{"buttons": []map[string]any{urlButton("https://a.example/"), urlButton("https://b.example/"), urlButton("https://c.example/")}}),
		"ErrTwoPhoneButtons":      tplBody("a_b", map[string]any{"buttons": []map[string]any{phoneButton(), phoneButton()}}),
		"ErrURLTwoVariables":      tplBody("a_b", map[string]any{"buttons": []map[string]any{urlButton("https://a.example/{{1}}/{{2}}")}}),
		"ErrURLVariableInside":    tplBody("a_b", map[string]any{"buttons": []map[string]any{urlButton("https://a.example/{{1}}/x")}}),
		"ErrURLNotHTTP":           tplBody("a_b", map[string]any{"buttons": []map[string]any{urlButton("ftp://a.example/")}}),
		"ErrURLMissing":           tplBody("a_b", map[string]any{"buttons": []map[string]any{{"type": "URL", "text": "Go"}}}),
		"ErrBadPhone":             tplBody("a_b", map[string]any{"buttons": []map[string]any{{"type": "PHONE_NUMBER", "text": "Call", "phone_number": "call me"}}}),
		"ErrCopyCodeNoExample":    tplBody("a_b", map[string]any{"buttons": []map[string]any{{"type": "COPY_CODE"}}}),
		"ErrQuickRepliesSplit":    tplBody("a_b", map[string]any{"buttons": []map[string]any{{"type": "QUICK_REPLY", "text": "a"}, urlButton("https://a.example/"), {"type": "QUICK_REPLY", "text": "b"}}}),
		"ErrNUL":                  tplBody("a_b", map[string]any{"display_name": "a\u0000b"}),
		"ErrCodeWrongType":        tplBody("a_b", map[string]any{"code_expiration_minutes": "ten"}),
	})

	t.Run("List", func(t *testing.T) {
		res := agent.Do(http.MethodGet, "/api/templates", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total") != 3 || res.Len("data.templates") != 3 || res.Number("data.page") != 1 || res.Number("data.limit") != 20 {
			t.Fatalf("list: %s", res.Raw)
		}
		expectKeys(t, res, "data.templates.0", templateKeys...)
		for query, want := range map[string]int{
			"status=DRAFT": 3, "status=APPROVED": 0, "category=AUTHENTICATION": 1, "category=utility": 2,
			"search=SHIPPED": 2, "search=login": 1, "account=Main": 3, "account=Other": 0, "limit=2": 3, "page=2&limit=2": 3,
		} {
			res := agent.Do(http.MethodGet, "/api/templates?"+query, nil).ExpectStatus(t, http.StatusOK)
			if int(res.Number("data.total")) != want {
				t.Errorf("%s: total %v, want %d", query, res.Get("data.total"), want)
			}
		}
		if n := agent.Do(http.MethodGet, "/api/templates?page=2&limit=2", nil).Len("data.templates"); n != 1 {
			t.Errorf("page 2 holds %d templates", n)
		}
		for _, q := range []string{"page=0", "limit=x", "category=PROMO", "search=" + long(201)} {
			agent.Do(http.MethodGet, "/api/templates?"+q, nil).ExpectError(t, http.StatusBadRequest)
		}
		if n := other.Do(http.MethodGet, "/api/templates", nil).Number("data.total"); n != 1 {
			t.Errorf("other organization sees %v templates", n)
		}
	})
	t.Run("Get", func(t *testing.T) {
		res := agent.Do(http.MethodGet, "/api/templates/"+id, nil).ExpectStatus(t, http.StatusOK)
		expectKeys(t, res, "data", templateKeys...)
		other.Do(http.MethodGet, "/api/templates/"+id, nil).ExpectError(t, http.StatusNotFound)
		agent.Do(http.MethodGet, "/api/templates/"+uuid.NewString(), nil).ExpectError(t, http.StatusNotFound)
		agent.Do(http.MethodGet, "/api/templates/nope", nil).ExpectError(t, http.StatusBadRequest)
	})
	t.Run("UpdateDraft", func(t *testing.T) {
		res := manager.Do(http.MethodPut, "/api/templates/"+id, tplBody("order_sent", map[string]any{
			"display_name": "Order sent", "category": "MARKETING",
		})).ExpectStatus(t, http.StatusOK)
		if res.String("data.name") != "order_sent" || res.String("data.category") != "MARKETING" || res.String("data.header_type") != "NONE" ||
			res.Len("data.buttons") != 0 || res.String("data.updated_by_name") != "Manager User" || res.String("data.created_by_name") != "Admin User" {
			t.Fatalf("updated: %s", res.Raw)
		}
		other.Do(http.MethodPut, "/api/templates/"+id, tplBody("x", nil)).ExpectError(t, http.StatusNotFound)
		manager.Do(http.MethodPut, "/api/templates/"+uuid.NewString(), tplBody("x", nil)).ExpectError(t, http.StatusNotFound)
		manager.Do(http.MethodPut, "/api/templates/"+id, tplBody("login_code", map[string]any{"language": "en"})).ExpectError(t, http.StatusConflict)
		badRequests(t, manager, http.MethodPut, "/api/templates/"+id, map[string]any{
			"ErrName":    tplBody("Bad Name", nil),
			"ErrSamples": tplBody("order_sent", map[string]any{"sample_values": []string{}}),
		})
	})
	t.Run("Delete", func(t *testing.T) {
		other.Do(http.MethodDelete, "/api/templates/"+id, nil).ExpectError(t, http.StatusNotFound)
		res := admin.Do(http.MethodDelete, "/api/templates/"+id, nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.message") == "" {
			t.Errorf("delete answer: %s", res.Raw)
		}
		admin.Do(http.MethodGet, "/api/templates/"+id, nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodDelete, "/api/templates/"+id, nil).ExpectError(t, http.StatusNotFound)
	})
}

func urlButton(u string) map[string]any {
	return map[string]any{"type": "URL", "text": "Open", "url": u, "example": "x"}
}

func phoneButton() map[string]any {
	return map[string]any{"type": "PHONE_NUMBER", "text": "Call us", "phone_number": "+15550001234"}
}

func repeatButtons(n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{"type": "QUICK_REPLY", "text": "Option"}
	}
	return out
}

func TestTemplatesGraphQL(t *testing.T) {
	env, _, admin := newTemplateEnv(t)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")
	const create = `mutation($in: TemplateInput!) { createTemplate(input: $in) { id name status category qualityRating createdByName sampleValues } }`
	in := map[string]any{"chatAccount": "Main", "name": "welcome_back", "language": "en", "category": "MARKETING",
		"bodyContent": "Welcome back {{1}}!", "sampleValues": []string{"Ann"}}
	res := admin.GraphQL(create, map[string]any{"in": in}).ExpectStatus(t, http.StatusOK)
	id := res.String("data.createTemplate.id")
	if id == "" || res.String("data.createTemplate.status") != "DRAFT" || res.String("data.createTemplate.createdByName") != "Admin User" {
		t.Fatalf("create: %s", res.Raw)
	}
	if code := agent.GraphQL(create, map[string]any{"in": in}).GraphQLErrorCode(); code != "forbidden" {
		t.Errorf("agent create: code %q", code)
	}
	bad := map[string]any{"chatAccount": "Main", "name": "Bad", "language": "en", "category": "MARKETING", "bodyContent": "x"}
	if code := admin.GraphQL(create, map[string]any{"in": bad}).GraphQLErrorCode(); code != "invalid" {
		t.Errorf("bad create: code %q", code)
	}
	list := agent.GraphQL(`{ templates(category: "MARKETING", limit: 5) { total page limit templates { id name createdByName } } }`, nil).
		ExpectStatus(t, http.StatusOK)
	if list.Number("data.templates.total") != 1 || list.String("data.templates.templates.0.id") != id || list.Number("data.templates.limit") != 5 {
		t.Fatalf("list: %s", list.Raw)
	}
	const get = `query($id: ID!) { template(id: $id) { id name } }`
	if code := other.GraphQL(get, map[string]any{"id": id}).GraphQLErrorCode(); code != "not_found" {
		t.Errorf("other tenant get: code %q", code)
	}
	pub := admin.GraphQL(`mutation($id: ID!) { publishTemplate(id: $id) { message providerTemplateID status template { id status providerTemplateID } } }`,
		map[string]any{"id": id}).ExpectStatus(t, http.StatusOK)
	if pub.String("data.publishTemplate.status") != "PENDING" || pub.String("data.publishTemplate.providerTemplateID") == "" ||
		pub.String("data.publishTemplate.template.providerTemplateID") != pub.String("data.publishTemplate.providerTemplateID") {
		t.Fatalf("publish: %s", pub.Raw)
	}
	if code := agent.GraphQL(`mutation { syncTemplates(chatAccount: "Main") }`, nil).GraphQLErrorCode(); code != "forbidden" {
		t.Errorf("agent sync: code %q", code)
	}
	sync := admin.GraphQL(`mutation { syncTemplates(chatAccount: "Main") }`, nil).ExpectStatus(t, http.StatusOK)
	if sync.Number("data.syncTemplates") != 1 {
		t.Fatalf("sync: %s", sync.Raw)
	}
	in["bodyContent"], in["name"] = "Welcome home {{1}}!", "welcome_home"
	const update = `mutation($id: ID!, $in: TemplateInput!) { updateTemplate(id: $id, input: $in) { name bodyContent status } }`
	// A submitted template keeps its name; its body is edited at the platform.
	if code := admin.GraphQL(update, map[string]any{"id": id, "in": in}).GraphQLErrorCode(); code != "invalid" {
		t.Errorf("renaming a submitted template: code %q", code)
	}
	in["name"] = "welcome_back"
	upd := admin.GraphQL(update, map[string]any{"id": id, "in": in}).ExpectStatus(t, http.StatusOK)
	if upd.String("data.updateTemplate.bodyContent") != "Welcome home {{1}}!" || upd.String("data.updateTemplate.status") != "PENDING" {
		t.Fatalf("update: %s", upd.Raw)
	}
	del := admin.GraphQL(`mutation($id: ID!) { deleteTemplate(id: $id) }`, map[string]any{"id": id}).ExpectStatus(t, http.StatusOK)
	if del.Get("data.deleteTemplate") != true {
		t.Fatalf("delete: %s", del.Raw)
	}
	if code := admin.GraphQL(get, map[string]any{"id": id}).GraphQLErrorCode(); code != "not_found" {
		t.Errorf("deleted get: code %q", code)
	}
}
