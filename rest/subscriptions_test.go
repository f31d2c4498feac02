package rest_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent/rule"
	"switchboard/internal/apitest"
	"switchboard/internal/testkit"
)

// subscriptionKeys are the spec's Outbound webhook subscription fields.
var subscriptionKeys = []string{"id", "name", "url", "events", "headers", "has_headers", "is_active", "has_secret", "created_at", "updated_at"}

// hookRequest is one request a hookReceiver got.
type hookRequest struct {
	header http.Header
	body   []byte
}

// hookReceiver is an outbound webhook receiver that records requests and
// answers with a settable status.
type hookReceiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []hookRequest
	status int
}

func newHookReceiver(t *testing.T) *hookReceiver {
	t.Helper()
	h := &hookReceiver{status: http.StatusOK}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.got = append(h.got, hookRequest{header: r.Header.Clone(), body: body})
		status := h.status
		h.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hookReceiver) answer(status int) {
	h.mu.Lock()
	h.status = status
	h.mu.Unlock()
}

func (h *hookReceiver) requests() []hookRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookRequest(nil), h.got...)
}

// expectHookSigned checks both signatures of a request against the secret
// the create response showed, recomputing the HMACs here.
func expectHookSigned(t *testing.T, secret string, r hookRequest) {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatalf("secret %q is not whsec_<base64>: %v", secret, err)
	}
	std := hmac.New(sha256.New, key)
	std.Write([]byte(r.header.Get("webhook-id") + "." + r.header.Get("webhook-timestamp") + "." + string(r.body)))
	if got, want := r.header.Get("webhook-signature"), "v1,"+base64.StdEncoding.EncodeToString(std.Sum(nil)); got != want {
		t.Errorf("webhook-signature = %q, want %q", got, want)
	}
	compat := hmac.New(sha256.New, key)
	compat.Write(r.body)
	if got, want := r.header.Get("X-Webhook-Signature"), "sha256="+hex.EncodeToString(compat.Sum(nil)); got != want {
		t.Errorf("X-Webhook-Signature = %q, want %q", got, want)
	}
}

// expectExactKeys fails unless the object at path has exactly keys.
func expectExactKeys(t *testing.T, res *apitest.Response, path string, keys ...string) {
	t.Helper()
	obj, ok := res.Get(path).(map[string]any)
	if !ok {
		t.Fatalf("%s is not an object: %s", path, res.Raw)
	}
	var got []string
	for k := range obj {
		got = append(got, k)
	}
	slices.Sort(got)
	want := slices.Clone(keys)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s keys = %v, want %v", path, got, want)
	}
}

// webhookBody is a valid create body with overrides (nil deletes a key).
func webhookBody(name, url string, overrides map[string]any) map[string]any {
	b := map[string]any{"name": name, "url": url, "events": []string{"contact:created", "message:sent"}}
	for k, v := range overrides {
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
	}
	return b
}

// mustCreateWebhook creates a subscription and returns its id and secret.
func mustCreateWebhook(tb testing.TB, c *apitest.Client, body map[string]any) (string, string) {
	tb.Helper()
	res := c.Do(http.MethodPost, "/api/webhooks", body).ExpectStatus(tb, http.StatusCreated)
	id, secret := res.String("data.id"), res.String("data.secret")
	if _, err := uuid.Parse(id); err != nil || secret == "" {
		tb.Fatalf("created webhook has no id or secret: %s", res.Raw)
	}
	return id, secret
}

