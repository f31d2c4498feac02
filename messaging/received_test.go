package messaging_test

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"switchboard/analytics"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/contact"
	"switchboard/ent/message"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/internal/apitest"
	"switchboard/messaging"
)

// engines are the two databases StoreReceived writes to in its own way:
// PostgreSQL with the array statements of received_pg.go, the embedded
// SQLite with ent's builders. Both must store the same.
var engines = []struct {
	name     string
	settings []apitest.Setting
}{
	{"postgres", nil},
	{"sqlite", []apitest.Setting{{Name: "DATABASE_URL", Value: ""}, {Name: "REDIS_URL", Value: ""}}},
}

// TestStoreReceived stores one batch for two organizations: each row gets
// the organization of its inbox, a known contact is updated by the rules
// (unread count grows, a name it has is kept, the profile name follows
// the sender, the last message moves forward only), new senders become
// contacts named after their profile, a platform id stored already (in
// any organization) is not stored again, and storing the batch twice
// stores nothing twice.
func TestStoreReceived(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			env := apitest.New(t, eng.settings...)
			orgA, orgB := env.OrgID, env.NewOrg("Other").OrgID
			db, ctxA := env.Client(), viewer.SystemContext(context.Background(), orgA)
			t0 := time.Now().UTC().Truncate(time.Second)
			later := t0.Add(time.Hour)
			known, err := db.Contact.Create().SetPhoneNumber("15550100001").SetName("Kept").SetUnreadCount(2).
				SetLastMessageAt(later).SetLastMessagePreview("newest").Save(ctxA)
			if err != nil {
				t.Fatal(err)
			}
			acc := &ent.Account{Name: "main"}
			msg := func(from, profile, id string, at time.Time, text string) messaging.Received {
				return messaging.Received{Account: acc, From: from, ProfileName: profile, ChatMessageID: id, Timestamp: at,
					Content: messaging.Content{Type: "text", Body: map[string]any{"body": text}, Preview: text}}
			}
			batch := []messaging.Inbox{
				{OrgID: orgA, Messages: []messaging.Received{
					msg("15550100001", "Kay", "wamid.k2", t0.Add(2*time.Second), "second"),
					msg("15550100001", "Kay", "wamid.k1", t0.Add(time.Second), "first"),
					msg("15550100002", "Bea", "wamid.b1", t0, "hello"),
					msg("15550100002", "Bea", "wamid.b1", t0, "hello"), // repeated in the batch
				}},
				{OrgID: orgB, Messages: []messaging.Received{
					msg("15550100001", "Kay", "wamid.o1", t0, "other org"),
					msg("15550100001", "Kay", "wamid.k1", t0, "taken"), // the platform id is stored in orgA
				}},
			}
			subA, subB := env.App.Events.Subscribe(orgA, 64), env.App.Events.Subscribe(orgB, 64)
			defer subA.Close()
			defer subB.Close()
			for range 2 {
				if err := env.App.Messaging.StoreReceived(context.Background(), batch); err != nil {
					t.Fatal(err)
				}
			}
			all := rule.Bypass(context.Background(), "test reads every organization")
			ms, err := db.Message.Query().Order(ent.Asc(message.FieldCreatedAt), ent.Asc(message.FieldChatMessageID)).All(all)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]struct {
				org  any
				body string
			}{"wamid.k1": {orgA, "first"}, "wamid.k2": {orgA, "second"}, "wamid.b1": {orgA, "hello"}, "wamid.o1": {orgB, "other org"}}
			if len(ms) != len(want) {
				t.Fatalf("%d messages stored, want %d", len(ms), len(want))
			}
			contactOf := map[string]*ent.Contact{}
			cs, err := db.Contact.Query().All(all)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cs {
				contactOf[c.ID.String()] = c
			}
			for _, m := range ms {
				w := want[*m.ChatMessageID]
				c := contactOf[m.ContactID.String()]
				if m.OrganizationID != w.org || c == nil || c.OrganizationID != w.org || m.Content["body"] != w.body ||
					m.Direction != message.DirectionIncoming || m.Status != message.StatusDelivered || m.ChatAccount != "main" ||
					m.PlatformTimestamp == nil || !m.PlatformTimestamp.Equal(m.CreatedAt) || m.InteractiveData == nil {
					t.Errorf("message %s: %+v (contact %+v)", *m.ChatMessageID, m, c)
				}
			}
			k, err := db.Contact.Get(ctxA, known.ID)
			if err != nil {
				t.Fatal(err)
			}
			if k.UnreadCount != 4 || k.MessageCount != 2 || k.Name != "Kept" || k.ProfileName != "Kay" || !k.LastMessageAt.Equal(later) ||
				k.LastMessagePreview != "newest" || k.LastInboundAt == nil || !k.LastInboundAt.Equal(t0.Add(2*time.Second)) {
				t.Errorf("known contact %+v", k)
			}
			bea, err := db.Contact.Query().Where(contact.PhoneNumber("15550100002")).Only(ctxA)
			if err != nil {
				t.Fatal(err)
			}
			if bea.Name != "Bea" || bea.UnreadCount != 1 || bea.MessageCount != 1 || bea.LastMessagePreview != "hello" || len(bea.Tags) != 0 || bea.Metadata == nil {
				t.Errorf("new contact %+v", bea)
			}
			other, err := db.Contact.Query().Where(contact.PhoneNumber("15550100001")).
				Only(viewer.SystemContext(context.Background(), orgB))
			if err != nil || other.ID == known.ID || other.UnreadCount != 1 || other.MessageCount != 1 || other.Name != "Kay" {
				t.Errorf("orgB's contact %+v (%v)", other, err)
			}
			// One batch's frames: the messages, a contact:updated for the
			// known contact and contact:new for the others.
			if got := frames(t, subA, 5); got != "contact:new contact:updated message:new message:new message:new" {
				t.Errorf("orgA frames: %s", got)
			}
			if got := frames(t, subB, 2); got != "contact:new message:new" {
				t.Errorf("orgB frames: %s", got)
			}
		})
	}
}

