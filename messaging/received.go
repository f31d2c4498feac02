package messaging

import (
	"context"
	"sort"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/contact"
	"switchboard/ent/message"
	"switchboard/ent/rule"
	"switchboard/ent/schema"
	"switchboard/ent/viewer"
	"switchboard/events"
)

// Received is a message a contact sent, as the platform delivered it.
type Received struct {
	// Account is the business account it was sent to.
	Account *ent.Account
	// From is the sender's phone number, ProfileName their profile name.
	From, ProfileName string
	ChatMessageID     string
	Timestamp         time.Time
	Content           Content
}

// Content is what a received message stores: its type, a content object
// (text: {body}), media fields, interactive data and a preview for the
// inbox.
type Content struct {
	Type        string
	Body        map[string]any
	MediaID     string
	MimeType    string
	Filename    string
	Interactive map[string]any
	Preview     string
}

// Inbox is what a batch of platform deliveries brings one organization:
// messages and status reports, in delivery order.
type Inbox struct {
	OrgID    uuid.UUID
	Messages []Received
	Statuses []StatusUpdate
}

// followUps is what a stored batch queues once it commits.
type followUps struct {
	receipts []markReadTask
	media    [][2]uuid.UUID // organization and message of a media download
}

// StoreReceived stores what the platform delivered, in the transaction
// ctx carries, with a handful of statements whatever the batch's size:
// messages are inserted once per platform id (a redelivered message is
// stored once), their senders' contacts are created or updated on
// (organization, phone) with their counters, statuses move messages
// forward only (a status for a message not stored yet is parked). It
// records the domain events, and once the transaction commits queues read
// receipts and media downloads. Storing the same inboxes twice stores
// nothing twice.
func (s *Service) StoreReceived(ctx context.Context, inboxes []Inbox) error {
	tx := ent.TxFromContext(ctx)
	if tx == nil {
		return s.inTx(ctx, func(ctx context.Context, _ *ent.Client) error { return s.StoreReceived(ctx, inboxes) })
	}
	var evs []events.Event
	var after followUps
	for _, in := range inboxes {
		octx := ent.NewTxContext(viewer.SystemContext(ctx, in.OrgID), tx)
		msgEvents, err := s.storeMessages(octx, tx.Client(), in, &after)
		if err != nil {
			return err
		}
		evs = append(evs, msgEvents...)
		changed, err := s.applyStatuses(octx, tx.Client(), in.Statuses)
		if err != nil {
			return err
		}
		for _, m := range changed {
			evs = append(evs, events.Event{Type: events.MessageStatusChanged, OrgID: in.OrgID, Payload: NewMessageEvent(m)})
		}
		for _, hook := range s.statusHooks {
			if len(in.Statuses) == 0 {
				break
			}
			hookEvents, err := hook(octx, tx.Client(), in.OrgID, in.Statuses)
			if err != nil {
				return err
			}
			evs = append(evs, hookEvents...)
		}
	}
	// The batch's events in one call: their webhook deliveries are written
	// in this transaction, their frames published in one pipeline once it
	// commits.
	if err := s.Events.Record(ctx, evs...); err != nil {
		return err
	}
	if len(after.receipts) > 0 || len(after.media) > 0 {
		bg := context.WithoutCancel(ctx)
		database.AfterCommit(ctx, func() { s.followUp(bg, after) })
	}
	return nil
}

// followUp queues a committed batch's receipts and media downloads.
// Failures are logged: a receipt is best effort, and the media sweep
// retries downloads.
func (s *Service) followUp(ctx context.Context, f followUps) {
	for _, r := range f.receipts {
		s.queueReadReceipt(ctx, r)
	}
	if s.FetchMedia != nil {
		for _, m := range f.media {
			s.FetchMedia(ctx, m[0], m[1])
		}
	}
}

