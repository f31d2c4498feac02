package rest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/ent/message"
	"switchboard/ent/parkedstatus"
	"switchboard/ent/template"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/internal/apitest"
	"switchboard/internal/testkit"
	"switchboard/provider/providertest"
)

// sendEnv is an application against the provider fake with one account
// ("Main", the default outgoing one).
type sendEnv struct {
	*apitest.Env
	fake  *providertest.Fake
	ctx   context.Context // the organization's system viewer
	phone atomic.Int64
}

func newSendEnv(t *testing.T) *sendEnv {
	t.Helper()
	env, fake := newAccountEnv(t)
	mustCreateAccount(t, env.Admin, acctBody("Main", nil))
	e := &sendEnv{Env: env, fake: fake, ctx: viewer.SystemContext(context.Background(), env.OrgID)}
	e.phone.Store(15550100000)
	return e
}

// newContact creates a contact with a fresh number; open says whether it
// wrote within the last 24 hours.
func (e *sendEnv) newContact(t *testing.T, open bool) *ent.Contact {
	t.Helper()
	last := time.Now().Add(-time.Hour)
	if !open {
		last = time.Now().Add(-25 * time.Hour)
	}
	c, err := e.Client().Contact.Create().SetPhoneNumber(fmt.Sprint(e.phone.Add(1))).SetLastInboundAt(last).Save(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newTemplate stores a template of account Main (template CRUD is not
// part of this API yet).
func (e *sendEnv) newTemplate(t *testing.T, name string, edit func(*ent.TemplateCreate)) *ent.Template {
	t.Helper()
	create := e.Client().Template.Create().SetChatAccount("Main").SetName(name).SetLanguage("en_US").
		SetCategory(template.CategoryUTILITY).SetStatus("APPROVED").
		SetBodyContent("Hi {{1}}, your order {{2}} has shipped.")
	if edit != nil {
		edit(create)
	}
	tpl, err := create.Save(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

// waitStatus waits until the message leaves pending and returns it.
func (e *sendEnv) waitStatus(t *testing.T, id string, want message.Status) *ent.Message {
	t.Helper()
	var m *ent.Message
	testkit.Eventually(t, "message "+string(want), func() bool {
		var err error
		m, err = e.Client().Message.Get(e.ctx, uuid.MustParse(id))
		return err == nil && m.Status == want
	})
	return m
}

// sentTo returns the body of the last message the fake received for phone.
func (e *sendEnv) sentTo(t *testing.T, phone string) map[string]any {
	t.Helper()
	reqs := e.fake.Find(http.MethodPost, "/"+providertest.PhoneID+"/messages")
	for i := len(reqs) - 1; i >= 0; i-- {
		body, _ := reqs[i].JSON(t).(map[string]any)
		if body["to"] == phone {
			return body
		}
	}
	t.Fatalf("nothing was sent to %s", phone)
	return nil
}

// jsonValue parses a JSON literal for comparisons with recorded bodies.
func jsonValue(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON in test: %v", err)
	}
	return v
}

func expectBody(t *testing.T, got map[string]any, want string) {
	t.Helper()
	if w := jsonValue(t, want); !reflect.DeepEqual(any(got), w) {
		b, _ := json.Marshal(got)
		t.Fatalf("provider received %s\nwant %s", b, want)
	}
}

func messagesPath(c *ent.Contact) string { return "/api/contacts/" + c.ID.String() + "/messages" }

func TestSendText(t *testing.T) {
	e := newSendEnv(t)
	c := e.newContact(t, true)
	sub := e.App.Events.Subscribe(e.OrgID, 16)
	defer sub.Close()

	res := e.Admin.Do(http.MethodPost, messagesPath(c), map[string]any{"type": "text", "content": map[string]any{"body": "  Hello there  "}}).
		ExpectStatus(t, http.StatusCreated)
	for path, want := range map[string]any{
		"data.status": "pending", "data.direction": "outgoing", "data.message_type": "text",
		"data.content.body": "Hello there", "data.chat_account": "Main", "data.contact_id": c.ID.String(),
		"data.chat_message_id": nil,
	} {
		if got := res.Get(path); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	id := res.String("data.id")
	m := e.waitStatus(t, id, message.StatusSent)
	if m.ChatMessageID == nil || !strings.HasPrefix(*m.ChatMessageID, "wamid.") {
		t.Fatalf("chat_message_id %v", m.ChatMessageID)
	}
	if m.SentByUserID == nil || *m.SentByUserID != e.Admin.UserID {
		t.Errorf("sent_by_user_id %v, want the admin", m.SentByUserID)
	}
	expectBody(t, e.sentTo(t, c.PhoneNumber), `{"messaging_product":"whatsapp","recipient_type":"individual",
		"to":"`+c.PhoneNumber+`","type":"text","text":{"preview_url":false,"body":"Hello there"}}`)
	for _, r := range e.fake.Find(http.MethodPost, "/"+providertest.PhoneID+"/messages") {
		if r.Header.Get("Authorization") != "Bearer "+acctToken {
			t.Errorf("send authorized with %q", r.Header.Get("Authorization"))
		}
	}
	got, err := e.Client().Contact.Get(e.ctx, c.ID)
	if err != nil || got.LastMessagePreview != "Hello there" || got.LastMessageAt == nil {
		t.Errorf("contact after send: preview %q, last_message_at %v", got.LastMessagePreview, got.LastMessageAt)
	}
	listed := e.Admin.Do(http.MethodGet, messagesPath(c), nil).ExpectStatus(t, http.StatusOK)
	if listed.String("data.messages.0.id") != id || listed.String("data.messages.0.status") != "sent" {
		t.Errorf("listing after send: %s", listed.Raw)
	}

	seen := map[string]bool{}
	timeout := time.After(5 * time.Second)
	for !seen[events.FrameMessageNew] || !seen[events.FrameMessageStatus] {
		select {
		case ev := <-sub.C():
			var p map[string]any
			_ = json.Unmarshal(ev.Payload, &p)
			if p["id"] == id || ev.Type == events.FrameContactUpdated {
				seen[ev.Type] = true
			}
			if ev.Type == events.FrameMessageNew && (p["direction"] != "outgoing" || p["type"] != "text" || p["contact_id"] != c.ID.String()) {
				t.Errorf("message:new payload %s", ev.Payload)
			}
		case <-timeout:
			t.Fatalf("events seen %v, want message:new and message:status", seen)
		}
	}
}

func TestSendInteractive(t *testing.T) {
	e := newSendEnv(t)
	buttons := func(n, titleLen int) []any {
		out := []any{}
		for i := range n {
			out = append(out, map[string]any{"id": fmt.Sprint("b", i), "title": strings.Repeat("t", titleLen)})
		}
		return out
	}
	t.Run("Buttons", func(t *testing.T) {
		c := e.newContact(t, true)
		res := e.Admin.Do(http.MethodPost, messagesPath(c), map[string]any{"type": "interactive", "interactive": map[string]any{
			"type": "button", "body": "Pick one", "buttons": []any{
				map[string]any{"id": "yes", "title": "Yes"}, map[string]any{"id": "no", "title": "No"}}}}).
			ExpectStatus(t, http.StatusCreated)
		if res.String("data.message_type") != "interactive" || res.String("data.content.body") != "Pick one" ||
			res.String("data.interactive_data.buttons.1.title") != "No" {
			t.Fatalf("answer %s", res.Raw)
		}
		e.waitStatus(t, res.String("data.id"), message.StatusSent)
		expectBody(t, e.sentTo(t, c.PhoneNumber), `{"messaging_product":"whatsapp","recipient_type":"individual",
			"to":"`+c.PhoneNumber+`","type":"interactive","interactive":{"type":"button","body":{"text":"Pick one"},
			"action":{"buttons":[{"type":"reply","reply":{"id":"yes","title":"Yes"}},{"type":"reply","reply":{"id":"no","title":"No"}}]}}}`)
	})
	t.Run("CTAURL", func(t *testing.T) {
		c := e.newContact(t, true)
		res := e.Admin.Do(http.MethodPost, messagesPath(c), map[string]any{"type": "interactive", "chat_account": "Main",
			"interactive": map[string]any{"type": "cta_url", "body": "Track it", "button_text": "Open", "url": "https://example.com/t/1"}}).
			ExpectStatus(t, http.StatusCreated)
		if res.String("data.interactive_data.url") != "https://example.com/t/1" {
			t.Fatalf("answer %s", res.Raw)
		}
		e.waitStatus(t, res.String("data.id"), message.StatusSent)
		expectBody(t, e.sentTo(t, c.PhoneNumber), `{"messaging_product":"whatsapp","recipient_type":"individual",
			"to":"`+c.PhoneNumber+`","type":"interactive","interactive":{"type":"cta_url","body":{"text":"Track it"},
			"action":{"name":"cta_url","parameters":{"display_text":"Open","url":"https://example.com/t/1"}}}}`)
	})
	c := e.newContact(t, true)
	for name, in := range map[string]map[string]any{
		"FourButtons":       {"type": "button", "body": "b", "buttons": buttons(4, 5)},
		"NoButtons":         {"type": "button", "body": "b", "buttons": []any{}},
		"TitleOf21":         {"type": "button", "body": "b", "buttons": buttons(1, 21)},
		"RepeatedIDs":       {"type": "button", "body": "b", "buttons": []any{map[string]any{"id": "a", "title": "A"}, map[string]any{"id": "a", "title": "B"}}},
		"NoBody":            {"type": "button", "buttons": buttons(1, 5)},
		"UnknownType":       {"type": "list", "body": "b"},
		"CTAWithoutURL":     {"type": "cta_url", "body": "b", "button_text": "Go"},
		"CTANotHTTP":        {"type": "cta_url", "body": "b", "button_text": "Go", "url": "javascript:alert(1)"},
		"CTAButtonTextOf21": {"type": "cta_url", "body": "b", "button_text": strings.Repeat("x", 21), "url": "https://example.com"},
	} {
		t.Run(name, func(t *testing.T) {
			e.Admin.Do(http.MethodPost, messagesPath(c), map[string]any{"type": "interactive", "interactive": in}).
				ExpectError(t, http.StatusBadRequest)
		})
	}
	if n, _ := e.Client().Message.Query().Where(message.ContactID(c.ID)).Count(e.ctx); n != 0 {
		t.Fatalf("%d messages stored by refused sends", n)
	}
}

func TestSendMessageErrors(t *testing.T) {
	e := newSendEnv(t)
	open := e.newContact(t, true)
	text := map[string]any{"type": "text", "content": map[string]any{"body": "hi"}}
	for name, tc := range map[string]struct {
		path string
		body any
		want int
		msg  string
	}{
		"NoType":         {messagesPath(open), map[string]any{"content": map[string]any{"body": "hi"}}, 400, "type is required"},
		"BadType":        {messagesPath(open), map[string]any{"type": "template"}, 400, "type must be text or interactive"},
		"NoBody":         {messagesPath(open), map[string]any{"type": "text"}, 400, "content.body is required"},
		"BlankBody":      {messagesPath(open), map[string]any{"type": "text", "content": map[string]any{"body": "  "}}, 400, "content.body is required"},
		"BodyTooLong":    {messagesPath(open), map[string]any{"type": "text", "content": map[string]any{"body": strings.Repeat("x", 4097)}}, 400, "at most 4096"},
		"NoInteractive":  {messagesPath(open), map[string]any{"type": "interactive"}, 400, "interactive is required"},
		"NotJSON":        {messagesPath(open), "{", 400, "invalid JSON"},
		"UnknownAccount": {messagesPath(open), map[string]any{"type": "text", "content": map[string]any{"body": "hi"}, "chat_account": "Nope"}, 400, `account "Nope" not found`},
		"BadContactID":   {"/api/contacts/nope/messages", text, 400, "id must be a valid UUID"},
		"UnknownContact": {"/api/contacts/" + uuid.NewString() + "/messages", text, 404, "contact not found"},
	} {
		t.Run(name, func(t *testing.T) {
			res := e.Admin.Do(http.MethodPost, tc.path, tc.body).ExpectError(t, tc.want)
			if !strings.Contains(res.String("message"), tc.msg) {
				t.Errorf("message %q, want it to mention %q", res.String("message"), tc.msg)
			}
		})
	}
	t.Run("WindowClosed", func(t *testing.T) {
		closed := e.newContact(t, false)
		for _, body := range []map[string]any{text, {"type": "interactive", "interactive": map[string]any{
			"type": "button", "body": "b", "buttons": []any{map[string]any{"id": "a", "title": "A"}}}}} {
			res := e.Admin.Do(http.MethodPost, messagesPath(closed), body).ExpectError(t, http.StatusBadRequest)
			if !strings.Contains(res.String("message"), "service window is closed") {
				t.Errorf("message %q", res.String("message"))
			}
		}
		never, err := e.Client().Contact.Create().SetPhoneNumber("15559990000").Save(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		e.Admin.Do(http.MethodPost, messagesPath(never), text).ExpectError(t, http.StatusBadRequest)
	})
	t.Run("SecondAccountByName", func(t *testing.T) {
		mustCreateAccount(t, e.Admin, acctBody("Second", map[string]any{"phone_id": newPhoneID()}))
		res := e.Admin.Do(http.MethodPost, messagesPath(open), map[string]any{"type": "text",
			"content": map[string]any{"body": "from the second line"}, "chat_account": "Second"}).ExpectStatus(t, http.StatusCreated)
		if res.String("data.chat_account") != "Second" {
			t.Fatalf("chat_account %q", res.String("data.chat_account"))
		}
	})
	t.Run("NoAccountInOrganization", func(t *testing.T) {
		other := e.NewOrg("No Accounts")
		c := other.Do(http.MethodPost, "/api/contacts", map[string]any{"phone_number": "+1 555 222 3333"}).ExpectStatus(t, http.StatusCreated)
		_, err := e.Client().Contact.UpdateOneID(uuid.MustParse(c.String("data.id"))).SetLastInboundAt(time.Now()).
			Save(viewer.SystemContext(context.Background(), other.OrgID))
		if err != nil {
			t.Fatal(err)
		}
		res := other.Do(http.MethodPost, "/api/contacts/"+c.String("data.id")+"/messages", text).ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "no account to send from") {
			t.Errorf("message %q", res.String("message"))
		}
	})
	t.Run("CrossTenantContact", func(t *testing.T) {
		e.NewOrg("Elsewhere").Do(http.MethodPost, messagesPath(open), text).ExpectError(t, http.StatusNotFound)
	})
	t.Run("Anonymous", func(t *testing.T) {
		e.Anonymous().Do(http.MethodPost, messagesPath(open), text).ExpectError(t, http.StatusUnauthorized)
		e.Anonymous().Do(http.MethodPost, "/api/messages/template", map[string]any{}).ExpectError(t, http.StatusUnauthorized)
		e.Anonymous().Do(http.MethodPost, "/api/messages/media", map[string]any{}).ExpectError(t, http.StatusUnauthorized)
	})
	t.Run("RoleWithoutMessagesCreate", func(t *testing.T) {
		e.Admin.Do(http.MethodPost, "/api/roles", map[string]any{"name": "Readers",
			"permissions": []string{"contacts:read", "messages:read"}}).ExpectStatus(t, http.StatusCreated)
		reader := e.NewUser(e.OrgID, "Readers")
		reader.Do(http.MethodPost, messagesPath(open), text).ExpectError(t, http.StatusForbidden)
		reader.Do(http.MethodPost, "/api/messages/template", map[string]any{"contact_id": open.ID.String()}).ExpectError(t, http.StatusForbidden)
		sendRaw(t, e.Env, reader, "/api/messages/media", "multipart/form-data; boundary=x", []byte("--x--")).ExpectError(t, http.StatusForbidden)
		// An Agent holds messages:create.
		agent := e.NewUser(e.OrgID, "Agent")
		agent.Do(http.MethodPost, messagesPath(open), text).ExpectStatus(t, http.StatusCreated)
	})
}

func TestSendFailures(t *testing.T) {
	e := newSendEnv(t)
	text := map[string]any{"type": "text", "content": map[string]any{"body": "hi"}}
	t.Run("ProviderRefusalFails", func(t *testing.T) {
		c := e.newContact(t, true)
		e.fake.Script("POST /{phone}/messages", providertest.NotAllowedRecipient())
		res := e.Admin.Do(http.MethodPost, messagesPath(c), text).ExpectStatus(t, http.StatusCreated)
		m := e.waitStatus(t, res.String("data.id"), message.StatusFailed)
		if !strings.Contains(m.ErrorMessage, "(#131030) Recipient phone number not in allowed list") || m.ChatMessageID != nil {
			t.Fatalf("error_message %q, chat_message_id %v", m.ErrorMessage, m.ChatMessageID)
		}
		listed := e.Admin.Do(http.MethodGet, messagesPath(c), nil)
		if !strings.Contains(listed.String("data.messages.0.error_message"), "131030") {
			t.Errorf("listing does not show the reason: %s", listed.Raw)
		}
	})
	t.Run("ServerErrorsThenSuccessIsRetried", func(t *testing.T) {
		c := e.newContact(t, true)
		before := len(e.fake.Find(http.MethodPost, "/"+providertest.PhoneID+"/messages"))
		// The client's own retries (3) are used up, so the queue retries.
		e.fake.Script("POST /{phone}/messages", providertest.Unavailable(), providertest.Unavailable(),
			providertest.Unavailable(), providertest.Unavailable())
		res := e.Admin.Do(http.MethodPost, messagesPath(c), text).ExpectStatus(t, http.StatusCreated)
		m := e.waitStatus(t, res.String("data.id"), message.StatusSent)
		if m.ChatMessageID == nil {
			t.Fatal("sent without a chat_message_id")
		}
		if n := len(e.fake.Find(http.MethodPost, "/"+providertest.PhoneID+"/messages")) - before; n != 5 {
			t.Errorf("%d send attempts, want 4 refused and 1 accepted", n)
		}
	})
	t.Run("StatusBeforeTheIDIsApplied", func(t *testing.T) {
		c := e.newContact(t, true)
		e.fake.Script("POST /{phone}/messages", providertest.JSON(http.StatusOK, map[string]any{
			"messaging_product": "whatsapp", "contacts": []any{map[string]any{"input": c.PhoneNumber, "wa_id": c.PhoneNumber}},
			"messages": []any{map[string]any{"id": "wamid.STATUS_FIRST"}},
		}))
		// The platform's "read" webhook was processed before the worker
		// stored the id, so it was parked.
		err := e.Client().ParkedStatus.Create().SetChatMessageID("wamid.STATUS_FIRST").SetStatus(parkedstatus.StatusRead).Exec(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		res := e.Admin.Do(http.MethodPost, messagesPath(c), text).ExpectStatus(t, http.StatusCreated)
		m := e.waitStatus(t, res.String("data.id"), message.StatusRead)
		if *m.ChatMessageID != "wamid.STATUS_FIRST" {
			t.Fatalf("chat_message_id %s", *m.ChatMessageID)
		}
	})
}

func TestSendMedia(t *testing.T) {
	e := newSendEnv(t)
	pngFile := tinyPNG(t)
	t.Run("PNG", func(t *testing.T) {
		c := e.newContact(t, true)
		res := postForm(t, e.Env, e.Admin, "/api/messages/media", map[string]string{
			"contact_id": c.ID.String(), "caption": "Look at this",
		}, &formFileSpec{field: "file", name: "photo.png", data: pngFile, contentType: "application/octet-stream"}).
			ExpectStatus(t, http.StatusCreated)
		for path, want := range map[string]any{
			"data.message_type": "image", "data.media_mime_type": "image/png", "data.media_filename": "photo.png",
			"data.content.body": "Look at this", "data.status": "pending",
		} {
			if got := res.Get(path); got != want {
				t.Errorf("%s = %v, want %v", path, got, want)
			}
		}
		if !strings.HasPrefix(res.String("data.media_url"), "/api/media/"+e.OrgID.String()+"/") {
			t.Errorf("media_url %q", res.String("data.media_url"))
		}
		if served := e.Admin.Do(http.MethodGet, res.String("data.media_url"), nil); served.Status != http.StatusOK || !bytes.Equal(served.Raw, pngFile) {
			t.Errorf("GET media_url: %d, %d bytes; want the uploaded file", served.Status, len(served.Raw))
		}
		e.waitStatus(t, res.String("data.id"), message.StatusSent)
		body := e.sentTo(t, c.PhoneNumber)
		image := body["image"].(map[string]any)
		if _, data, ok := e.fake.Media(fmt.Sprint(image["id"])); !ok || !bytes.Equal(data, pngFile) || image["caption"] != "Look at this" || body["type"] != "image" {
			t.Fatalf("sent %v", body)
		}
	})
	t.Run("Document", func(t *testing.T) {
		c := e.newContact(t, true)
		pdf := []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF\n")
		res := postForm(t, e.Env, e.Admin, "/api/messages/media", map[string]string{"contact_id": c.ID.String(), "type": "document"},
			&formFileSpec{field: "file", name: "C:\\Users\\ann\\report.pdf", data: pdf}).ExpectStatus(t, http.StatusCreated)
		if res.String("data.media_filename") != "report.pdf" || res.String("data.media_mime_type") != "application/pdf" {
			t.Fatalf("answer %s", res.Raw)
		}
		e.waitStatus(t, res.String("data.id"), message.StatusSent)
		doc := e.sentTo(t, c.PhoneNumber)["document"].(map[string]any)
		if doc["filename"] != "report.pdf" || doc["id"] == nil {
			t.Fatalf("document %v", doc)
		}
	})

	c := e.newContact(t, true)
	id := c.ID.String()
	oversize := append(append([]byte{}, pngFile...), make([]byte, 5<<20)...)
	for name, tc := range map[string]struct {
		fields map[string]string
		file   *formFileSpec
		msg    string
	}{
		"PNGNamedPDFAsDocument": {map[string]string{"type": "document"}, &formFileSpec{field: "file", name: "report.pdf", data: pngFile, contentType: "application/pdf"}, "content is image/png, but a document must be PDF, DOC, XLS or PPT"},
		"OversizeImage":         {nil, &formFileSpec{field: "file", name: "big.png", data: oversize}, "at most 5 MB"},
		"CaptionOnAudio":        {map[string]string{"type": "audio", "caption": "listen"}, &formFileSpec{field: "file", name: "a.mp3", data: pngFile}, "caption is allowed for images and videos only"},
		"CaptionOnDocument":     {map[string]string{"type": "document", "caption": "read"}, &formFileSpec{field: "file", name: "a.pdf", data: pngFile}, "caption is allowed for images and videos only"},
		"TextAsImage":           {nil, &formFileSpec{field: "file", name: "a.png", data: []byte("just some text")}, "an image must be JPEG or PNG"},
		"UnknownType":           {map[string]string{"type": "sticker"}, &formFileSpec{field: "file", name: "a.png", data: pngFile}, "type must be image, video, audio or document"},
		"NoFile":                {nil, nil, "file is required"},
		"EmptyFile":             {nil, &formFileSpec{field: "file", name: "a.png", data: []byte{}}, "must not be empty"},
		"NoContact":             {map[string]string{"contact_id": ""}, &formFileSpec{field: "file", name: "a.png", data: pngFile}, "contact_id is required"},
		"BadContact":            {map[string]string{"contact_id": "x"}, &formFileSpec{field: "file", name: "a.png", data: pngFile}, "contact_id must be a valid UUID"},
		"UnknownAccount":        {map[string]string{"chat_account": "Nope"}, &formFileSpec{field: "file", name: "a.png", data: pngFile}, `account "Nope" not found`},
		"NULInAccount":          {map[string]string{"chat_account": "Ma\x00in"}, &formFileSpec{field: "file", name: "a.png", data: pngFile}, "must not contain NUL"},
	} {
		t.Run(name, func(t *testing.T) {
			fields := map[string]string{"contact_id": id}
			for k, v := range tc.fields {
				fields[k] = v
			}
			res := postForm(t, e.Env, e.Admin, "/api/messages/media", fields, tc.file).ExpectError(t, http.StatusBadRequest)
			if !strings.Contains(res.String("message"), tc.msg) {
				t.Errorf("message %q, want it to mention %q", res.String("message"), tc.msg)
			}
		})
	}
	t.Run("WindowClosed", func(t *testing.T) {
		closed := e.newContact(t, false)
		res := postForm(t, e.Env, e.Admin, "/api/messages/media", map[string]string{"contact_id": closed.ID.String()},
			&formFileSpec{field: "file", name: "a.png", data: pngFile}).ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "service window is closed") {
			t.Errorf("message %q", res.String("message"))
		}
	})
	t.Run("NotMultipart", func(t *testing.T) {
		e.Admin.Do(http.MethodPost, "/api/messages/media", map[string]any{"contact_id": id}).ExpectError(t, http.StatusBadRequest)
	})
	t.Run("BodyOverTheCap", func(t *testing.T) {
		res := announceHugeBody(t, e.Env, e.Admin, "/api/messages/media")
		if res.Status != http.StatusBadRequest || res.String("status") != "error" || !strings.Contains(res.String("message"), "request body too large") {
			t.Fatalf("status %d body %s", res.Status, res.Raw)
		}
	})
	t.Run("UnknownContact", func(t *testing.T) {
		postForm(t, e.Env, e.Admin, "/api/messages/media", map[string]string{"contact_id": uuid.NewString()},
			&formFileSpec{field: "file", name: "a.png", data: pngFile}).ExpectError(t, http.StatusNotFound)
	})
	t.Run("CrossTenant", func(t *testing.T) {
		postForm(t, e.Env, e.NewOrg("Elsewhere"), "/api/messages/media", map[string]string{"contact_id": id},
			&formFileSpec{field: "file", name: "a.png", data: pngFile}).ExpectError(t, http.StatusNotFound)
	})
	if n, _ := e.Client().Message.Query().Where(message.ContactID(c.ID)).Count(e.ctx); n != 0 {
		t.Fatalf("%d messages stored by refused sends", n)
	}
}

func TestMarkMessageRead(t *testing.T) {
	e := newSendEnv(t)
	c := e.newContact(t, true)
	res := e.Admin.Do(http.MethodPost, messagesPath(c), map[string]any{"type": "text", "content": map[string]any{"body": "hi"}}).
		ExpectStatus(t, http.StatusCreated)
	path := "/api/messages/" + res.String("data.id") + "/read"
	t.Run("NotImplemented", func(t *testing.T) {
		got := e.Admin.Do(http.MethodPut, path, nil).ExpectError(t, http.StatusNotImplemented)
		if got.String("message") != "Not implemented yet" {
			t.Fatalf("message %q", got.String("message"))
		}
	})
	t.Run("Unknown", func(t *testing.T) {
		e.Admin.Do(http.MethodPut, "/api/messages/"+uuid.NewString()+"/read", nil).ExpectError(t, http.StatusNotFound)
	})
	t.Run("BadID", func(t *testing.T) {
		e.Admin.Do(http.MethodPut, "/api/messages/nope/read", nil).ExpectError(t, http.StatusBadRequest)
	})
	t.Run("CrossTenant", func(t *testing.T) {
		e.NewOrg("Elsewhere").Do(http.MethodPut, path, nil).ExpectError(t, http.StatusNotFound)
	})
	t.Run("Anonymous", func(t *testing.T) {
		e.Anonymous().Do(http.MethodPut, path, nil).ExpectError(t, http.StatusUnauthorized)
	})
	t.Run("RoleWithoutMessagesRead", func(t *testing.T) {
		e.Admin.Do(http.MethodPost, "/api/roles", map[string]any{"name": "Contacts only",
			"permissions": []string{"contacts:read"}}).ExpectStatus(t, http.StatusCreated)
		e.NewUser(e.OrgID, "Contacts only").Do(http.MethodPut, path, nil).ExpectError(t, http.StatusForbidden)
	})
}

// tinyPNG is a real 2x2 PNG image.
func tinyPNG(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// formFileSpec is the file part of a multipart body; contentType is what
// the client claims (the server must not trust it).
type formFileSpec struct {
	field, name, contentType string
	data                     []byte
}

// postForm posts a multipart/form-data body with fields and an optional
// file.
func postForm(t *testing.T, env *apitest.Env, c *apitest.Client, path string, fields map[string]string, file *formFileSpec) *apitest.Response {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if file != nil {
		ct := file.contentType
		if ct == "" {
			ct = "application/octet-stream"
		}
		h := make(map[string][]string)
		h["Content-Disposition"] = []string{fmt.Sprintf(`form-data; name=%q; filename=%q`, file.field, file.name)}
		h["Content-Type"] = []string{ct}
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(file.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return sendRaw(t, env, c, path, mw.FormDataContentType(), buf.Bytes())
}

// announceHugeBody sends only the headers of a request announcing a body
// over the cap, as a client about to upload one would, and reads the
// answer the server gives before any byte of the body.
func announceHugeBody(t *testing.T, env *apitest.Env, c *apitest.Client, path string) *apitest.Response {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(env.Server.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: multipart/form-data; boundary=x\r\nContent-Length: %d\r\n\r\n", path, c.Token, 200<<20)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := &apitest.Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	_ = json.Unmarshal(raw, &r.Body)
	return r
}
