package messaging

import (
	"context"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/message"
	"switchboard/internal/valid"
)

// The spec's default and largest page of a conversation's messages.
const (
	DefaultPageSize = 50
	MaxPageSize     = 100
)

// Page is one page of a conversation, oldest first.
type Page struct {
	Messages []*ent.Message
	// Total counts the conversation's messages (first page only).
	Total int
	// HasMore tells whether older messages exist (cursor pages only).
	HasMore bool
}

// History returns the newest limit messages of a contact, or with
// beforeID the limit messages older than that one, optionally only those
// of one account. limit is capped at MaxPageSize. Order is (created_at,
// id), which is the platform's time for incoming messages. Errors:
// invalid (limit below 1, a NUL character in account), not_found
// (contact, or a before_id that is not one of the contact's messages).
func (s *Service) History(ctx context.Context, contactID uuid.UUID, beforeID *uuid.UUID, account string, limit int) (*Page, error) {
	if limit < 1 {
		return nil, apperr.Invalidf("limit must be a positive integer")
	}
	limit = min(limit, MaxPageSize)
	if err := valid.NoNUL("account", account); err != nil {
		return nil, err
	}
	db := database.ClientFor(ctx, s.Client)
	c, err := db.Contact.Get(ctx, contactID)
	if err != nil {
		return nil, apperr.Wrap(err, "contact")
	}
	q := db.Message.Query().Where(message.ContactID(contactID))
	if account != "" {
		q = q.Where(message.ChatAccount(account))
	}
	page := &Page{}
	if beforeID != nil {
		before, err := db.Message.Query().Where(message.ID(*beforeID), message.ContactID(contactID)).Only(ctx)
		if err != nil {
			return nil, apperr.Wrap(err, "message")
		}
		// A row comparison: the (contact_id, created_at, id) index
		// serves it as one range.
		q = q.Where(func(s *sql.Selector) {
			s.Where(sql.CompositeLT([]string{s.C(message.FieldCreatedAt), s.C(message.FieldID)}, before.CreatedAt, before.ID))
		})
	} else if page.Total, err = conversationTotal(ctx, q, c, account); err != nil {
		return nil, err
	}
	ms, err := q.Order(ent.Desc(message.FieldCreatedAt), ent.Desc(message.FieldID)).Limit(limit + 1).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "message")
	}
	if len(ms) > limit {
		page.HasMore = true
		ms = ms[:limit]
	}
	for i, j := 0, len(ms)-1; i < j; i, j = i+1, j-1 {
		ms[i], ms[j] = ms[j], ms[i]
	}
	page.Messages = ms
	return page, nil
}

// Message returns one message. Errors: not_found.
func (s *Service) Message(ctx context.Context, id uuid.UUID) (*ent.Message, error) {
	m, err := database.ClientFor(ctx, s.Client).Message.Get(ctx, id)
	return m, apperr.Wrap(err, "message")
}

// conversationTotal is the total of a conversation's first page: the
// contact's message counter (kept by the database in the transaction of
// every message insert and delete), or with an account filter the
// conversation's messages of that account counted up to the bound
// (database.CountUpTo: CountBound+1 is "more than CountBound"), so that a long
// conversation is not counted on every first page.
func conversationTotal(ctx context.Context, q *ent.MessageQuery, c *ent.Contact, account string) (int, error) {
	if account == "" {
		return c.MessageCount, nil
	}
	// Counted in the page's order, so that the account's range of its
	// index is read (index only) and never the table in physical order,
	// which the planner prefers when the account holds most of the
	// conversation: a conversation's rows are scattered over the table,
	// and all the more the longer it is.
	n, _, err := database.CountUpTo(ctx, q.Clone().Order(ent.Desc(message.FieldCreatedAt), ent.Desc(message.FieldID)), database.CountBound)
	return n, apperr.Wrap(err, "message")
}

// MarkRead is the spec's PUT /api/messages/{id}/read, which is not
// implemented: reading a conversation marks it read (contacts'
// MarkRead). Errors: not_found (message), not_implemented otherwise.
func (s *Service) MarkRead(ctx context.Context, id uuid.UUID) error {
	if _, err := database.ClientFor(ctx, s.Client).Message.Get(ctx, id); err != nil {
		return apperr.Wrap(err, "message")
	}
	return apperr.New(apperr.NotImplemented, "Not implemented yet")
}
