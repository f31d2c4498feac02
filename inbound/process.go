package inbound

import (
	"context"
	"sort"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/ent/contact"
	"switchboard/ent/inboundevent"
	"switchboard/ent/message"
	"switchboard/ent/parkedstatus"
	"switchboard/ent/rule"
	"switchboard/ent/schema"
	"switchboard/ent/viewer"
	"switchboard/events"
)

// incoming is one platform message of a batch with what storing it needs.
type incoming struct {
	acc   *ent.Account
	from  string
	name  string
	wamid string
	ts    time.Time
	c     content
	id    uuid.UUID
}

// orgWork is a batch's work for one organization.
type orgWork struct {
	org      uuid.UUID
	messages []incoming
	statuses []statusUpdate
}

// notes is what a batch causes: domain events, recorded before its
// commit, and read receipts and media downloads, queued after it.
type notes struct {
	events   []events.Event
	receipts []markReadTask
	media    []mediaFetch
}

type mediaFetch struct{ org, message uuid.UUID }

// processBatch stores a batch of deliveries in tx with a handful of
// statements whatever its size: messages are inserted on their unique
// platform id (a redelivered message is stored once), contacts are
// upserted on (organization, phone) with their counters, statuses move
// messages forward only. The deliveries are removed in the same
// transaction. It is idempotent: a batch processed twice stores nothing
// twice.
func (s *Service) processBatch(ctx context.Context, tx *ent.Tx, evs []*ent.InboundEvent) (*notes, error) {
	work, err := s.collect(ctx, evs)
	if err != nil {
		return nil, err
	}
	out := &notes{}
	for _, w := range work {
		octx := ent.NewTxContext(viewer.SystemContext(ctx, w.org), tx)
		if err := s.storeMessages(octx, tx.Client(), w, out); err != nil {
			return nil, err
		}
		if err := s.applyStatuses(octx, tx.Client(), w, out); err != nil {
			return nil, err
		}
	}
	// The batch's events in one call: their webhook deliveries are
	// written in this transaction, their frames published in one
	// pipeline once it commits.
	if err := s.Events.Record(ent.NewTxContext(ctx, tx), out.events...); err != nil {
		return nil, err
	}
	ids := make([]uuid.UUID, len(evs))
	for i, ev := range evs {
		ids[i] = ev.ID
	}
	// Processed deliveries leave the table in the same transaction: it is a
	// queue, and a DELETE costs the database far less than an UPDATE of
	// every row and index. A later redelivery of the same payload is
	// stored again and stores nothing new (message ids are unique).
	_, err = tx.InboundEvent.Delete().Where(inboundevent.IDIn(ids...)).
		Exec(rule.Bypass(ctx, "removing processed webhook deliveries"))
	return out, err
}

// collect parses the deliveries and groups their messages and statuses by
// organization, in delivery order.
func (s *Service) collect(ctx context.Context, evs []*ent.InboundEvent) ([]*orgWork, error) {
	var changes []changeValue
	phoneIDs := map[string]bool{}
	for _, ev := range evs {
		p, err := parsePayload(ev.Payload)
		if err != nil {
			s.Log.Warn("stored webhook delivery is not valid JSON; skipped", "event_id", ev.ID)
			continue
		}
		for _, e := range p.Entry {
			for _, ch := range e.Changes {
				if ch.Field != "messages" {
					s.Log.Info("webhook change field not handled; acknowledged", "field", ch.Field)
					continue
				}
				changes = append(changes, ch.Value)
				phoneIDs[ch.Value.Metadata.PhoneNumberID] = true
			}
		}
	}
	accounts, err := s.accountsByPhone(ctx, phoneIDs)
	if err != nil {
		return nil, err
	}
	byOrg := map[uuid.UUID]*orgWork{}
	var work []*orgWork
	for _, v := range changes {
		acc := accounts[v.Metadata.PhoneNumberID]
		if acc == nil {
			s.Log.Warn("webhook change for an unknown phone number id", "phone_number_id", v.Metadata.PhoneNumberID)
			continue
		}
		w := byOrg[acc.OrganizationID]
		if w == nil {
			w = &orgWork{org: acc.OrganizationID}
			byOrg[acc.OrganizationID] = w
			work = append(work, w)
		}
		s.addChange(w, acc, v)
	}
	return work, nil
}