// TestStoreReceivedMarksLateDays: a message the platform delivers days
// after its timestamp is in the analytics of its day at once, on both
// engines (PostgreSQL's insert marks the day's rollup itself; SQLite's
// goes through ent's hooks), once the day's rollup was built.
func TestStoreReceivedMarksLateDays(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			env := apitest.New(t, eng.settings...)
			ctx := viewer.SystemContext(context.Background(), env.OrgID)
			reports := env.App.Resolver.Analytics
			day := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -3)
			period := analytics.Period{From: day, To: day.AddDate(0, 0, 1)}
			messages := func() int {
				t.Helper()
				d, err := reports.Dashboard(ctx, period)
				if err != nil {
					t.Fatal(err)
				}
				return d.Stats.TotalMessages
			}
			if err := reports.Refresh(ctx); err != nil {
				t.Fatal(err)
			}
			if n := messages(); n != 0 {
				t.Fatalf("%d messages on a day without any", n)
			}
			late := messaging.Received{Account: &ent.Account{Name: "main"}, From: "15550100009", ProfileName: "Lou",
				ChatMessageID: "wamid.late", Timestamp: day.Add(10 * time.Hour),
				Content: messaging.Content{Type: "text", Body: map[string]any{"body": "sent days ago"}, Preview: "sent days ago"}}
			if err := env.App.Messaging.StoreReceived(context.Background(),
				[]messaging.Inbox{{OrgID: env.OrgID, Messages: []messaging.Received{late}}}); err != nil {
				t.Fatal(err)
			}
			if n := messages(); n != 1 {
				t.Errorf("%d messages on the late message's day, want 1", n)
			}
		})
	}
}

// frames reads n frames of sub (sorted types) and checks no more come.
func frames(t *testing.T, sub *events.Subscription, n int) string {
	t.Helper()
	var types []string
	timeout := time.After(5 * time.Second)
	for len(types) < n {
		select {
		case ev := <-sub.C():
			types = append(types, ev.Type)
		case <-timeout:
			t.Fatalf("%d frames of %d: %v", len(types), n, types)
		}
	}
	select {
	case ev := <-sub.C():
		t.Errorf("unexpected frame %s", ev.Type)
	case <-time.After(200 * time.Millisecond):
	}
	sort.Strings(types)
	out := ""
	for i, s := range types {
		if i > 0 {
			out += " "
		}
		out += s
	}
	return out
}

