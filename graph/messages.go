package graph

import (
	"context"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/message"
)

// The spec's default and largest page of messages.
const (
	DefaultMessagePageSize = 50
	MaxMessagePageSize     = 100
)

// MessagePage is one page of a conversation, oldest first.
type MessagePage struct {
	Messages []*ent.Message
	// Total counts the conversation's messages (first page only).
	Total int
	// HasMore tells whether older messages exist (cursor pages only).
	HasMore bool
}

// ListMessages returns the newest limit messages of a contact, or with
// beforeID the limit messages older than that one, optionally only those
// of one account. limit is capped at MaxMessagePageSize. Order is
// (created_at, id), which is the platform's time for incoming messages.
// Errors: invalid (limit below 1), not_found (contact, or a before_id that
// is not one of the contact's messages).
func (r *Resolver) ListMessages(ctx context.Context, contactID uuid.UUID, beforeID *uuid.UUID, account string, limit int) (*MessagePage, error) {
	if limit < 1 {
		return nil, apperr.Invalidf("limit must be a positive integer")
	}
	limit = min(limit, MaxMessagePageSize)
	if err := filterText("account", account); err != nil {
		return nil, err
	}
	db := r.db(ctx)
	if _, err := db.Contact.Get(ctx, contactID); err != nil {
		return nil, apperr.Wrap(err, "contact")
	}
	q := db.Message.Query().Where(message.ContactID(contactID))
	if account != "" {
		q = q.Where(message.ChatAccount(account))
	}
	page := &MessagePage{}
	if beforeID != nil {
		before, err := db.Message.Query().Where(message.ID(*beforeID), message.ContactID(contactID)).Only(ctx)
		if err != nil {
			return nil, apperr.Wrap(err, "message")
		}
		q = q.Where(message.Or(
			message.CreatedAtLT(before.CreatedAt),
			message.And(message.CreatedAt(before.CreatedAt), message.IDLT(before.ID)),
		))
	} else {
		total, err := q.Clone().Count(ctx)
		if err != nil {
			return nil, apperr.Wrap(err, "message")
		}
		page.Total = total
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
