package messaging

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/message"
	"switchboard/ent/schema"
	"switchboard/events"
)

// This file stores a bulk sender's accepted template messages in batches,
// on PostgreSQL, with fixed-text statements whose parameters are arrays
// (as received_pg.go does for received messages): a batch of any size
// costs the same few statements, each prepared once per connection.
// What StoreSentTemplate does for one message is done here for many, with
// the same rules: a message already stored for its platform id is kept as
// it is, the contact of a new phone number is created, the contact's last
// message moves, parked statuses are applied, and the same events are
// recorded (message:new, message:sent with message:status, the contact's).

// SentTemplate is a prepared template message the platform accepted as
// WAMID.
type SentTemplate struct {
	Prepared *PreparedTemplate
	WAMID    string
}

// existingByWAMIDSQL finds messages already stored for platform ids.
const existingByWAMIDSQL = `SELECT chat_message_id, id FROM messages
WHERE organization_id = $1 AND chat_message_id = ANY($2::text[])`

// upsertRecipientsSQL creates the contacts of new phone numbers and
// moves the last message of every contact of the batch, returning what
// the contact events carry; a row whose created_at is the batch's stamp
// ($2) was created by it.
const upsertRecipientsSQL = `INSERT INTO contacts AS c (id, created_at, updated_at, organization_id, phone_number,
	name, profile_name, avatar_url, status, tags, metadata, last_message_at, last_message_preview,
	unread_count, chat_account, marketing_opt_out)
SELECT s.id, $2, $2, $1, s.phone_number, '', '', '', 'active', '[]', '{}', $2, s.preview, 0, s.chat_account, false
FROM unnest($3::uuid[], $4::text[], $5::text[], $6::text[]) AS s(id, phone_number, preview, chat_account)
ON CONFLICT (organization_id, phone_number) DO UPDATE SET
	last_message_at = excluded.last_message_at,
	last_message_preview = excluded.last_message_preview,
	updated_at = excluded.updated_at
RETURNING id, created_at, phone_number, name, profile_name, last_message_at, last_message_preview,
	unread_count, last_inbound_at`

// insertSentSQL inserts outgoing template messages with status sent; a
// platform id stored meanwhile by another transaction is skipped.
const insertSentSQL = `INSERT INTO messages (id, created_at, updated_at, organization_id, contact_id,
	direction, message_type, content, status, chat_message_id, chat_account, media_url, media_mime_type,
	media_filename, error_message)
SELECT m.id, $2, $2, $1, m.contact_id, 'outgoing', 'template', m.content::jsonb, 'sent', m.wamid,
	m.chat_account, '', '', m.filename, ''
FROM unnest($3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[])
	AS m(id, contact_id, content, wamid, chat_account, filename)
ON CONFLICT (chat_message_id) DO NOTHING
RETURNING id`

// parkedForSQL finds the platform ids that have parked statuses.
const parkedForSQL = `SELECT DISTINCT chat_message_id FROM parked_status
WHERE organization_id = $1 AND chat_message_id = ANY($2::text[])`

// StoreSentTemplates is StoreSentTemplate for a batch, on PostgreSQL:
// it returns the id of each message (in the order of sent), stored now or
// found already stored for its platform id. It runs in the transaction
// ctx carries (db is its client), under an organization's viewer; the
// platform ids must be distinct.
func (s *Service) StoreSentTemplates(ctx context.Context, db *ent.Client, sent []SentTemplate) ([]uuid.UUID, error) {
	if len(sent) == 0 {
		return nil, nil
	}
	org, err := viewerOrg(ctx)
	if err != nil {
		return nil, err
	}
	n := len(sent)
	wamids := database.NewArray(48 * n)
	for _, st := range sent {
		wamids.String(st.WAMID)
	}
	ids := make([]uuid.UUID, n)
	known, err := idsByWAMID(ctx, db, org, wamids)
	if err != nil {
		return nil, apperr.Wrap(err, "message")
	}
	var unrecorded []int
	for i, st := range sent {
		if id, ok := known[st.WAMID]; ok {
			ids[i] = id
		} else {
			unrecorded = append(unrecorded, i)
		}
	}
	if len(unrecorded) == 0 {
		return ids, nil
	}
	now := s.now().Truncate(time.Microsecond) // as PostgreSQL keeps it
	contacts, created, err := upsertRecipients(ctx, db, org, sent, unrecorded, now)
	if err != nil {
		return nil, apperr.Wrap(err, "contact")
	}
	msgs, err := insertSent(ctx, db, org, sent, unrecorded, contacts, now)
	if err != nil {
		return nil, err
	}
	var evs []events.Event
	var stored []string
	for _, m := range msgs {
		stored = append(stored, *m.ChatMessageID)
	}
	parked, err := parkedFor(ctx, db, org, stored)
	if err != nil {
		return nil, apperr.Wrap(err, "message")
	}
	byWAMID := make(map[string]*ent.Message, len(msgs))
	for _, m := range msgs {
		if parked[*m.ChatMessageID] {
			if _, err := ApplyParked(ctx, db, *m.ChatMessageID); err != nil {
				return nil, apperr.Wrap(err, "message")
			}
			if m, err = db.Message.Get(ctx, m.ID); err != nil {
				return nil, apperr.Wrap(err, "message")
			}
		}
		byWAMID[*m.ChatMessageID] = m
	}
	var missing []string
	for _, i := range unrecorded {
		st := sent[i]
		m := byWAMID[st.WAMID]
		if m == nil {
			missing = append(missing, st.WAMID) // stored meanwhile by another transaction
			continue
		}
		ids[i] = m.ID
		c := contacts[st.Prepared.phone]
		contactEvent := events.ContactUpdated
		if created[c.PhoneNumber] {
			contactEvent = events.ContactCreated
			delete(created, c.PhoneNumber) // one contact:new per new contact
		}
		evs = append(evs,
			events.Event{Type: events.MessageQueued, OrgID: org, Payload: NewMessageEvent(m)},
			events.Event{Type: events.MessageSent, OrgID: org, Payload: sentEvent{
				MessageEvent: NewMessageEvent(m), ChatAccount: m.ChatAccount, PhoneNumber: c.PhoneNumber,
			}},
			events.Event{Type: contactEvent, OrgID: org, Payload: NewContactEvent(c)})
	}
	if len(missing) > 0 {
		again := database.NewArray(48 * len(missing))
		for _, w := range missing {
			again.String(w)
		}
		known, err := idsByWAMID(ctx, db, org, again)
		if err != nil {
			return nil, apperr.Wrap(err, "message")
		}
		for _, i := range unrecorded {
			if ids[i] == uuid.Nil {
				ids[i] = known[sent[i].WAMID]
			}
		}
	}
	if err := s.Events.Record(ctx, evs...); err != nil {
		return nil, apperr.Wrap(err, "event")
	}
	return ids, nil
}

