package messaging

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"switchboard/analytics"
	"switchboard/database"
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
// every column is given (the schema's defaults included), the
// constraints stay the database's (unique chat_message_id, the contacts'
// unique (organization_id, phone_number)), and a message stamped in a
// settled day marks that day's analytics rollup stale
// (analytics.MarkPastDays, as analytics' hooks do for ent's writes).
// received_pg_test.go runs both.

// insertReceivedSQL inserts received messages and returns their contacts;
// a platform id already stored (a redelivery racing another drainer) is
// skipped. It runs with database.MessagesCounted on: upsertSendersSQL
// counted the messages already.
const insertReceivedSQL = `INSERT INTO messages (id, created_at, updated_at, organization_id, contact_id,
	direction, message_type, content, status, chat_message_id, chat_account, media_url, media_mime_type,
	media_filename, interactive_data, error_message, platform_timestamp, bot_handled_at)
SELECT r.id, r.at, $2, $1, r.contact_id, 'incoming', r.message_type, r.content::jsonb, 'delivered',
	r.chat_message_id, r.chat_account, '', r.mime_type, r.filename, r.interactive::jsonb, '', r.at, $13::timestamptz
FROM unnest($3::uuid[], $4::timestamptz[], $5::uuid[], $6::text[], $7::text[], $8::text[], $9::text[],
	$10::text[], $11::text[], $12::text[])
	AS r(id, at, contact_id, message_type, content, chat_message_id, chat_account, mime_type, filename, interactive)
ON CONFLICT (chat_message_id) DO NOTHING
RETURNING contact_id`

// countedByWriterSQL turns database.MessagesCounted on or off for the
// rest of the transaction.
const countedByWriterSQL = `SELECT set_config('` + database.MessagesCounted + `', $1, true)`

// uncountSkippedSQL takes back what upsertSendersSQL counted for
// messages insertReceivedSQL then skipped (stored meanwhile by another
// drainer): rare, and exact.
const uncountSkippedSQL = `UPDATE contacts c SET message_count = c.message_count - s.n,
	unread_count = greatest(c.unread_count - s.n, 0)
FROM unnest($1::uuid[], $2::bigint[]) AS s(id, n)
WHERE c.id = s.id`