func TestWebhookSubscriptions(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin

	t.Run("CreateReturnsSecretOnce", func(t *testing.T) {
		res := admin.Do(http.MethodPost, "/api/webhooks", webhookBody("CRM", "https://hooks.example.com/crm", map[string]any{
			"headers": map[string]string{"Authorization": "Bearer crm-token"},
		})).ExpectStatus(t, http.StatusCreated)
		expectExactKeys(t, res, "data", append(slices.Clone(subscriptionKeys), "secret")...)
		secret := res.String("data.secret")
		if !strings.HasPrefix(secret, "whsec_") || res.Get("data.has_secret") != true || res.Get("data.is_active") != true {
			t.Errorf("create = %s", res.Raw)
		}
		if res.String("data.headers.Authorization") != "Bearer crm-token" || res.Len("data.events") != 2 {
			t.Errorf("headers or events not kept: %s", res.Raw)
		}
		id := res.String("data.id")

		got := admin.Do(http.MethodGet, "/api/webhooks/"+id, nil).ExpectStatus(t, http.StatusOK)
		expectExactKeys(t, got, "data", subscriptionKeys...)
		list := admin.Do(http.MethodGet, "/api/webhooks", nil).ExpectStatus(t, http.StatusOK)
		upd := admin.Do(http.MethodPut, "/api/webhooks/"+id, map[string]any{"name": "CRM 2"}).ExpectStatus(t, http.StatusOK)
		for _, r := range []*apitest.Response{got, list, upd} {
			if strings.Contains(string(r.Raw), secret) || strings.Contains(string(r.Raw), `"secret"`) {
				t.Errorf("the secret is shown again: %s", r.Raw)
			}
		}
		if got.Get("data.has_secret") != true {
			t.Errorf("has_secret = %v", got.Get("data.has_secret"))
		}
		sub, err := env.Client().WebhookSubscription.Get(rule.Bypass(context.Background(), "test inspects storage"), uuid.MustParse(id))
		if err != nil {
			t.Fatal(err)
		}
		expectSealed(t, env, "webhook secret", sub.SecretEncrypted, secret)
	})

	t.Run("CreateWithOwnSecretInactive", func(t *testing.T) {
		res := admin.Do(http.MethodPost, "/api/webhooks", webhookBody("Own", "http://hooks.example.com/own", map[string]any{
			"secret": "my-own-signing-secret", "is_active": false,
		})).ExpectStatus(t, http.StatusCreated)
		if res.String("data.secret") != "my-own-signing-secret" || res.Get("data.is_active") != false {
			t.Errorf("create = %s", res.Raw)
		}
	})

	t.Run("UpdatePartial", func(t *testing.T) {
		id, secret := mustCreateWebhook(t, admin, webhookBody("Partial", "https://hooks.example.com/p", nil))
		res := admin.Do(http.MethodPut, "/api/webhooks/"+id, map[string]any{
			"events": []string{"message:incoming", "message:incoming"}, "is_active": false,
		}).ExpectStatus(t, http.StatusOK)
		expectExactKeys(t, res, "data", subscriptionKeys...)
		if res.String("data.name") != "Partial" || res.String("data.url") != "https://hooks.example.com/p" ||
			res.Len("data.events") != 1 || res.String("data.events.0") != "message:incoming" || res.Get("data.is_active") != false {
			t.Errorf("update = %s", res.Raw)
		}
		res = admin.Do(http.MethodPut, "/api/webhooks/"+id, map[string]any{
			"secret": "rotated-secret-value", "headers": map[string]string{"X-Team": "blue"}, "url": "https://other.example.com/in",
		}).ExpectStatus(t, http.StatusOK)
		if strings.Contains(string(res.Raw), "rotated-secret-value") || res.String("data.headers.X-Team") != "blue" ||
			res.String("data.url") != "https://other.example.com/in" {
			t.Errorf("update = %s", res.Raw)
		}
		sub, err := env.Client().WebhookSubscription.Get(rule.Bypass(context.Background(), "test inspects storage"), uuid.MustParse(id))
		if err != nil {
			t.Fatal(err)
		}
		expectSealed(t, env, "rotated secret", sub.SecretEncrypted, "rotated-secret-value")
		if strings.Contains(string(sub.SecretEncrypted), secret) {
			t.Error("the old secret is still stored")
		}
	})

	t.Run("List", func(t *testing.T) {
		org := env.NewOrg("Listing")
		for i := range 3 {
			mustCreateWebhook(t, org, webhookBody("Lister "+strconv.Itoa(i), "https://list-"+strconv.Itoa(i)+".example.com/in", nil))
		}
		res := org.Do(http.MethodGet, "/api/webhooks", nil).ExpectStatus(t, http.StatusOK)
		expectExactKeys(t, res, "data", "webhooks", "available_events", "total", "page", "limit")
		if res.Len("data.webhooks") != 3 || res.Number("data.total") != 3 || res.Number("data.page") != 1 || res.Number("data.limit") != 50 {
			t.Errorf("list = %s", res.Raw)
		}
		expectExactKeys(t, res, "data.webhooks.0", subscriptionKeys...)
		wantEvents := []string{"message:incoming", "message:sent", "contact:created", "transfer:created", "transfer:assigned", "transfer:resumed", "template:status", "campaign:status", "campaign:progress"}
		if res.Len("data.available_events") != len(wantEvents) {
			t.Fatalf("available_events = %v", res.Get("data.available_events"))
		}
		for i, ev := range wantEvents {
			p := "data.available_events." + strconv.Itoa(i)
			expectExactKeys(t, res, p, "value", "label", "description")
			if res.String(p+".value") != ev || res.String(p+".label") == "" || res.String(p+".description") == "" {
				t.Errorf("available event %d = %v, want %s", i, res.Get(p), ev)
			}
		}

		searches := []struct {
			query string
			want  int
		}{
			{"search=lister%201", 1}, {"search=LIST-2.example", 1}, {"search=nothing-matches", 0},
			{"limit=2&page=2", 1}, {"limit=500", 3},
		}
		for _, s := range searches {
			res := org.Do(http.MethodGet, "/api/webhooks?"+s.query, nil).ExpectStatus(t, http.StatusOK)
			if res.Len("data.webhooks") != s.want {
				t.Errorf("%s: %d webhooks, want %d", s.query, res.Len("data.webhooks"), s.want)
			}
		}
		if res := org.Do(http.MethodGet, "/api/webhooks?limit=500", nil); res.Number("data.limit") != 100 {
			t.Errorf("limit = %v, want capped at 100", res.Get("data.limit"))
		}
		org.Do(http.MethodGet, "/api/webhooks?page=0", nil).ExpectError(t, http.StatusBadRequest)
	})

	t.Run("Delete", func(t *testing.T) {
		id, _ := mustCreateWebhook(t, admin, webhookBody("Gone", "https://hooks.example.com/gone", nil))
		res := admin.Do(http.MethodDelete, "/api/webhooks/"+id, nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.message") == "" {
			t.Errorf("delete = %s", res.Raw)
		}
		admin.Do(http.MethodGet, "/api/webhooks/"+id, nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodDelete, "/api/webhooks/"+id, nil).ExpectError(t, http.StatusNotFound)
	})

	t.Run("ManagerAllowed", func(t *testing.T) {
		manager := env.NewUser(env.OrgID, access.RoleManager)
		id, _ := mustCreateWebhook(t, manager, webhookBody("By manager", "https://hooks.example.com/m", nil))
		manager.Do(http.MethodDelete, "/api/webhooks/"+id, nil).ExpectStatus(t, http.StatusOK)
	})
}

