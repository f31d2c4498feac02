package messaging_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/ent/message"
	"switchboard/ent/parkedstatus"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/internal/apitest"
	"switchboard/internal/testkit"
	"switchboard/media"
	"switchboard/messaging"
	"switchboard/provider"
	"switchboard/provider/providertest"
)

// hookCall is one event a recordingHooks received.
type hookCall struct {
	event string
	data  map[string]any
	inTx  bool
}

// recordingHooks records the outbound webhook events the bus hands it;
// err makes WriteDeliveries fail.
type recordingHooks struct {
	mu    sync.Mutex
	calls []hookCall
	err   error
}

func (h *recordingHooks) WriteDeliveries(ctx context.Context, evs []events.HookEvent) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err != nil {
		return h.err
	}
	for _, ev := range evs {
		var m map[string]any
		_ = json.Unmarshal(ev.Data, &m)
		h.calls = append(h.calls, hookCall{event: ev.Name, data: m, inTx: ent.TxFromContext(ctx) != nil})
	}
	return nil
}

func (h *recordingHooks) take() []hookCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.calls
	h.calls = nil
	return out
}

func (h *recordingHooks) fail(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.err = err
}

// deliverEnv runs the send worker's Deliver directly against the provider
// fake (without in-process retries), on the app's database.
type deliverEnv struct {
	*apitest.Env
	fake    *providertest.Fake
	svc     *messaging.Service
	hooks   *recordingHooks
	ctx     context.Context
	contact *ent.Contact
}

const contactPhone = "15557654321"

