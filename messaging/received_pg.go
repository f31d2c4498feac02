package messaging

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"switchboard/ent"
	"switchboard/ent/schema"
	"switchboard/ent/viewer"
)

// This file is the one place where received messages and their senders
// are written with hand-written SQL, on PostgreSQL only (SQLite keeps
// ent's builders, received.go). These two statements carry every
// delivery the drainers process: as fixed texts whose parameters are
// arrays (INSERT ... SELECT FROM unnest(...)), each is prepared once per
// connection and serves every batch size, and no SQL is built per batch;
// ent's bulk builders made a new text, with a new prepared statement, for
// every number of rows, and spent more on building it than the database
// spent executing it. What ent's hooks do for other writes is done here:
// organization_id is the viewer's organization (the drainer works per
// organization under a system viewer; no viewer organization, no write),
// every column is given (the schema's defaults included), and the
// constraints stay the database's (unique chat_message_id, the contacts'
// unique (organization_id, phone_number)). received_pg_test.go runs both.

// insertReceivedSQL inserts received messages; a platform id already
// stored (a redelivery racing another drainer) is skipped.
const insertReceivedSQL = `INSERT INTO messages (id, created_at, updated_at, organization_id, contact_id,
	direction, message_type, content, status, chat_message_id, chat_account, media_url, media_mime_type,
	media_filename, interactive_data, error_message, platform_timestamp)
SELECT r.id, r.at, $2, $1, r.contact_id, 'incoming', r.message_type, r.content::jsonb, 'delivered',
	r.chat_message_id, r.chat_account, '', r.mime_type, r.filename, r.interactive::jsonb, '', r.at
FROM unnest($3::uuid[], $4::timestamptz[], $5::uuid[], $6::text[], $7::text[], $8::text[], $9::text[],
	$10::text[], $11::text[], $12::text[])
	AS r(id, at, contact_id, message_type, content, chat_message_id, chat_account, mime_type, filename, interactive)
ON CONFLICT (chat_message_id) DO NOTHING`

// upsertSendersSQL creates or updates the senders' contacts (see
// upsertSenders for the rules) and returns them; a row whose created_at is
// the batch's stamp ($2) was created by this statement.
const upsertSendersSQL = `INSERT INTO contacts AS c (id, created_at, updated_at, organization_id, phone_number,
	name, profile_name, avatar_url, status, tags, metadata, last_message_at, last_message_preview,
	unread_count, chat_account, last_inbound_at, marketing_opt_out)
SELECT s.id, $2, $2, $1, s.phone_number, s.name, s.name, '', 'active', '[]', '{}', s.last_at, s.preview,
	s.unread, s.chat_account, s.last_at, false
FROM unnest($3::uuid[], $4::text[], $5::text[], $6::timestamptz[], $7::text[], $8::bigint[], $9::text[])
	AS s(id, phone_number, name, last_at, preview, unread, chat_account)
ON CONFLICT (organization_id, phone_number) DO UPDATE SET
	unread_count = c.unread_count + excluded.unread_count,
	last_message_at = CASE WHEN c.last_message_at IS NULL OR c.last_message_at <= excluded.last_message_at
		THEN excluded.last_message_at ELSE c.last_message_at END,
	last_message_preview = CASE WHEN c.last_message_at IS NULL OR c.last_message_at <= excluded.last_message_at
		THEN excluded.last_message_preview ELSE c.last_message_preview END,
	last_inbound_at = CASE WHEN c.last_inbound_at IS NULL OR c.last_inbound_at < excluded.last_inbound_at
		THEN excluded.last_inbound_at ELSE c.last_inbound_at END,
	profile_name = CASE WHEN excluded.profile_name <> '' THEN excluded.profile_name ELSE c.profile_name END,
	name = CASE WHEN c.name = '' THEN excluded.name ELSE c.name END,
	updated_at = excluded.updated_at
RETURNING id, created_at, phone_number, name, profile_name, last_message_at, last_message_preview,
	unread_count, last_inbound_at`

// pgTime is how timestamps travel in the arrays: PostgreSQL parses the
// offset, so nothing depends on the session's time zone.
const pgTime = "2006-01-02 15:04:05.999999Z07:00"

