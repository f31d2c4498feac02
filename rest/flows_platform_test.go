package rest_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/flows"
	"switchboard/internal/testkit"
	"switchboard/provider/providertest"
)

func TestFormFlowsPlatform(t *testing.T) {
	e := newSendEnv(t)
	admin, fake := e.Admin, e.fake
	agent := e.NewUser(e.OrgID, access.RoleAgent)
	other := e.NewOrg("Elsewhere")
	creates := "/" + providertest.BusinessID + "/flows"

	id := admin.Do(http.MethodPost, "/api/flows", flowBody(t, "Signup", nil)).ExpectStatus(t, http.StatusCreated).String("data.flow.id")
	var platformID string
	t.Run("Save", func(t *testing.T) {
		agent.Do(http.MethodPost, "/api/flows/"+id+"/save-to-provider", nil).ExpectError(t, http.StatusForbidden)
		other.Do(http.MethodPost, "/api/flows/"+id+"/save-to-provider", nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodPost, "/api/flows/nope/save-to-provider", nil).ExpectError(t, http.StatusBadRequest)
		res := admin.Do(http.MethodPost, "/api/flows/"+id+"/save-to-provider", nil).ExpectStatus(t, http.StatusOK)
		platformID = res.String("data.flow.provider_flow_id")
		if platformID == "" || res.Get("data.flow.has_local_changes") != false || res.String("data.flow.status") != "DRAFT" ||
			!strings.Contains(res.String("data.flow.preview_url"), platformID) || res.String("data.message") == "" {
			t.Fatalf("save: %s", res.Raw)
		}
		reqs := fake.Find(http.MethodPost, creates)
		if len(reqs) != 1 {
			t.Fatalf("%d creates at the platform", len(reqs))
		}
		expectBody(t, reqs[0].JSON(t).(map[string]any), `{"name":"Signup","categories":["CUSTOMER_SUPPORT"]}`)
		expectAuth(t, reqs, "Bearer")
		ups := fake.Find(http.MethodPost, "/"+platformID+"/assets")
		if len(ups) != 1 {
			t.Fatalf("%d asset uploads", len(ups))
		}
		up := ups[0]
		if up.Form["name"] != "flow.json" || up.Form["asset_type"] != "FLOW_JSON" || len(up.Files) != 1 ||
			up.Files[0].Field != "file" || up.Files[0].Filename != "flow.json" || up.Files[0].ContentType != "application/json" {
			t.Fatalf("upload: form %v files %+v", up.Form, up.Files)
		}
		var uploaded map[string]any
		if err := json.Unmarshal(up.Files[0].Data, &uploaded); err != nil || !reflect.DeepEqual(uploaded, flowDoc(t, "Welcome")) {
			t.Fatalf("uploaded flow JSON %s (%v)", up.Files[0].Data, err)
		}
	})
	t.Run("HasLocalChangesExact", func(t *testing.T) {
		res := admin.Do(http.MethodPut, "/api/flows/"+id, map[string]any{"flow_json": flowDoc(t, "Changed")}).ExpectStatus(t, http.StatusOK)
		if res.Get("data.flow.has_local_changes") != true {
			t.Fatalf("after a change: %s", res.Raw)
		}
		res = admin.Do(http.MethodPut, "/api/flows/"+id, map[string]any{"flow_json": flowDoc(t, "Welcome")}).ExpectStatus(t, http.StatusOK)
		if res.Get("data.flow.has_local_changes") != false {
			t.Fatalf("back to the saved flow JSON: %s", res.Raw)
		}
		// The platform holds the name too: a rename is a local change,
		// and stays one through edits of the Flow JSON until saved.
		res = admin.Do(http.MethodPut, "/api/flows/"+id, map[string]any{"name": "Signup form"}).ExpectStatus(t, http.StatusOK)
		if res.Get("data.flow.has_local_changes") != true {
			t.Fatalf("after a rename: %s", res.Raw)
		}
		res = admin.Do(http.MethodPut, "/api/flows/"+id, map[string]any{"flow_json": flowDoc(t, "Welcome")}).ExpectStatus(t, http.StatusOK)
		if res.Get("data.flow.has_local_changes") != true {
			t.Fatalf("a renamed flow with the saved flow JSON: %s", res.Raw)
		}
		admin.Do(http.MethodPut, "/api/flows/"+id, map[string]any{"flow_json": flowDoc(t, "Changed")}).ExpectStatus(t, http.StatusOK)
	})
	t.Run("ValidationErrors", func(t *testing.T) {
		fake.FailNextFlowUpload(map[string]any{
			"error": "INVALID_PROPERTY_VALUE", "error_type": "FLOW_JSON_ERROR", "message": "Invalid value found for property 'label'.",
			"line_start": 12, "line_end": 12, "column_start": 20, "column_end": 32,
			"pointers": []any{map[string]any{"line_start": 12, "line_end": 12, "column_start": 20, "column_end": 32,
				"path": "screens[0].layout.children[0].label"}},
		})
		res := admin.Do(http.MethodPost, "/api/flows/"+id+"/save-to-provider", nil).ExpectError(t, http.StatusBadRequest)
		msg := res.String("message")
		for _, want := range []string{"Invalid value found for property 'label'.", "screens[0] (WELCOME).layout.children[0].label", "line 12, column 20"} {
			if !strings.Contains(msg, want) {
				t.Errorf("message %q lacks %q", msg, want)
			}
		}
		if len(fake.Find(http.MethodPost, creates)) != 1 {
			t.Error("a second save created the flow again")
		}
		res = admin.Do(http.MethodGet, "/api/flows/"+id, nil)
		if res.Get("data.flow.has_local_changes") != true {
			t.Errorf("after a refused save: %s", res.Raw)
		}
		admin.Do(http.MethodPost, "/api/flows/"+id+"/publish", nil).ExpectError(t, http.StatusBadRequest)
		res = admin.Do(http.MethodPost, "/api/flows/"+id+"/save-to-provider", nil).ExpectStatus(t, http.StatusOK)
		if res.Get("data.flow.has_local_changes") != false || res.String("data.flow.provider_flow_id") != platformID {
			t.Fatalf("second save: %s", res.Raw)
		}
		renames := fake.Find(http.MethodPost, "/"+platformID)
		if len(renames) != 1 {
			t.Fatalf("%d metadata updates at the platform, want the rename once", len(renames))
		}
		expectBody(t, renames[0].JSON(t).(map[string]any), `{"name":"Signup form","categories":["CUSTOMER_SUPPORT"]}`)
		if fl := fake.Flows(); len(fl) != 1 || fl[0].Name != "Signup form" {
			t.Errorf("the platform's flows: %+v", fl)
		}
		empty := admin.Do(http.MethodPost, "/api/flows", map[string]any{"chat_account": "Main", "name": "Empty"}).String("data.flow.id")
		admin.Do(http.MethodPost, "/api/flows/"+empty+"/save-to-provider", nil).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodPost, "/api/flows/"+empty+"/publish", nil).ExpectError(t, http.StatusBadRequest)
	})
	t.Run("Publish", func(t *testing.T) {
		agent.Do(http.MethodPost, "/api/flows/"+id+"/publish", nil).ExpectError(t, http.StatusForbidden)
		other.Do(http.MethodPost, "/api/flows/"+id+"/publish", nil).ExpectError(t, http.StatusNotFound)
		res := admin.Do(http.MethodPost, "/api/flows/"+id+"/publish", nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.flow.status") != "PUBLISHED" || res.String("data.flow.id") != id || res.String("data.message") == "" {
			t.Fatalf("publish: %s", res.Raw)
		}
		if n := len(fake.Find(http.MethodPost, "/"+platformID+"/publish")); n != 1 {
			t.Fatalf("%d publishes at the platform", n)
		}
		res = admin.Do(http.MethodPut, "/api/flows/"+id, map[string]any{"name": "x"}).ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "published") {
			t.Errorf("edit published: %s", res.Raw)
		}
		admin.Do(http.MethodPost, "/api/flows/"+id+"/save-to-provider", nil).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodPost, "/api/flows/"+id+"/publish", nil).ExpectError(t, http.StatusBadRequest)
	})
	t.Run("SendAndReply", func(t *testing.T) { testFlowSendAndReply(t, e, id, platformID) })
	t.Run("Deprecate", func(t *testing.T) {
		agent.Do(http.MethodPost, "/api/flows/"+id+"/deprecate", nil).ExpectError(t, http.StatusForbidden)
		other.Do(http.MethodPost, "/api/flows/"+id+"/deprecate", nil).ExpectError(t, http.StatusNotFound)
		res := admin.Do(http.MethodPost, "/api/flows/"+id+"/deprecate", nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.flow.status") != "DEPRECATED" {
			t.Fatalf("deprecate: %s", res.Raw)
		}
		if n := len(fake.Find(http.MethodPost, "/"+platformID+"/deprecate")); n != 1 {
			t.Fatalf("%d deprecations at the platform", n)
		}
		admin.Do(http.MethodPost, "/api/flows/"+id+"/deprecate", nil).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodPut, "/api/flows/"+id, map[string]any{"name": "x"}).ExpectError(t, http.StatusBadRequest)
		c := e.newContact(t, true)
		_, err := e.App.Resolver.Flows.Send(e.ctx, flows.SendInput{ContactID: c.ID, Flow: id, Body: "Fill this in", CTA: "Open"})
		if err == nil || !strings.Contains(err.Error(), "deprecated") {
			t.Fatalf("sending a deprecated flow: %v", err)
		}
		res = admin.Do(http.MethodPost, "/api/flows/"+id+"/duplicate", nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.flow.status") != "DRAFT" || res.String("data.flow.provider_flow_id") != "" {
			t.Fatalf("duplicate of a deprecated flow: %s", res.Raw)
		}
	})
	t.Run("PlatformRefusal", func(t *testing.T) {
		fid := admin.Do(http.MethodPost, "/api/flows", flowBody(t, "Refused", map[string]any{"category": "UTILITY"})).String("data.flow.id")
		fake.Script("POST /{waba}/flows", providertest.GraphError(http.StatusBadRequest, 100, "Invalid parameter", "Flow name is too long"))
		res := admin.Do(http.MethodPost, "/api/flows/"+fid+"/save-to-provider", nil).ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "Flow name is too long") {
			t.Errorf("message: %s", res.Raw)
		}
		res = admin.Do(http.MethodPost, "/api/flows/"+fid+"/save-to-provider", nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.flow.provider_flow_id") == "" {
			t.Errorf("saved after the refusal without a platform id: %s", res.Raw)
		}
		reqs := fake.Find(http.MethodPost, creates)
		expectBody(t, reqs[len(reqs)-1].JSON(t).(map[string]any), `{"name":"Refused","categories":["OTHER"]}`)
	})
	t.Run("Sync", func(t *testing.T) {
		agent.Do(http.MethodPost, "/api/flows/sync", map[string]any{"chat_account": "Main"}).ExpectError(t, http.StatusForbidden)
		admin.Do(http.MethodPost, "/api/flows/sync", map[string]any{}).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodPost, "/api/flows/sync", map[string]any{"chat_account": "Nope"}).ExpectError(t, http.StatusBadRequest)
		before := len(fake.Flows())
		for i := range 120 {
			fake.AddFlow(providertest.Flow{Name: fmt.Sprintf("Remote %03d", i), Status: "PUBLISHED", Categories: []string{"SURVEY"}})
		}
		fake.AddFlow(providertest.Flow{WABA: "999", Name: "Not ours"})
		res := admin.Do(http.MethodPost, "/api/flows/sync", map[string]any{"chat_account": "Main"}).ExpectStatus(t, http.StatusOK)
		// Every flow of the account: the 120 new ones are created; the
		// refused-then-saved one and Signup are known (Signup's rename
		// was pushed to the platform when it was saved: nothing to update).
		if res.Number("data.synced") != float64(before+120) || res.Number("data.created") != 120 ||
			res.Number("data.updated") != 0 || res.String("data.message") == "" {
			t.Fatalf("sync: %s", res.Raw)
		}
		lists := fake.Find(http.MethodGet, creates)
		if len(lists) < 2 || lists[1].Query.Get("after") == "" || lists[0].Query.Get("limit") != "100" {
			t.Fatalf("list calls: %+v", lists)
		}
		got := admin.Do(http.MethodGet, "/api/flows?search=Remote%20007", nil)
		if got.Number("data.total") != 1 || got.String("data.flows.0.status") != "PUBLISHED" ||
			got.String("data.flows.0.category") != "SURVEY" || got.Get("data.flows.0.has_local_changes") != false {
			t.Fatalf("synced flow: %s", got.Raw)
		}
		res = admin.Do(http.MethodPost, "/api/flows/sync", map[string]any{"chat_account": "Main"}).ExpectStatus(t, http.StatusOK)
		if res.Number("data.created") != 0 || res.Number("data.updated") != 0 {
			t.Fatalf("second sync: %s", res.Raw)
		}
	})
	t.Run("PlatformIDUniqueAcrossTenants", func(t *testing.T) {
		mustCreateAccount(t, other, acctBody("Main", map[string]any{"phone_id": newPhoneID(), "business_id": "555000111222"}))
		// The platform lists Signup's flow under the other organization's
		// business account: it stays with the first organization.
		fake.AddFlow(providertest.Flow{ID: platformID, WABA: "555000111222", Name: "Taken", Status: "PUBLISHED", Categories: []string{"OTHER"}})
		res := other.Do(http.MethodPost, "/api/flows/sync", map[string]any{"chat_account": "Main"}).ExpectStatus(t, http.StatusOK)
		if res.Number("data.created") != 0 || res.Number("data.synced") != 0 {
			t.Fatalf("sync of a held flow: %s", res.Raw)
		}
		if n := other.Do(http.MethodGet, "/api/flows", nil).Number("data.total"); n != 0 {
			t.Errorf("the other organization has %v flows", n)
		}
		if got := admin.Do(http.MethodGet, "/api/flows/"+id, nil).String("data.flow.provider_flow_id"); got != platformID {
			t.Errorf("provider_flow_id now %q", got)
		}
	})
}

