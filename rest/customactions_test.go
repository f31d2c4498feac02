package rest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"switchboard/access"
	"switchboard/ent/customaction"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
)

var customActionKeys = []string{"id", "name", "icon", "action_type", "config", "has_headers", "is_active", "display_order", "created_at", "updated_at"}

// noRedirects is an HTTP client that returns 3xx answers as they are.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// redeem opens a redirect path as a browser's new tab would: no
// credentials.
func redeem(t *testing.T, env *apitest.Env, path string) *http.Response {
	t.Helper()
	resp, err := noRedirects.Get(env.Server.URL + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// receivedCall is what the fake webhook receiver saw.
type receivedCall struct {
	Method, Path, Query, ContentType, Header string
	Body                                     []byte
}

func TestCustomActions(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	manager := env.NewUser(env.OrgID, access.RoleManager)
	other := env.NewOrg("Elsewhere")
	contactID := admin.Do(http.MethodPost, "/api/contacts", map[string]any{
		"phone_number": "+15550003001", "profile_name": `Ann "Q" O'Neil & Co/x?y`,
	}).ExpectStatus(t, http.StatusCreated).String("data.id")
	theirContact := newContact(t, other, "+15550003002")

	calls := make(chan receivedCall, 10)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		calls <- receivedCall{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery,
			ContentType: r.Header.Get("Content-Type"), Header: r.Header.Get("X-Crm-Key"), Body: body}
		if strings.HasPrefix(r.URL.Path, "/fail") {
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte(`{"error":"down"}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ticket":"T-1"}`))
	}))
	defer receiver.Close()

	var webhookID, urlID, jsID string
	t.Run("Create", func(t *testing.T) {
		res := admin.Do(http.MethodPost, "/api/custom-actions", map[string]any{
			"name": "  Create ticket ", "icon": "ticket", "action_type": "webhook",
			"config": map[string]any{
				"url": receiver.URL + "/hook/{{contact.id}}?name={{contact.profile_name}}", "method": "post",
				"headers": map[string]any{"X-CRM-Key": "k1"},
				"body":    `{"name":"{{contact.profile_name}}","phone":"{{contact.phone_number}}","by":"{{user.email}}","org":"{{organization.name}}","role":"{{user.role}}"}`,
			},
		}).ExpectStatus(t, http.StatusCreated)
		expectKeys(t, res, "data", customActionKeys...)
		webhookID = res.String("data.id")
		if res.String("data.name") != "Create ticket" || res.String("data.config.method") != "POST" ||
			res.Get("data.is_active") != true || res.Number("data.display_order") != 0 {
			t.Fatalf("webhook action: %s", res.Raw)
		}
		res = manager.Do(http.MethodPost, "/api/custom-actions", nil)
		res.ExpectError(t, http.StatusForbidden)
		res = admin.Do(http.MethodPost, "/api/custom-actions", map[string]any{
			"name": "Open CRM", "action_type": "url", "display_order": 2,
			"config": map[string]any{"url": "https://crm.example.com/c/{{contact.phone_number}}?q={{contact.profile_name}}"},
		}).ExpectStatus(t, http.StatusCreated)
		urlID = res.String("data.id")
		if res.String("data.icon") != "zap" || res.Get("data.config.open_in_new_tab") != true {
			t.Fatalf("url action: %s", res.Raw)
		}
		res = admin.Do(http.MethodPost, "/api/custom-actions", map[string]any{
			"name": "Copy", "icon": "code", "action_type": "javascript", "is_active": true, "display_order": 1,
			"config": map[string]any{"code": "navigator.clipboard.writeText(context.contact.phone_number)"},
		}).ExpectStatus(t, http.StatusCreated)
		jsID = res.String("data.id")

		long := strings.Repeat("a", 101)
		badRequests(t, admin, http.MethodPost, "/api/custom-actions", map[string]any{
			"ErrMalformedJSON":     "{",
			"ErrEmptyBody":         "",
			"ErrNameMissing":       `{"action_type":"url","config":{"url":"https://a.example"}}`,
			"ErrNameBlank":         `{"name":" ","action_type":"url","config":{"url":"https://a.example"}}`,
			"ErrNameTooLong":       `{"name":"` + long + `","action_type":"url","config":{"url":"https://a.example"}}`,
			"ErrTypeMissing":       `{"name":"x","config":{"url":"https://a.example"}}`,
			"ErrTypeUnknown":       `{"name":"x","action_type":"shell","config":{"url":"https://a.example"}}`,
			"ErrIconUnknown":       `{"name":"x","icon":"skull","action_type":"url","config":{"url":"https://a.example"}}`,
			"ErrConfigMissing":     `{"name":"x","action_type":"url"}`,
			"ErrConfigNotObject":   `{"name":"x","action_type":"url","config":"https://a.example"}`,
			"ErrURLMissing":        `{"name":"x","action_type":"url","config":{}}`,
			"ErrURLScheme":         `{"name":"x","action_type":"url","config":{"url":"javascript:alert(1)"}}`,
			"ErrURLFile":           `{"name":"x","action_type":"url","config":{"url":"file:///etc/passwd"}}`,
			"ErrURLNoHost":         `{"name":"x","action_type":"url","config":{"url":"https:///x"}}`,
			"ErrURLUserInfo":       `{"name":"x","action_type":"url","config":{"url":"https://u:p@a.example"}}`,
			"ErrUnknownConfigKey":  `{"name":"x","action_type":"url","config":{"url":"https://a.example","code":"1"}}`,
			"ErrNewTabWrongType":   `{"name":"x","action_type":"url","config":{"url":"https://a.example","open_in_new_tab":"yes"}}`,
			"ErrWebhookScheme":     `{"name":"x","action_type":"webhook","config":{"url":"ftp://a.example"}}`,
			"ErrWebhookMethod":     `{"name":"x","action_type":"webhook","config":{"url":"https://a.example","method":"DELETE"}}`,
			"ErrWebhookHeaderName": `{"name":"x","action_type":"webhook","config":{"url":"https://a.example","headers":{"Bad Name":"v"}}}`,
			"ErrWebhookHeaderHost": `{"name":"x","action_type":"webhook","config":{"url":"https://a.example","headers":{"Host":"v"}}}`,
			"ErrWebhookHeaderType": `{"name":"x","action_type":"webhook","config":{"url":"https://a.example","headers":{"X":1}}}`,
			"ErrWebhookBodyType":   `{"name":"x","action_type":"webhook","config":{"url":"https://a.example","body":{}}}`,
			"ErrWebhookBodyLong": map[string]any{"name": "x", "action_type": "webhook",
				"config": map[string]any{"url": "https://a.example", "body": strings.Repeat("b", 16<<10+1)}},
			"ErrTooManyHeaders": map[string]any{"name": "x", "action_type": "webhook",
				"config": map[string]any{"url": "https://a.example", "headers": manyHeaders(21)}},
			"ErrCodeMissing":       `{"name":"x","action_type":"javascript","config":{}}`,
			"ErrCodeNUL":           `{"name":"x","action_type":"javascript","config":{"code":"a\u0000"}}`,
			"ErrDisplayOrderRange": `{"name":"x","action_type":"url","display_order":2000000,"config":{"url":"https://a.example"}}`,
		})
		env.Anonymous().Do(http.MethodPost, "/api/custom-actions", map[string]any{"name": "x"}).ExpectError(t, http.StatusUnauthorized)
	})

	t.Run("ListAndGet", func(t *testing.T) {
		res := agent.Do(http.MethodGet, "/api/custom-actions", nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.custom_actions") != 3 || res.Number("data.total") != 3 || res.Number("data.limit") != 50 ||
			res.Number("data.page") != 1 || res.String("data.custom_actions.0.id") != webhookID ||
			res.String("data.custom_actions.1.id") != jsID || res.String("data.custom_actions.2.id") != urlID {
			t.Fatalf("list: %s", res.Raw)
		}
		expectKeys(t, res, "data.custom_actions.0", customActionKeys...)
		res = agent.Do(http.MethodGet, "/api/custom-actions?search=CRM&limit=1", nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.custom_actions") != 1 || res.Number("data.total") != 1 || res.String("data.custom_actions.0.id") != urlID {
			t.Fatalf("search: %s", res.Raw)
		}
		res = agent.Do(http.MethodGet, "/api/custom-actions?page=2&limit=2", nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.custom_actions") != 1 || res.Number("data.total") != 3 {
			t.Fatalf("page 2: %s", res.Raw)
		}
		if res := other.Do(http.MethodGet, "/api/custom-actions", nil).ExpectStatus(t, http.StatusOK); res.Number("data.total") != 0 {
			t.Fatalf("another organization sees: %s", res.Raw)
		}
		agent.Do(http.MethodGet, "/api/custom-actions?limit=0", nil).ExpectError(t, http.StatusBadRequest)
		agent.Do(http.MethodGet, "/api/custom-actions?search="+strings.Repeat("s", 201), nil).ExpectError(t, http.StatusBadRequest)
		res = agent.Do(http.MethodGet, "/api/custom-actions/"+webhookID, nil).ExpectStatus(t, http.StatusOK)
		expectKeys(t, res, "data", customActionKeys...)
		other.Do(http.MethodGet, "/api/custom-actions/"+webhookID, nil).ExpectError(t, http.StatusNotFound)
		agent.Do(http.MethodGet, "/api/custom-actions/not-a-uuid", nil).ExpectError(t, http.StatusBadRequest)
		agent.Do(http.MethodGet, "/api/custom-actions/"+contactID, nil).ExpectError(t, http.StatusNotFound)
		env.Anonymous().Do(http.MethodGet, "/api/custom-actions", nil).ExpectError(t, http.StatusUnauthorized)
	})

	t.Run("Update", func(t *testing.T) {
		res := admin.Do(http.MethodPut, "/api/custom-actions/"+jsID, map[string]any{"display_order": 5, "icon": "globe"}).
			ExpectStatus(t, http.StatusOK)
		if res.Number("data.display_order") != 5 || res.String("data.icon") != "globe" || res.String("data.name") != "Copy" ||
			res.String("data.action_type") != "javascript" {
			t.Fatalf("update: %s", res.Raw)
		}
		// A new type needs a config of that type.
		admin.Do(http.MethodPut, "/api/custom-actions/"+jsID, map[string]any{"action_type": "url"}).ExpectError(t, http.StatusBadRequest)
		agent.Do(http.MethodPut, "/api/custom-actions/"+jsID, map[string]any{"name": "x"}).ExpectError(t, http.StatusForbidden)
		manager.Do(http.MethodPut, "/api/custom-actions/"+jsID, map[string]any{"name": "x"}).ExpectError(t, http.StatusForbidden)
		other.Do(http.MethodPut, "/api/custom-actions/"+jsID, map[string]any{"name": "x"}).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodPut, "/api/custom-actions/not-a-uuid", map[string]any{"name": "x"}).ExpectError(t, http.StatusBadRequest)
		badRequests(t, admin, http.MethodPut, "/api/custom-actions/"+urlID, map[string]any{
			"ErrMalformedJSON": "{",
			"ErrNameBlank":     `{"name":""}`,
			"ErrIcon":          `{"icon":"nope"}`,
			"ErrConfig":        `{"config":{"url":"gopher://x"}}`,
			"ErrWrongType":     `{"is_active":"yes"}`,
		})
	})

	t.Run("ExecuteWebhook", func(t *testing.T) {
		res := agent.Do(http.MethodPost, "/api/custom-actions/"+webhookID+"/execute", map[string]any{"contact_id": contactID}).
			ExpectStatus(t, http.StatusOK)
		if res.Get("data.success") != true || res.String("data.data.ticket") != "T-1" || res.String("data.toast.type") != "success" ||
			res.String("data.message") == "" {
			t.Fatalf("execute: %s", res.Raw)
		}
		call := <-calls
		if call.Method != http.MethodPost || call.ContentType != "application/json" || call.Header != "k1" ||
			call.Path != "/hook/"+contactID || call.Query != "name=Ann%20%22Q%22%20O%27Neil%20%26%20Co%2Fx%3Fy" {
			t.Fatalf("call: %+v", call)
		}
		var body map[string]string
		if err := json.Unmarshal(call.Body, &body); err != nil {
			t.Fatalf("the rendered body is not JSON: %v: %s", err, call.Body)
		}
		if body["name"] != `Ann "Q" O'Neil & Co/x?y` || body["phone"] != "15550003001" || !strings.Contains(body["by"], "@") || body["role"] != "Agent" ||
			body["org"] != "Default" {
			t.Fatalf("body: %s", call.Body)
		}
		if len(body) != 5 {
			t.Fatalf("a value added members: %s", call.Body)
		}

		// A receiver's error is reported, not raised.
		admin.Do(http.MethodPut, "/api/custom-actions/"+webhookID, map[string]any{
			"config": map[string]any{"url": receiver.URL + "/fail", "method": "GET", "body": `{"x":1}`},
		}).ExpectStatus(t, http.StatusOK)
		res = agent.Do(http.MethodPost, "/api/custom-actions/"+webhookID+"/execute", map[string]any{"contact_id": contactID}).
			ExpectStatus(t, http.StatusOK)
		if res.Get("data.success") != false || res.String("data.toast.type") != "error" || res.String("data.data.error") != "down" {
			t.Fatalf("failed call: %s", res.Raw)
		}
		if call := <-calls; call.Method != http.MethodGet || len(call.Body) != 0 {
			t.Fatalf("GET call: %+v", call)
		}

		path := "/api/custom-actions/" + webhookID + "/execute"
		agent.Do(http.MethodPost, path, map[string]any{"contact_id": theirContact}).ExpectError(t, http.StatusNotFound)
		agent.Do(http.MethodPost, "/api/custom-actions/"+contactID+"/execute", map[string]any{"contact_id": contactID}).
			ExpectError(t, http.StatusNotFound)
		other.Do(http.MethodPost, path, map[string]any{"contact_id": theirContact}).ExpectError(t, http.StatusNotFound)
		badRequests(t, agent, http.MethodPost, path, map[string]any{
			"ErrMalformedJSON":   "{",
			"ErrContactMissing":  `{}`,
			"ErrContactNotUUID":  `{"contact_id":"nope"}`,
			"ErrContactWrongTyp": `{"contact_id":5}`,
		})
		agent.Do(http.MethodPost, "/api/custom-actions/x/execute", map[string]any{"contact_id": contactID}).ExpectError(t, http.StatusBadRequest)
		env.Anonymous().Do(http.MethodPost, path, map[string]any{"contact_id": contactID}).ExpectError(t, http.StatusUnauthorized)
		// An inactive action is not run.
		admin.Do(http.MethodPut, "/api/custom-actions/"+webhookID, map[string]any{"is_active": false}).ExpectStatus(t, http.StatusOK)
		agent.Do(http.MethodPost, path, map[string]any{"contact_id": contactID}).ExpectError(t, http.StatusBadRequest)
	})

	t.Run("ExecuteJavaScript", func(t *testing.T) {
		res := agent.Do(http.MethodPost, "/api/custom-actions/"+jsID+"/execute", map[string]any{"contact_id": contactID}).
			ExpectStatus(t, http.StatusOK)
		if res.Get("data.success") != true || res.String("data.data.code") != "navigator.clipboard.writeText(context.contact.phone_number)" ||
			res.String("data.data.context.contact.phone_number") != "15550003001" ||
			res.String("data.data.context.user.id") != agent.UserID.String() || res.String("data.data.context.user.role") != "Agent" ||
			res.String("data.data.context.organization.id") != env.OrgID.String() || res.String("data.data.context.organization.name") != "Default" {
			t.Fatalf("javascript: %s", res.Raw)
		}
		expectKeys(t, res, "data", "success", "message", "data", "toast")
	})

	t.Run("ExecuteURLAndRedirect", func(t *testing.T) {
		res := agent.Do(http.MethodPost, "/api/custom-actions/"+urlID+"/execute", map[string]any{"contact_id": contactID}).
			ExpectStatus(t, http.StatusOK)
		redirect := res.String("data.redirect_url")
		if res.Get("data.success") != true || !strings.HasPrefix(redirect, "/api/custom-actions/redirect/") {
			t.Fatalf("url: %s", res.Raw)
		}
		resp := redeem(t, env, redirect)
		want := "https://crm.example.com/c/15550003001?q=Ann%20%22Q%22%20O%27Neil%20%26%20Co%2Fx%3Fy"
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != want {
			t.Fatalf("redirect: %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		if resp := redeem(t, env, redirect); resp.StatusCode != http.StatusGone {
			t.Fatalf("second use: %d", resp.StatusCode)
		}
		if resp := redeem(t, env, "/api/custom-actions/redirect/never-issued-token"); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("unknown token: %d", resp.StatusCode)
		}
		if resp := redeem(t, env, "/api/custom-actions/redirect/"+strings.Repeat("t", 300)); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("long token: %d", resp.StatusCode)
		}
	})

	t.Run("RedirectSingleUseUnderConcurrency", func(t *testing.T) {
		res := agent.Do(http.MethodPost, "/api/custom-actions/"+urlID+"/execute", map[string]any{"contact_id": contactID}).
			ExpectStatus(t, http.StatusOK)
		redirect := res.String("data.redirect_url")
		const n = 32
		var found, gone, others atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				resp, err := noRedirects.Get(env.Server.URL + redirect)
				if err != nil {
					others.Add(1)
					return
				}
				resp.Body.Close()
				switch resp.StatusCode {
				case http.StatusFound:
					found.Add(1)
				case http.StatusGone:
					gone.Add(1)
				default:
					others.Add(1)
				}
			}()
		}
		close(start)
		wg.Wait()
		if found.Load() != 1 || gone.Load() != n-1 || others.Load() != 0 {
			t.Fatalf("302: %d, 410: %d, other: %d", found.Load(), gone.Load(), others.Load())
		}
	})

	t.Run("Delete", func(t *testing.T) {
		agent.Do(http.MethodDelete, "/api/custom-actions/"+jsID, nil).ExpectError(t, http.StatusForbidden)
		other.Do(http.MethodDelete, "/api/custom-actions/"+jsID, nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodDelete, "/api/custom-actions/nope", nil).ExpectError(t, http.StatusBadRequest)
		res := admin.Do(http.MethodDelete, "/api/custom-actions/"+jsID, nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.status") != "deleted" {
			t.Fatalf("delete: %s", res.Raw)
		}
		admin.Do(http.MethodDelete, "/api/custom-actions/"+jsID, nil).ExpectError(t, http.StatusNotFound)
		agent.Do(http.MethodGet, "/api/custom-actions/"+jsID, nil).ExpectError(t, http.StatusNotFound)
	})

	t.Run("GraphQL", func(t *testing.T) {
		res := admin.GraphQL(`mutation($in: CustomActionInput!) { createCustomAction(input: $in) { id name icon actionType config } }`,
			map[string]any{"in": map[string]any{"name": "GQL", "actionType": "javascript", "config": map[string]any{"code": "1"}}})
		id := res.String("data.createCustomAction.id")
		if id == "" || res.String("data.createCustomAction.icon") != "zap" {
			t.Fatalf("create: %s", res.Raw)
		}
		res = agent.GraphQL(`query { customActions(search: "gql") { total customActions { id } } }`, nil)
		if res.Number("data.customActions.total") != 1 {
			t.Fatalf("list: %s", res.Raw)
		}
		res = agent.GraphQL(`mutation($id: ID!, $c: ID!) { executeCustomAction(id: $id, contactId: $c) { success data redirectUrl } }`,
			map[string]any{"id": id, "c": contactID})
		if res.Get("data.executeCustomAction.success") != true || res.String("data.executeCustomAction.data.code") != "1" {
			t.Fatalf("execute: %s", res.Raw)
		}
		res = agent.GraphQL(`mutation($id: ID!) { deleteCustomAction(id: $id) }`, map[string]any{"id": id})
		if res.GraphQLErrorCode() != "forbidden" {
			t.Fatalf("agent delete: %s", res.Raw)
		}
		res = other.GraphQL(`query($id: ID!) { customAction(id: $id) { id } }`, map[string]any{"id": id})
		if res.GraphQLErrorCode() != "not_found" {
			t.Fatalf("another organization: %s", res.Raw)
		}
	})
}

