package inbound

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/contact"
	"switchboard/ent/message"
	"switchboard/ent/parkedstatus"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
)

// Process handles one stored delivery. It is idempotent: a delivery
// processed twice (a retried task) stores nothing twice, because messages
// are inserted on their unique platform id and statuses only move forward.
func (s *Service) Process(ctx context.Context, id uuid.UUID) error {
	bctx := rule.Bypass(ctx, "processing a stored webhook delivery")
	ev, err := s.Client.InboundEvent.Get(bctx, id)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if ev.Status != "pending" {
		return nil
	}
	p, err := parsePayload(ev.Payload)
	if err == nil {
		err = s.processPayload(ctx, p)
	}
	upd := s.Client.InboundEvent.UpdateOneID(id).AddAttempts(1)
	if err != nil {
		_ = upd.SetError(truncate(err.Error(), 1000)).Exec(bctx)
		return err
	}
	return upd.SetStatus("processed").SetError("").SetProcessedAt(s.now()).Exec(bctx)
}

func (s *Service) processPayload(ctx context.Context, p *payload) error {
	for _, e := range p.Entry {
		for _, ch := range e.Changes {
			if ch.Field != "messages" {
				s.Log.Info("webhook change field not handled; acknowledged", "field", ch.Field)
				continue
			}
			if err := s.processChange(ctx, ch.Value); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Service) processChange(ctx context.Context, v changeValue) error {
	acc, err := s.Client.Account.Query().Where(account.PhoneID(v.Metadata.PhoneNumberID)).
		First(rule.Bypass(ctx, "processing resolves the account by phone number id"))
	if ent.IsNotFound(err) {
		s.Log.Warn("webhook change for an unknown phone number id", "phone_number_id", v.Metadata.PhoneNumberID)
		return nil
	}
	if err != nil {
		return err
	}
	octx := viewer.SystemContext(ctx, acc.OrganizationID)
	names := map[string]string{}
	for _, c := range v.Contacts {
		names[c.WaID] = c.Profile.Name
	}
	msgs := append([]rawMessage(nil), v.Messages...)
	// One contact's messages are stored in platform-timestamp order.
	sort.SliceStable(msgs, func(i, j int) bool { return msgs[i].str("timestamp") < msgs[j].str("timestamp") })
	for _, m := range msgs {
		if err := s.storeMessage(octx, acc, names, m); err != nil {
			return err
		}
	}
	for _, st := range v.Statuses {
		if err := s.applyStatusUpdate(octx, st); err != nil {
			return err
		}
	}
	return nil
}

// storeMessage creates or updates the sender's contact and stores the
// message, in one transaction, then publishes the events. A message id
// already stored is skipped.
func (s *Service) storeMessage(ctx context.Context, acc *ent.Account, names map[string]string, m rawMessage) error {
	from, wamid := m.str("from"), m.str("id")
	if from == "" || wamid == "" {
		s.Log.Warn("webhook message without sender or id skipped", "type", m.str("type"))
		return nil
	}
	ts, ok := parseTimestamp(m.str("timestamp"))
	if !ok {
		ts = s.now()
	}
	c := extractContent(m)
	var (
		stored     *ent.Message
		newContact bool
	)
	err := access.WithTx(ctx, s.Client, func(tx *ent.Client) error {
		exists, err := tx.Contact.Query().Where(contact.PhoneNumber(from)).Exist(ctx)
		if err != nil {
			return err
		}
		contactID, err := upsertContact(ctx, tx, from, names[from], acc.Name)
		if err != nil {
			return fmt.Errorf("upserting contact: %w", err)
		}
		create := tx.Message.Create().SetContactID(contactID).SetDirection(message.DirectionIncoming).
			SetMessageType(c.Type).SetContent(c.Body).SetStatus(message.StatusDelivered).
			SetChatMessageID(wamid).SetChatAccount(acc.Name).SetPlatformTimestamp(ts).SetCreatedAt(ts).
			SetMediaMimeType(c.MimeType).SetMediaFilename(c.Filename)
		if c.Interactive != nil {
			create.SetInteractiveData(c.Interactive)
		}
		id, err := create.OnConflictColumns(message.FieldChatMessageID).DoNothing().ID(ctx)
		if isNoRows(err) {
			return nil // already stored: a redelivery
		}
		if err != nil {
			return fmt.Errorf("storing message: %w", err)
		}
		if err := touchContact(ctx, tx, contactID, ts, c.Preview); err != nil {
			return err
		}
		newContact = !exists
		stored, err = tx.Message.Get(ctx, id)
		return err
	})
	if err != nil || stored == nil {
		return err
	}
	s.publishMessage(ctx, acc.OrganizationID, stored, newContact)
	s.queueReadReceipt(ctx, acc, wamid)
	return nil
}

// upsertContact returns the contact of phone in the organization, creating
// it; concurrent first messages of a new sender meet on the unique index.
func upsertContact(ctx context.Context, tx *ent.Client, phone, name, accountName string) (uuid.UUID, error) {
	create := tx.Contact.Create().SetPhoneNumber(phone).SetProfileName(name).SetChatAccount(accountName).
		OnConflictColumns(contact.FieldOrganizationID, contact.FieldPhoneNumber)
	if name != "" {
		return create.Update(func(u *ent.ContactUpsert) { u.SetProfileName(name) }).ID(ctx)
	}
	return create.Ignore().ID(ctx)
}

// touchContact counts the message as unread and moves the conversation's
// last message forward (never backwards, for a late older message).
func touchContact(ctx context.Context, tx *ent.Client, id uuid.UUID, ts time.Time, preview string) error {
	if err := tx.Contact.UpdateOneID(id).AddUnreadCount(1).Exec(ctx); err != nil {
		return err
	}
	_, err := tx.Contact.Update().
		Where(contact.ID(id), contact.Or(contact.LastMessageAtIsNil(), contact.LastMessageAtLTE(ts))).
		SetLastMessageAt(ts).SetLastMessagePreview(preview).SetLastInboundAt(ts).
		Save(ctx)
	return err
}

func (s *Service) applyStatusUpdate(ctx context.Context, st statusUpdate) error {
	status := message.Status(st.Status)
	if message.StatusValidator(status) != nil || status == message.StatusPending {
		s.Log.Info("webhook status not handled; acknowledged", "status", st.Status)
		return nil
	}
	ts, ok := parseTimestamp(st.Timestamp)
	if !ok {
		ts = s.now()
	}
	applied, err := ApplyStatus(ctx, s.Client, st.ID, status, st.errorText())
	if err != nil {
		return err
	}
	if applied {
		s.publishStatus(ctx, st.ID)
		return nil
	}
	exists, err := s.Client.Message.Query().Where(message.ChatMessageID(st.ID)).Exist(ctx)
	if err != nil || exists {
		return err // exists: the status was older than the message's
	}
	// The message is not stored yet: keep the status for when it is.
	err = s.Client.ParkedStatus.Create().SetChatMessageID(st.ID).SetStatus(parkedstatus.Status(status)).
		SetErrorMessage(st.errorText()).SetPlatformTimestamp(ts).
		OnConflictColumns(parkedstatus.FieldChatMessageID, parkedstatus.FieldStatus).DoNothing().Exec(ctx)
	if isNoRows(err) {
		return nil
	}
	return err
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
// platform id chatMessageID was stored, in order, and forgets them. The
// send path calls it once it has stored the platform's message id.
func ApplyParked(ctx context.Context, c *ent.Client, chatMessageID string) error {
	parked, err := c.ParkedStatus.Query().Where(parkedstatus.ChatMessageID(chatMessageID)).All(ctx)
	if err != nil || len(parked) == 0 {
		return err
	}
	order := map[parkedstatus.Status]int{"sent": 1, "delivered": 2, "read": 3, "failed": 4}
	sort.Slice(parked, func(i, j int) bool { return order[parked[i].Status] < order[parked[j].Status] })
	for _, p := range parked {
		if _, err := ApplyStatus(ctx, c, chatMessageID, message.Status(p.Status), p.ErrorMessage); err != nil {
			return err
		}
	}
	_, err = c.ParkedStatus.Delete().Where(parkedstatus.ChatMessageID(chatMessageID)).Exec(ctx)
	return err
}
