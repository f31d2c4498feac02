package providertest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"switchboard/provider/providertest"
)

// do sends a raw request to the fake and returns status and decoded JSON.
func do(t *testing.T, f *providertest.Fake, method, path, auth, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, f.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := f.Server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return resp.StatusCode, m
}

func errorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

func TestFakeDefaults(t *testing.T) {
	bearer := "Bearer " + providertest.AccessToken
	msgs := "/v21.0/" + providertest.PhoneID + "/messages"
	text := `{"messaging_product":"whatsapp","to":"1","type":"text","text":{"body":"x"}}`
	tests := []struct {
		name       string
		method     string
		path, auth string
		body       string
		wantStatus int
		wantCode   float64
	}{
		{name: "Send", method: "POST", path: msgs, auth: bearer, body: text, wantStatus: 200},
		{name: "ErrNoToken", method: "POST", path: msgs, body: text, wantStatus: 401, wantCode: 190},
		{name: "ErrOAuthSchemeOnMessages", method: "POST", path: msgs, auth: "OAuth " + providertest.AccessToken, body: text, wantStatus: 401, wantCode: 190},
		{name: "ErrNoVersion", method: "POST", path: "/" + providertest.PhoneID + "/messages", auth: bearer, body: text, wantStatus: 400, wantCode: 2500},
		{name: "ErrNoMessagingProduct", method: "POST", path: msgs, auth: bearer, body: `{"to":"1","type":"text","text":{"body":"x"}}`, wantStatus: 400, wantCode: 100},
		{name: "ErrTypeWithoutObject", method: "POST", path: msgs, auth: bearer, body: `{"messaging_product":"whatsapp","to":"1","type":"image"}`, wantStatus: 400, wantCode: 100},
		{name: "ErrUnknownEdge", method: "POST", path: "/v21.0/" + providertest.PhoneID + "/nope", auth: bearer, wantStatus: 400, wantCode: 100},
		{name: "ErrUploadWithBearer", method: "POST", path: "/v21.0/upload:abc?sig=x", auth: bearer, wantStatus: 401, wantCode: 190},
		{name: "ErrUnknownUploadSession", method: "POST", path: "/v21.0/upload:abc?sig=x", auth: "OAuth t", wantStatus: 400, wantCode: 100},
		{name: "ErrUploadsBadType", method: "POST", path: "/v21.0/" + providertest.AppID + "/uploads?file_length=3&file_type=text/plain", auth: bearer, wantStatus: 400, wantCode: 100},
		{name: "ErrProfileUnknownParam", method: "POST", path: "/v21.0/" + providertest.PhoneID + "/whatsapp_business_profile", auth: bearer,
			body: `{"messaging_product":"whatsapp","colour":"red"}`, wantStatus: 400, wantCode: 100},
		{name: "ErrProfileUnknownHandle", method: "POST", path: "/v21.0/" + providertest.PhoneID + "/whatsapp_business_profile", auth: bearer,
			body: `{"messaging_product":"whatsapp","profile_picture_handle":"4:nope"}`, wantStatus: 400, wantCode: 100},
		{name: "ErrDownloadWithoutToken", method: "GET", path: providertest.DownloadPath + "?mid=1", wantStatus: 401, wantCode: 190},
		{name: "ErrPhoneUnknownField", method: "GET", path: "/v21.0/" + providertest.PhoneID + "?fields=id,colour", auth: bearer, wantStatus: 400, wantCode: 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := providertest.New(t)
			status, body := do(t, f, tt.method, tt.path, tt.auth, tt.body)
			if status != tt.wantStatus || errorCode(body) != tt.wantCode {
				t.Fatalf("got %d %v, want %d code %v", status, body, tt.wantStatus, tt.wantCode)
			}
		})
	}
}

