package rest_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/ent/contact"
	"switchboard/ent/message"
	"switchboard/ent/template"
	"switchboard/internal/apitest"
)

func TestSendTemplate(t *testing.T) {
	e := newSendEnv(t)
	shipped := e.newTemplate(t, "order_shipped", func(c *ent.TemplateCreate) {
		c.SetHeaderType(template.HeaderTypeTEXT).SetHeaderContent("Order from {{1}}").
			SetButtons([]map[string]any{{"type": "URL", "text": "Track", "url": "https://shop.example/track/{{1}}"},
				{"type": "QUICK_REPLY", "text": "Thanks"}})
	})
	plain := e.newTemplate(t, "welcome", func(c *ent.TemplateCreate) { c.SetBodyContent("Welcome to our shop!") })
	send := func(t *testing.T, body map[string]any) *apitest.Response {
		t.Helper()
		return e.Admin.Do(http.MethodPost, "/api/messages/template", body)
	}

	t.Run("ByNameOutsideTheWindow", func(t *testing.T) {
		c := e.newContact(t, false)
		res := send(t, map[string]any{"contact_id": c.ID.String(), "template_name": "order_shipped",
			"template_params": map[string]any{"1": "Ann", "2": 42}, "header_params": map[string]any{"1": "ACME"},
			"button_params": map[string]any{"0": "42"}}).ExpectStatus(t, http.StatusCreated)
		for path, want := range map[string]any{
			"data.message_type": "template", "data.status": "pending", "data.direction": "outgoing",
			"data.content.body": "Hi Ann, your order 42 has shipped.", "data.content.template_name": "order_shipped",
			"data.content.template_params.2": "42", "data.content.header": "Order from ACME",
		} {
			if got := res.Get(path); got != want {
				t.Errorf("%s = %v, want %v", path, got, want)
			}
		}
		e.waitStatus(t, res.String("data.id"), message.StatusSent)
		expectBody(t, e.sentTo(t, c.PhoneNumber), `{"messaging_product":"whatsapp","recipient_type":"individual",
			"to":"`+c.PhoneNumber+`","type":"template","template":{"name":"order_shipped","language":{"code":"en_US"},
			"components":[{"type":"header","parameters":[{"type":"text","text":"ACME"}]},
			{"type":"body","parameters":[{"type":"text","text":"Ann"},{"type":"text","text":"42"}]},
			{"type":"button","sub_type":"url","index":"0","parameters":[{"type":"text","text":"42"}]}]}}`)
	})
	t.Run("ByIDCreatesTheContact", func(t *testing.T) {
		res := send(t, map[string]any{"phone_number": "+1 (555) 777-0001", "template_id": plain.ID.String()}).
			ExpectStatus(t, http.StatusCreated)
		c, err := e.Client().Contact.Query().Where(contact.PhoneNumber("15557770001")).Only(e.ctx)
		if err != nil {
			t.Fatalf("contact not created: %v", err)
		}
		if res.String("data.contact_id") != c.ID.String() || c.ChatAccount != "Main" || c.LastMessagePreview != "Welcome to our shop!" {
			t.Fatalf("contact %+v, answer %s", c, res.Raw)
		}
		e.waitStatus(t, res.String("data.id"), message.StatusSent)
		expectBody(t, e.sentTo(t, "15557770001"), `{"messaging_product":"whatsapp","recipient_type":"individual",
			"to":"15557770001","type":"template","template":{"name":"welcome","language":{"code":"en_US"}}}`)
		again := send(t, map[string]any{"phone_number": "0015557770001", "template_name": "welcome"}).ExpectStatus(t, http.StatusCreated)
		if again.String("data.contact_id") != c.ID.String() {
			t.Fatal("a known phone number made a second contact")
		}
	})
	t.Run("NamedVariablesAndMultipart", func(t *testing.T) {
		e.newTemplate(t, "named_vars", func(c *ent.TemplateCreate) { c.SetBodyContent("Dear {{first_name}}, code {{code}}.") })
		c := e.newContact(t, true)
		res := postForm(t, e.Env, e.Admin, "/api/messages/template", map[string]string{
			"contact_id": c.ID.String(), "template_name": "named_vars", "template_params": `{"first_name":"Bo","code":"X1"}`,
		}, nil).ExpectStatus(t, http.StatusCreated)
		if res.String("data.content.body") != "Dear Bo, code X1." {
			t.Fatalf("answer %s", res.Raw)
		}
		e.waitStatus(t, res.String("data.id"), message.StatusSent)
		body := e.sentTo(t, c.PhoneNumber)
		want := jsonValue(t, `[{"type":"body","parameters":[{"type":"text","parameter_name":"code","text":"X1"},
			{"type":"text","parameter_name":"first_name","text":"Bo"}]}]`)
		if got := body["template"].(map[string]any)["components"]; !reflect.DeepEqual(got, want) {
			t.Fatalf("components %v", got)
		}
	})

	c := e.newContact(t, true)
	id := c.ID.String()
	full := func(overrides map[string]any) map[string]any {
		b := map[string]any{"contact_id": id, "template_name": "order_shipped",
			"template_params": map[string]any{"1": "Ann", "2": "42"}, "header_params": map[string]any{"1": "ACME"},
			"button_params": map[string]any{"0": "42"}}
		for k, v := range overrides {
			if v == nil {
				delete(b, k)
			} else {
				b[k] = v
			}
		}
		return b
	}
	e.newTemplate(t, "pending_one", func(c *ent.TemplateCreate) { c.SetStatus("PENDING") })
	e.newTemplate(t, "two_header_vars", func(c *ent.TemplateCreate) {
		c.SetHeaderType(template.HeaderTypeTEXT).SetHeaderContent("{{1}} and {{2}}")
	})
	e.newTemplate(t, "invoice", func(c *ent.TemplateCreate) { c.SetHeaderType(template.HeaderTypeDOCUMENT) })
	e.newTemplate(t, "bilingual", func(c *ent.TemplateCreate) { c.SetBodyContent("Hello") })
	e.newTemplate(t, "bilingual", func(c *ent.TemplateCreate) { c.SetBodyContent("Hola").SetLanguage("es") })
	mustCreateAccount(t, e.Admin, acctBody("Second", map[string]any{"phone_id": newPhoneID()}))
	for name, tc := range map[string]struct {
		body map[string]any
		want int
		msg  string
	}{
		"UnknownName":            {full(map[string]any{"template_name": "nope"}), 404, `template "nope" not found for account "Main"`},
		"UnknownID":              {full(map[string]any{"template_name": nil, "template_id": uuid.NewString()}), 404, "template not found"},
		"NoTemplate":             {full(map[string]any{"template_name": nil}), 400, "template_name or template_id is required"},
		"BothTemplateRefs":       {full(map[string]any{"template_id": shipped.ID.String()}), 400, "not both"},
		"NoRecipient":            {full(map[string]any{"contact_id": nil}), 400, "contact_id or phone_number is required"},
		"BothRecipients":         {full(map[string]any{"phone_number": "15550001111"}), 400, "not both"},
		"UnknownContact":         {full(map[string]any{"contact_id": uuid.NewString()}), 404, "contact not found"},
		"BadContactID":           {full(map[string]any{"contact_id": "nope"}), 400, "contact_id must be a valid UUID"},
		"BadPhone":               {full(map[string]any{"contact_id": nil, "phone_number": "12"}), 400, "phone_number must have"},
		"NotApproved":            {full(map[string]any{"template_name": "pending_one"}), 400, "is not approved (status PENDING)"},
		"MissingBodyParam":       {full(map[string]any{"template_params": map[string]any{"1": "Ann"}}), 400, "needs a value for {{2}}"},
		"UnknownBodyParam":       {full(map[string]any{"template_params": map[string]any{"1": "A", "2": "B", "3": "C"}}), 400, "has no variable {{3}}"},
		"ParamWithNewLine":       {full(map[string]any{"template_params": map[string]any{"1": "A\nB", "2": "B"}}), 400, "new lines"},
		"ParamNotText":           {full(map[string]any{"template_params": map[string]any{"1": true, "2": "B"}}), 400, "strings or numbers"},
		"TwoHeaderParams":        {full(map[string]any{"header_params": map[string]any{"1": "a", "2": "b"}}), 400, "at most 1 TEXT header variable"},
		"TwoHeaderVariables":     {full(map[string]any{"template_name": "two_header_vars", "header_params": map[string]any{"1": "a"}, "button_params": nil}), 400, "at most 1 is supported"},
		"MissingHeaderParam":     {full(map[string]any{"header_params": nil}), 400, "header_params needs a value for {{1}}"},
		"MissingButtonParam":     {full(map[string]any{"button_params": nil}), 400, "button_params needs a value for button 0"},
		"StaticButtonParam":      {full(map[string]any{"button_params": map[string]any{"0": "x", "1": "y"}}), 400, "button 1 of template"},
		"BadButtonIndex":         {full(map[string]any{"button_params": map[string]any{"first": "x"}}), 400, "button indexes"},
		"DocumentWithoutName":    {map[string]any{"contact_id": id, "template_name": "invoice", "template_params": map[string]any{"1": "a", "2": "b"}, "header_media_id": "123"}, 400, "header_media_filename is required for the DOCUMENT header"},
		"DocumentWithoutMedia":   {map[string]any{"contact_id": id, "template_name": "invoice", "template_params": map[string]any{"1": "a", "2": "b"}, "header_media_filename": "a.pdf"}, 400, "give header_media_id, header_media_url or header_file"},
		"MediaForTextHeader":     {full(map[string]any{"header_media_id": "123"}), 400, "header media is not accepted"},
		"MediaForNoHeader":       {map[string]any{"contact_id": id, "template_name": "welcome", "header_media_id": "123"}, 400, "has no header"},
		"TwoMediaSources":        {map[string]any{"contact_id": id, "template_name": "invoice", "header_media_id": "1", "header_media_url": "https://example.com/a.pdf"}, 400, "give one of"},
		"AmbiguousLanguage":      {map[string]any{"contact_id": id, "template_name": "bilingual"}, 400, "several languages (en_US, es)"},
		"OtherAccountsTemplate":  {full(map[string]any{"template_name": nil, "template_id": shipped.ID.String(), "account_name": "Second"}), 400, `belongs to account "Main", not "Second"`},
		"NameUnknownInAccount":   {full(map[string]any{"account_name": "Second"}), 404, `for account "Second"`},
		"UnknownAccount":         {full(map[string]any{"account_name": "Nope"}), 400, `account "Nope" not found`},
		"BlockedHeaderURLScheme": {map[string]any{"contact_id": id, "template_name": "invoice", "template_params": map[string]any{"1": "a", "2": "b"}, "header_media_filename": "a.pdf", "header_media_url": "file:///etc/passwd"}, 400, "absolute http or https URL"},
	} {
		t.Run(name, func(t *testing.T) {
			res := send(t, tc.body).ExpectError(t, tc.want)
			if !strings.Contains(res.String("message"), tc.msg) {
				t.Errorf("message %q, want it to mention %q", res.String("message"), tc.msg)
			}
		})
	}
	t.Run("CrossTenant", func(t *testing.T) {
		foreign := e.NewOrg("Elsewhere")
		foreign.Do(http.MethodPost, "/api/messages/template", full(nil)).ExpectError(t, http.StatusNotFound)
		foreign.Do(http.MethodPost, "/api/messages/template", map[string]any{"phone_number": "15550002222",
			"template_id": shipped.ID.String()}).ExpectError(t, http.StatusNotFound)
	})
}

