package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/contacts"
	"switchboard/ent"
	"switchboard/ent/agenttransfer"
	"switchboard/ent/chatbotsession"
	"switchboard/ent/message"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
)

// mustCreateContact creates a contact through the API as c and returns its
// id.
func mustCreateContact(tb testing.TB, c *apitest.Client, body map[string]any) string {
	tb.Helper()
	res := c.Do(http.MethodPost, "/api/contacts", body).ExpectStatus(tb, http.StatusCreated)
	id := res.String("data.id")
	if _, err := uuid.Parse(id); err != nil {
		tb.Fatalf("contact id %q: %s", id, res.Raw)
	}
	return id
}

// mustSeedMessage stores a message of a contact directly, as the inbound
// webhook or the sender would.
func mustSeedMessage(tb testing.TB, ctx context.Context, db *ent.Client, contactID string, dir message.Direction, status message.Status) *ent.Message {
	tb.Helper()
	m, err := db.Message.Create().SetContactID(uuid.MustParse(contactID)).SetDirection(dir).
		SetStatus(status).SetContent(map[string]any{"body": "hi"}).Save(ctx)
	if err != nil {
		tb.Fatalf("message: %v", err)
	}
	return m
}

func TestContacts(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	manager := env.NewUser(env.OrgID, access.RoleManager)
	other := env.NewOrg("Elsewhere")
	db := env.Client()
	sysCtx := viewer.SystemContext(context.Background(), env.OrgID)
	// The accounts the contacts' chat_account names.
	mustSeedAccount(t, env, env.OrgID, "main", "100000000000911")
	mustSeedAccount(t, env, env.OrgID, "second", "100000000000912")

	created := admin.Do(http.MethodPost, "/api/contacts", map[string]any{
		"phone_number": "+1 (555) 010-0001", "profile_name": "  Alice Example ", "chat_account": "main",
		"tags": []string{" vip ", "vip", "b2b"}, "metadata": map[string]any{"order_id": "A-1", "plan": "gold"},
	}).ExpectStatus(t, http.StatusCreated)
	aliceID := created.String("data.id")
	bobID := mustCreateContact(t, admin, map[string]any{"phone_number": "0044 20 7946 0958", "profile_name": "Bob", "tags": []string{"lead"}})
	carolID := mustCreateContact(t, agent, map[string]any{"phone_number": "49.30.1234567", "profile_name": "Carol"})
	foreignID := mustCreateContact(t, other, map[string]any{"phone_number": "15550100001", "profile_name": "Theirs"})

	t.Run("CreateShape", func(t *testing.T) {
		want := map[string]any{
			"status": "success", "data.phone_number": "15550100001", "data.profile_name": "Alice Example",
			"data.chat_account": "main", "data.name": "Alice Example", "data.avatar_url": "", "data.status": "active",
			"data.unread_count": float64(0), "data.service_window_open": false, "data.marketing_opt_out": false,
			"data.last_message_at": nil, "data.last_inbound_at": nil, "data.assigned_user_id": nil,
			"data.last_message_preview": "", "data.metadata.order_id": "A-1",
		}
		for path, w := range want {
			if got := created.Get(path); got != w {
				t.Errorf("%s = %v, want %v", path, got, w)
			}
		}
		if got := created.Get("data.tags"); !reflect.DeepEqual(got, []any{"vip", "b2b"}) {
			t.Errorf("tags = %v, want [vip b2b] (trimmed, de-duplicated)", got)
		}
		expectKeys(t, created, "data", "id", "phone_number", "name", "profile_name", "avatar_url", "status",
			"tags", "metadata", "last_message_at", "last_message_preview", "unread_count", "assigned_user_id",
			"chat_account", "last_inbound_at", "service_window_open", "marketing_opt_out", "created_at", "updated_at")
		for _, k := range []string{"id", "created_at", "updated_at"} {
			if created.String("data."+k) == "" {
				t.Errorf("%s missing: %s", k, created.Raw)
			}
		}
		bob := admin.Do(http.MethodGet, "/api/contacts/"+bobID, nil).ExpectStatus(t, http.StatusOK)
		if bob.String("data.phone_number") != "442079460958" {
			t.Errorf("00-prefixed number not normalised: %s", bob.Raw)
		}
		carol := admin.Do(http.MethodGet, "/api/contacts/"+carolID, nil).ExpectStatus(t, http.StatusOK)
		if carol.String("data.phone_number") != "49301234567" || carol.Len("data.tags") != 0 ||
			carol.Get("data.metadata") == nil {
			t.Errorf("defaults: %s", carol.Raw)
		}
	})

	t.Run("CreateInvalid", func(t *testing.T) {
		cases := []struct {
			name string
			body any
			msg  string
		}{
			{"MalformedJSON", `{`, "invalid JSON"},
			{"EmptyBody", ``, "required"},
			{"PhoneWrongType", `{"phone_number":15550100009}`, "phone_number"},
			{"PhoneMissing", `{"profile_name":"x"}`, "phone_number is required"},
			{"PhoneLetters", map[string]any{"phone_number": "555-CALL-NOW"}, "digits"},
			{"PhoneTooShort", map[string]any{"phone_number": "+12 345"}, "7 to 15"},
			{"PhoneTooLong", map[string]any{"phone_number": "+1234567890123456"}, "7 to 15"},
			{"PhoneOnlyPlus", map[string]any{"phone_number": "+"}, "phone_number"},
			{"TagsWrongType", `{"phone_number":"15550100010","tags":"vip"}`, "tags"},
			{"TagEmpty", map[string]any{"phone_number": "15550100010", "tags": []string{"ok", "  "}}, "non-empty"},
			{"TagTooLong", map[string]any{"phone_number": "15550100010", "tags": []string{strings.Repeat("t", 65)}}, "64"},
			{"TooManyTags", map[string]any{"phone_number": "15550100010", "tags": manyTags(51)}, "50"},
			{"MetadataNotObject", `{"phone_number":"15550100010","metadata":[1,2]}`, "metadata"},
			{"ProfileNameWrongType", `{"phone_number":"15550100010","profile_name":true}`, "profile_name"},
			{"ProfileNameNUL", `{"phone_number":"15550100010","profile_name":"a\u0000b"}`, "NUL"},
			{"MetadataNUL", `{"phone_number":"15550100010","metadata":{"k":["\u0000"]}}`, "NUL"},
			{"MetadataNumberOutOfRange", `{"phone_number":"15550100010","metadata":{"n":1e400}}`, "metadata numbers"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				res := admin.Do(http.MethodPost, "/api/contacts", tc.body).ExpectError(t, http.StatusBadRequest)
				if !strings.Contains(res.String("message"), tc.msg) {
					t.Errorf("message %q does not mention %q", res.String("message"), tc.msg)
				}
			})
		}
		dup := admin.Do(http.MethodPost, "/api/contacts", map[string]any{"phone_number": "001-555-010-0001"}).
			ExpectError(t, http.StatusConflict)
		if !strings.Contains(dup.String("message"), "a contact with this phone number already exists") {
			t.Errorf("duplicate: %s", dup.Raw)
		}
		// The failed duplicate insert must not have left a second row.
		res := admin.Do(http.MethodGet, "/api/contacts?search=5550100001", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total") != 1 {
			t.Errorf("duplicate stored: %s", res.Raw)
		}
	})

	t.Run("SamePhoneInAnotherOrg", func(t *testing.T) {
		// foreignID was created in another organization with Alice's number.
		if foreignID == aliceID {
			t.Fatal("same id across organizations")
		}
	})

	t.Run("Unauthenticated", func(t *testing.T) {
		anon := env.Anonymous()
		anon.Do(http.MethodGet, "/api/contacts", nil).ExpectError(t, http.StatusUnauthorized)
		anon.Do(http.MethodPost, "/api/contacts", map[string]any{"phone_number": "15550100011"}).ExpectError(t, http.StatusUnauthorized)
		anon.Do(http.MethodGet, "/api/contacts/"+aliceID, nil).ExpectError(t, http.StatusUnauthorized)
	})

	t.Run("AgentPermissions", func(t *testing.T) {
		res := agent.Do(http.MethodGet, "/api/contacts", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total") != 3 {
			t.Errorf("agent sees %v contacts, want 3: %s", res.Get("data.total"), res.Raw)
		}
		agent.Do(http.MethodGet, "/api/contacts/"+aliceID, nil).ExpectStatus(t, http.StatusOK)
		cases := []struct{ name, method, path string }{
			{"Delete", http.MethodDelete, "/api/contacts/" + aliceID},
			{"Update", http.MethodPut, "/api/contacts/" + aliceID},
			{"Assign", http.MethodPut, "/api/contacts/" + aliceID + "/assign"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				agent.Do(tc.method, tc.path, map[string]any{"profile_name": "x", "user_id": nil}).ExpectError(t, http.StatusForbidden)
			})
		}
		admin.Do(http.MethodGet, "/api/contacts/"+aliceID, nil).ExpectStatus(t, http.StatusOK)
	})

	t.Run("NotFound", func(t *testing.T) {
		unknown := uuid.NewString()
		cases := []struct {
			name, method, path string
			body               any
		}{
			{"GetUnknown", http.MethodGet, "/api/contacts/" + unknown, nil},
			{"GetForeign", http.MethodGet, "/api/contacts/" + foreignID, nil},
			{"UpdateForeign", http.MethodPut, "/api/contacts/" + foreignID, map[string]any{"profile_name": "Mine"}},
			{"DeleteForeign", http.MethodDelete, "/api/contacts/" + foreignID, nil},
			{"DeleteUnknown", http.MethodDelete, "/api/contacts/" + unknown, nil},
			{"AssignForeign", http.MethodPut, "/api/contacts/" + foreignID + "/assign", map[string]any{"user_id": nil}},
			{"MarkReadForeign", http.MethodPost, "/api/contacts/" + foreignID + "/mark-read", nil},
			{"SessionDataForeign", http.MethodGet, "/api/contacts/" + foreignID + "/session-data", nil},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				admin.Do(tc.method, tc.path, tc.body).ExpectError(t, http.StatusNotFound)
			})
		}
		res := other.Do(http.MethodGet, "/api/contacts/"+foreignID, nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.profile_name") != "Theirs" {
			t.Errorf("foreign contact changed: %s", res.Raw)
		}
	})

	t.Run("InvalidID", func(t *testing.T) {
		for _, path := range []string{"/api/contacts/nope", "/api/contacts/nope/session-data"} {
			admin.Do(http.MethodGet, path, nil).ExpectError(t, http.StatusBadRequest)
		}
		admin.Do(http.MethodDelete, "/api/contacts/123", nil).ExpectError(t, http.StatusBadRequest)
	})

	t.Run("ListSearch", func(t *testing.T) {
		cases := []struct {
			name, query string
			want        []string
		}{
			{"ProfileNameCaseInsensitive", "search=ALICE", []string{aliceID}},
			{"PhoneDigitsFormatted", "search=" + url.QueryEscape("(555) 010"), []string{aliceID}},
			{"PhoneDigits", "search=7946", []string{bobID}},
			{"NoMatch", "search=zzz", nil},
			{"TagsMatchAny", "tags=vip,lead", []string{aliceID, bobID}},
			{"TagsOne", "tags=b2b", []string{aliceID}},
			{"TagsNone", "tags=unknown", nil},
			{"TagsAndSearch", "tags=vip,lead&search=bob", []string{bobID}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				res := admin.Do(http.MethodGet, "/api/contacts?"+tc.query, nil).ExpectStatus(t, http.StatusOK)
				got := listedIDs(res, "data.contacts")
				if !sameIDSet(got, tc.want) || res.Number("data.total") != float64(len(tc.want)) {
					t.Errorf("got %v (total %v), want %v", got, res.Get("data.total"), tc.want)
				}
			})
		}
	})

	t.Run("ListPaging", func(t *testing.T) {
		res := admin.Do(http.MethodGet, "/api/contacts", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.page") != 1 || res.Number("data.limit") != 20 || res.Number("data.total") != 3 || res.Len("data.contacts") != 3 {
			t.Errorf("defaults: %s", res.Raw)
		}
		res = admin.Do(http.MethodGet, "/api/contacts?limit=500", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.limit") != 100 {
			t.Errorf("limit not capped at 100: %v", res.Get("data.limit"))
		}
		res = admin.Do(http.MethodGet, "/api/contacts?limit=2&page=2", nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.contacts") != 1 || res.Number("data.total") != 3 || res.Number("data.page") != 2 {
			t.Errorf("page 2: %s", res.Raw)
		}
		res = admin.Do(http.MethodGet, "/api/contacts?page=9", nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.contacts") != 0 || res.Number("data.total") != 3 {
			t.Errorf("past the end: %s", res.Raw)
		}
		var many []string // one tag past the limit, a repeat not counted
		for i := range contacts.MaxTags + 1 {
			many = append(many, fmt.Sprint("t", i), fmt.Sprint("t", i))
		}
		admin.Do(http.MethodGet, "/api/contacts?tags="+strings.Join(many[:2*contacts.MaxTags], ","), nil).ExpectStatus(t, http.StatusOK)
		for _, q := range []string{"page=0", "limit=-1", "limit=abc", "search=%00", "tags=a,%00", "tags=" + strings.Join(many, ",")} {
			admin.Do(http.MethodGet, "/api/contacts?"+q, nil).ExpectError(t, http.StatusBadRequest)
		}
	})

	t.Run("ListOrder", func(t *testing.T) {
		now := time.Now().UTC()
		if err := db.Contact.UpdateOneID(uuid.MustParse(bobID)).SetLastMessageAt(now.Add(-time.Hour)).Exec(sysCtx); err != nil {
			t.Fatal(err)
		}
		if err := db.Contact.UpdateOneID(uuid.MustParse(carolID)).SetLastMessageAt(now).Exec(sysCtx); err != nil {
			t.Fatal(err)
		}
		res := admin.Do(http.MethodGet, "/api/contacts", nil).ExpectStatus(t, http.StatusOK)
		if got, want := listedIDs(res, "data.contacts"), []string{carolID, bobID, aliceID}; !reflect.DeepEqual(got, want) {
			t.Errorf("order %v, want %v (last message first, none last)", got, want)
		}
	})

	t.Run("ServiceWindow", func(t *testing.T) {
		cases := []struct {
			name string
			ago  time.Duration
			want bool
		}{{"Recent", time.Hour, true}, {"Expired", 25 * time.Hour, false}}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				err := db.Contact.UpdateOneID(uuid.MustParse(carolID)).
					SetLastInboundAt(time.Now().UTC().Add(-tc.ago)).Exec(sysCtx)
				if err != nil {
					t.Fatal(err)
				}
				res := admin.Do(http.MethodGet, "/api/contacts/"+carolID, nil).ExpectStatus(t, http.StatusOK)
				if res.Get("data.service_window_open") != tc.want || res.Get("data.last_inbound_at") == nil {
					t.Errorf("service_window_open: %s", res.Raw)
				}
			})
		}
	})

	t.Run("Update", func(t *testing.T) {
		res := manager.Do(http.MethodPut, "/api/contacts/"+bobID, map[string]any{
			"profile_name": "Robert", "tags": []string{"lead", "hot"}, "metadata": map[string]any{"tier": 2},
			"assigned_user_id": agent.UserID.String(),
		}).ExpectStatus(t, http.StatusOK)
		if res.String("data.profile_name") != "Robert" || res.String("data.assigned_user_id") != agent.UserID.String() ||
			!reflect.DeepEqual(res.Get("data.tags"), []any{"lead", "hot"}) || res.Number("data.metadata.tier") != 2 {
			t.Fatalf("update: %s", res.Raw)
		}
		// Only provided fields change.
		res = manager.Do(http.MethodPut, "/api/contacts/"+bobID, map[string]any{"chat_account": "second"}).ExpectStatus(t, http.StatusOK)
		if res.String("data.profile_name") != "Robert" || res.String("data.chat_account") != "second" ||
			res.Len("data.tags") != 2 || res.String("data.assigned_user_id") != agent.UserID.String() {
			t.Errorf("partial update: %s", res.Raw)
		}
		res = manager.Do(http.MethodPut, "/api/contacts/"+bobID, map[string]any{"clear_assigned_agent": true}).ExpectStatus(t, http.StatusOK)
		if res.Get("data.assigned_user_id") != nil || res.String("data.phone_number") != "442079460958" {
			t.Errorf("clear_assigned_agent: %s", res.Raw)
		}
	})

	t.Run("UpdateInvalid", func(t *testing.T) {
		cases := []struct {
			name string
			body any
		}{
			{"MalformedJSON", `{`},
			{"WrongType", `{"profile_name":5}`},
			{"InvalidAssignee", map[string]any{"assigned_user_id": "not-a-uuid"}},
			{"AssigneeNotMember", map[string]any{"assigned_user_id": other.UserID.String()}},
			{"AssigneeUnknown", map[string]any{"assigned_user_id": uuid.NewString()}},
			{"AssignAndClear", map[string]any{"assigned_user_id": agent.UserID.String(), "clear_assigned_agent": true}},
			{"ClearWrongType", `{"clear_assigned_agent":"yes"}`},
			{"TagEmpty", map[string]any{"tags": []string{""}}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				admin.Do(http.MethodPut, "/api/contacts/"+bobID, tc.body).ExpectError(t, http.StatusBadRequest)
			})
		}
	})

	t.Run("Assign", func(t *testing.T) {
		res := manager.Do(http.MethodPut, "/api/contacts/"+aliceID+"/assign", map[string]any{"user_id": agent.UserID.String()}).
			ExpectStatus(t, http.StatusOK)
		if res.String("data.assigned_user_id") != agent.UserID.String() || res.String("data.message") == "" {
			t.Fatalf("assign: %s", res.Raw)
		}
		got := admin.Do(http.MethodGet, "/api/contacts/"+aliceID, nil).ExpectStatus(t, http.StatusOK)
		if got.String("data.assigned_user_id") != agent.UserID.String() {
			t.Errorf("not stored: %s", got.Raw)
		}
		res = manager.Do(http.MethodPut, "/api/contacts/"+aliceID+"/assign", `{"user_id":null}`).ExpectStatus(t, http.StatusOK)
		if v, ok := res.Get("data").(map[string]any)["assigned_user_id"]; !ok || v != nil || res.String("data.message") == "" {
			t.Errorf("unassign: %s", res.Raw)
		}
	})

	t.Run("AssignInvalid", func(t *testing.T) {
		cases := []struct {
			name string
			body any
			want int
		}{
			{"Missing", `{}`, http.StatusBadRequest},
			{"Malformed", `{`, http.StatusBadRequest},
			{"NotUUID", `{"user_id":"abc"}`, http.StatusBadRequest},
			{"WrongType", `{"user_id":7}`, http.StatusBadRequest},
			{"NotMember", map[string]any{"user_id": other.UserID.String()}, http.StatusBadRequest},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				admin.Do(http.MethodPut, "/api/contacts/"+aliceID+"/assign", tc.body).ExpectError(t, tc.want)
			})
		}
		admin.Do(http.MethodPut, "/api/contacts/"+uuid.NewString()+"/assign", `{"user_id":null}`).ExpectError(t, http.StatusNotFound)
	})

	t.Run("MarkRead", func(t *testing.T) {
		in1 := mustSeedMessage(t, sysCtx, db, aliceID, message.DirectionIncoming, message.StatusDelivered)
		in2 := mustSeedMessage(t, sysCtx, db, aliceID, message.DirectionIncoming, message.StatusSent)
		out := mustSeedMessage(t, sysCtx, db, aliceID, message.DirectionOutgoing, message.StatusDelivered)
		if err := db.Contact.UpdateOneID(uuid.MustParse(aliceID)).SetUnreadCount(2).Exec(sysCtx); err != nil {
			t.Fatal(err)
		}
		before := agent.Do(http.MethodGet, "/api/contacts/"+aliceID, nil).ExpectStatus(t, http.StatusOK)
		if before.Number("data.unread_count") != 2 {
			t.Fatalf("seeded unread_count: %s", before.Raw)
		}
		res := agent.Do(http.MethodPost, "/api/contacts/"+aliceID+"/mark-read", nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.status") != "ok" {
			t.Errorf("mark-read: %s", res.Raw)
		}
		after := agent.Do(http.MethodGet, "/api/contacts/"+aliceID, nil).ExpectStatus(t, http.StatusOK)
		if after.Number("data.unread_count") != 0 {
			t.Errorf("unread_count not cleared: %s", after.Raw)
		}
		for _, m := range []*ent.Message{in1, in2} {
			if got := db.Message.GetX(sysCtx, m.ID).Status; got != message.StatusRead {
				t.Errorf("incoming message status %s, want read", got)
			}
		}
		if got := db.Message.GetX(sysCtx, out.ID).Status; got != message.StatusDelivered {
			t.Errorf("outgoing message status changed to %s", got)
		}
		admin.Do(http.MethodPost, "/api/contacts/"+uuid.NewString()+"/mark-read", nil).ExpectError(t, http.StatusNotFound)
		env.Anonymous().Do(http.MethodPost, "/api/contacts/"+aliceID+"/mark-read", nil).ExpectError(t, http.StatusUnauthorized)
	})

	t.Run("SessionData", func(t *testing.T) {
		metaID := mustCreateContact(t, admin, map[string]any{
			"phone_number": "15550100077",
			"metadata": map[string]any{
				"order_id": "A-77", "vip": true, "visits": 3,
				"interests": []string{"shoes", "bags"},
				"address":   map[string]any{"city": "Berlin", "zip_code": "10115", "geo": map[string]any{"lat": 1}},
				"orders":    []map[string]any{{"id": "o1", "total": 10}, {"id": "o2", "status": "open"}},
			},
		})
		res := agent.Do(http.MethodGet, "/api/contacts/"+metaID+"/session-data", nil).ExpectStatus(t, http.StatusOK)
		if v, ok := res.Get("data").(map[string]any)["session_id"]; !ok || v != nil {
			t.Errorf("session_id without a session: %s", res.Raw)
		}
		if d, ok := res.Get("data.session_data").(map[string]any); !ok || len(d) != 0 {
			t.Errorf("session_data without a session: %s", res.Raw)
		}
		type field struct {
			Key, Label string
		}
		type section struct {
			ID, Label                     string
			Columns                       float64
			Collapsible, DefaultCollapsed bool
			Fields                        []field
		}
		want := []section{
			{ID: "general", Label: "General", Columns: 2, Fields: []field{
				{"interests", "Interests"}, {"order_id", "Order Id"}, {"vip", "Vip"}, {"visits", "Visits"},
			}},
			{ID: "address", Label: "Address", Columns: 2, Collapsible: true, Fields: []field{
				{"city", "City"}, {"geo", "Geo"}, {"zip_code", "Zip Code"},
			}},
			{ID: "orders", Label: "Orders", Columns: 3, Collapsible: true, Fields: []field{
				{"id", "Id"}, {"status", "Status"}, {"total", "Total"},
			}},
		}
		if n := res.Len("data.panel_config.sections"); n != len(want) {
			t.Fatalf("%d sections, want %d: %s", n, len(want), res.Raw)
		}
		for i, w := range want {
			p := "data.panel_config.sections." + strconv.Itoa(i)
			got := section{
				ID: res.String(p + ".id"), Label: res.String(p + ".label"), Columns: res.Number(p + ".columns"),
				Collapsible: res.Get(p+".collapsible") == true, DefaultCollapsed: res.Get(p+".default_collapsed") == true,
			}
			if res.Number(p+".order") != float64(i+1) {
				t.Errorf("section %d order %v", i, res.Get(p+".order"))
			}
			for j := range res.Len(p + ".fields") {
				f := p + ".fields." + strconv.Itoa(j)
				got.Fields = append(got.Fields, field{res.String(f + ".key"), res.String(f + ".label")})
				if res.Number(f+".order") != float64(j+1) {
					t.Errorf("%s order %v", f, res.Get(f+".order"))
				}
			}
			if !reflect.DeepEqual(got, w) {
				t.Errorf("section %d = %+v, want %+v", i, got, w)
			}
		}

		flow, err := db.ChatbotFlow.Create().SetName("Order status").Save(sysCtx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ChatbotSession.Create().SetContactID(uuid.MustParse(metaID)).
			SetStatus(chatbotsession.StatusCompleted).SetVariables(map[string]any{"old": true}).Save(sysCtx); err != nil {
			t.Fatal(err)
		}
		sess, err := db.ChatbotSession.Create().SetContactID(uuid.MustParse(metaID)).SetCurrentFlowID(flow.ID).
			SetCurrentStep("ask_order").SetVariables(map[string]any{"order_number": "A-77", "attempts": 2}).Save(sysCtx)
		if err != nil {
			t.Fatal(err)
		}
		res = agent.Do(http.MethodGet, "/api/contacts/"+metaID+"/session-data", nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.session_id") != sess.ID.String() || res.String("data.flow_id") != flow.ID.String() ||
			res.String("data.flow_name") != "Order status" || res.String("data.session_data.order_number") != "A-77" ||
			res.Number("data.session_data.attempts") != 2 || res.Get("data.session_data.old") != nil {
			t.Errorf("active session: %s", res.Raw)
		}

		empty := agent.Do(http.MethodGet, "/api/contacts/"+carolID+"/session-data", nil).ExpectStatus(t, http.StatusOK)
		if empty.Len("data.panel_config.sections") != 0 || empty.String("data.flow_name") != "" {
			t.Errorf("no metadata: %s", empty.Raw)
		}
	})

	t.Run("DeleteCascades", func(t *testing.T) {
		id := mustCreateContact(t, admin, map[string]any{"phone_number": "15550100099"})
		cid := uuid.MustParse(id)
		m := mustSeedMessage(t, sysCtx, db, id, message.DirectionIncoming, message.StatusDelivered)
		if _, err := db.ChatbotSession.Create().SetContactID(cid).Save(sysCtx); err != nil {
			t.Fatal(err)
		}
		if _, err := db.AgentTransfer.Create().SetContactID(cid).Save(sysCtx); err != nil {
			t.Fatal(err)
		}
		res := manager.Do(http.MethodDelete, "/api/contacts/"+id, nil).ExpectStatus(t, http.StatusOK)
		if res.String("status") != "success" {
			t.Errorf("delete: %s", res.Raw)
		}
		if v, ok := res.Body["data"]; !ok || v != nil {
			t.Errorf("delete data = %v, want null", v)
		}
		if _, err := db.Message.Get(sysCtx, m.ID); !ent.IsNotFound(err) {
			t.Errorf("message survived the contact: %v", err)
		}
		if n := db.ChatbotSession.Query().Where(chatbotsession.ContactID(cid)).CountX(sysCtx); n != 0 {
			t.Errorf("%d sessions survived", n)
		}
		if n := db.AgentTransfer.Query().Where(agenttransfer.ContactID(cid)).CountX(sysCtx); n != 0 {
			t.Errorf("%d transfers survived", n)
		}
		admin.Do(http.MethodGet, "/api/contacts/"+id, nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodDelete, "/api/contacts/"+id, nil).ExpectError(t, http.StatusNotFound)
	})
}

func manyTags(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "tag" + strconv.Itoa(i)
	}
	return out
}

// listedIDs returns the ids of the objects of the array at path, in order.
func listedIDs(res *apitest.Response, path string) []string {
	var out []string
	for i := range res.Len(path) {
		out = append(out, res.String(path+"."+strconv.Itoa(i)+".id"))
	}
	return out
}

// sameIDSet reports whether got and want hold the same ids in any order.
func sameIDSet(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return true
}
