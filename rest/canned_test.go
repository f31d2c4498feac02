package rest_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/internal/apitest"
)

// mustCreateCanned creates a canned response as c and returns its id.
func mustCreateCanned(tb testing.TB, c *apitest.Client, body map[string]any) string {
	tb.Helper()
	return c.Do(http.MethodPost, "/api/canned-responses", body).ExpectStatus(tb, http.StatusCreated).String("data.id")
}

// mustCustomRole creates a custom role with perms as admin and returns a
// client of a new member holding it.
func mustCustomRole(tb testing.TB, env *apitest.Env, admin *apitest.Client, name string, perms ...string) *apitest.Client {
	tb.Helper()
	admin.Do(http.MethodPost, "/api/roles", map[string]any{"name": name, "permissions": perms}).ExpectStatus(tb, http.StatusCreated)
	return env.NewUser(env.OrgID, name)
}

func TestCannedResponses(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	manager := env.NewUser(env.OrgID, access.RoleManager)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")

	created := manager.Do(http.MethodPost, "/api/canned-responses", map[string]any{
		"name": " Greeting ", "content": "Hello {{contact_name}}, we have your number {{phone_number}}.",
		"shortcut": "/hi", "category": "General",
		"buttons": []map[string]any{
			{"id": "yes", "title": "Yes please"},
			{"id": "site", "title": "Open our website", "type": "url", "url": "https://example.com/help"},
			{"id": "call", "title": "Call us", "type": "phone", "phone_number": "+1 555 010 0100"},
			{"id": "voice", "title": "Voice call", "type": "voice_call", "ttl_minutes": 60},
		},
	}).ExpectStatus(t, http.StatusCreated)
	greetingID := created.String("data.id")
	refundID := mustCreateCanned(t, admin, map[string]any{"name": "Refund policy", "content": "Refunds take 5 days.", "category": "Billing"})
	closingID := mustCreateCanned(t, admin, map[string]any{"name": "Closing", "content": "Anything else?", "shortcut": "/bye"})
	foreignID := mustCreateCanned(t, other, map[string]any{"name": "Theirs", "content": "Not yours"})

	t.Run("CreateShape", func(t *testing.T) {
		want := map[string]any{
			"status": "success", "data.name": "Greeting", "data.shortcut": "/hi", "data.category": "General",
			"data.is_active": true, "data.usage_count": float64(0),
			"data.content": "Hello {{contact_name}}, we have your number {{phone_number}}.",
		}
		for path, w := range want {
			if got := created.Get(path); got != w {
				t.Errorf("%s = %v, want %v", path, got, w)
			}
		}
		wantButtons := []any{
			map[string]any{"id": "yes", "title": "Yes please", "type": "reply"},
			map[string]any{"id": "site", "title": "Open our website", "type": "url", "url": "https://example.com/help"},
			map[string]any{"id": "call", "title": "Call us", "type": "phone", "phone_number": "+1 555 010 0100"},
			map[string]any{"id": "voice", "title": "Voice call", "type": "voice_call", "ttl_minutes": float64(60)},
		}
		if got := created.Get("data.buttons"); !reflect.DeepEqual(got, wantButtons) {
			t.Errorf("buttons = %v, want %v", got, wantButtons)
		}
		expectKeys(t, created, "data", "id", "name", "shortcut", "content", "category", "is_active",
			"usage_count", "buttons", "created_at", "updated_at")
		res := admin.Do(http.MethodGet, "/api/canned-responses/"+refundID, nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.buttons") != 0 || res.String("data.shortcut") != "" {
			t.Errorf("defaults: %s", res.Raw)
		}
	})

	t.Run("CreateInvalid", func(t *testing.T) {
		reply := func(n int) []map[string]any {
			var out []map[string]any
			for i := range n {
				out = append(out, map[string]any{"id": "b" + strings.Repeat("x", i), "title": "Option"})
			}
			return out
		}
		cases := []struct {
			name string
			body any
			msg  string
		}{
			{"MalformedJSON", `{`, "invalid JSON"},
			{"NameWrongType", `{"name":5,"content":"x"}`, "name"},
			{"ButtonsWrongType", `{"name":"n","content":"c","buttons":{}}`, "buttons"},
			{"TTLWrongType", `{"name":"n","content":"c","buttons":[{"id":"v","title":"t","type":"voice_call","ttl_minutes":"1h"}]}`, "ttl_minutes"},
			{"NameMissing", map[string]any{"content": "x"}, "name is required"},
			{"NameNUL", `{"name":"a\u0000","content":"x"}`, "NUL"},
			{"NameBlank", map[string]any{"name": "  ", "content": "x"}, "name is required"},
			{"ContentMissing", map[string]any{"name": "x"}, "content is required"},
			{"DuplicateShortcut", map[string]any{"name": "x", "content": "y", "shortcut": "/HI"}, "shortcut"},
			{"TooManyReplyButtons", map[string]any{"name": "x", "content": "y", "buttons": reply(4)}, "at most 3 reply buttons"},
			{"TooManyButtons", map[string]any{"name": "x", "content": "y", "buttons": urlButtons(11)}, "at most 10 buttons"},
			{"ReplyTitleTooLong", map[string]any{"name": "x", "content": "y", "buttons": []map[string]any{
				{"id": "a", "title": strings.Repeat("t", 21)}}}, "20"},
			{"ButtonIDMissing", map[string]any{"name": "x", "content": "y", "buttons": []map[string]any{{"title": "t"}}}, "id is required"},
			{"ButtonTitleMissing", map[string]any{"name": "x", "content": "y", "buttons": []map[string]any{{"id": "a"}}}, "title is required"},
			{"ButtonIDDuplicate", map[string]any{"name": "x", "content": "y", "buttons": []map[string]any{
				{"id": "a", "title": "t"}, {"id": "a", "title": "u"}}}, "used by another button"},
			{"ButtonTypeUnknown", map[string]any{"name": "x", "content": "y", "buttons": []map[string]any{
				{"id": "a", "title": "t", "type": "carousel"}}}, "type"},
			{"URLMissing", map[string]any{"name": "x", "content": "y", "buttons": []map[string]any{
				{"id": "a", "title": "t", "type": "url"}}}, "url is required"},
			{"URLNotHTTP", map[string]any{"name": "x", "content": "y", "buttons": []map[string]any{
				{"id": "a", "title": "t", "type": "url", "url": "ftp://example.com"}}}, "http"},
			{"PhoneMissing", map[string]any{"name": "x", "content": "y", "buttons": []map[string]any{
				{"id": "a", "title": "t", "type": "phone"}}}, "phone_number is required"},
			{"PhoneInvalid", map[string]any{"name": "x", "content": "y", "buttons": []map[string]any{
				{"id": "a", "title": "t", "type": "phone", "phone_number": "12"}}}, "phone_number"},
			{"TTLOutOfRange", map[string]any{"name": "x", "content": "y", "buttons": []map[string]any{
				{"id": "a", "title": "t", "type": "voice_call", "ttl_minutes": 0}}}, "ttl_minutes"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				res := admin.Do(http.MethodPost, "/api/canned-responses", tc.body).ExpectError(t, http.StatusBadRequest)
				if !strings.Contains(res.String("message"), tc.msg) {
					t.Errorf("message %q does not mention %q", res.String("message"), tc.msg)
				}
			})
		}
	})

	t.Run("Unauthenticated", func(t *testing.T) {
		anon := env.Anonymous()
		anon.Do(http.MethodGet, "/api/canned-responses", nil).ExpectError(t, http.StatusUnauthorized)
		anon.Do(http.MethodPost, "/api/canned-responses", map[string]any{"name": "x", "content": "y"}).ExpectError(t, http.StatusUnauthorized)
		anon.Do(http.MethodPost, "/api/canned-responses/"+greetingID+"/use", nil).ExpectError(t, http.StatusUnauthorized)
	})

	t.Run("AgentListsAndUsesOnly", func(t *testing.T) {
		res := agent.Do(http.MethodGet, "/api/canned-responses", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total") != 3 {
			t.Errorf("agent list: %s", res.Raw)
		}
		agent.Do(http.MethodGet, "/api/canned-responses/"+refundID, nil).ExpectStatus(t, http.StatusOK)
		agent.Do(http.MethodPost, "/api/canned-responses/"+refundID+"/use", nil).ExpectStatus(t, http.StatusOK)
		cases := []struct {
			name, method, path string
			body               any
		}{
			{"Create", http.MethodPost, "/api/canned-responses", map[string]any{"name": "x", "content": "y"}},
			{"CreateMalformed", http.MethodPost, "/api/canned-responses", `{`},
			{"Update", http.MethodPut, "/api/canned-responses/" + refundID, map[string]any{"name": "Mine"}},
			{"UpdateUnknown", http.MethodPut, "/api/canned-responses/" + uuid.NewString(), map[string]any{"name": "Mine"}},
			{"Delete", http.MethodDelete, "/api/canned-responses/" + refundID, nil},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				agent.Do(tc.method, tc.path, tc.body).ExpectError(t, http.StatusForbidden)
			})
		}
		got := admin.Do(http.MethodGet, "/api/canned-responses/"+refundID, nil).ExpectStatus(t, http.StatusOK)
		if got.String("data.name") != "Refund policy" {
			t.Errorf("agent changed it: %s", got.Raw)
		}
	})

	t.Run("CustomRoles", func(t *testing.T) {
		// The role's permissions decide, not its name.
		editor := mustCustomRole(t, env, admin, "Canned Editor", "canned_responses:read", "canned_responses:create", "canned_responses:delete")
		id := mustCreateCanned(t, editor, map[string]any{"name": "By editor", "content": "x"})
		editor.Do(http.MethodPut, "/api/canned-responses/"+id, map[string]any{"name": "y"}).ExpectError(t, http.StatusForbidden)
		editor.Do(http.MethodDelete, "/api/canned-responses/"+id, nil).ExpectStatus(t, http.StatusOK)
		writer := mustCustomRole(t, env, admin, "Plain Writer", "messages:read", "messages:create", "templates:update")
		writer.Do(http.MethodPost, "/api/canned-responses", map[string]any{"name": "x", "content": "y"}).ExpectError(t, http.StatusForbidden)
		reader := mustCustomRole(t, env, admin, "Reader", "contacts:read", "messages:read")
		reader.Do(http.MethodGet, "/api/canned-responses", nil).ExpectError(t, http.StatusForbidden)
	})

	t.Run("NotFound", func(t *testing.T) {
		unknown := uuid.NewString()
		cases := []struct {
			name, method, path string
			body               any
		}{
			{"GetUnknown", http.MethodGet, "/api/canned-responses/" + unknown, nil},
			{"GetForeign", http.MethodGet, "/api/canned-responses/" + foreignID, nil},
			{"UpdateForeign", http.MethodPut, "/api/canned-responses/" + foreignID, map[string]any{"name": "Mine"}},
			{"DeleteForeign", http.MethodDelete, "/api/canned-responses/" + foreignID, nil},
			{"DeleteUnknown", http.MethodDelete, "/api/canned-responses/" + unknown, nil},
			{"UseForeign", http.MethodPost, "/api/canned-responses/" + foreignID + "/use", nil},
			{"UseWithUnknownContact", http.MethodPost, "/api/canned-responses/" + refundID + "/use", map[string]any{"contact_id": unknown}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				manager.Do(tc.method, tc.path, tc.body).ExpectError(t, http.StatusNotFound)
			})
		}
		res := other.Do(http.MethodGet, "/api/canned-responses/"+foreignID, nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.name") != "Theirs" || res.Number("data.usage_count") != 0 {
			t.Errorf("foreign response touched: %s", res.Raw)
		}
	})

	t.Run("InvalidID", func(t *testing.T) {
		admin.Do(http.MethodGet, "/api/canned-responses/nope", nil).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodPost, "/api/canned-responses/nope/use", nil).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodPost, "/api/canned-responses/"+refundID+"/use", map[string]any{"contact_id": "nope"}).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodPost, "/api/canned-responses/"+refundID+"/use", `{`).ExpectError(t, http.StatusBadRequest)
	})

	t.Run("List", func(t *testing.T) {
		cases := []struct {
			name, query string
			want        []string
		}{
			{"All", "", []string{closingID, greetingID, refundID}},
			{"SearchName", "search=REFUND", []string{refundID}},
			{"SearchContent", "search=anything", []string{closingID}},
			{"SearchShortcut", "search=%2Fhi", []string{greetingID}},
			{"Category", "category=billing", []string{refundID}},
			{"NoMatch", "search=zzz", nil},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				res := agent.Do(http.MethodGet, "/api/canned-responses?"+tc.query, nil).ExpectStatus(t, http.StatusOK)
				if got := listedIDs(res, "data.canned_responses"); !reflect.DeepEqual(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
					t.Errorf("got %v, want %v (by name)", got, tc.want)
				}
				if res.Number("data.total") != float64(len(tc.want)) {
					t.Errorf("total %v, want %d", res.Get("data.total"), len(tc.want))
				}
			})
		}
		res := agent.Do(http.MethodGet, "/api/canned-responses?limit=500", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.limit") != 100 || res.Number("data.page") != 1 {
			t.Errorf("limit not capped: %s", res.Raw)
		}
		res = agent.Do(http.MethodGet, "/api/canned-responses?limit=1&page=2", nil).ExpectStatus(t, http.StatusOK)
		if got := listedIDs(res, "data.canned_responses"); len(got) != 1 || got[0] != greetingID || res.Number("data.total") != 3 {
			t.Errorf("page 2: %s", res.Raw)
		}
		res = agent.Do(http.MethodGet, "/api/canned-responses", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.limit") != 20 {
			t.Errorf("default limit: %s", res.Raw)
		}
		for _, q := range []string{"page=0", "limit=x", "search=%00", "category=%00"} {
			agent.Do(http.MethodGet, "/api/canned-responses?"+q, nil).ExpectError(t, http.StatusBadRequest)
		}
	})

	t.Run("UpdatePartial", func(t *testing.T) {
		res := manager.Do(http.MethodPut, "/api/canned-responses/"+closingID, map[string]any{"is_active": false}).ExpectStatus(t, http.StatusOK)
		if res.Get("data.is_active") != false || res.String("data.name") != "Closing" || res.String("data.shortcut") != "/bye" {
			t.Fatalf("partial update: %s", res.Raw)
		}
		list := agent.Do(http.MethodGet, "/api/canned-responses?active_only=true", nil).ExpectStatus(t, http.StatusOK)
		if got := listedIDs(list, "data.canned_responses"); !reflect.DeepEqual(got, []string{greetingID, refundID}) {
			t.Errorf("active_only: %v", got)
		}
		res = admin.Do(http.MethodPut, "/api/canned-responses/"+greetingID, map[string]any{
			"content": "Hi again", "shortcut": "/hi", "buttons": []any{},
		}).ExpectStatus(t, http.StatusOK)
		if res.String("data.content") != "Hi again" || res.Len("data.buttons") != 0 || res.String("data.name") != "Greeting" {
			t.Errorf("update: %s", res.Raw)
		}
		cases := []struct {
			name string
			body any
		}{
			{"MalformedJSON", `{`},
			{"WrongType", `{"is_active":"no"}`},
			{"DuplicateShortcut", map[string]any{"shortcut": "/bye"}},
			{"BlankName", map[string]any{"name": ""}},
			{"BlankContent", map[string]any{"content": " "}},
			{"BadButton", map[string]any{"buttons": []map[string]any{{"id": "x", "title": strings.Repeat("t", 21)}}}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				admin.Do(http.MethodPut, "/api/canned-responses/"+greetingID, tc.body).ExpectError(t, http.StatusBadRequest)
			})
		}
	})

	t.Run("Use", func(t *testing.T) {
		contactID := mustCreateContact(t, admin, map[string]any{"phone_number": "15550100123", "profile_name": "Dana"})
		id := mustCreateCanned(t, admin, map[string]any{"name": "Welcome", "content": "Welcome {{contact_name}} ({{phone_number}})"})
		before := admin.Do(http.MethodGet, "/api/canned-responses/"+id, nil).ExpectStatus(t, http.StatusOK)
		res := agent.Do(http.MethodPost, "/api/canned-responses/"+id+"/use", nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.message") == "" || res.String("data.content") != "Welcome {{contact_name}} ({{phone_number}})" {
			t.Errorf("use without contact: %s", res.Raw)
		}
		res = agent.Do(http.MethodPost, "/api/canned-responses/"+id+"/use", map[string]any{"contact_id": contactID}).ExpectStatus(t, http.StatusOK)
		if res.String("data.message") == "" || res.String("data.content") != "Welcome Dana (15550100123)" {
			t.Errorf("use with contact: %s", res.Raw)
		}
		after := admin.Do(http.MethodGet, "/api/canned-responses/"+id, nil).ExpectStatus(t, http.StatusOK)
		if after.Number("data.usage_count") != 2 {
			t.Errorf("usage_count %v, want 2", after.Get("data.usage_count"))
		}
		if after.String("data.updated_at") != before.String("data.updated_at") {
			t.Errorf("use changed updated_at: %s -> %s", before.String("data.updated_at"), after.String("data.updated_at"))
		}
		admin.Do(http.MethodPost, "/api/canned-responses/"+closingID+"/use", nil).ExpectError(t, http.StatusBadRequest)
	})

	t.Run("Delete", func(t *testing.T) {
		res := manager.Do(http.MethodDelete, "/api/canned-responses/"+refundID, nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.message") == "" {
			t.Errorf("delete: %s", res.Raw)
		}
		manager.Do(http.MethodGet, "/api/canned-responses/"+refundID, nil).ExpectError(t, http.StatusNotFound)
		manager.Do(http.MethodDelete, "/api/canned-responses/"+refundID, nil).ExpectError(t, http.StatusNotFound)
	})
}

func urlButtons(n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{"id": "u" + strings.Repeat("x", i), "title": "Link", "type": "url", "url": "https://example.com"}
	}
	return out
}
