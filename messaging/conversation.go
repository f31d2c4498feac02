package messaging

import (
	"context"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/contact"
	"switchboard/ent/message"
)

// Connection is a Relay page of a conversation (GraphQL's
// Contact.messages): its edges run oldest to newest by (created_at, id),
// whichever way it was paged.
type Connection struct {
	Edges    []*Edge
	PageInfo ent.PageInfo
	// TotalCount counts the conversation's messages (the contact's
	// counter), whatever the page.
	TotalCount int
}

// Edge is one message of a Connection with its cursor.
type Edge struct {
	Node   *ent.Message
	Cursor ent.Cursor
}

// PageArgs are a Relay page's arguments: First items after After, or
// Last items before Before (either cursor may bound either direction).
type PageArgs struct {
	After  *ent.Cursor
	First  *int
	Before *ent.Cursor
	Last   *int
}

// Conversation returns a Relay page of a contact's messages, ordered
// oldest to newest by (created_at, id): First pages forward (after a
// cursor), Last backward (before one), so Last alone is the newest
// messages, what a chat screen opens with. A cursor is an edge's
// (created_at, id), opaque to clients. One of First and Last is required
// (GraphQL gives First its default); each is at most MaxPageSize. Every
// page is one keyset read of the (contact_id, created_at, id) index,
// however deep, and TotalCount is the contact's message counter (kept by
// the database, database/counters.go): nothing is counted or sorted.
// HasPreviousPage and HasNextPage follow entgql's connections: the side
// the page was read towards is looked ahead one message, the other side
// is true when a cursor bounds it. Errors: invalid (both or neither of
// First and Last, a negative or too large one, a cursor that is not a
// message's), not_found (contact).
func (s *Service) Conversation(ctx context.Context, contactID uuid.UUID, p PageArgs) (*Connection, error) {
	limit, backward, err := p.size()
	if err != nil {
		return nil, err
	}
	after, err := cursorPosition("after", p.After)
	if err != nil {
		return nil, err
	}
	before, err := cursorPosition("before", p.Before)
	if err != nil {
		return nil, err
	}
	db := database.ClientFor(ctx, s.Client)
	total, err := db.Contact.Query().Where(contact.ID(contactID)).Select(contact.FieldMessageCount).Int(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "contact")
	}
	q := db.Message.Query().Where(message.ContactID(contactID), func(s *sql.Selector) {
		// Row comparisons: the (contact_id, created_at, id) index
		// serves them as one range.
		cols := []string{s.C(message.FieldCreatedAt), s.C(message.FieldID)}
		if after != nil {
			s.Where(sql.CompositeGT(cols, after.Value, after.ID))
		}
		if before != nil {
			s.Where(sql.CompositeLT(cols, before.Value, before.ID))
		}
	})
	if backward {
		q = q.Order(ent.Desc(message.FieldCreatedAt), ent.Desc(message.FieldID))
	} else {
		q = q.Order(ent.Asc(message.FieldCreatedAt), ent.Asc(message.FieldID))
	}
	ms, err := q.Limit(limit + 1).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "message")
	}
	c := &Connection{TotalCount: total}
	c.PageInfo.HasNextPage = p.Before != nil
	c.PageInfo.HasPreviousPage = p.After != nil
	if len(ms) > limit {
		ms = ms[:limit]
		if backward {
			c.PageInfo.HasPreviousPage = true
		} else {
			c.PageInfo.HasNextPage = true
		}
	}
	if backward {
		for i, j := 0, len(ms)-1; i < j; i, j = i+1, j-1 {
			ms[i], ms[j] = ms[j], ms[i]
		}
	}
	c.Edges = make([]*Edge, len(ms))
	for i, m := range ms {
		c.Edges[i] = &Edge{Node: m, Cursor: ent.Cursor{ID: m.ID, Value: m.CreatedAt}}
	}
	if n := len(c.Edges); n > 0 {
		c.PageInfo.StartCursor = &c.Edges[0].Cursor
		c.PageInfo.EndCursor = &c.Edges[n-1].Cursor
	}
	return c, nil
}

// size is the page's size and direction (backward for Last).
func (p PageArgs) size() (limit int, backward bool, err error) {
	n := p.First
	switch {
	case p.First != nil && p.Last != nil:
		return 0, false, apperr.Invalidf("first and last cannot be given together: page forward with first and after, backward with last and before")
	case p.Last != nil:
		n, backward = p.Last, true
	case p.First == nil:
		return 0, false, apperr.Invalidf("first or last is required")
	}
	name := map[bool]string{false: "first", true: "last"}[backward]
	if *n < 0 || *n > MaxPageSize {
		return 0, false, apperr.Invalidf("%s must be between 0 and %d", name, MaxPageSize)
	}
	return *n, backward, nil
}

// position is where a cursor points in a conversation.
type position struct {
	Value time.Time
	ID    uuid.UUID
}

// cursorPosition reads a conversation cursor (a message's created_at and
// id); nil for none. A cursor of another list (whose value is not a time)
// is invalid.
func cursorPosition(arg string, c *ent.Cursor) (*position, error) {
	if c == nil {
		return nil, nil
	}
	at, ok := c.Value.(time.Time)
	if !ok || c.ID == uuid.Nil {
		return nil, apperr.Invalidf("%s is not a cursor of this conversation", arg)
	}
	return &position{Value: at, ID: c.ID}, nil
}