func TestWebhookSubscriptionsBadInput(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	url := "https://hooks.example.com/in"
	badRequests(t, admin, http.MethodPost, "/api/webhooks", map[string]any{
		"ErrNameMissing":       webhookBody("", url, map[string]any{"name": nil}),
		"ErrNameBlank":         webhookBody("  ", url, nil),
		"ErrNameTooLong":       webhookBody(strings.Repeat("n", 256), url, nil),
		"ErrURLMissing":        webhookBody("X", "", map[string]any{"url": nil}),
		"ErrURLRelative":       webhookBody("X", "/hooks", nil),
		"ErrURLScheme":         webhookBody("X", "ftp://hooks.example.com/in", nil),
		"ErrURLNotAURL":        webhookBody("X", "not a url", nil),
		"ErrURLCredentials":    webhookBody("X", "https://user:pw@hooks.example.com/", nil),
		"ErrEventsMissing":     webhookBody("X", url, map[string]any{"events": nil}),
		"ErrEventsEmpty":       webhookBody("X", url, map[string]any{"events": []string{}}),
		"ErrEventUnknown":      webhookBody("X", url, map[string]any{"events": []string{"contact:created", "contact:exploded"}}),
		"ErrEventsNotArray":    webhookBody("X", url, map[string]any{"events": "contact:created"}),
		"ErrHeaderReserved":    webhookBody("X", url, map[string]any{"headers": map[string]string{"Content-Type": "text/plain"}}),
		"ErrHeaderSignature":   webhookBody("X", url, map[string]any{"headers": map[string]string{"webhook-signature": "v1,x"}}),
		"ErrHeaderBadName":     webhookBody("X", url, map[string]any{"headers": map[string]string{"X Bad": "v"}}),
		"ErrHeaderNotString":   webhookBody("X", url, map[string]any{"headers": map[string]any{"X-Count": 3}}),
		"ErrHeaderInjection":   webhookBody("X", url, map[string]any{"headers": map[string]string{"X-A": "a\r\nHost: evil"}}),
		"ErrIsActiveNotBool":   webhookBody("X", url, map[string]any{"is_active": "yes"}),
		"ErrSecretTooLong":     webhookBody("X", url, map[string]any{"secret": strings.Repeat("s", 257)}),
		"ErrBodyNotJSON":       "{name:",
		"ErrBodyEmpty":         "",
		"ErrBodyArray":         "[]",
		"ErrBodyTrailingValue": `{"name":"X"} {}`,
	})

	id, _ := mustCreateWebhook(t, admin, webhookBody("Valid", url, nil))
	badRequests(t, admin, http.MethodPut, "/api/webhooks/"+id, map[string]any{
		"UpdateErrNameBlank":    map[string]any{"name": ""},
		"UpdateErrURL":          map[string]any{"url": "gopher://x"},
		"UpdateErrEventsEmpty":  map[string]any{"events": []string{}},
		"UpdateErrEventUnknown": map[string]any{"events": []string{"webhook:test"}},
		"UpdateErrHeader":       map[string]any{"headers": map[string]string{"Host": "x"}},
	})
	t.Run("ErrBadID", func(t *testing.T) {
		admin.Do(http.MethodGet, "/api/webhooks/not-a-uuid", nil).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodPost, "/api/webhooks/"+id+"/deliveries/not-a-uuid/replay", nil).ExpectError(t, http.StatusBadRequest)
	})
	t.Run("UnchangedAfterBadUpdates", func(t *testing.T) {
		res := admin.Do(http.MethodGet, "/api/webhooks/"+id, nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.name") != "Valid" || res.String("data.url") != url || res.Len("data.events") != 2 {
			t.Errorf("webhook changed: %s", res.Raw)
		}
	})
}