func (s *Service) addChange(w *orgWork, acc *ent.Account, v changeValue) {
	names := map[string]string{}
	for _, c := range v.Contacts {
		names[c.WaID] = c.Profile.Name
	}
	for _, m := range v.Messages {
		from, wamid := m.str("from"), m.str("id")
		if from == "" || wamid == "" {
			s.Log.Warn("webhook message without sender or id skipped", "type", m.str("type"))
			continue
		}
		ts, ok := parseTimestamp(m.str("timestamp"))
		if !ok {
			ts = s.now()
		}
		w.messages = append(w.messages, incoming{acc: acc, from: from, name: names[from], wamid: wamid, ts: ts, c: extractContent(m)})
	}
	w.statuses = append(w.statuses, v.Statuses...)
}

func (s *Service) accountsByPhone(ctx context.Context, ids map[string]bool) (map[string]*ent.Account, error) {
	list := make([]string, 0, len(ids))
	for id := range ids {
		list = append(list, id)
	}
	signers, err := s.signers(ctx, list)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*ent.Account, len(signers))
	for _, sg := range signers {
		if out[sg.acc.PhoneID] == nil {
			out[sg.acc.PhoneID] = sg.acc
		}
	}
	return out, nil
}

// storeMessages stores the organization's new messages and upserts their
// senders. One contact's messages are stored in platform-timestamp order.
func (s *Service) storeMessages(ctx context.Context, c *ent.Client, w *orgWork, out *notes) error {
	msgs, err := newMessages(ctx, c, w.messages)
	if err != nil || len(msgs) == 0 {
		return err
	}
	contacts, created, err := s.upsertSenders(ctx, c, msgs)
	if err != nil {
		return err
	}
	builders := make([]*ent.MessageCreate, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		m.id = schema.NewID()
		b := c.Message.Create().SetID(m.id).SetContactID(contacts[m.from].ID).
			SetDirection(message.DirectionIncoming).SetMessageType(m.c.Type).SetContent(m.c.Body).
			SetStatus(message.StatusDelivered).SetChatMessageID(m.wamid).SetChatAccount(m.acc.Name).
			SetPlatformTimestamp(m.ts).SetCreatedAt(m.ts).SetMediaMimeType(m.c.MimeType).SetMediaFilename(m.c.Filename)
		if m.c.Interactive != nil {
			b.SetInteractiveData(m.c.Interactive)
		}
		builders[i] = b
	}
	if err := c.Message.CreateBulk(builders...).OnConflictColumns(message.FieldChatMessageID).DoNothing().Exec(ctx); err != nil {
		return err
	}
	s.announceMessages(w.org, msgs, contacts, created, out)
	return nil
}

// newMessages drops messages already stored (redeliveries) and repeated
// ones, and orders the rest by platform timestamp, stably.
func newMessages(ctx context.Context, c *ent.Client, in []incoming) ([]incoming, error) {
	wamids := make([]string, len(in))
	for i, m := range in {
		wamids[i] = m.wamid
	}
	stored, err := c.Message.Query().Where(message.ChatMessageIDIn(wamids...)).
		Select(message.FieldChatMessageID).
		Strings(rule.Bypass(ctx, "platform message ids are unique across organizations"))
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(in)+len(stored))
	for _, id := range stored {
		seen[id] = true
	}
	out := make([]incoming, 0, len(in))
	for _, m := range in {
		if !seen[m.wamid] {
			seen[m.wamid] = true
			out = append(out, m)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ts.Before(out[j].ts) })
	return out, nil
}

// sender is what a batch adds to one contact.
type sender struct {
	phone, name, account, preview string
	count                         int
	last                          time.Time
}