func manyHeaders(n int) map[string]any {
	h := map[string]any{}
	for i := range n {
		h["X-H"+strings.Repeat("a", i+1)] = "v"
	}
	return h
}

// TestCustomActionWebhookRefusesPrivateAddresses runs with the outbound
// guard on: private destinations are refused when the action is saved,
// and when a stored one is executed (saved under another policy).
func TestCustomActionWebhookRefusesPrivateAddresses(t *testing.T) {
	env := apitest.New(t, apitest.Setting{Name: "OUTBOUND_ALLOW_PRIVATE", Value: "false"})
	admin := env.Admin
	contactID := newContact(t, admin, "+15550003101")
	var hits atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer receiver.Close()

	for name, u := range map[string]string{
		"Loopback": receiver.URL, "Metadata": "http://169.254.169.254/latest/meta-data", "Private": "http://10.0.0.1/x",
		"Localhost": "http://localhost:8080/x",
	} {
		t.Run("Save"+name, func(t *testing.T) {
			admin.Do(http.MethodPost, "/api/custom-actions", map[string]any{
				"name": "x", "action_type": "webhook", "config": map[string]any{"url": u},
			}).ExpectError(t, http.StatusBadRequest)
		})
	}
	t.Run("ExecuteStored", func(t *testing.T) {
		ctx := viewer.SystemContext(context.Background(), env.OrgID)
		a, err := env.Client().CustomAction.Create().SetName("old").SetActionType(customaction.ActionTypeWebhook).
			SetConfig(map[string]any{"url": receiver.URL + "/x", "method": "POST"}).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		res := admin.Do(http.MethodPost, "/api/custom-actions/"+a.ID.String()+"/execute", map[string]any{"contact_id": contactID}).
			ExpectStatus(t, http.StatusOK)
		if res.Get("data.success") != false || !strings.Contains(res.String("data.message"), "destination not allowed") ||
			res.String("data.toast.type") != "error" {
			t.Fatalf("execute: %s", res.Raw)
		}
		if hits.Load() != 0 {
			t.Fatalf("the private receiver was called %d times", hits.Load())
		}
	})
}