func TestWebhookSubscriptionsPrivateURL(t *testing.T) {
	env := apitest.New(t, apitest.Setting{Name: "OUTBOUND_ALLOW_PRIVATE", Value: "false"})
	admin := env.Admin
	private := []string{
		"http://127.0.0.1:8080/hooks", "http://localhost/hooks", "http://10.0.0.5/hooks",
		"http://169.254.169.254/latest/meta-data", "http://[::1]/hooks", "http://192.168.1.10/hooks",
	}
	for _, u := range private {
		t.Run("ErrCreate "+u, func(t *testing.T) {
			res := admin.Do(http.MethodPost, "/api/webhooks", webhookBody("Private", u, nil)).ExpectError(t, http.StatusBadRequest)
			if !strings.Contains(res.String("message"), "not allowed") {
				t.Errorf("message %q does not say the address is refused", res.String("message"))
			}
		})
	}
	id, _ := mustCreateWebhook(t, admin, webhookBody("Public", "https://hooks.example.com/in", nil))
	admin.Do(http.MethodPut, "/api/webhooks/"+id, map[string]any{"url": "http://127.0.0.1/x"}).ExpectError(t, http.StatusBadRequest)
}

func TestWebhookSubscriptionsAccess(t *testing.T) {
	env := apitest.New(t)
	id, _ := mustCreateWebhook(t, env.Admin, webhookBody("Mine", "https://hooks.example.com/in", nil))
	other := env.NewOrg("Other")
	otherID, _ := mustCreateWebhook(t, other, webhookBody("Theirs", "https://hooks.example.com/theirs", nil))
	delivery := uuid.NewString()

	routes := []struct {
		method, path string
		body         any
	}{
		{http.MethodGet, "/api/webhooks", nil},
		{http.MethodPost, "/api/webhooks", webhookBody("X", "https://hooks.example.com/x", nil)},
		{http.MethodGet, "/api/webhooks/{id}", nil},
		{http.MethodPut, "/api/webhooks/{id}", map[string]any{"name": "Renamed"}},
		{http.MethodDelete, "/api/webhooks/{id}", nil},
		{http.MethodPost, "/api/webhooks/{id}/test", nil},
		{http.MethodGet, "/api/webhooks/{id}/deliveries", nil},
		{http.MethodPost, "/api/webhooks/{id}/deliveries/" + delivery + "/replay", nil},
	}
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	for _, r := range routes {
		path := strings.ReplaceAll(r.path, "{id}", id)
		t.Run("Unauthenticated "+r.method+" "+r.path, func(t *testing.T) {
			env.Anonymous().Do(r.method, path, r.body).ExpectError(t, http.StatusUnauthorized)
		})
		t.Run("AgentForbidden "+r.method+" "+r.path, func(t *testing.T) {
			agent.Do(r.method, path, r.body).ExpectError(t, http.StatusForbidden)
		})
		if !strings.Contains(r.path, "{id}") {
			continue
		}
		for name, target := range map[string]string{"Unknown": uuid.NewString(), "OtherOrganization": otherID} {
			t.Run(name+"NotFound "+r.method+" "+r.path, func(t *testing.T) {
				env.Admin.Do(r.method, strings.ReplaceAll(r.path, "{id}", target), r.body).ExpectError(t, http.StatusNotFound)
			})
		}
	}
	t.Run("OtherOrganizationUntouched", func(t *testing.T) {
		res := other.Do(http.MethodGet, "/api/webhooks/"+otherID, nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.name") != "Theirs" {
			t.Errorf("other organization's webhook changed: %s", res.Raw)
		}
		if res := env.Admin.Do(http.MethodGet, "/api/webhooks", nil); slices.Contains(listedIDs(res, "data.webhooks"), otherID) {
			t.Error("another organization's webhook is listed")
		}
	})
}