// upsertSenders creates or updates the senders' contacts in one statement:
// concurrent first messages of a new sender meet on the unique (org,
// phone) index; the unread count grows by the new messages, and the last
// message moves forward only (a late older message does not replace it).
// It returns the contacts by phone and the phones created now.
func (s *Service) upsertSenders(ctx context.Context, c *ent.Client, msgs []incoming) (map[string]*ent.Contact, map[string]bool, error) {
	bySender := map[string]*sender{}
	var order []string
	for _, m := range msgs {
		sd := bySender[m.from]
		if sd == nil {
			sd = &sender{phone: m.from, account: m.acc.Name}
			bySender[m.from] = sd
			order = append(order, m.from)
		}
		sd.count++
		if m.name != "" {
			sd.name = m.name
		}
		if !m.ts.Before(sd.last) {
			sd.last, sd.preview = m.ts, m.c.Preview
		}
	}
	// created_at is stamped with the batch's instant: a contact whose
	// created_at equals it was inserted by this statement.
	stamp := s.now().Truncate(time.Microsecond)
	builders := make([]*ent.ContactCreate, len(order))
	for i, phone := range order {
		sd := bySender[phone]
		builders[i] = c.Contact.Create().SetPhoneNumber(phone).SetProfileName(sd.name).SetChatAccount(sd.account).
			SetUnreadCount(sd.count).SetLastMessageAt(sd.last).SetLastMessagePreview(sd.preview).
			SetLastInboundAt(sd.last).SetCreatedAt(stamp).SetUpdatedAt(stamp)
	}
	err := c.Contact.CreateBulk(builders...).
		OnConflict(sql.ConflictColumns(contact.FieldOrganizationID, contact.FieldPhoneNumber), sql.ResolveWith(mergeContact)).
		Exec(ctx)
	if err != nil {
		return nil, nil, err
	}
	list, err := c.Contact.Query().Where(contact.PhoneNumberIn(order...)).All(ctx)
	if err != nil {
		return nil, nil, err
	}
	contacts := make(map[string]*ent.Contact, len(list))
	created := map[string]bool{}
	for _, ct := range list {
		contacts[ct.PhoneNumber] = ct
		if ct.CreatedAt.Equal(stamp) {
			created[ct.PhoneNumber] = true
		}
	}
	return contacts, created, nil
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
	u.SetExcluded(contact.FieldUpdatedAt)
}

// announceMessages gathers the domain events of stored messages and their
// senders, and the receipts and media downloads for after the commit.
func (s *Service) announceMessages(org uuid.UUID, msgs []incoming, contacts map[string]*ent.Contact, created map[string]bool, out *notes) {
	for _, m := range msgs {
		ev := MessageEvent{
			ID: m.id, ContactID: contacts[m.from].ID, Direction: string(message.DirectionIncoming), Type: m.c.Type,
			Content: m.c.Body, Status: string(message.StatusDelivered), ChatMessageID: m.wamid, Timestamp: m.ts,
		}
		out.events = append(out.events, events.Event{Type: events.MessageReceived, OrgID: org, Payload: ev})
		if m.acc.AutoReadReceipt {
			out.receipts = append(out.receipts, markReadTask{OrgID: org, AccountID: m.acc.ID, ChatMessageID: m.wamid})
		}
		if m.c.MediaID != "" {
			out.media = append(out.media, mediaFetch{org: org, message: m.id})
		}
	}
	for phone, ct := range contacts {
		typ := events.ContactUpdated
		if created[phone] {
			typ = events.ContactCreated
		}
		out.events = append(out.events, events.Event{Type: typ, OrgID: org, Payload: contactEvent(ct)})
	}
}

// applyStatuses moves messages forward; a status for a message not stored
// yet is parked for the send path.
func (s *Service) applyStatuses(ctx context.Context, c *ent.Client, w *orgWork, out *notes) error {
	var changed []string
	for _, st := range w.statuses {
		status := message.Status(st.Status)
		if message.StatusValidator(status) != nil || status == message.StatusPending {
			s.Log.Info("webhook status not handled; acknowledged", "status", st.Status)
			continue
		}
		applied, err := ApplyStatus(ctx, c, st.ID, status, st.errorText())
		if err != nil {
			return err
		}
		if applied {
			changed = append(changed, st.ID)
			continue
		}
		if err := s.park(ctx, c, st, status); err != nil {
			return err
		}
	}
	if len(changed) == 0 {
		return nil
	}
	msgs, err := c.Message.Query().Where(message.ChatMessageIDIn(changed...)).All(ctx)
	for _, m := range msgs {
		out.events = append(out.events, events.Event{Type: events.MessageStatusChanged, OrgID: w.org, Payload: messageEvent(m)})
	}
	return err
}