// upsertSendersSQL creates or updates the senders' contacts (see
// upsertSenders for the rules) and returns them; a row whose created_at is
// the batch's stamp ($2) was created by this statement. It also counts
// the senders' new messages (message_count), which the messages' insert
// trigger would otherwise count in a second write of every row.
const upsertSendersSQL = `INSERT INTO contacts AS c (id, created_at, updated_at, organization_id, phone_number,
	name, profile_name, avatar_url, status, tags, metadata, last_message_at, last_message_preview,
	unread_count, message_count, chat_account, last_inbound_at, marketing_opt_out)
SELECT s.id, $2, $2, $1, s.phone_number, s.name, s.name, '', 'active', '[]', '{}', s.last_at, s.preview,
	s.unread, s.unread, s.chat_account, s.last_at, false
FROM unnest($3::uuid[], $4::text[], $5::text[], $6::timestamptz[], $7::text[], $8::bigint[], $9::text[])
	AS s(id, phone_number, name, last_at, preview, unread, chat_account)
ON CONFLICT (organization_id, phone_number) DO UPDATE SET
	unread_count = c.unread_count + excluded.unread_count,
	message_count = c.message_count + excluded.message_count,
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
	unread_count, message_count, last_inbound_at`

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
// stored, and their messages counted, by pgUpsertSenders) with ids, in
// the transaction ctx carries, with the plans of the rows' key checks
// kept (database.WithCheckPlansKept: two checks a message).
func pgInsertReceived(ctx context.Context, db *ent.Client, msgs []Received, ids []uuid.UUID, contacts map[string]*ent.Contact, handledAt *time.Time) error {
	org, err := viewerOrg(ctx)
	if err != nil {
		return err
	}
	if ent.TxFromContext(ctx) == nil {
		// The setting below is the transaction's: outside one the trigger
		// would count the messages a second time.
		return errors.New("messaging: storing received messages needs a transaction")
	}
	n := len(msgs)
	idCol, at, contactCol := database.NewArray(37*n), database.NewArray(36*n), database.NewArray(37*n)
	typ, content, wamid := database.NewArray(8*n), database.NewArray(64*n), database.NewArray(48*n)
	account, mime, fname := database.NewArray(16*n), database.NewArray(3*n), database.NewArray(3*n)
	interactive := database.NewArray(5 * n)
	counted := make(map[uuid.UUID]int64, len(contacts)) // what the upsert counted, by contact
	stamps := make([]time.Time, n)                      // the rows' created_at: a late one marks its day's rollup
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for i := range msgs {
		m := &msgs[i]
		buf.Reset()
		if err := enc.Encode(m.Content.Body); err != nil {
			return fmt.Errorf("messaging: encoding a message's content: %w", err)
		}
		content.Text(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		if m.Content.Interactive != nil {
			inter, err := json.Marshal(m.Content.Interactive)
			if err != nil {
				return fmt.Errorf("messaging: encoding a message's interactive data: %w", err)
			}
			interactive.Text(inter)
		} else {
			interactive.String("{}")
		}
		contactID := contacts[m.From].ID
		counted[contactID]++
		idCol.UUID(ids[i])
		at.Time(m.Timestamp)
		stamps[i] = m.Timestamp
		contactCol.UUID(contactID)
		typ.String(m.Content.Type)
		wamid.String(m.ChatMessageID)
		account.String(m.Account.Name)
		mime.String(m.Content.MimeType)
		fname.String(m.Content.Filename)
	}
	err = database.WithCheckPlansKept(ctx, db, func() error {
		if _, err := db.ExecContext(ctx, countedByWriterSQL, "on"); err != nil {
			return err
		}
		inserted, err := database.QueryIDs(ctx, db, insertReceivedSQL, org, time.Now().UTC(), idCol, at,
			contactCol, typ, content, wamid, account, mime, fname, interactive, nullTime(handledAt))
		if err != nil {
			return err
		}
		for _, id := range inserted { // each inserted message takes its contact's count back
			counted[id]--
		}
		_, err = db.ExecContext(ctx, countedByWriterSQL, "off")
		return err
	})
	if err != nil {
		return err
	}
	if err := analytics.MarkPastDays(ctx, db, org, stamps, time.Now()); err != nil {
		return err
	}
	return uncountSkipped(ctx, db, counted)
}

// uncountSkipped takes back the counts of messages the insert skipped
// (skipped: what is left of each contact's count once every inserted
// message took its own back).
func uncountSkipped(ctx context.Context, db *ent.Client, skipped map[uuid.UUID]int64) error {
	ids, ns := database.NewArray(0), database.NewArray(0)
	some := false
	for id, n := range skipped {
		if n > 0 {
			ids.UUID(id)
			ns.Int(n)
			some = true
		}
	}
	if !some {
		return nil
	}
	_, err := db.ExecContext(ctx, uncountSkippedSQL, ids, ns)
	return err
}

// pgUpsertSenders creates or updates the contacts of senders (distinct
// phones) with one statement, and returns them by phone with the phones
// created now. Like pgInsertReceived it runs in the drainer's transaction,
// with the plans of its rows' key checks kept (database.WithCheckPlansKept).
func pgUpsertSenders(ctx context.Context, db *ent.Client, senders []*sender, stamp time.Time) (map[string]*ent.Contact, map[string]bool, error) {
	org, err := viewerOrg(ctx)
	if err != nil {
		return nil, nil, err
	}
	n := len(senders)
	idCol, phone, name, last := database.NewArray(37*n), database.NewArray(24*n), database.NewArray(16*n), database.NewArray(36*n)
	preview, account, unread := database.NewArray(32*n), database.NewArray(16*n), database.NewArray(3*n)
	for _, sd := range senders {
		idCol.UUID(schema.NewID())
		phone.String(sd.phone)
		name.String(sd.name)
		last.Time(sd.last)
		preview.String(sd.preview)
		account.String(sd.account)
		unread.Int(int64(sd.count))
	}
	return upsertContacts(ctx, db, org, stamp, n, upsertSendersSQL, org, stamp, idCol, phone, name, last, preview, unread, account)
}

// upsertContacts runs an upsert of contacts (upsertSendersSQL,
// upsertRecipientsSQL) with the plans of its rows' key checks kept
// (database.WithCheckPlansKept), and reads what it returned
// (scanUpserted).
func upsertContacts(ctx context.Context, db *ent.Client, org uuid.UUID, stamp time.Time, n int, query string, args ...any) (map[string]*ent.Contact, map[string]bool, error) {
	var (
		contacts map[string]*ent.Contact
		created  map[string]bool
	)
	err := database.WithCheckPlansKept(ctx, db, func() error {
		rows, err := db.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		contacts, created, err = scanUpserted(rows, org, stamp, n)
		return err
	})
	return contacts, created, err
}

// scanUpserted reads the contacts an upsert of contacts returned, by
// phone number, and which of them it created (their created_at is the
// statement's stamp).
func scanUpserted(rows *sql.Rows, org uuid.UUID, stamp time.Time, n int) (map[string]*ent.Contact, map[string]bool, error) {
	defer rows.Close()
	contacts := make(map[string]*ent.Contact, n)
	created := map[string]bool{}
	for rows.Next() {
		ct := &ent.Contact{OrganizationID: org}
		if err := rows.Scan(&ct.ID, &ct.CreatedAt, &ct.PhoneNumber, &ct.Name, &ct.ProfileName, &ct.LastMessageAt,
			&ct.LastMessagePreview, &ct.UnreadCount, &ct.MessageCount, &ct.LastInboundAt); err != nil {
			return nil, nil, err
		}
		contacts[ct.PhoneNumber] = ct
		if ct.CreatedAt.Equal(stamp) {
			created[ct.PhoneNumber] = true
		}
	}
	return contacts, created, rows.Err()
}

// nullTime is t as a statement argument (NULL when nil).
func nullTime(t *time.Time) sql.NullTime {
	if t == nil {
		return sql.NullTime{}
	}
	return sql.NullTime{Time: *t, Valid: true}
}