func TestWebhookSubscriptionTest(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	rcv := newHookReceiver(t)
	id, secret := mustCreateWebhook(t, admin, webhookBody("Tested", rcv.URL+"/in", map[string]any{
		"headers": map[string]string{"X-Receiver-Key": "k1"},
	}))

	t.Run("OK", func(t *testing.T) {
		res := admin.Do(http.MethodPost, "/api/webhooks/"+id+"/test", nil).ExpectStatus(t, http.StatusOK)
		expectExactKeys(t, res, "data", "message")
		reqs := rcv.requests()
		if len(reqs) != 1 {
			t.Fatalf("receiver got %d requests, want 1", len(reqs))
		}
		r := reqs[0]
		expectHookSigned(t, secret, r)
		var body map[string]any
		if err := json.Unmarshal(r.body, &body); err != nil {
			t.Fatal(err)
		}
		if r.header.Get("X-Webhook-Event") != "webhook:test" || body["event"] != "webhook:test" ||
			body["id"] != r.header.Get("webhook-id") || body["organization_id"] != env.OrgID.String() ||
			r.header.Get("X-Receiver-Key") != "k1" || r.header.Get("Content-Type") != "application/json" {
			t.Errorf("test request headers %v, body %s", r.header, r.body)
		}
	})
	t.Run("ErrReceiverStatus", func(t *testing.T) {
		rcv.answer(http.StatusInternalServerError)
		res := admin.Do(http.MethodPost, "/api/webhooks/"+id+"/test", nil).ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "500") {
			t.Errorf("message %q does not name the receiver's status", res.String("message"))
		}
	})
	t.Run("ErrUnreachable", func(t *testing.T) {
		closed := httptest.NewServer(http.NotFoundHandler())
		closed.Close()
		deadID, _ := mustCreateWebhook(t, admin, webhookBody("Dead", closed.URL, nil))
		res := admin.Do(http.MethodPost, "/api/webhooks/"+deadID+"/test", nil).ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "refused") {
			t.Errorf("message %q does not give the network error", res.String("message"))
		}
	})
	if n := len(rcv.requests()); n != 2 {
		t.Errorf("receiver got %d requests, want 2", n)
	}
	stored, err := env.Client().WebhookDelivery.Query().Count(rule.Bypass(context.Background(), "test inspects storage"))
	if err != nil || stored != 0 {
		t.Errorf("test events stored %d deliveries (%v), want none", stored, err)
	}
}

// waitDeliveries polls a webhook's deliveries until cond holds.
func waitDeliveries(t *testing.T, c *apitest.Client, id, what string, cond func(*apitest.Response) bool) *apitest.Response {
	t.Helper()
	var res *apitest.Response
	testkit.Eventually(t, what, func() bool {
		res = c.Do(http.MethodGet, "/api/webhooks/"+id+"/deliveries", nil).ExpectStatus(t, http.StatusOK)
		return cond(res)
	})
	return res
}

