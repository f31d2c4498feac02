package messaging_test

import (
	"context"
	"testing"
	"time"

	"switchboard/ent/message"
	"switchboard/ent/parkedstatus"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
	"switchboard/messaging"
)

// TestCanMove is the status machine: forward only, failed from any state
// but failed.
func TestCanMove(t *testing.T) {
	order := []message.Status{message.StatusPending, message.StatusSent, message.StatusDelivered, message.StatusRead}
	for i, from := range append(order, message.StatusFailed) {
		for j, to := range append(order, message.StatusFailed) {
			want := to == message.StatusFailed && from != message.StatusFailed ||
				from != message.StatusFailed && to != message.StatusFailed && j > i && to != message.StatusPending
			if got := messaging.CanMove(from, to); got != want {
				t.Errorf("CanMove(%s, %s) = %v, want %v", from, to, got, want)
			}
		}
	}
}

// TestStoreReceivedStatuses applies one batch of status reports for
// several messages, out of order: each message ends at the furthest state
// its reports reach, a failure keeps its reason, and the reports of a
// message not stored yet are parked for the send path.
func TestStoreReceivedStatuses(t *testing.T) {
	env := apitest.New(t)
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	db := env.Client()
	c, err := db.Contact.Create().SetPhoneNumber("15550007777").Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"wamid.a", "wamid.b", "wamid.c"} {
		err := db.Message.Create().SetContactID(c.ID).SetDirection(message.DirectionOutgoing).SetMessageType("text").
			SetChatMessageID(id).SetStatus(message.StatusSent).Exec(ctx)
		if err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	st := func(id, status, reason string) messaging.StatusUpdate {
		return messaging.StatusUpdate{ChatMessageID: id, Status: status, Reason: reason, Timestamp: now}
	}
	err = env.App.Messaging.StoreReceived(context.Background(), []messaging.Inbox{{OrgID: env.OrgID, Statuses: []messaging.StatusUpdate{
		st("wamid.a", "read", ""), st("wamid.a", "delivered", ""), st("wamid.a", "sent", ""),
		st("wamid.b", "failed", "(#131026) Message undeliverable"), st("wamid.b", "read", ""),
		st("wamid.c", "deleted", ""), // not a status this service knows
		st("wamid.early", "delivered", ""), st("wamid.early", "read", ""), st("wamid.early", "read", ""),
	}}})
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]message.Status{
		"wamid.a": message.StatusRead, "wamid.b": message.StatusFailed, "wamid.c": message.StatusSent,
	} {
		m, err := db.Message.Query().Where(message.ChatMessageID(id)).Only(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if m.Status != want {
			t.Errorf("%s: %s, want %s", id, m.Status, want)
		}
		if id == "wamid.b" && m.ErrorMessage != "(#131026) Message undeliverable" {
			t.Errorf("%s: reason %q", id, m.ErrorMessage)
		}
	}
	parked, err := db.ParkedStatus.Query().Order(parkedstatus.ByStatus()).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(parked) != 2 || parked[0].ChatMessageID != "wamid.early" || parked[0].Status != parkedstatus.StatusDelivered ||
		parked[1].Status != parkedstatus.StatusRead {
		t.Fatalf("parked %+v, want delivered and read of wamid.early", parked)
	}
}

// TestPruneParked: a status parked longer than ParkedRetention, in any
// organization, is deleted by the sweep; a recent one waits on.
func TestPruneParked(t *testing.T) {
	env := apitest.New(t)
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	otherCtx := viewer.SystemContext(context.Background(), env.NewOrg("Other").OrgID)
	db := env.Client()
	park := func(ctx context.Context, id string, age time.Duration) {
		t.Helper()
		err := db.ParkedStatus.Create().SetChatMessageID(id).SetStatus(parkedstatus.StatusDelivered).
			SetCreatedAt(time.Now().Add(-age)).Exec(ctx)
		if err != nil {
			t.Fatal(err)
		}
	}
	old := messaging.ParkedRetention + time.Hour
	park(ctx, "wamid.foreign", old)
	park(otherCtx, "wamid.foreign-other", old)
	park(ctx, "wamid.waiting", messaging.ParkedRetention-time.Hour)

	n, err := env.App.Messaging.PruneParked(context.Background())
	if err != nil || n != 2 {
		t.Fatalf("PruneParked = %d, %v; want 2", n, err)
	}
	for id, want := range map[string]bool{"wamid.foreign": false, "wamid.foreign-other": false, "wamid.waiting": true} {
		c := ctx
		if id == "wamid.foreign-other" {
			c = otherCtx
		}
		if ok, err := db.ParkedStatus.Query().Where(parkedstatus.ChatMessageID(id)).Exist(c); err != nil || ok != want {
			t.Errorf("%s: stored %v (%v), want %v", id, ok, err, want)
		}
	}
}