func newDeliverEnv(t *testing.T) *deliverEnv {
	fake := providertest.New(t)
	env := apitest.New(t, apitest.Setting{Name: "PROVIDER_BASE_URL", Value: fake.URL})
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	box := env.App.Resolver.Secrets
	err := env.Client().Account.Create().SetName("Main").SetPhoneID(providertest.PhoneID).
		SetBusinessID(providertest.BusinessID).SetAccessTokenEncrypted(box.Seal([]byte(providertest.AccessToken))).Exec(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, err := env.Client().Contact.Create().SetPhoneNumber(contactPhone).SetLastInboundAt(time.Now()).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hooks := &recordingHooks{}
	svc := &messaging.Service{
		Client: env.Client(), Queue: env.App.Queue, Secrets: box,
		Events:   events.New(events.Options{Redis: env.App.KV.Client(), Channel: "test:" + uuid.NewString(), Hooks: hooks}),
		Provider: fake.Client(provider.Options{MaxRetries: -1}), Media: media.New(t.TempDir()),
		Log: slog.New(slog.DiscardHandler),
	}
	return &deliverEnv{Env: env, fake: fake, svc: svc, hooks: hooks, ctx: ctx, contact: c}
}

// pending stores an outgoing message as a send would (without queueing
// it, so only the test delivers it).
func (e *deliverEnv) pending(t *testing.T, typ string, content map[string]any, edit func(*ent.MessageCreate)) *ent.Message {
	t.Helper()
	create := e.Client().Message.Create().SetContactID(e.contact.ID).SetDirection(message.DirectionOutgoing).
		SetMessageType(typ).SetContent(content).SetChatAccount("Main")
	if edit != nil {
		edit(create)
	}
	m, err := create.Save(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (e *deliverEnv) reload(t *testing.T, id uuid.UUID) *ent.Message {
	t.Helper()
	m, err := e.Client().Message.Get(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sendCalls counts the message sends the fake received.
func (e *deliverEnv) sendCalls() int {
	return len(e.fake.Find(http.MethodPost, "/"+providertest.PhoneID+"/messages"))
}

// lastSendBody is the JSON body of the last message send.
func (e *deliverEnv) lastSendBody(t *testing.T) map[string]any {
	t.Helper()
	reqs := e.fake.Find(http.MethodPost, "/"+providertest.PhoneID+"/messages")
	if len(reqs) == 0 {
		t.Fatal("no message was sent")
	}
	body, _ := reqs[len(reqs)-1].JSON(t).(map[string]any)
	return body
}

func accepted(wamid string) providertest.Response {
	return providertest.JSON(http.StatusOK, map[string]any{
		"messaging_product": "whatsapp",
		"contacts":          []any{map[string]any{"input": contactPhone, "wa_id": contactPhone}},
		"messages":          []any{map[string]any{"id": wamid}},
	})
}

func TestDeliver(t *testing.T) {
	e := newDeliverEnv(t)
	text := map[string]any{"body": "Hello there"}

	t.Run("SentAppliesParkedStatusesAndEmitsTheHook", func(t *testing.T) {
		m := e.pending(t, messaging.TypeText, text, func(c *ent.MessageCreate) { c.SetSentByUserID(e.Admin.UserID) })
		e.fake.Script("POST /{phone}/messages", accepted("wamid.EARLY"))
		// The platform reported "delivered" before the worker stored the id.
		err := e.Client().ParkedStatus.Create().SetChatMessageID("wamid.EARLY").
			SetStatus(parkedstatus.StatusDelivered).Exec(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.svc.Deliver(context.Background(), e.OrgID, m.ID, false); err != nil {
			t.Fatal(err)
		}
		got := e.reload(t, m.ID)
		if got.ChatMessageID == nil || *got.ChatMessageID != "wamid.EARLY" || got.Status != message.StatusDelivered {
			t.Fatalf("message after send: id %v status %s, want wamid.EARLY delivered", got.ChatMessageID, got.Status)
		}
		if n, _ := e.Client().ParkedStatus.Query().Count(e.ctx); n != 0 {
			t.Errorf("%d parked statuses left, want 0", n)
		}
		want := map[string]any{
			"messaging_product": "whatsapp", "recipient_type": "individual", "to": contactPhone, "type": "text",
			"text": map[string]any{"body": "Hello there", "preview_url": false},
		}
		if body := e.lastSendBody(t); !reflect.DeepEqual(body, want) {
			t.Errorf("send body %v, want %v", body, want)
		}
		calls := e.hooks.take()
		if len(calls) != 1 || calls[0].event != events.HookMessageSent || !calls[0].inTx {
			t.Fatalf("hook calls %+v, want one message:sent inside the transaction", calls)
		}
		d := calls[0].data
		if d["id"] != m.ID.String() || d["chat_message_id"] != "wamid.EARLY" || d["phone_number"] != contactPhone ||
			d["chat_account"] != "Main" || d["sent_by_user_id"] != e.Admin.UserID.String() {
			t.Errorf("message:sent data %v", d)
		}
	})

	t.Run("Idempotent", func(t *testing.T) {
		m := e.pending(t, messaging.TypeText, text, nil)
		if err := e.svc.Deliver(context.Background(), e.OrgID, m.ID, false); err != nil {
			t.Fatal(err)
		}
		before := e.sendCalls()
		for _, last := range []bool{false, true} {
			if err := e.svc.Deliver(context.Background(), e.OrgID, m.ID, last); err != nil {
				t.Fatal(err)
			}
		}
		if e.sendCalls() != before {
			t.Fatal("a sent message was sent again")
		}
		if err := e.svc.Deliver(context.Background(), e.OrgID, uuid.New(), false); err != nil {
			t.Fatalf("unknown message: %v, want nil (nothing to do)", err)
		}
		e.hooks.take()
	})

	t.Run("ProviderRefusalFailsWithTheReason", func(t *testing.T) {
		m := e.pending(t, messaging.TypeText, text, nil)
		e.fake.Script("POST /{phone}/messages", providertest.NotAllowedRecipient())
		if err := e.svc.Deliver(context.Background(), e.OrgID, m.ID, false); err != nil {
			t.Fatalf("a definitive refusal is not retried, got %v", err)
		}
		got := e.reload(t, m.ID)
		if got.Status != message.StatusFailed || !strings.Contains(got.ErrorMessage, "(#131030) Recipient phone number not in allowed list") {
			t.Fatalf("status %s, error %q", got.Status, got.ErrorMessage)
		}
		if calls := e.hooks.take(); len(calls) != 0 {
			t.Errorf("hook calls for a failed send: %+v", calls)
		}
	})

	t.Run("TransientFailureRetriesThenFails", func(t *testing.T) {
		m := e.pending(t, messaging.TypeText, text, nil)
		e.fake.Script("POST /{phone}/messages", providertest.Unavailable(), providertest.Unavailable())
		if err := e.svc.Deliver(context.Background(), e.OrgID, m.ID, false); err == nil {
			t.Fatal("a 503 must be returned for the queue to retry")
		}
		if got := e.reload(t, m.ID); got.Status != message.StatusPending {
			t.Fatalf("status after a retryable failure: %s, want pending", got.Status)
		}
		if err := e.svc.Deliver(context.Background(), e.OrgID, m.ID, true); err != nil {
			t.Fatalf("last attempt: %v, want nil once recorded", err)
		}
		got := e.reload(t, m.ID)
		if got.Status != message.StatusFailed || !strings.Contains(got.ErrorMessage, "Service temporarily unavailable") {
			t.Fatalf("after the last attempt: status %s, error %q", got.Status, got.ErrorMessage)
		}
	})

	t.Run("TransientFailureThenSuccess", func(t *testing.T) {
		m := e.pending(t, messaging.TypeText, text, nil)
		e.fake.Script("POST /{phone}/messages", providertest.RateLimited())
		if err := e.svc.Deliver(context.Background(), e.OrgID, m.ID, false); err == nil {
			t.Fatal("a 429 must be returned for the queue to retry")
		}
		if err := e.svc.Deliver(context.Background(), e.OrgID, m.ID, false); err != nil {
			t.Fatal(err)
		}
		if got := e.reload(t, m.ID); got.Status != message.StatusSent || got.ChatMessageID == nil {
			t.Fatalf("status %s id %v, want sent with an id", got.Status, got.ChatMessageID)
		}
		e.hooks.take()
	})

	t.Run("HookFailureStillRecordsTheSend", func(t *testing.T) {
		m := e.pending(t, messaging.TypeText, text, nil)
		e.hooks.fail(errors.New("deliveries table unavailable"))
		defer e.hooks.fail(nil)
		if err := e.svc.Deliver(context.Background(), e.OrgID, m.ID, false); err != nil {
			t.Fatal(err)
		}
		if got := e.reload(t, m.ID); got.Status != message.StatusSent || got.ChatMessageID == nil {
			t.Fatalf("status %s id %v: a sent message must be recorded even when its hook fails", got.Status, got.ChatMessageID)
		}
	})

	t.Run("AccountGone", func(t *testing.T) {
		m := e.pending(t, messaging.TypeText, text, func(c *ent.MessageCreate) { c.SetChatAccount("Gone") })
		before := e.sendCalls()
		if err := e.svc.Deliver(context.Background(), e.OrgID, m.ID, false); err != nil {
			t.Fatal(err)
		}
		got := e.reload(t, m.ID)
		if got.Status != message.StatusFailed || got.ErrorMessage != `account "Gone" no longer exists` || e.sendCalls() != before {
			t.Fatalf("status %s error %q", got.Status, got.ErrorMessage)
		}
	})

	t.Run("MediaUploadedOnceThenSentByID", func(t *testing.T) {
		png := []byte("\x89PNG\r\n\x1a\n fake image bytes")
		key, _, err := e.svc.Media.Save(e.OrgID, bytes.NewReader(png), "image/png")
		if err != nil {
			t.Fatal(err)
		}
		m := e.pending(t, messaging.KindImage, map[string]any{"body": "Look"}, func(c *ent.MessageCreate) {
			c.SetMediaURL(media.URL(key)).SetMediaMimeType("image/png").SetMediaFilename("photo.png")
		})
		e.fake.Script("POST /{phone}/messages", providertest.Unavailable())
		if err := e.svc.Deliver(context.Background(), e.OrgID, m.ID, false); err == nil {
			t.Fatal("want a retryable error")
		}
		if err := e.svc.Deliver(context.Background(), e.OrgID, m.ID, false); err != nil {
			t.Fatal(err)
		}
		uploads := e.fake.Find(http.MethodPost, "/"+providertest.PhoneID+"/media")
		if len(uploads) != 1 || len(uploads[0].Files) != 1 || !bytes.Equal(uploads[0].Files[0].Data, png) ||
			uploads[0].Form["type"] != "image/png" {
			t.Fatalf("want one upload of the stored file, got %d", len(uploads))
		}
		got := e.reload(t, m.ID)
		id, _ := got.Content["media_id"].(string)
		image, _ := e.lastSendBody(t)["image"].(map[string]any)
		if id == "" || image["id"] != id || image["caption"] != "Look" || got.Status != message.StatusSent {
			t.Fatalf("sent image %v, stored media id %q, status %s", image, id, got.Status)
		}
	})

	t.Run("MissingMediaFileFails", func(t *testing.T) {
		m := e.pending(t, messaging.KindDocument, map[string]any{}, func(c *ent.MessageCreate) {
			c.SetMediaURL(media.URL(e.OrgID.String() + "/0123456789abcdef0123456789abcdef.pdf")).SetMediaMimeType("application/pdf")
		})
		if err := e.svc.Deliver(context.Background(), e.OrgID, m.ID, false); err != nil {
			t.Fatal(err)
		}
		if got := e.reload(t, m.ID); got.Status != message.StatusFailed || !strings.Contains(got.ErrorMessage, "missing") {
			t.Fatalf("status %s error %q", got.Status, got.ErrorMessage)
		}
	})

	t.Run("TemplateParametersInPlatformOrder", func(t *testing.T) {
		m := e.pending(t, messaging.TypeTemplate, map[string]any{
			"body": "rendered", "template_name": "ten_vars", "language": "en_US", "header_type": "DOCUMENT",
			"template_params": map[string]any{"10": "j", "2": "b", "1": "a"},
			"button_params":   map[string]any{"1": "x/9", "0": "y"},
			"media_id":        "4490709327384033",
		}, func(c *ent.MessageCreate) { c.SetMediaFilename("invoice.pdf") })
		if err := e.svc.Deliver(context.Background(), e.OrgID, m.ID, false); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{
			"name": "ten_vars", "language": map[string]any{"code": "en_US"},
			"components": []any{
				map[string]any{"type": "header", "parameters": []any{map[string]any{"type": "document",
					"document": map[string]any{"id": "4490709327384033", "filename": "invoice.pdf"}}}},
				map[string]any{"type": "body", "parameters": []any{
					map[string]any{"type": "text", "text": "a"}, map[string]any{"type": "text", "text": "b"},
					map[string]any{"type": "text", "text": "j"}}},
				map[string]any{"type": "button", "sub_type": "url", "index": "0", "parameters": []any{map[string]any{"type": "text", "text": "y"}}},
				map[string]any{"type": "button", "sub_type": "url", "index": "1", "parameters": []any{map[string]any{"type": "text", "text": "x/9"}}},
			},
		}
		if got := e.lastSendBody(t)["template"]; !reflect.DeepEqual(got, want) {
			t.Fatalf("template %v\nwant %v", got, want)
		}
		e.hooks.take()
	})

	t.Run("NamedParameters", func(t *testing.T) {
		m := e.pending(t, messaging.TypeTemplate, map[string]any{
			"body": "rendered", "template_name": "named", "language": "en", "header_type": "TEXT",
			"template_params": map[string]any{"order_id": "42", "first_name": "Ann"},
			"header_params":   map[string]any{"shop": "ACME"},
		}, nil)
		if err := e.svc.Deliver(context.Background(), e.OrgID, m.ID, false); err != nil {
			t.Fatal(err)
		}
		tpl, _ := e.lastSendBody(t)["template"].(map[string]any)
		var want any
		_ = json.Unmarshal([]byte(`[{"type":"header","parameters":[{"type":"text","parameter_name":"shop","text":"ACME"}]},`+
			`{"type":"body","parameters":[{"type":"text","parameter_name":"first_name","text":"Ann"},{"type":"text","parameter_name":"order_id","text":"42"}]}]`), &want)
		if !reflect.DeepEqual(tpl["components"], want) {
			t.Fatalf("components %v\nwant %v", tpl["components"], want)
		}
		e.hooks.take()
	})
}

// TestRecover checks that the recovery sweep queues the pending sends
// that lost their task, and that the worker then sends them.
func TestRecover(t *testing.T) {
	e := newDeliverEnv(t)
	m := e.pending(t, messaging.TypeText, map[string]any{"body": "lost task"}, nil)
	done := e.pending(t, messaging.TypeText, map[string]any{"body": "already sent"}, func(c *ent.MessageCreate) {
		c.SetStatus(message.StatusSent).SetChatMessageID("wamid.DONE")
	})
	n, err := e.App.Messaging.Recover(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("Recover = %d, %v; want 1 pending send", n, err)
	}
	testkit.Poll(testkit.Deadline, func() bool { return e.reload(t, m.ID).Status != message.StatusPending })
	if got := e.reload(t, m.ID); got.Status != message.StatusSent {
		t.Fatalf("recovered message: status %s (%s), want sent", got.Status, got.ErrorMessage)
	}
	if got := e.reload(t, done.ID); *got.ChatMessageID != "wamid.DONE" {
		t.Fatal("a sent message was touched")
	}
	reqs := e.fake.Find(http.MethodPost, "/"+providertest.PhoneID+"/messages")
	if len(reqs) != 1 || !bytes.Contains(reqs[0].Body, []byte("lost task")) {
		t.Fatalf("want one send of the pending message, got %d", len(reqs))
	}
}