// TestContactCreatedWebhook goes from POST /api/contacts to a signed
// contact:created delivery, then through the deliveries list and a replay.
func TestContactCreatedWebhook(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	rcv := newHookReceiver(t)

	// A contact before any subscription: the organization's (empty)
	// subscriptions are now cached, and creating one must invalidate them.
	mustCreateContact(t, admin, map[string]any{"phone_number": "+1 555 000 1000"})
	id, secret := mustCreateWebhook(t, admin, webhookBody("Contacts", rcv.URL+"/contacts", map[string]any{
		"events": []string{"contact:created"},
	}))
	contactID := mustCreateContact(t, admin, map[string]any{"phone_number": "+1 555 000 2000", "profile_name": "Grace"})

	res := waitDeliveries(t, admin, id, "the contact:created delivery", func(r *apitest.Response) bool {
		return r.Len("data.deliveries") == 1 && r.String("data.deliveries.0.status") == "succeeded"
	})
	expectExactKeys(t, res, "data", "deliveries", "total", "page", "limit")
	reqs := rcv.requests()
	if len(reqs) != 1 {
		t.Fatalf("receiver got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	expectHookSigned(t, secret, r)
	var body struct {
		ID             string         `json:"id"`
		Event          string         `json:"event"`
		OrganizationID string         `json:"organization_id"`
		Data           map[string]any `json:"data"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Event != "contact:created" || r.header.Get("X-Webhook-Event") != "contact:created" || body.ID != r.header.Get("webhook-id") ||
		body.OrganizationID != env.OrgID.String() || body.Data["id"] != contactID || body.Data["phone_number"] != "15550002000" ||
		body.Data["profile_name"] != "Grace" {
		t.Errorf("delivery %s with headers %v", r.body, r.header)
	}
	first := "data.deliveries.0."
	if res.String(first+"event_id") != body.ID || res.String(first+"event") != "contact:created" ||
		res.Number(first+"attempt_count") != 1 || res.Len(first+"attempts") != 1 ||
		res.Number(first+"attempts.0.status_code") != 200 || res.String(first+"webhook_id") != id {
		t.Errorf("deliveries = %s", res.Raw)
	}

	t.Run("ReplayAfterGone", func(t *testing.T) {
		rcv.answer(http.StatusGone)
		mustCreateContact(t, admin, map[string]any{"phone_number": "+1 555 000 3000"})
		res := waitDeliveries(t, admin, id, "the failed delivery", func(r *apitest.Response) bool {
			return r.Len("data.deliveries") == 2 && r.String("data.deliveries.0.status") == "failed"
		})
		failedID, eventID := res.String("data.deliveries.0.id"), res.String("data.deliveries.0.event_id")
		if w := admin.Do(http.MethodGet, "/api/webhooks/"+id, nil); w.Get("data.is_active") != false {
			t.Fatalf("410 did not disable the webhook: %s", w.Raw)
		}
		replay := "/api/webhooks/" + id + "/deliveries/" + failedID + "/replay"
		admin.Do(http.MethodPost, replay, nil).ExpectError(t, http.StatusBadRequest) // inactive

		admin.Do(http.MethodPut, "/api/webhooks/"+id, map[string]any{"is_active": true}).ExpectStatus(t, http.StatusOK)
		rcv.answer(http.StatusOK)
		queued := admin.Do(http.MethodPost, replay, nil).ExpectStatus(t, http.StatusOK)
		if queued.String("data.id") != failedID || queued.String("data.status") != "pending" {
			t.Errorf("replay = %s", queued.Raw)
		}
		res = waitDeliveries(t, admin, id, "the replayed delivery", func(r *apitest.Response) bool {
			return r.String("data.deliveries.0.status") == "succeeded"
		})
		if res.Len("data.deliveries.0.attempts") != 2 || res.Number("data.deliveries.0.attempts.1.attempt") != 2 ||
			res.Number("data.deliveries.0.attempts.0.status_code") != 410 {
			t.Errorf("attempts = %v", res.Get("data.deliveries.0.attempts"))
		}
		reqs := rcv.requests()
		last := reqs[len(reqs)-1]
		if len(reqs) != 3 || last.header.Get("webhook-id") != eventID || reqs[1].header.Get("webhook-id") != eventID {
			t.Errorf("replay sent %d requests, last webhook-id %q, want the event id %s", len(reqs), last.header.Get("webhook-id"), eventID)
		}
		expectHookSigned(t, secret, last)
	})

	t.Run("ErrReplayForeign", func(t *testing.T) {
		res := admin.Do(http.MethodGet, "/api/webhooks/"+id+"/deliveries?limit=1&page=2", nil).ExpectStatus(t, http.StatusOK)
		older := res.String("data.deliveries.0.id")
		if res.Len("data.deliveries") != 1 || res.Number("data.total") != 2 || older == "" {
			t.Fatalf("second page = %s", res.Raw)
		}
		otherID, _ := mustCreateWebhook(t, admin, webhookBody("Other", rcv.URL+"/other", nil))
		admin.Do(http.MethodPost, "/api/webhooks/"+otherID+"/deliveries/"+older+"/replay", nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodPost, "/api/webhooks/"+id+"/deliveries/"+uuid.NewString()+"/replay", nil).ExpectError(t, http.StatusNotFound)
	})
}