// storeMessages stores the organization's new messages and upserts their
// senders, and returns their events. One contact's messages are stored in
// platform-timestamp order.
func (s *Service) storeMessages(ctx context.Context, db *ent.Client, in Inbox, after *followUps) ([]events.Event, error) {
	msgs, err := newMessages(ctx, db, in.Messages)
	if err != nil || len(msgs) == 0 {
		return nil, err
	}
	contacts, created, err := s.upsertSenders(ctx, db, msgs)
	if err != nil {
		return nil, err
	}
	ids := make([]uuid.UUID, len(msgs))
	for i := range ids {
		ids[i] = schema.NewID()
	}
	handledAt, err := s.handledOnArrival(ctx, in.OrgID)
	if err != nil {
		return nil, err
	}
	if s.Postgres {
		err = pgInsertReceived(ctx, db, msgs, ids, contacts, handledAt)
	} else {
		err = insertReceived(ctx, db, msgs, ids, contacts, handledAt)
	}
	if err != nil {
		return nil, err
	}
	if err := s.runReceivedHooks(ctx, in.OrgID, msgs, ids, handledAt != nil, func(m Received) uuid.UUID { return contacts[m.From].ID }); err != nil {
		return nil, err
	}
	evs := make([]events.Event, 0, len(msgs)+len(contacts))
	for i, m := range msgs {
		evs = append(evs, events.Event{Type: events.MessageReceived, OrgID: in.OrgID, Payload: MessageEvent{
			ID: ids[i], ContactID: contacts[m.From].ID, Direction: string(message.DirectionIncoming), Type: m.Content.Type,
			Content: m.Content.Body, Status: string(message.StatusDelivered), ChatMessageID: m.ChatMessageID, Timestamp: m.Timestamp,
		}})
		if m.Account.AutoReadReceipt {
			after.receipts = append(after.receipts, markReadTask{OrgID: in.OrgID, AccountID: m.Account.ID, ChatMessageID: m.ChatMessageID})
		}
		if m.Content.MediaID != "" {
			after.media = append(after.media, [2]uuid.UUID{in.OrgID, ids[i]})
		}
	}
	for _, phone := range keys(contacts) {
		typ := events.ContactUpdated
		if created[phone] {
			typ = events.ContactCreated
		}
		evs = append(evs, events.Event{Type: typ, OrgID: in.OrgID, Payload: NewContactEvent(contacts[phone])})
	}
	return evs, nil
}

// insertReceived inserts msgs with ent's builders (the embedded SQLite;
// PostgreSQL has pgInsertReceived).
func insertReceived(ctx context.Context, db *ent.Client, msgs []Received, ids []uuid.UUID, contacts map[string]*ent.Contact, handledAt *time.Time) error {
	builders := make([]*ent.MessageCreate, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		b := db.Message.Create().SetID(ids[i]).SetContactID(contacts[m.From].ID).
			SetDirection(message.DirectionIncoming).SetMessageType(m.Content.Type).SetContent(m.Content.Body).
			SetStatus(message.StatusDelivered).SetChatMessageID(m.ChatMessageID).SetChatAccount(m.Account.Name).
			SetPlatformTimestamp(m.Timestamp).SetCreatedAt(m.Timestamp).
			SetMediaMimeType(m.Content.MimeType).SetMediaFilename(m.Content.Filename).
			SetNillableBotHandledAt(handledAt)
		if m.Content.Interactive != nil {
			b.SetInteractiveData(m.Content.Interactive)
		}
		builders[i] = b
	}
	return database.InChunks(builders, len(message.Columns), func(part []*ent.MessageCreate) error {
		return db.Message.CreateBulk(part...).OnConflictColumns(message.FieldChatMessageID).DoNothing().Exec(ctx)
	})
}

