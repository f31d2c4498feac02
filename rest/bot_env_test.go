package rest_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/ent/contact"
	"switchboard/ent/inboundevent"
	"switchboard/ent/message"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
	"switchboard/internal/testkit"
	"switchboard/provider/providertest"
)

// botEnv is an application against the provider fake with one account
// ("Main") whose webhook deliveries the tests sign, and the chatbot on.
type botEnv struct {
	*apitest.Env
	fake *providertest.Fake
	ctx  context.Context // the organization's system viewer
}

func newBotEnv(t *testing.T, settings map[string]any) *botEnv {
	t.Helper()
	return newBotEnvTB(t, settings)
}

func newBotEnvTB(t testing.TB, settings ...map[string]any) *botEnv {
	t.Helper()
	fake := providertest.New(t)
	fake.SetAccessToken(acctToken)
	env := apitest.New(t, apitest.Setting{Name: "PROVIDER_BASE_URL", Value: fake.URL})
	mustCreateAccount(t, env.Admin, acctBody("Main", nil))
	e := &botEnv{Env: env, fake: fake, ctx: viewer.SystemContext(context.Background(), env.OrgID)}
	body := map[string]any{"enabled": true, "fallback_message": "Sorry {{name}}, I did not get that"}
	for _, s := range settings {
		for k, v := range s {
			body[k] = v
		}
	}
	env.Admin.Do(http.MethodPut, "/api/chatbot/settings", body).ExpectStatus(t, http.StatusOK)
	return e
}

// deliver posts a signed delivery of text messages (body per message,
// ids id-0, id-1...) from one sender.
func (e *botEnv) deliver(t *testing.T, from, name, id string, ts int64, bodies ...string) {
	t.Helper()
	msgs := make([]string, len(bodies))
	for i, b := range bodies {
		msgs[i] = textMessage(from, fmt.Sprintf("%s-%d", id, i), ts+int64(i), b)
	}
	e.post(t, botPayload(from, name, msgs...))
}

// press posts a signed delivery of a reply-button press.
func (e *botEnv) press(t *testing.T, from, id, buttonID, title string) {
	t.Helper()
	m := fmt.Sprintf(`{"from":%q,"id":%q,"timestamp":"%d","type":"interactive","interactive":{"type":"button_reply","button_reply":{"id":%q,"title":%q}}}`,
		from, id, time.Now().Unix(), buttonID, title)
	e.post(t, botPayload(from, "", m))
}

func (e *botEnv) post(t *testing.T, body string) { e.postTB(t, body) }

func (e *botEnv) postTB(t testing.TB, body string) {
	t.Helper()
	mac := hmac.New(sha256.New, []byte(acctSecret))
	mac.Write([]byte(body))
	req, _ := http.NewRequest(http.MethodPost, e.Server.URL+"/api/webhook", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	if res := e.Send(req); res.Status != http.StatusOK {
		t.Fatalf("webhook: %d %s", res.Status, res.Raw)
	}
}

func botPayload(from, name string, messages ...string) string {
	return fmt.Sprintf(`{"object":"whatsapp_business_account","entry":[{"id":%q,"changes":[{"field":"messages","value":{
"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550001111","phone_number_id":%q},
"contacts":[{"profile":{"name":%q},"wa_id":%q}],"messages":[%s]}}]}]}`, providertest.BusinessID, providertest.PhoneID,
		name, from, strings.Join(messages, ","))
}

// settled waits until every stored incoming message is handled by the
// bot, and returns the bot's replies to phone, oldest first.
func (e *botEnv) settled(t *testing.T, phone string, incoming int) []*ent.Message {
	t.Helper()
	testkit.Eventually(t, fmt.Sprintf("%d messages of %s handled", incoming, phone), func() bool {
		n, err := e.Client().Message.Query().Where(message.HasContactWith(contact.PhoneNumber(phone)),
			message.DirectionEQ(message.DirectionIncoming), message.BotHandledAtNotNil()).Count(e.ctx)
		return err == nil && n >= incoming
	})
	return e.replies(t, phone)
}

func (e *botEnv) replies(t *testing.T, phone string) []*ent.Message {
	t.Helper()
	ms, err := e.Client().Message.Query().Where(message.HasContactWith(contact.PhoneNumber(phone)),
		message.DirectionEQ(message.DirectionOutgoing)).Order(ent.Asc(message.FieldCreatedAt), ent.Asc(message.FieldID)).All(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// texts are the bodies of messages.
func texts(ms []*ent.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i], _ = m.Content["body"].(string)
	}
	return out
}

func expectTexts(t *testing.T, ms []*ent.Message, want ...string) {
	t.Helper()
	if got := texts(ms); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("replies %q, want %q", got, want)
	}
}

// sentTo waits until the platform fake accepted a message to phone whose
// JSON holds text.
func (e *botEnv) sentTo(t *testing.T, phone, text string) {
	t.Helper()
	testkit.Eventually(t, "the platform received "+text, func() bool {
		for _, b := range e.fake.Sent() {
			m, _ := b.(map[string]any)
			if m["to"] == phone && strings.Contains(fmt.Sprint(m), text) {
				return true
			}
		}
		return false
	})
}

// drained waits until every stored platform delivery is processed.
func (e *botEnv) drained(t *testing.T) {
	t.Helper()
	testkit.Eventually(t, "every stored delivery processed", func() bool {
		n, err := e.Client().InboundEvent.Query().Where(inboundevent.StatusNEQ(inboundevent.StatusProcessed)).
			Count(rule.Bypass(e.ctx, "test"))
		return err == nil && n == 0
	})
}

func (e *botEnv) contactID(t *testing.T, phone string) uuid.UUID {
	t.Helper()
	return e.contact(t, phone).ID
}

func (e *botEnv) contact(t *testing.T, phone string) *ent.Contact {
	t.Helper()
	c, err := e.Client().Contact.Query().Where(contact.PhoneNumber(phone)).Only(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