func TestSendTemplateHeaderMedia(t *testing.T) {
	e := newSendEnv(t)
	e.newTemplate(t, "promo", func(c *ent.TemplateCreate) { c.SetHeaderType(template.HeaderTypeIMAGE).SetBodyContent("New!") })
	e.newTemplate(t, "invoice", func(c *ent.TemplateCreate) {
		c.SetHeaderType(template.HeaderTypeDOCUMENT).SetBodyContent("Your invoice")
	})
	pngFile := tinyPNG(t)
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/banner.png":
			_, _ = w.Write(pngFile)
		case "/huge.png":
			_, _ = w.Write(append(append([]byte{}, pngFile...), make([]byte, 5<<20)...))
		default:
			http.NotFound(w, r)
		}
	}))
	defer files.Close()

	// uploaded checks that the worker uploaded data and sent the header by
	// the platform's media id.
	uploaded := func(t *testing.T, phone string, data []byte) {
		t.Helper()
		tpl := e.sentTo(t, phone)["template"].(map[string]any)
		header := tpl["components"].([]any)[0].(map[string]any)
		image, _ := header["parameters"].([]any)[0].(map[string]any)["image"].(map[string]any)
		mimeType, stored, ok := e.fake.Media(fmt.Sprint(image["id"]))
		if !ok || mimeType != "image/png" || !bytes.Equal(stored, data) {
			t.Fatalf("header %v does not name the uploaded file", header)
		}
	}
	t.Run("URL", func(t *testing.T) {
		c := e.newContact(t, false)
		res := e.Admin.Do(http.MethodPost, "/api/messages/template", map[string]any{"contact_id": c.ID.String(),
			"template_name": "promo", "header_media_url": files.URL + "/banner.png"}).ExpectStatus(t, http.StatusCreated)
		if !strings.HasPrefix(res.String("data.media_url"), "/api/media/") || res.String("data.media_mime_type") != "image/png" {
			t.Fatalf("answer %s", res.Raw)
		}
		e.waitStatus(t, res.String("data.id"), message.StatusSent)
		uploaded(t, c.PhoneNumber, pngFile)
	})
	t.Run("File", func(t *testing.T) {
		c := e.newContact(t, false)
		res := postForm(t, e.Env, e.Admin, "/api/messages/template", map[string]string{
			"contact_id": c.ID.String(), "template_name": "promo",
		}, &formFileSpec{field: "header_file", name: "banner.png", data: pngFile}).ExpectStatus(t, http.StatusCreated)
		e.waitStatus(t, res.String("data.id"), message.StatusSent)
		uploaded(t, c.PhoneNumber, pngFile)
	})
	t.Run("DocumentByID", func(t *testing.T) {
		c := e.newContact(t, false)
		res := e.Admin.Do(http.MethodPost, "/api/messages/template", map[string]any{"contact_id": c.ID.String(),
			"template_name": "invoice", "header_media_id": "4490709327384033", "header_media_filename": "invoice-7.pdf"}).
			ExpectStatus(t, http.StatusCreated)
		e.waitStatus(t, res.String("data.id"), message.StatusSent)
		header := e.sentTo(t, c.PhoneNumber)["template"].(map[string]any)["components"].([]any)[0]
		if want := jsonValue(t, `{"type":"header","parameters":[{"type":"document","document":{"id":"4490709327384033","filename":"invoice-7.pdf"}}]}`); !reflect.DeepEqual(header, want) {
			t.Fatalf("header %v", header)
		}
	})
	c := e.newContact(t, false)
	for name, tc := range map[string]struct {
		body map[string]any
		msg  string
	}{
		"URLNotFound":     {map[string]any{"header_media_url": files.URL + "/missing.png"}, "answered HTTP 404"},
		"URLTooLarge":     {map[string]any{"header_media_url": files.URL + "/huge.png"}, "at most 5 MB"},
		"URLUnreachable":  {map[string]any{"header_media_url": "http://127.0.0.1:1/a.png"}, "could not be downloaded"},
		"PDFAsImageByURL": {map[string]any{"template_name": "invoice", "header_media_filename": "x.pdf", "header_media_url": files.URL + "/banner.png"}, "must be PDF, DOC, XLS or PPT"},
	} {
		t.Run(name, func(t *testing.T) {
			body := map[string]any{"contact_id": c.ID.String(), "template_name": "promo"}
			for k, v := range tc.body {
				body[k] = v
			}
			res := e.Admin.Do(http.MethodPost, "/api/messages/template", body).ExpectError(t, http.StatusBadRequest)
			if !strings.Contains(res.String("message"), tc.msg) {
				t.Errorf("message %q, want it to mention %q", res.String("message"), tc.msg)
			}
		})
	}
	t.Run("MultipartBadParams", func(t *testing.T) {
		postForm(t, e.Env, e.Admin, "/api/messages/template", map[string]string{
			"contact_id": c.ID.String(), "template_name": "promo", "template_params": "not json",
		}, nil).ExpectError(t, http.StatusBadRequest)
	})
}
