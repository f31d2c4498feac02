package rest_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/ent"
	"switchboard/ent/contact"
	"switchboard/ent/inboundevent"
	"switchboard/ent/message"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
	"switchboard/internal/testkit"
	"switchboard/messaging"
	"switchboard/provider/providertest"
)

const (
	testPhoneID   = "106540352242922"
	testAppSecret = "app-secret-for-tests"
	testVerify    = "verify-token-for-tests"
)

// webhookEnv is an environment with one connected account.
type webhookEnv struct {
	*apitest.Env
	ctx context.Context // the organization's system viewer
}

func newWebhookEnv(t *testing.T, settings ...apitest.Setting) *webhookEnv {
	env := apitest.New(t, settings...)
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	box := env.App.Resolver.Secrets
	err := env.Client().Account.Create().SetName("Main").SetPhoneID(testPhoneID).SetBusinessID("987654321").
		SetAppSecretEncrypted(box.Seal([]byte(testAppSecret))).SetWebhookVerifyToken(testVerify).Exec(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return &webhookEnv{Env: env, ctx: ctx}
}

func sign(body string) string {
	mac := hmac.New(sha256.New, []byte(testAppSecret))
	mac.Write([]byte(body))
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

func (e *webhookEnv) post(t *testing.T, body, signature string) *apitest.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.Server.URL+"/api/webhook", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if signature != "" {
		req.Header.Set("X-Hub-Signature-256", signature)
	}
	return e.Send(req)
}

// messagesPayload is a delivery in the platform's shape with the given
// message objects (JSON) from one sender.
func messagesPayload(from, name string, messages ...string) string {
	return fmt.Sprintf(`{"object":"whatsapp_business_account","entry":[{"id":"987654321","changes":[{"field":"messages","value":{
"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550001111","phone_number_id":%q},
"contacts":[{"profile":{"name":%q},"wa_id":%q}],"messages":[%s]}}]}]}`, testPhoneID, name, from, strings.Join(messages, ","))
}

func textMessage(from, id string, ts int64, body string) string {
	return fmt.Sprintf(`{"from":%q,"id":%q,"timestamp":"%d","type":"text","text":{"body":%q}}`, from, id, ts, body)
}

func statusPayload(id, status string, ts int64) string {
	return fmt.Sprintf(`{"object":"whatsapp_business_account","entry":[{"id":"987654321","changes":[{"field":"messages","value":{
"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550001111","phone_number_id":%q},
"statuses":[{"id":%q,"status":%q,"timestamp":"%d","recipient_id":"15551234567"%s}]}}]}]}`, testPhoneID, id, status, ts,
		map[bool]string{true: `,"errors":[{"code":131026,"title":"Message undeliverable","message":"Message undeliverable","error_data":{"details":"Receiver is incapable of receiving this message"}}]`}[status == "failed"])
}

// drained waits until every stored delivery is processed.
func (e *webhookEnv) drained(t *testing.T) {
	t.Helper()
	testkit.Eventually(t, "every stored delivery processed", func() bool {
		n, err := e.Client().InboundEvent.Query().Where(inboundevent.StatusNEQ(inboundevent.StatusProcessed)).
			Count(rule.Bypass(e.ctx, "test"))
		return err == nil && n == 0
	})
}

func (e *webhookEnv) messages(t *testing.T) []*ent.Message {
	t.Helper()
	ms, err := e.Client().Message.Query().Order(ent.Asc(message.FieldCreatedAt)).All(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func (e *webhookEnv) contact(t *testing.T, phone string) *ent.Contact {
	t.Helper()
	c, err := e.Client().Contact.Query().Where(contact.PhoneNumber(phone)).Only(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestWebhookVerification(t *testing.T) {
	e := newWebhookEnv(t)
	res := e.Anonymous().Do(http.MethodGet, "/api/webhook?hub.mode=subscribe&hub.verify_token="+testVerify+"&hub.challenge=12345", nil)
	if res.Status != http.StatusOK || string(res.Raw) != "12345" || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("verify: %d %q %s", res.Status, res.Raw, res.Header.Get("Content-Type"))
	}
	e.Anonymous().Do(http.MethodGet, "/api/webhook?hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1", nil).
		ExpectError(t, http.StatusForbidden)
	e.Anonymous().Do(http.MethodGet, "/api/webhook?hub.mode=unsubscribe&hub.verify_token="+testVerify+"&hub.challenge=1", nil).
		ExpectError(t, http.StatusForbidden)
}

func TestWebhookMessages(t *testing.T) {
	e := newWebhookEnv(t)
	now := time.Now().Unix()

	t.Run("BadSignatureStoresNothing", func(t *testing.T) {
		body := messagesPayload("15551230001", "Ann", textMessage("15551230001", "wamid.bad1", now, "hi"))
		e.post(t, body, "sha256=00").ExpectError(t, http.StatusUnauthorized)
		e.post(t, body, "").ExpectError(t, http.StatusUnauthorized)
		e.post(t, body, sign(body+" ")).ExpectError(t, http.StatusUnauthorized)
		n, _ := e.Client().InboundEvent.Query().Count(rule.Bypass(e.ctx, "test"))
		if n != 0 || len(e.messages(t)) != 0 {
			t.Fatalf("stored after a bad signature: %d events", n)
		}
	})
	t.Run("TextCreatesContactAndMessage", func(t *testing.T) {
		body := messagesPayload("15551230002", "Bob", textMessage("15551230002", "wamid.t1", now-5, "Hello there"))
		e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
		e.drained(t)
		c := e.contact(t, "15551230002")
		if c.ProfileName != "Bob" || c.UnreadCount != 1 || c.LastInboundAt == nil || c.LastMessagePreview != "Hello there" || c.ChatAccount != "Main" {
			t.Fatalf("contact: %+v", c)
		}
		ms := e.messages(t)
		if len(ms) != 1 || ms[0].Content["body"] != "Hello there" || ms[0].Direction != message.DirectionIncoming || *ms[0].ChatMessageID != "wamid.t1" {
			t.Fatalf("messages: %+v", ms)
		}
	})
	t.Run("RedeliveryStoresOnce", func(t *testing.T) {
		body := messagesPayload("15551230002", "Bob", textMessage("15551230002", "wamid.t1", now-5, "Hello there"))
		e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
		// Same message id inside a different delivery.
		other := messagesPayload("15551230002", "Bobby", textMessage("15551230002", "wamid.t1", now-5, "Hello there"))
		e.post(t, other, sign(other)).ExpectStatus(t, http.StatusOK)
		e.drained(t)
		if n := len(e.messages(t)); n != 1 {
			t.Fatalf("%d messages after redelivery", n)
		}
		if c := e.contact(t, "15551230002"); c.UnreadCount != 1 {
			t.Fatalf("unread counted twice: %d", c.UnreadCount)
		}
	})
	t.Run("EveryType", func(t *testing.T) {
		from := "15551230003"
		msgs := []string{
			fmt.Sprintf(`{"from":%q,"id":"wamid.img","timestamp":"%d","type":"image","image":{"id":"MEDIA1","mime_type":"image/jpeg","sha256":"x","caption":"a cat"}}`, from, now),
			fmt.Sprintf(`{"from":%q,"id":"wamid.doc","timestamp":"%d","type":"document","document":{"id":"MEDIA2","mime_type":"application/pdf","filename":"invoice.pdf"}}`, from, now),
			fmt.Sprintf(`{"from":%q,"id":"wamid.loc","timestamp":"%d","type":"location","location":{"latitude":52.5,"longitude":13.4,"name":"Office"}}`, from, now),
			fmt.Sprintf(`{"from":%q,"id":"wamid.btn","timestamp":"%d","type":"interactive","interactive":{"type":"button_reply","button_reply":{"id":"yes","title":"Yes please"}}}`, from, now),
			fmt.Sprintf(`{"from":%q,"id":"wamid.lst","timestamp":"%d","type":"interactive","interactive":{"type":"list_reply","list_reply":{"id":"r1","title":"Row one","description":"d"}}}`, from, now),
			fmt.Sprintf(`{"from":%q,"id":"wamid.tpl","timestamp":"%d","type":"button","button":{"text":"Stop promotions","payload":"STOP"}}`, from, now),
			fmt.Sprintf(`{"from":%q,"id":"wamid.rct","timestamp":"%d","type":"reaction","reaction":{"message_id":"wamid.t1","emoji":"👍"}}`, from, now),
			fmt.Sprintf(`{"from":%q,"id":"wamid.ord","timestamp":"%d","type":"order","order":{"catalog_id":"C1","product_items":[{"product_retailer_id":"sku","quantity":"2","item_price":"10","currency":"USD"}]}}`, from, now),
			fmt.Sprintf(`{"from":%q,"id":"wamid.vcf","timestamp":"%d","type":"contacts","contacts":[{"name":{"formatted_name":"Zed"},"phones":[{"phone":"+1555"}]}]}`, from, now),
			fmt.Sprintf(`{"from":%q,"id":"wamid.stk","timestamp":"%d","type":"sticker","sticker":{"id":"MEDIA3","mime_type":"image/webp","animated":false}}`, from, now),
			fmt.Sprintf(`{"from":%q,"id":"wamid.new","timestamp":"%d","type":"hologram","hologram":{"beam":1}}`, from, now),
		}
		body := messagesPayload(from, "Cat", msgs...)
		e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
		e.drained(t)
		byID := map[string]*ent.Message{}
		for _, m := range e.messages(t) {
			byID[*m.ChatMessageID] = m
		}
		checks := map[string]func(m *ent.Message) bool{
			"wamid.img": func(m *ent.Message) bool {
				return m.MessageType == "image" && m.Content["id"] == "MEDIA1" && m.Content["body"] == "a cat" && m.MediaMimeType == "image/jpeg"
			},
			"wamid.doc": func(m *ent.Message) bool { return m.MediaFilename == "invoice.pdf" },
			"wamid.loc": func(m *ent.Message) bool { return m.Content["name"] == "Office" && m.Content["latitude"] == 52.5 },
			"wamid.btn": func(m *ent.Message) bool {
				return m.Content["id"] == "yes" && m.InteractiveData["type"] == "button_reply"
			},
			"wamid.lst": func(m *ent.Message) bool { return m.Content["body"] == "Row one" },
			"wamid.tpl": func(m *ent.Message) bool { return m.Content["payload"] == "STOP" },
			"wamid.rct": func(m *ent.Message) bool { return m.Content["emoji"] == "👍" },
			"wamid.ord": func(m *ent.Message) bool { return m.Content["catalog_id"] == "C1" },
			"wamid.vcf": func(m *ent.Message) bool { return m.Content["contacts"] != nil },
			"wamid.stk": func(m *ent.Message) bool { return m.Content["id"] == "MEDIA3" },
			"wamid.new": func(m *ent.Message) bool { return m.MessageType == "hologram" && m.Content["raw"] != nil },
		}
		for id, ok := range checks {
			m := byID[id]
			if m == nil || !ok(m) {
				t.Errorf("%s stored as %+v", id, m)
			}
		}
	})
	t.Run("NewSenderRace", func(t *testing.T) {
		from := "15551230004"
		var wg sync.WaitGroup
		for i := 0; i < 20; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				body := messagesPayload(from, "Racer", textMessage(from, fmt.Sprintf("wamid.race%d", i), now+int64(i), "go"))
				e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
			}(i)
		}
		wg.Wait()
		e.drained(t)
		n, err := e.Client().Contact.Query().Where(contact.PhoneNumber(from)).Count(e.ctx)
		if err != nil || n != 1 {
			t.Fatalf("%d contacts for one sender (%v)", n, err)
		}
		if c := e.contact(t, from); c.UnreadCount != 20 {
			t.Fatalf("unread %d, want 20", c.UnreadCount)
		}
	})
	t.Run("UnknownPhoneNumberAcknowledged", func(t *testing.T) {
		body := strings.ReplaceAll(messagesPayload("15551230005", "X", textMessage("15551230005", "wamid.x", now, "x")), testPhoneID, "999")
		e.post(t, body, "").ExpectStatus(t, http.StatusOK)
		e.post(t, `{"object":"whatsapp_business_account","entry":[]}`, "").ExpectStatus(t, http.StatusOK)
		e.post(t, `{not json`, "").ExpectError(t, http.StatusBadRequest)
	})
}

func TestWebhookStatuses(t *testing.T) {
	e := newWebhookEnv(t)
	now := time.Now().Unix()
	c, err := e.Client().Contact.Create().SetPhoneNumber("15557654321").Save(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	outgoing := func(wamid string) *ent.Message {
		m, err := e.Client().Message.Create().SetContactID(c.ID).SetDirection(message.DirectionOutgoing).
			SetMessageType("text").SetChatMessageID(wamid).Save(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	status := func(id string) (message.Status, string) {
		m, err := e.Client().Message.Query().Where(message.ChatMessageID(id)).Only(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		return m.Status, m.ErrorMessage
	}
	deliver := func(id, st string, ts int64) {
		body := statusPayload(id, st, ts)
		e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
		e.drained(t)
	}

	t.Run("ForwardOnly", func(t *testing.T) {
		outgoing("wamid.s1")
		deliver("wamid.s1", "delivered", now)
		deliver("wamid.s1", "sent", now-1)
		if st, _ := status("wamid.s1"); st != message.StatusDelivered {
			t.Fatalf("status %s after a late sent", st)
		}
		deliver("wamid.s1", "read", now+1)
		deliver("wamid.s1", "delivered", now)
		if st, _ := status("wamid.s1"); st != message.StatusRead {
			t.Fatalf("read undone: %s", st)
		}
	})
	t.Run("FailedWithReason", func(t *testing.T) {
		outgoing("wamid.s2")
		deliver("wamid.s2", "sent", now)
		deliver("wamid.s2", "failed", now+1)
		st, reason := status("wamid.s2")
		if st != message.StatusFailed || !strings.Contains(reason, "131026") {
			t.Fatalf("failed: %s %q", st, reason)
		}
	})
	t.Run("StatusBeforeMessage", func(t *testing.T) {
		deliver("wamid.s3", "delivered", now)
		deliver("wamid.s3", "sent", now-1)
		m := outgoing("wamid.s3")
		if changed, err := messaging.ApplyParked(e.ctx, e.Client(), "wamid.s3"); err != nil || !changed {
			t.Fatalf("ApplyParked: changed %v, %v", changed, err)
		}
		if st, _ := status("wamid.s3"); st != message.StatusDelivered {
			t.Fatalf("parked statuses not applied: %s (%s)", st, m.ID)
		}
		if n, _ := e.Client().ParkedStatus.Query().Count(e.ctx); n != 0 {
			t.Fatalf("%d parked statuses left", n)
		}
	})
}

func TestAutoReadReceipt(t *testing.T) {
	fake := providertest.New(t)
	env := apitest.New(t, apitest.Setting{Name: "PROVIDER_BASE_URL", Value: fake.URL})
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	box := env.App.Resolver.Secrets
	err := env.Client().Account.Create().SetName("Main").SetPhoneID(providertest.PhoneID).SetBusinessID(providertest.BusinessID).
		SetAppSecretEncrypted(box.Seal([]byte(testAppSecret))).SetAccessTokenEncrypted(box.Seal([]byte(providertest.AccessToken))).
		SetAutoReadReceipt(true).Exec(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e := &webhookEnv{Env: env, ctx: ctx}
	body := strings.ReplaceAll(messagesPayload("15551239999", "Rae", textMessage("15551239999", "wamid.rr1", time.Now().Unix(), "hi")),
		testPhoneID, providertest.PhoneID)
	e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
	testkit.Eventually(t, "a read receipt sent to the platform", func() bool {
		for _, r := range fake.Find(http.MethodPost, "/"+providertest.PhoneID+"/messages") {
			b, _ := r.JSON(t).(map[string]any)
			if b["status"] == "read" && b["message_id"] == "wamid.rr1" && b["messaging_product"] == "whatsapp" {
				return true
			}
		}
		return false
	})
}

// A contact created from an inbound message is named after the sender's
// profile; an existing contact without a name gets it too, a named one
// keeps its name.
func TestContactNameFromProfile(t *testing.T) {
	e := newWebhookEnv(t)
	now := time.Now().Unix()
	unnamed := mustCreateContact(t, e.Admin, map[string]any{"phone_number": "15554440002"})
	named, err := e.Client().Contact.Create().SetPhoneNumber("15554440003").SetName("Dr. Named").Save(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		name, phone, profile, want string
	}{
		{"NewSender", "15554440001", "Wanda Maximoff", "Wanda Maximoff"},
		{"ExistingWithoutName", "15554440002", "Una", "Una"},
		{"ExistingWithName", "15554440003", "Nick", "Dr. Named"},
		{"NewSenderWithoutProfile", "15554440004", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := messagesPayload(tc.phone, tc.profile, textMessage(tc.phone, fmt.Sprint("wamid.name", i), now, "hi"))
			e.post(t, body, sign(body)).ExpectStatus(t, http.StatusOK)
			e.drained(t)
			c := e.contact(t, tc.phone)
			res := e.Admin.Do(http.MethodGet, "/api/contacts/"+c.ID.String(), nil).ExpectStatus(t, http.StatusOK)
			if got := res.String("data.name"); got != tc.want {
				t.Errorf("name %q, want %q (%s)", got, tc.want, res.Raw)
			}
			if got := res.String("data.profile_name"); tc.profile != "" && got != tc.profile {
				t.Errorf("profile_name %q, want %q", got, tc.profile)
			}
		})
	}
	if unnamed == "" || named == nil {
		t.Fatal("fixtures missing")
	}
}