func idsByWAMID(ctx context.Context, db *ent.Client, org uuid.UUID, wamids *database.Array) (map[string]uuid.UUID, error) {
	rows, err := db.QueryContext(ctx, existingByWAMIDSQL, org, wamids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]uuid.UUID{}
	for rows.Next() {
		var w string
		var id uuid.UUID
		if err := rows.Scan(&w, &id); err != nil {
			return nil, err
		}
		out[w] = id
	}
	return out, rows.Err()
}

// upsertRecipients writes the contacts of the sends unrecorded (distinct
// phones) and returns them by phone, with the phones created now.
func upsertRecipients(ctx context.Context, db *ent.Client, org uuid.UUID, sent []SentTemplate, unrecorded []int, now time.Time) (map[string]*ent.Contact, map[string]bool, error) {
	n := len(unrecorded)
	idCol, phone, preview, account := database.NewArray(37*n), database.NewArray(24*n), database.NewArray(64*n), database.NewArray(16*n)
	seen := make(map[string]bool, n)
	for _, i := range unrecorded {
		p := sent[i].Prepared
		if seen[p.phone] {
			continue
		}
		seen[p.phone] = true
		idCol.UUID(schema.NewID())
		phone.String(p.phone)
		preview.String(truncate(p.d.preview, maxPreview))
		account.String(p.account)
	}
	return upsertContacts(ctx, db, org, now, n, upsertRecipientsSQL, org, now, idCol, phone, preview, account)
}

// insertSent inserts the messages of the sends unrecorded and returns those
// inserted (a platform id stored meanwhile is not).
func insertSent(ctx context.Context, db *ent.Client, org uuid.UUID, sent []SentTemplate, unrecorded []int, contacts map[string]*ent.Contact, now time.Time) ([]*ent.Message, error) {
	n := len(unrecorded)
	idCol, contactCol, content := database.NewArray(37*n), database.NewArray(37*n), database.NewArray(256*n)
	wamid, account, fname := database.NewArray(48*n), database.NewArray(16*n), database.NewArray(3*n)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	byID := make(map[uuid.UUID]*ent.Message, n)
	for _, i := range unrecorded {
		st := sent[i]
		p := st.Prepared
		c := contacts[p.phone]
		if c == nil {
			return nil, apperr.New(apperr.Internal, "a sent message without its contact")
		}
		raw, err := contentJSON(enc, &buf, p.d.content)
		if err != nil {
			return nil, err
		}
		w := st.WAMID
		m := &ent.Message{
			ID: schema.NewID(), CreatedAt: now, UpdatedAt: now, OrganizationID: org, ContactID: c.ID,
			Direction: message.DirectionOutgoing, MessageType: TypeTemplate, Content: p.d.content,
			Status: message.StatusSent, ChatMessageID: &w, ChatAccount: p.account,
		}
		if p.d.media != nil {
			m.MediaFilename = p.d.media.filename
		}
		byID[m.ID] = m
		idCol.UUID(m.ID)
		contactCol.UUID(c.ID)
		content.Text(raw)
		wamid.String(w)
		account.String(m.ChatAccount)
		fname.String(m.MediaFilename)
	}
	var inserted []uuid.UUID
	err := database.WithCheckPlansKept(ctx, db, func() error {
		var err error
		inserted, err = database.QueryIDs(ctx, db, insertSentSQL, org, now, idCol, contactCol, content, wamid, account, fname)
		return err
	})
	if err != nil {
		return nil, apperr.Wrap(err, "message")
	}
	out := make([]*ent.Message, len(inserted))
	for i, id := range inserted {
		out[i] = byID[id]
	}
	return out, nil
}

func parkedFor(ctx context.Context, db *ent.Client, org uuid.UUID, wamids []string) (map[string]bool, error) {
	if len(wamids) == 0 {
		return nil, nil
	}
	arr := database.NewArray(48 * len(wamids))
	for _, w := range wamids {
		arr.String(w)
	}
	rows, err := db.QueryContext(ctx, parkedForSQL, org, arr)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var w string
		if err := rows.Scan(&w); err != nil {
			return nil, err
		}
		out[w] = true
	}
	return out, rows.Err()
}

// contentJSON encodes a message's stored content.
func contentJSON(enc *json.Encoder, buf *bytes.Buffer, content map[string]any) ([]byte, error) {
	buf.Reset()
	if err := enc.Encode(content); err != nil {
		return nil, fmt.Errorf("messaging: encoding a message's content: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