// park keeps a status whose message is not stored yet.
func (s *Service) park(ctx context.Context, c *ent.Client, st statusUpdate, status message.Status) error {
	exists, err := c.Message.Query().Where(message.ChatMessageID(st.ID)).Exist(ctx)
	if err != nil || exists {
		return err // exists: the status was older than the message's
	}
	ts, ok := parseTimestamp(st.Timestamp)
	if !ok {
		ts = s.now()
	}
	err = c.ParkedStatus.Create().SetChatMessageID(st.ID).SetStatus(parkedstatus.Status(status)).
		SetErrorMessage(st.errorText()).SetPlatformTimestamp(ts).
		OnConflictColumns(parkedstatus.FieldChatMessageID, parkedstatus.FieldStatus).DoNothing().Exec(ctx)
	if isNoRows(err) {
		return nil
	}
	return err
}

// deliverNotes queues a committed batch's receipts and media downloads
// (its events were recorded in its transaction). Failures are logged: a
// receipt is best effort, and the media sweep retries downloads.
func (s *Service) deliverNotes(ctx context.Context, n *notes) {
	if n == nil {
		return
	}
	for _, r := range n.receipts {
		s.queueReadReceipt(ctx, r)
	}
	if s.FetchMedia != nil {
		for _, m := range n.media {
			s.FetchMedia(ctx, m.org, m.message)
		}
	}
}

// earlier lists the states a status may move a message from: statuses
// only move forward (pending → sent → delivered → read), and failed may
// come from any state but failed.
var earlier = map[message.Status][]message.Status{
	message.StatusSent:      {message.StatusPending},
	message.StatusDelivered: {message.StatusPending, message.StatusSent},
	message.StatusRead:      {message.StatusPending, message.StatusSent, message.StatusDelivered},
	message.StatusFailed:    {message.StatusPending, message.StatusSent, message.StatusDelivered, message.StatusRead},
}

// ApplyStatus moves the message with platform id chatMessageID to status
// when that is forward. It reports whether a message changed. c may be a
// transaction's client; ctx carries the organization's viewer.
func ApplyStatus(ctx context.Context, c *ent.Client, chatMessageID string, status message.Status, reason string) (bool, error) {
	from, ok := earlier[status]
	if !ok {
		return false, nil
	}
	upd := c.Message.Update().Where(message.ChatMessageID(chatMessageID), message.StatusIn(from...)).SetStatus(status)
	if status == message.StatusFailed {
		upd.SetErrorMessage(reason)
	}
	n, err := upd.Save(ctx)
	return n > 0, err
}

// ApplyParked applies the statuses that arrived before the message with
// platform id chatMessageID was stored, in order, and forgets them. It
// reports whether the message changed. The send path calls it once it
// has stored the platform's message id.
func ApplyParked(ctx context.Context, c *ent.Client, chatMessageID string) (bool, error) {
	parked, err := c.ParkedStatus.Query().Where(parkedstatus.ChatMessageID(chatMessageID)).All(ctx)
	if err != nil || len(parked) == 0 {
		return false, err
	}
	order := map[parkedstatus.Status]int{"sent": 1, "delivered": 2, "read": 3, "failed": 4}
	sort.Slice(parked, func(i, j int) bool { return order[parked[i].Status] < order[parked[j].Status] })
	changed := false
	for _, p := range parked {
		applied, err := ApplyStatus(ctx, c, chatMessageID, message.Status(p.Status), p.ErrorMessage)
		if err != nil {
			return false, err
		}
		changed = changed || applied
	}
	_, err = c.ParkedStatus.Delete().Where(parkedstatus.ChatMessageID(chatMessageID)).Exec(ctx)
	return changed, err
}