// viewerOrg is the organization the raw statements stamp: the viewer's,
// as the tenant mixin's create hook stamps it.
func viewerOrg(ctx context.Context) (uuid.UUID, error) {
	v := viewer.FromContext(ctx)
	if !v.HasOrg() {
		return uuid.Nil, errors.New("messaging: storing received messages needs an organization's viewer")
	}
	return v.OrgID, nil
}

// pgInsertReceived inserts msgs (their senders' contacts by phone already
// stored) with ids.
func pgInsertReceived(ctx context.Context, db *ent.Client, msgs []Received, ids []uuid.UUID, contacts map[string]*ent.Contact) error {
	org, err := viewerOrg(ctx)
	if err != nil {
		return err
	}
	n := len(msgs)
	var (
		idCol, at, contactCol = make([]string, n), make([]string, n), make([]string, n)
		typ, content, wamid   = make([]string, n), make([]string, n), make([]string, n)
		account, mime, fname  = make([]string, n), make([]string, n), make([]string, n)
		interactive           = make([]string, n)
	)
	for i := range msgs {
		m := &msgs[i]
		body, err := json.Marshal(m.Content.Body)
		if err != nil {
			return fmt.Errorf("messaging: encoding a message's content: %w", err)
		}
		inter := []byte("{}")
		if m.Content.Interactive != nil {
			if inter, err = json.Marshal(m.Content.Interactive); err != nil {
				return fmt.Errorf("messaging: encoding a message's interactive data: %w", err)
			}
		}
		idCol[i], at[i], contactCol[i] = ids[i].String(), m.Timestamp.Format(pgTime), contacts[m.From].ID.String()
		typ[i], content[i], wamid[i] = m.Content.Type, string(body), m.ChatMessageID
		account[i], mime[i], fname[i] = m.Account.Name, m.Content.MimeType, m.Content.Filename
		interactive[i] = string(inter)
	}
	_, err = db.ExecContext(ctx, insertReceivedSQL, org, time.Now().UTC(), pq.Array(idCol), pq.Array(at),
		pq.Array(contactCol), pq.Array(typ), pq.Array(content), pq.Array(wamid), pq.Array(account),
		pq.Array(mime), pq.Array(fname), pq.Array(interactive))
	return err
}

// pgUpsertSenders creates or updates the contacts of senders (distinct
// phones) with one statement, and returns them by phone with the phones
// created now.
func pgUpsertSenders(ctx context.Context, db *ent.Client, senders []*sender, stamp time.Time) (map[string]*ent.Contact, map[string]bool, error) {
	org, err := viewerOrg(ctx)
	if err != nil {
		return nil, nil, err
	}
	n := len(senders)
	var (
		idCol, phone, name, last = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		preview, account         = make([]string, n), make([]string, n)
		unread                   = make([]int64, n)
	)
	for i, sd := range senders {
		idCol[i], phone[i], name[i], last[i] = schema.NewID().String(), sd.phone, sd.name, sd.last.Format(pgTime)
		preview[i], account[i], unread[i] = sd.preview, sd.account, int64(sd.count)
	}
	rows, err := db.QueryContext(ctx, upsertSendersSQL, org, stamp, pq.Array(idCol), pq.Array(phone),
		pq.Array(name), pq.Array(last), pq.Array(preview), pq.Array(unread), pq.Array(account))
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	contacts := make(map[string]*ent.Contact, n)
	created := map[string]bool{}
	for rows.Next() {
		ct := &ent.Contact{OrganizationID: org}
		if err := rows.Scan(&ct.ID, &ct.CreatedAt, &ct.PhoneNumber, &ct.Name, &ct.ProfileName, &ct.LastMessageAt,
			&ct.LastMessagePreview, &ct.UnreadCount, &ct.LastInboundAt); err != nil {
			return nil, nil, err
		}
		contacts[ct.PhoneNumber] = ct
		if ct.CreatedAt.Equal(stamp) {
			created[ct.PhoneNumber] = true
		}
	}
	return contacts, created, rows.Err()
}
