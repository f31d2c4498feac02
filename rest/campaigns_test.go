package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/campaigns"
	"switchboard/ent"
	"switchboard/ent/template"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
)

var campaignKeys = []string{"id", "name", "chat_account", "template_id", "template_name", "status", "total_recipients",
	"sent_count", "delivered_count", "read_count", "failed_count", "scheduled_at", "started_at", "completed_at",
	"created_at", "updated_at"}

var recipientKeys = []string{"id", "phone_number", "recipient_name", "status", "sent_at", "delivered_at"}

// campaignEnv is a send environment with an approved template and a
// second organization with its own template.
type campaignEnv struct {
	*sendEnv
	tpl      *ent.Template
	other    *apitest.Client
	theirTpl uuid.UUID
}

func newCampaignEnv(t *testing.T) *campaignEnv {
	t.Helper()
	e := &campaignEnv{sendEnv: newSendEnv(t)}
	e.tpl = e.newTemplate(t, "promo", func(c *ent.TemplateCreate) { c.SetBodyContent("Hi {{1}}, {{2}} off today") })
	e.other = e.NewOrg("Elsewhere")
	octx := viewer.SystemContext(context.Background(), e.other.OrgID)
	tt, err := e.Client().Template.Create().SetChatAccount("Theirs").SetName("theirs").SetLanguage("en_US").
		SetCategory(template.CategoryMARKETING).SetStatus("APPROVED").SetBodyContent("x").Save(octx)
	if err != nil {
		t.Fatal(err)
	}
	e.theirTpl = tt.ID
	return e
}

// newCampaign creates a draft campaign of the template and returns its id.
func (e *campaignEnv) newCampaign(t *testing.T, name string, tpl *ent.Template) string {
	t.Helper()
	res := e.Admin.Do(http.MethodPost, "/api/campaigns", map[string]any{
		"name": name, "chat_account": "Main", "template_id": tpl.ID.String(),
	}).ExpectStatus(t, http.StatusCreated)
	return res.String("data.id")
}

// importN imports n recipients numbered from first.
func (e *campaignEnv) importN(t *testing.T, id string, first, n int) *apitest.Response {
	t.Helper()
	rows := make([]map[string]any, n)
	for i := range rows {
		rows[i] = map[string]any{"phone_number": fmt.Sprintf("+1555%07d", first+i), "recipient_name": fmt.Sprint("R", i),
			"template_params": map[string]any{"1": "Ann", "2": "10%"}}
	}
	return e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/recipients/import", map[string]any{"recipients": rows}).
		ExpectStatus(t, http.StatusOK)
}