// TestStoreReceivedRacing: on PostgreSQL the ingest counts a contact's
// messages in its upsert of the contact (the insert trigger does not count
// them again); a message another drainer stored between the batch's read
// of stored ids and its insert is skipped and not counted.
func TestStoreReceivedRacing(t *testing.T) {
	env := apitest.New(t)
	acc := &ent.Account{Name: "main"}
	at := time.Now().UTC()
	msg := func(id string) messaging.Received {
		return messaging.Received{Account: acc, From: "15550300001", ProfileName: "Ray", ChatMessageID: id, Timestamp: at,
			Content: messaging.Content{Type: "text", Body: map[string]any{"body": id}, Preview: id}}
	}
	if err := env.App.Messaging.StoreReceived(context.Background(), []messaging.Inbox{
		{OrgID: env.OrgID, Messages: []messaging.Received{msg("wamid.r1")}}}); err != nil {
		t.Fatal(err)
	}
	if err := env.App.Messaging.StoreRacing(context.Background(), env.OrgID,
		[]messaging.Received{msg("wamid.r1"), msg("wamid.r2"), msg("wamid.r3")}); err != nil {
		t.Fatal(err)
	}
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	c, err := env.Client().Contact.Query().Where(contact.PhoneNumber("15550300001")).Only(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := env.Client().Message.Query().Where(message.ContactID(c.ID)).Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if stored != 3 || c.MessageCount != 3 || c.UnreadCount != 3 {
		t.Fatalf("%d messages stored, message_count %d, unread_count %d: want 3, 3, 3", stored, c.MessageCount, c.UnreadCount)
	}
	// Messages written any other way are still counted by the trigger.
	if _, err := env.Client().Message.Create().SetContactID(c.ID).SetDirection(message.DirectionOutgoing).
		SetMessageType("text").SetContent(map[string]any{"body": "reply"}).Save(ctx); err != nil {
		t.Fatal(err)
	}
	if c = env.Client().Contact.GetX(ctx, c.ID); c.MessageCount != 4 {
		t.Fatalf("message_count %d after a reply, want 4", c.MessageCount)
	}
}

// TestStoreReceivedStatements: storing a batch takes the same number of
// statements whatever its size, and on PostgreSQL the same texts, so each
// is prepared once per connection (database/stmtcache.go) and serves every
// batch size.
func TestStoreReceivedStatements(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			env := apitest.New(t, eng.settings...)
			acc := &ent.Account{Name: "main"}
			now := time.Now().UTC()
			count := func(first, n int) *database.Statements {
				in := messaging.Inbox{OrgID: env.OrgID}
				for i := range n {
					phone := "1555020" + string(rune('0'+(first+i)/1000%10)) + string(rune('0'+(first+i)/100%10)) +
						string(rune('0'+(first+i)/10%10)) + string(rune('0'+(first+i)%10))
					in.Messages = append(in.Messages, messaging.Received{Account: acc, From: phone, ChatMessageID: "wamid.s" + phone,
						Timestamp: now, Content: messaging.Content{Type: "text", Body: map[string]any{"body": "x"}}})
				}
				st := &database.Statements{}
				ctx := database.CountStatements(context.Background(), st)
				if err := env.App.Messaging.StoreReceived(ctx, []messaging.Inbox{in}); err != nil {
					t.Fatal(err)
				}
				return st
			}
			count(0, 1) // the first batch also reads the organization's webhook subscriptions (then cached)
			one, many := count(1, 1), count(2, 300)
			if one.N() != many.N() || one.N() == 0 {
				t.Fatalf("%d statements for 1 message, %d for 300", one.N(), many.N())
			}
			if eng.name == "postgres" && !slices.Equal(one.Texts(), many.Texts()) {
				t.Fatalf("statement texts differ with the batch's size:\n%s\n--\n%s",
					strings.Join(one.Texts(), "\n"), strings.Join(many.Texts(), "\n"))
			}
		})
	}
}