// newMessages drops messages already stored (redeliveries) and repeated
// ones, and orders the rest by platform timestamp, stably.
func newMessages(ctx context.Context, db *ent.Client, in []Received) ([]Received, error) {
	wamids := make([]string, len(in))
	for i, m := range in {
		wamids[i] = m.ChatMessageID
	}
	seen := make(map[string]bool, len(in))
	err := database.InChunks(wamids, 1, func(part []string) error {
		stored, err := db.Message.Query().Where(database.AnyOf(message.FieldChatMessageID, part)).
			Select(message.FieldChatMessageID).
			Strings(rule.Bypass(ctx, "platform message ids are unique across organizations"))
		for _, id := range stored {
			seen[id] = true
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]Received, 0, len(in))
	for _, m := range in {
		if !seen[m.ChatMessageID] {
			seen[m.ChatMessageID] = true
			out = append(out, m)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Timestamp.Before(out[j].Timestamp) })
	return out, nil
}

// sender is what a batch adds to one contact.
type sender struct {
	phone, name, account, preview string
	count                         int
	last                          time.Time
}

// upsertSenders creates or updates the senders' contacts in one statement
// (on SQLite, per chunk of the parameter limit; on PostgreSQL
// pgUpsertSenders, which also returns them): concurrent first messages of a new
// sender meet on the unique (org, phone) index; a new contact is named
// after the sender's profile, as is one still without a name; the unread
// count grows by the new messages, and the last message moves forward
// only (a late older message does not replace it). It returns the
// contacts by phone and the phones created now.
func (s *Service) upsertSenders(ctx context.Context, db *ent.Client, msgs []Received) (map[string]*ent.Contact, map[string]bool, error) {
	bySender := map[string]*sender{}
	var order []string
	for _, m := range msgs {
		sd := bySender[m.From]
		if sd == nil {
			sd = &sender{phone: m.From, account: m.Account.Name}
			bySender[m.From] = sd
			order = append(order, m.From)
		}
		sd.count++
		if m.ProfileName != "" {
			sd.name = m.ProfileName
		}
		if !m.Timestamp.Before(sd.last) {
			sd.last, sd.preview = m.Timestamp, m.Content.Preview
		}
	}
	// created_at is stamped with the batch's instant: a contact whose
	// created_at equals it was inserted by this statement.
	stamp := s.now().Truncate(time.Microsecond)
	if s.Postgres {
		senders := make([]*sender, len(order))
		for i, phone := range order {
			senders[i] = bySender[phone]
		}
		return pgUpsertSenders(ctx, db, senders, stamp)
	}
	builders := make([]*ent.ContactCreate, len(order))
	for i, phone := range order {
		sd := bySender[phone]
		builders[i] = db.Contact.Create().SetPhoneNumber(phone).SetName(sd.name).SetProfileName(sd.name).SetChatAccount(sd.account).
			SetUnreadCount(sd.count).SetLastMessageAt(sd.last).SetLastMessagePreview(sd.preview).
			SetLastInboundAt(sd.last).SetCreatedAt(stamp).SetUpdatedAt(stamp)
	}
	err := database.InChunks(builders, len(contact.Columns), func(part []*ent.ContactCreate) error {
		return db.Contact.CreateBulk(part...).
			OnConflict(sql.ConflictColumns(contact.FieldOrganizationID, contact.FieldPhoneNumber), sql.ResolveWith(mergeContact)).
			Exec(ctx)
	})
	if err != nil {
		return nil, nil, err
	}
	contacts := make(map[string]*ent.Contact, len(order))
	created := map[string]bool{}
	err = database.InChunks(order, 1, func(part []string) error {
		list, err := db.Contact.Query().Where(database.AnyOf(contact.FieldPhoneNumber, part)).All(ctx)
		for _, ct := range list {
			contacts[ct.PhoneNumber] = ct
			if ct.CreatedAt.Equal(stamp) {
				created[ct.PhoneNumber] = true
			}
		}
		return err
	})
	return contacts, created, err
}

// mergeContact is the conflict action of upsertSenders.
func mergeContact(u *sql.UpdateSet) {
	t, x := u.Table(), sql.Dialect(u.Dialect()).Table("excluded")
	col := func(tb *sql.SelectTable, name string) string { return tb.C(name) }
	newer := func(name string, strict bool) string {
		op := " <= "
		if strict {
			op = " < "
		}
		return "CASE WHEN " + col(t, name) + " IS NULL OR " + col(t, name) + op + col(x, name)
	}
	u.Set(contact.FieldUnreadCount, sql.Expr(col(t, contact.FieldUnreadCount)+" + "+col(x, contact.FieldUnreadCount)))
	u.Set(contact.FieldLastMessageAt, sql.Expr(newer(contact.FieldLastMessageAt, false)+
		" THEN "+col(x, contact.FieldLastMessageAt)+" ELSE "+col(t, contact.FieldLastMessageAt)+" END"))
	u.Set(contact.FieldLastMessagePreview, sql.Expr(newer(contact.FieldLastMessageAt, false)+
		" THEN "+col(x, contact.FieldLastMessagePreview)+" ELSE "+col(t, contact.FieldLastMessagePreview)+" END"))
	u.Set(contact.FieldLastInboundAt, sql.Expr(newer(contact.FieldLastInboundAt, true)+
		" THEN "+col(x, contact.FieldLastInboundAt)+" ELSE "+col(t, contact.FieldLastInboundAt)+" END"))
	u.Set(contact.FieldProfileName, sql.Expr("CASE WHEN "+col(x, contact.FieldProfileName)+" <> '' THEN "+
		col(x, contact.FieldProfileName)+" ELSE "+col(t, contact.FieldProfileName)+" END"))
	u.Set(contact.FieldName, sql.Expr("CASE WHEN "+col(t, contact.FieldName)+" = '' THEN "+
		col(x, contact.FieldName)+" ELSE "+col(t, contact.FieldName)+" END"))
	u.SetExcluded(contact.FieldUpdatedAt)
}