func TestCampaignCRUD(t *testing.T) {
	e := newCampaignEnv(t)
	agent := e.NewUser(e.OrgID, access.RoleAgent)
	manager := e.NewUser(e.OrgID, access.RoleManager)
	e.newTemplate(t, "elsewhere_tpl", func(c *ent.TemplateCreate) { c.SetChatAccount("Other") })
	otherAccountTpl := e.newTemplate(t, "second_account", func(c *ent.TemplateCreate) { c.SetChatAccount("Second") })
	mustCreateAccount(t, e.Admin, acctBody("Second", map[string]any{"phone_id": newPhoneID()}))

	var id string
	t.Run("Create", func(t *testing.T) {
		at := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
		res := manager.Do(http.MethodPost, "/api/campaigns", map[string]any{
			"name": "  Black Friday ", "chat_account": "Main", "template_id": e.tpl.ID.String(),
			"scheduled_at": at.Format(time.RFC3339),
		}).ExpectStatus(t, http.StatusCreated)
		expectKeys(t, res, "data", campaignKeys...)
		id = res.String("data.id")
		for path, want := range map[string]any{
			"data.name": "Black Friday", "data.status": "draft", "data.template_name": "promo",
			"data.total_recipients": float64(0), "data.scheduled_at": at.Format(time.RFC3339), "data.started_at": nil,
		} {
			if got := res.Get(path); got != want {
				t.Errorf("%s = %v, want %v", path, got, want)
			}
		}
		valid := func(over map[string]any) map[string]any {
			b := map[string]any{"name": "x", "chat_account": "Main", "template_id": e.tpl.ID.String()}
			for k, v := range over {
				if v == nil {
					delete(b, k)
				} else {
					b[k] = v
				}
			}
			return b
		}
		badRequests(t, e.Admin, http.MethodPost, "/api/campaigns", map[string]any{
			"ErrMalformedJSON":         "{",
			"ErrEmptyBody":             "",
			"ErrNameMissing":           valid(map[string]any{"name": nil}),
			"ErrNameBlank":             valid(map[string]any{"name": "  "}),
			"ErrNameTooLong":           valid(map[string]any{"name": strings.Repeat("n", campaigns.MaxNameLength+1)}),
			"ErrNameWrongType":         valid(map[string]any{"name": 5}),
			"ErrAccountMissing":        valid(map[string]any{"chat_account": nil}),
			"ErrAccountUnknown":        valid(map[string]any{"chat_account": "Nope"}),
			"ErrTemplateMissing":       valid(map[string]any{"template_id": nil}),
			"ErrTemplateNotUUID":       valid(map[string]any{"template_id": "abc"}),
			"ErrTemplateOtherAccount":  valid(map[string]any{"template_id": otherAccountTpl.ID.String()}),
			"ErrScheduledInThePast":    valid(map[string]any{"scheduled_at": "2020-01-01T00:00:00Z"}),
			"ErrScheduledNotADate":     valid(map[string]any{"scheduled_at": "tomorrow"}),
			"ErrScheduledWrongType":    valid(map[string]any{"scheduled_at": 5}),
			"ErrNUL":                   valid(map[string]any{"name": "a\u0000b"}),
			"ErrHeaderMediaIDTooLong":  valid(map[string]any{"header_media_id": strings.Repeat("1", 513)}),
			"ErrScheduledWithoutZone":  valid(map[string]any{"scheduled_at": "2030-01-01T00:00:00"}),
			"ErrTemplateAsNumber":      valid(map[string]any{"template_id": 7}),
			"ErrAccountOfAnotherOrg":   valid(map[string]any{"chat_account": "Theirs"}),
			"ErrUnknownFieldTypeArray": valid(map[string]any{"name": []string{"a"}}),
		})
		t.Run("ErrUnknownTemplate", func(t *testing.T) {
			e.Admin.Do(http.MethodPost, "/api/campaigns", valid(map[string]any{"template_id": uuid.NewString()})).
				ExpectError(t, http.StatusNotFound)
		})
		t.Run("ErrAnotherOrganizationsTemplate", func(t *testing.T) {
			e.Admin.Do(http.MethodPost, "/api/campaigns", valid(map[string]any{"template_id": e.theirTpl.String()})).
				ExpectError(t, http.StatusNotFound)
		})
		agent.Do(http.MethodPost, "/api/campaigns", valid(nil)).ExpectError(t, http.StatusForbidden)
		e.Anonymous().Do(http.MethodPost, "/api/campaigns", valid(nil)).ExpectError(t, http.StatusUnauthorized)
	})

	t.Run("Get", func(t *testing.T) {
		res := manager.Do(http.MethodGet, "/api/campaigns/"+id, nil).ExpectStatus(t, http.StatusOK)
		expectKeys(t, res, "data", campaignKeys...)
		if res.String("data.template_name") != "promo" {
			t.Errorf("campaign %s", res.Raw)
		}
		e.other.Do(http.MethodGet, "/api/campaigns/"+id, nil).ExpectError(t, http.StatusNotFound)
		agent.Do(http.MethodGet, "/api/campaigns/"+id, nil).ExpectError(t, http.StatusForbidden)
		e.Admin.Do(http.MethodGet, "/api/campaigns/nope", nil).ExpectError(t, http.StatusBadRequest)
		e.Admin.Do(http.MethodGet, "/api/campaigns/"+uuid.NewString(), nil).ExpectError(t, http.StatusNotFound)
	})

	t.Run("Update", func(t *testing.T) {
		res := e.Admin.Do(http.MethodPut, "/api/campaigns/"+id, map[string]any{"name": "Cyber Monday", "scheduled_at": nil}).
			ExpectStatus(t, http.StatusOK)
		if res.String("data.name") != "Cyber Monday" || res.Get("data.scheduled_at") != nil ||
			res.String("data.template_id") != e.tpl.ID.String() || res.String("data.chat_account") != "Main" {
			t.Fatalf("update: %s", res.Raw)
		}
		badRequests(t, e.Admin, http.MethodPut, "/api/campaigns/"+id, map[string]any{
			"ErrMalformedJSON":        "{",
			"ErrNameBlank":            `{"name": ""}`,
			"ErrTemplateOtherAccount": map[string]any{"template_id": otherAccountTpl.ID.String()},
			"ErrAccountWithoutItsTpl": map[string]any{"chat_account": "Second"},
			"ErrScheduledInThePast":   map[string]any{"scheduled_at": "2001-01-01T00:00:00Z"},
		})
		e.other.Do(http.MethodPut, "/api/campaigns/"+id, map[string]any{"name": "x"}).ExpectError(t, http.StatusNotFound)
		agent.Do(http.MethodPut, "/api/campaigns/"+id, map[string]any{"name": "x"}).ExpectError(t, http.StatusForbidden)
		moved := e.Admin.Do(http.MethodPut, "/api/campaigns/"+id, map[string]any{
			"chat_account": "Second", "template_id": otherAccountTpl.ID.String()}).ExpectStatus(t, http.StatusOK)
		if moved.String("data.template_name") != "second_account" {
			t.Fatalf("update: %s", moved.Raw)
		}
		e.Admin.Do(http.MethodPut, "/api/campaigns/"+id, map[string]any{
			"chat_account": "Main", "template_id": e.tpl.ID.String()}).ExpectStatus(t, http.StatusOK)
	})

	t.Run("List", func(t *testing.T) {
		second := e.newCampaign(t, "Spring sale", e.tpl)
		e.importN(t, second, 1000, 2)
		e.Admin.Do(http.MethodPost, "/api/campaigns/"+second+"/cancel", nil).ExpectError(t, http.StatusBadRequest)
		e.Admin.Do(http.MethodPost, "/api/campaigns/"+second+"/start", nil).ExpectStatus(t, http.StatusOK)
		e.Admin.Do(http.MethodPost, "/api/campaigns/"+second+"/pause", nil) // it may already be completed
		res := manager.Do(http.MethodGet, "/api/campaigns", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total") != 2 || res.Len("data.campaigns") != 2 || res.Number("data.page") != 1 ||
			res.Number("data.limit") != 20 || res.String("data.campaigns.0.id") != second {
			t.Fatalf("list: %s", res.Raw)
		}
		expectKeys(t, res, "data.campaigns.0", campaignKeys...)
		today := time.Now().UTC().Format(time.DateOnly)
		for query, want := range map[string][]string{
			"?status=draft":                          {id},
			"?search=CYBER":                          {id},
			"?chat_account=Main":                     {second, id},
			"?chat_account=Second":                   {},
			"?from=" + today + "&to=" + today:        {second, id},
			"?from=2099-01-01":                       {},
			"?to=2001-01-01":                         {},
			"?limit=1":                               {second},
			"?limit=1&page=2":                        {id},
			"?limit=1&page=3":                        {},
			"?search=sale&from=2001-01-01T00:00:00Z": {second},
		} {
			t.Run(query, func(t *testing.T) {
				res := e.Admin.Do(http.MethodGet, "/api/campaigns"+query, nil).ExpectStatus(t, http.StatusOK)
				if res.Len("data.campaigns") != len(want) {
					t.Fatalf("%s: %s", query, res.Raw)
				}
				for i, w := range want {
					if got := res.String(fmt.Sprintf("data.campaigns.%d.id", i)); got != w {
						t.Errorf("%s: campaign %d = %s, want %s", query, i, got, w)
					}
				}
			})
		}
		for _, q := range []string{"?status=running", "?from=yesterday", "?to=2026-13-01", "?page=0", "?limit=x"} {
			e.Admin.Do(http.MethodGet, "/api/campaigns"+q, nil).ExpectError(t, http.StatusBadRequest)
		}
		if res := e.other.Do(http.MethodGet, "/api/campaigns", nil).ExpectStatus(t, http.StatusOK); res.Number("data.total") != 0 {
			t.Fatalf("another organization sees campaigns: %s", res.Raw)
		}
		agent.Do(http.MethodGet, "/api/campaigns", nil).ExpectError(t, http.StatusForbidden)
		t.Run("NotADraft", func(t *testing.T) {
			e.Admin.Do(http.MethodPut, "/api/campaigns/"+second, map[string]any{"name": "x"}).ExpectError(t, http.StatusBadRequest)
		})
	})

	t.Run("Delete", func(t *testing.T) {
		agent.Do(http.MethodDelete, "/api/campaigns/"+id, nil).ExpectError(t, http.StatusForbidden)
		e.other.Do(http.MethodDelete, "/api/campaigns/"+id, nil).ExpectError(t, http.StatusNotFound)
		res := e.Admin.Do(http.MethodDelete, "/api/campaigns/"+id, nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.message") == "" {
			t.Errorf("delete: %s", res.Raw)
		}
		e.Admin.Do(http.MethodGet, "/api/campaigns/"+id, nil).ExpectError(t, http.StatusNotFound)
		e.Admin.Do(http.MethodDelete, "/api/campaigns/"+id, nil).ExpectError(t, http.StatusNotFound)
	})
}

func TestCampaignImport(t *testing.T) {
	e := newCampaignEnv(t)
	agent := e.NewUser(e.OrgID, access.RoleAgent)
	headed := e.newTemplate(t, "headed", func(c *ent.TemplateCreate) {
		c.SetHeaderType(template.HeaderTypeTEXT).SetHeaderContent("Hello {{1}}").SetBodyContent("Body {{1}}")
	})
	id := e.newCampaign(t, "Import", e.tpl)
	path := "/api/campaigns/" + id + "/recipients/import"
	params := map[string]any{"1": "Ann", "2": 15}

	t.Run("Counts", func(t *testing.T) {
		res := e.Admin.Do(http.MethodPost, path, map[string]any{"recipients": []map[string]any{
			{"phone_number": "+1 (555) 010-0001", "recipient_name": "Ann", "template_params": params},
			{"phone_number": "0015550100001", "template_params": params}, // the same number
			{"phone_number": "+15550100002", "template_params": params},
			{"phone_number": "12ab", "template_params": params},
			{"phone_number": "+123", "template_params": params},
			{"phone_number": "+15550100003", "template_params": map[string]any{"1": "only one"}},
			{"phone_number": "+15550100004", "template_params": map[string]any{"1": "a", "2": "b", "3": "c"}},
			{"phone_number": "+15550100005", "template_params": params, "header_params": map[string]any{"1": "x"}},
			{"phone_number": "+15550100006", "template_params": map[string]any{"1": "tab\there", "2": "x"}},
			{"phone_number": "+15550100007", "template_params": map[string]any{"1": map[string]any{}, "2": "x"}},
		}}).ExpectStatus(t, http.StatusOK)
		for k, want := range map[string]float64{"data.imported": 2, "data.duplicates": 1, "data.invalid": 7} {
			if got := res.Number(k); got != want {
				t.Errorf("%s = %v, want %v: %s", k, got, want, res.Raw)
			}
		}
		if res.Len("data.errors") != 7 || res.Number("data.errors.0.index") != 3 {
			t.Errorf("errors: %s", res.Raw)
		}
		again := e.Admin.Do(http.MethodPost, path, map[string]any{"recipients": []map[string]any{
			{"phone_number": "15550100001", "template_params": params},
			{"phone_number": "+15550100009", "template_params": params},
		}}).ExpectStatus(t, http.StatusOK)
		if again.Number("data.imported") != 1 || again.Number("data.duplicates") != 1 || again.Number("data.invalid") != 0 {
			t.Fatalf("second import: %s", again.Raw)
		}
		c := e.Admin.Do(http.MethodGet, "/api/campaigns/"+id, nil).ExpectStatus(t, http.StatusOK)
		if c.Number("data.total_recipients") != 3 {
			t.Fatalf("total_recipients: %s", c.Raw)
		}
	})

	t.Run("HeaderParams", func(t *testing.T) {
		hid := e.newCampaign(t, "Headed", headed)
		res := e.Admin.Do(http.MethodPost, "/api/campaigns/"+hid+"/recipients/import", map[string]any{"recipients": []map[string]any{
			{"phone_number": "+15550200001", "template_params": map[string]any{"1": "b"}, "header_params": map[string]any{"1": "h"}},
			{"phone_number": "+15550200002", "template_params": map[string]any{"1": "b"}},
			{"phone_number": "+15550200003", "template_params": map[string]any{"1": "b"}, "header_params": map[string]any{"1": "h", "2": "i"}},
		}}).ExpectStatus(t, http.StatusOK)
		if res.Number("data.imported") != 1 || res.Number("data.invalid") != 2 {
			t.Fatalf("import: %s", res.Raw)
		}
	})

	t.Run("Errors", func(t *testing.T) {
		badRequests(t, e.Admin, http.MethodPost, path, map[string]any{
			"ErrMalformedJSON": "{",
			"ErrEmptyBody":     "",
			"ErrNoRecipients":  `{"recipients": []}`,
			"ErrMissing":       `{}`,
			"ErrWrongType":     `{"recipients": {"phone_number": "1"}}`,
			"ErrNUL":           `{"recipients": [{"phone_number": "\u0000"}]}`,
		})
		t.Run("ErrTooMany", func(t *testing.T) {
			rows := make([]map[string]any, campaigns.MaxImport+1)
			for i := range rows {
				rows[i] = map[string]any{"phone_number": "1"}
			}
			res := e.Admin.Do(http.MethodPost, path, map[string]any{"recipients": rows}).ExpectError(t, http.StatusBadRequest)
			if !strings.Contains(res.String("message"), "50000") {
				t.Errorf("message: %s", res.Raw)
			}
		})
		e.other.Do(http.MethodPost, path, map[string]any{"recipients": []map[string]any{{"phone_number": "+15550100010"}}}).
			ExpectError(t, http.StatusNotFound)
		agent.Do(http.MethodPost, path, map[string]any{"recipients": []map[string]any{{"phone_number": "+15550100010"}}}).
			ExpectError(t, http.StatusForbidden)
		e.Admin.Do(http.MethodPost, "/api/campaigns/x/recipients/import", `{"recipients":[]}`).ExpectError(t, http.StatusBadRequest)
	})

	t.Run("Recipients", func(t *testing.T) {
		res := e.Admin.Do(http.MethodGet, "/api/campaigns/"+id+"/recipients", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total") != 3 || res.Len("data.recipients") != 3 || res.String("data.recipients.0.phone_number") != "15550100001" ||
			res.String("data.recipients.0.recipient_name") != "Ann" || res.String("data.recipients.0.status") != "pending" {
			t.Fatalf("recipients: %s", res.Raw)
		}
		expectKeys(t, res, "data.recipients.0", recipientKeys...)
		page := e.Admin.Do(http.MethodGet, "/api/campaigns/"+id+"/recipients?limit=2&page=2", nil).ExpectStatus(t, http.StatusOK)
		if page.Number("data.total") != 3 || page.Len("data.recipients") != 1 || page.String("data.recipients.0.phone_number") != "15550100009" {
			t.Fatalf("page 2: %s", page.Raw)
		}
		e.Admin.Do(http.MethodGet, "/api/campaigns/"+id+"/recipients?status=bogus", nil).ExpectError(t, http.StatusBadRequest)
		e.Admin.Do(http.MethodGet, "/api/campaigns/"+id+"/recipients?limit=0", nil).ExpectError(t, http.StatusBadRequest)
		e.other.Do(http.MethodGet, "/api/campaigns/"+id+"/recipients", nil).ExpectError(t, http.StatusNotFound)
		agent.Do(http.MethodGet, "/api/campaigns/"+id+"/recipients", nil).ExpectError(t, http.StatusForbidden)

		rid := res.String("data.recipients.2.id")
		rpath := "/api/campaigns/" + id + "/recipients/" + rid
		agent.Do(http.MethodDelete, rpath, nil).ExpectError(t, http.StatusForbidden)
		e.other.Do(http.MethodDelete, rpath, nil).ExpectError(t, http.StatusNotFound)
		e.Admin.Do(http.MethodDelete, "/api/campaigns/"+id+"/recipients/nope", nil).ExpectError(t, http.StatusBadRequest)
		if del := e.Admin.Do(http.MethodDelete, rpath, nil).ExpectStatus(t, http.StatusOK); del.String("data.message") == "" {
			t.Errorf("delete: %s", del.Raw)
		}
		e.Admin.Do(http.MethodDelete, rpath, nil).ExpectError(t, http.StatusNotFound)
		other := e.newCampaign(t, "Other", e.tpl)
		e.Admin.Do(http.MethodDelete, "/api/campaigns/"+other+"/recipients/"+res.String("data.recipients.0.id"), nil).
			ExpectError(t, http.StatusNotFound)
		if c := e.Admin.Do(http.MethodGet, "/api/campaigns/"+id, nil); c.Number("data.total_recipients") != 2 {
			t.Fatalf("total after delete: %s", c.Raw)
		}
	})
}

func TestCampaignMedia(t *testing.T) {
	e := newCampaignEnv(t)
	agent := e.NewUser(e.OrgID, access.RoleAgent)
	img := e.newTemplate(t, "with_image", func(c *ent.TemplateCreate) {
		c.SetHeaderType(template.HeaderTypeIMAGE).SetBodyContent("Look")
	})
	id := e.newCampaign(t, "Media", img)
	path := "/api/campaigns/" + id + "/media"
	png := tinyPNG(t)

	res := postForm(t, e.Env, e.Admin, path, nil, &formFileSpec{field: "file", name: "banner.png", contentType: "image/png", data: png}).
		ExpectStatus(t, http.StatusOK)
	expectKeys(t, res, "data", "media_id", "filename", "mime_type", "local_path", "message")
	if res.String("data.mime_type") != "image/png" || res.String("data.filename") != "banner.png" ||
		!strings.HasPrefix(res.String("data.local_path"), "media/"+e.OrgID.String()+"/") || res.String("data.media_id") == "" {
		t.Fatalf("upload: %s", res.Raw)
	}
	if _, data, ok := e.fake.Media(res.String("data.media_id")); !ok || len(data) != len(png) {
		t.Fatal("the platform did not receive the file")
	}
	if c := e.Admin.Do(http.MethodGet, "/api/campaigns/"+id, nil); c.String("data.header_media_id") != res.String("data.media_id") {
		t.Fatalf("campaign: %s", c.Raw)
	}
	t.Run("ErrNotAnImage", func(t *testing.T) {
		postForm(t, e.Env, e.Admin, path, nil, &formFileSpec{field: "file", name: "x.png", contentType: "image/png", data: []byte("%PDF-1.4 nope")}).
			ExpectError(t, http.StatusBadRequest)
	})
	t.Run("ErrNoFile", func(t *testing.T) {
		postForm(t, e.Env, e.Admin, path, map[string]string{"x": "y"}, nil).ExpectError(t, http.StatusBadRequest)
	})
	t.Run("ErrNotMultipart", func(t *testing.T) {
		e.Admin.Do(http.MethodPost, path, `{}`).ExpectError(t, http.StatusBadRequest)
	})
	t.Run("ErrTemplateWithoutMediaHeader", func(t *testing.T) {
		plain := e.newCampaign(t, "Plain", e.tpl)
		postForm(t, e.Env, e.Admin, "/api/campaigns/"+plain+"/media", nil, &formFileSpec{field: "file", name: "b.png", contentType: "image/png", data: png}).
			ExpectError(t, http.StatusBadRequest)
	})
	postForm(t, e.Env, e.other, path, nil, &formFileSpec{field: "file", name: "b.png", contentType: "image/png", data: png}).
		ExpectError(t, http.StatusNotFound)
	postForm(t, e.Env, agent, path, nil, &formFileSpec{field: "file", name: "b.png", contentType: "image/png", data: png}).
		ExpectError(t, http.StatusForbidden)
}