// testFlowSendAndReply sends the published flow to a contact and feeds
// the contact's nfm_reply through the signed webhook.
func testFlowSendAndReply(t *testing.T, e *sendEnv, id, platformID string) {
	c := e.newContact(t, true)
	draft := e.Admin.Do(http.MethodPost, "/api/flows", flowBody(t, "Draft only", nil)).String("data.flow.id")
	if _, err := e.App.Resolver.Flows.Send(e.ctx, flows.SendInput{ContactID: c.ID, Flow: draft, Body: "b", CTA: "Open"}); err == nil {
		t.Fatal("a draft was sent")
	}
	if _, err := e.App.Resolver.Flows.Send(e.ctx, flows.SendInput{ContactID: c.ID, Flow: id, Body: "b"}); err == nil {
		t.Fatal("sent without a CTA")
	}
	if _, err := e.App.Resolver.Flows.Send(e.ctx, flows.SendInput{ContactID: uuid.New(), Flow: id, Body: "b", CTA: "Open"}); err == nil {
		t.Fatal("sent to an unknown contact")
	}
	// The chatbot's chat_flow node names the flow by its platform id.
	m, err := e.App.Resolver.Flows.Send(e.ctx, flows.SendInput{ContactID: c.ID, Flow: platformID, Header: "Sign up",
		Body: "Tell us about you", CTA: "Open form", Token: "tok-1", Data: map[string]any{"plan": "basic"}})
	if err != nil {
		t.Fatal(err)
	}
	e.waitStatus(t, m.ID.String(), "sent")
	expectBody(t, e.sentTo(t, c.PhoneNumber), fmt.Sprintf(`{"messaging_product":"whatsapp","recipient_type":"individual","to":%q,
		"type":"interactive","interactive":{"type":"flow","header":{"type":"text","text":"Sign up"},"body":{"text":"Tell us about you"},
		"action":{"name":"flow","parameters":{"flow_message_version":"3","flow_token":"tok-1","flow_id":%q,"flow_cta":"Open form",
		"flow_action":"navigate","flow_action_payload":{"screen":"WELCOME","data":{"plan":"basic"}}}}}}`, c.PhoneNumber, platformID))

	reply := fmt.Sprintf(`{"context":{"from":"15550001111","id":"wamid.sent"},"from":%q,"id":"wamid.nfm-1","timestamp":"%d","type":"interactive",
		"interactive":{"type":"nfm_reply","nfm_reply":{"name":"flow","body":"Sent","response_json":"{\"flow_token\":\"tok-1\",\"first_name\":\"Ann\",\"agree\":true}"}}}`,
		c.PhoneNumber, time.Now().Unix())
	body := messagesPayload(c.PhoneNumber, "Ann", reply)
	mac := hmac.New(sha256.New, []byte(acctSecret))
	mac.Write([]byte(body))
	req, _ := http.NewRequest(http.MethodPost, e.Server.URL+"/api/webhook", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	e.Send(req).ExpectStatus(t, http.StatusOK)
	var stored map[string]any
	testkit.Eventually(t, "the form reply stored", func() bool {
		ms, err := e.Client().Message.Query().All(e.ctx)
		if err != nil {
			return false
		}
		for _, m := range ms {
			if m.ChatMessageID != nil && *m.ChatMessageID == "wamid.nfm-1" {
				stored = m.InteractiveData
				return true
			}
		}
		return false
	})
	want := map[string]any{"flow_token": "tok-1", "first_name": "Ann", "agree": true}
	if !reflect.DeepEqual(stored["flow_response"], want) || stored["flow_token"] != "tok-1" || stored["type"] != "nfm_reply" {
		t.Fatalf("stored interactive data: %v", stored)
	}
}