func TestFakeOverrides(t *testing.T) {
	f := providertest.New(t)
	bearer := "Bearer " + providertest.AccessToken
	msgs := "/v21.0/" + providertest.PhoneID + "/messages"
	text := `{"messaging_product":"whatsapp","to":"1","type":"text","text":{"body":"x"}}`

	f.Script("POST /{phone}/messages", providertest.RateLimited(), providertest.NotAllowedRecipient())
	f.Handle("POST /{phone}/messages", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("phone") != providertest.PhoneID || providertest.Version(r) != "v21.0" {
			t.Errorf("handler saw phone %q version %q", r.PathValue("phone"), providertest.Version(r))
		}
		w.WriteHeader(http.StatusTeapot)
	})
	var got []int
	for range 3 {
		status, _ := do(t, f, "POST", msgs, bearer, text)
		got = append(got, status)
	}
	if want := []int{429, 400, 418}; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("statuses = %v, want scripts then handler %v", got, want)
	}
	if n := len(f.Find("POST", "/"+providertest.PhoneID+"/messages")); n != 3 {
		t.Errorf("Find = %d requests, want 3", n)
	}
	if len(f.Sent()) != 0 {
		t.Errorf("Sent counted overridden answers")
	}
	// Scripts on another path leave this one alone.
	f.Script("GET /{id}", providertest.Unavailable())
	if status, _ := do(t, f, "POST", msgs, bearer, text); status != 418 {
		t.Errorf("status = %d, want the handler's 418", status)
	}
}

func TestFakeAccessToken(t *testing.T) {
	f := providertest.New(t)
	f.SetAccessToken("right")
	path := "/v21.0/" + providertest.PhoneID + "?fields=id"
	if status, _ := do(t, f, "GET", path, "Bearer wrong", ""); status != 401 {
		t.Errorf("wrong token: status %d, want 401", status)
	}
	if status, body := do(t, f, "GET", path, "Bearer right", ""); status != 200 || body["id"] != providertest.PhoneID {
		t.Errorf("right token: %d %v", status, body)
	}
}

// TestFakePaging checks the lists' cursor paging: following paging.next
// reads every item once; an empty list is {data: []}; a bad cursor is
// refused.
func TestFakePaging(t *testing.T) {
	f := providertest.New(t)
	bearer := "Bearer " + providertest.AccessToken
	for _, name := range []string{"a", "b", "c"} {
		f.AddFlow(providertest.Flow{Name: name, Categories: []string{"OTHER"}})
	}
	var names []string
	path, pages := "/v21.0/"+providertest.BusinessID+"/flows?fields=id,name&limit=2", 0
	for path != "" && pages < 5 {
		status, body := do(t, f, "GET", path, bearer, "")
		if status != 200 {
			t.Fatalf("GET %s: %d %v", path, status, body)
		}
		pages++
		data, _ := body["data"].([]any)
		for _, d := range data {
			names = append(names, d.(map[string]any)["name"].(string))
		}
		paging, _ := body["paging"].(map[string]any)
		cursors, _ := paging["cursors"].(map[string]any)
		if cursors["before"] == nil || cursors["after"] == nil {
			t.Errorf("page %d has no cursors: %v", pages, body)
		}
		next, _ := paging["next"].(string)
		if next != "" && (!strings.HasPrefix(next, f.URL+"/v21.0/") || !strings.Contains(next, "fields=id%2Cname")) {
			t.Errorf("next %q is not this request's next page", next)
		}
		path = strings.TrimPrefix(next, f.URL)
	}
	if strings.Join(names, ",") != "a,b,c" || pages != 2 {
		t.Errorf("read %v in %d pages", names, pages)
	}
	status, body := do(t, f, "GET", "/v21.0/999/message_templates", bearer, "")
	if data, ok := body["data"].([]any); status != 200 || !ok || len(data) != 0 || body["paging"] != nil {
		t.Errorf("empty list: %d %v", status, body)
	}
	if status, body := do(t, f, "GET", "/v21.0/"+providertest.BusinessID+"/flows?after=%21%21", bearer, ""); status != 400 || errorCode(body) != 100 {
		t.Errorf("bad cursor: %d %v", status, body)
	}
}
