package messaging_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/ent/message"
	"switchboard/ent/template"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/internal/apitest"
	"switchboard/messaging"
)

// TestStatusHooks: a registered hook sees each organization's status
// reports, with their callback data, in the transaction that has already
// applied them to the messages.
func TestStatusHooks(t *testing.T) {
	env := apitest.New(t)
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	db := env.Client()
	c, err := db.Contact.Create().SetPhoneNumber("15550008888").Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Message.Create().SetContactID(c.ID).SetDirection(message.DirectionOutgoing).SetMessageType("text").
		SetChatMessageID("wamid.h").SetStatus(message.StatusSent).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	svc := &messaging.Service{Client: db, Events: env.App.Events, Postgres: env.App.DB.Postgres()}
	var seen []messaging.StatusUpdate
	var statusInHook message.Status
	svc.OnStatuses(func(ctx context.Context, db *ent.Client, org uuid.UUID, ups []messaging.StatusUpdate) ([]events.Event, error) {
		if org != env.OrgID || ent.TxFromContext(ctx) == nil {
			t.Errorf("hook for %s, in a transaction: %v", org, ent.TxFromContext(ctx) != nil)
		}
		seen = append(seen, ups...)
		m, err := db.Message.Query().Where(message.ChatMessageID("wamid.h")).Only(ctx)
		if err == nil {
			statusInHook = m.Status
		}
		return nil, err
	})
	err = svc.StoreReceived(context.Background(), []messaging.Inbox{{OrgID: env.OrgID, Statuses: []messaging.StatusUpdate{
		{ChatMessageID: "wamid.h", Status: "delivered", Timestamp: time.Now(), CallbackData: "cmp:x"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0].CallbackData != "cmp:x" || statusInHook != message.StatusDelivered {
		t.Fatalf("hook saw %+v with the message %s", seen, statusInHook)
	}
}

// TestPrepareAndStoreSentTemplate: a bulk sender's template message is
// checked and rendered as SendTemplate's, carries the callback data, and
// is stored sent (with the statuses parked for its id) once.
func TestPrepareAndStoreSentTemplate(t *testing.T) {
	env := apitest.New(t)
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	db := env.Client()
	tpl, err := db.Template.Create().SetChatAccount("Main").SetName("promo").SetLanguage("en_US").
		SetCategory(template.CategoryMARKETING).SetStatus("APPROVED").SetBodyContent("Hi {{1}}").
		SetHeaderType(template.HeaderTypeDOCUMENT).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	svc := env.App.Messaging
	send := messaging.TemplateSend{Template: tpl, AccountName: "Main", Phone: "15550009999",
		TemplateParams: map[string]string{"1": "Ann"}, HeaderMediaID: "4490", HeaderFilename: "offer.pdf", CallbackData: "cmp:1"}
	if _, err := svc.PrepareTemplate(ctx, messaging.TemplateSend{Template: tpl, Phone: "1", TemplateParams: map[string]string{"1": "x"}}); err == nil {
		t.Error("a document header without media was prepared")
	}
	if _, err := svc.PrepareTemplate(ctx, messaging.TemplateSend{Template: tpl, HeaderMediaID: "1"}); err == nil {
		t.Error("a send without its body parameter was prepared")
	}
	p, err := svc.PrepareTemplate(ctx, send)
	if err != nil {
		t.Fatal(err)
	}
	if p.Message.CallbackData != "cmp:1" || p.Message.Template == nil || p.Message.Template.HeaderMedia == nil ||
		p.Message.Template.HeaderMedia.ID != "4490" || p.Message.Template.HeaderMedia.Filename != "offer.pdf" ||
		len(p.Message.Template.Body) != 1 || p.Message.Template.Body[0].Text != "Ann" {
		t.Fatalf("prepared %+v", p.Message.Template)
	}
	if err := db.ParkedStatus.Create().SetChatMessageID("wamid.bulk").SetStatus("delivered").
		SetPlatformTimestamp(time.Now()).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	var m *ent.Message
	for range 2 {
		tx, err := db.Tx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if m, err = svc.StoreSentTemplate(ent.NewTxContext(ctx, tx), tx.Client(), p, "wamid.bulk"); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	n, err := db.Message.Query().Where(message.ChatMessageID("wamid.bulk")).Count(ctx)
	if err != nil || n != 1 || m.Status != message.StatusDelivered || m.Content["body"] != "Hi Ann" || m.MediaFilename != "offer.pdf" {
		t.Fatalf("%d messages, %+v", n, m)
	}
}
