package messaging

import (
	"bytes"
	"context"
	"slices"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/message"
)

// Connection is a Relay page of a conversation (GraphQL's
// Contact.messages): its edges run oldest to newest by (created_at, id),
// whichever way it was paged.
type Connection struct {
	Edges    []*Edge
	PageInfo ent.PageInfo
	// TotalCount counts the conversation's messages (the contact's
	// counter), whatever the page: the caller, who holds the contact,
	// sets it (Conversations).
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

// Conversations returns the same Relay page (p) of the conversation of
// each of contactIDs, by contact id, each ordered oldest to newest by
// (created_at, id): First pages forward (after a cursor), Last backward
// (before one), so Last alone is the newest messages, what a chat screen
// opens with. A cursor is an edge's (created_at, id), opaque to clients.
// One of First and Last is required (GraphQL gives First its default);
// each is at most MaxPageSize. HasPreviousPage and HasNextPage follow
// entgql's connections: the side the page was read towards is looked
// ahead one message, the other side is true when a cursor bounds it.
//
// The contacts are the caller's, read under the viewer's privacy (a list
// of them, or one): TotalCount is left to the caller, who holds each
// contact's message counter (Contact.MessageCount, kept by the database,
// database/counters.go), so nothing is counted nor the contacts read
// again. A contact the viewer may not read gets an empty page (ent's
// tenant filter applies to the messages). Every page is a keyset range
// of the (contact_id, created_at, id) index, however deep: on PostgreSQL
// all of them are one statement (pagesPG), in the embedded mode one per
// contact. Errors: invalid (both or neither of First and Last, a
// negative or too large one, a cursor that is not a message's).
func (s *Service) Conversations(ctx context.Context, contactIDs []uuid.UUID, p PageArgs) (map[uuid.UUID]*Connection, error) {
	r, err := p.read()
	if err != nil {
		return nil, err
	}
	ids := distinct(contactIDs)
	out := make(map[uuid.UUID]*Connection, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	q := database.ClientFor(ctx, s.Client).Message.Query().Where(r.bounds).Order(r.order()...)
	if !s.Postgres {
		for _, id := range ids {
			ms, err := q.Clone().Where(message.ContactID(id)).Limit(r.limit + 1).All(ctx)
			if err != nil {
				return nil, apperr.Wrap(err, "message")
			}
			out[id] = r.connection(ms)
		}
		return out, nil
	}
	q.Modify(r.pagesPG(ids))
	ms, err := q.All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "message")
	}
	byContact := make(map[uuid.UUID][]*ent.Message, len(ids))
	for _, m := range ms {
		byContact[m.ContactID] = append(byContact[m.ContactID], m)
	}
	for _, id := range ids {
		page := byContact[id]
		// Each contact's rows come in its page's order (its index range);
		// SQL does not promise it of the join, so it is made sure of here,
		// on at most limit+1 rows.
		slices.SortFunc(page, r.compare)
		out[id] = r.connection(page)
	}
	return out, nil
}

// pageRead is a checked PageArgs: how many messages, which way, between
// which positions.
type pageRead struct {
	args          PageArgs
	limit         int
	backward      bool
	after, before *position
}

// read checks p.
func (p PageArgs) read() (*pageRead, error) {
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
	return &pageRead{args: p, limit: limit, backward: backward, after: after, before: before}, nil
}

// bounds limits a messages query to the positions between the page's
// cursors, as row comparisons: with contact_id given, the (contact_id,
// created_at, id) index serves them as one range.
func (r *pageRead) bounds(s *sql.Selector) {
	cols := []string{s.C(message.FieldCreatedAt), s.C(message.FieldID)}
	if r.after != nil {
		s.Where(sql.CompositeGT(cols, r.after.Value, r.after.ID))
	}
	if r.before != nil {
		s.Where(sql.CompositeLT(cols, r.before.Value, r.before.ID))
	}
}

// order is the order the page is read in: towards the cursor it pages
// from, newest first for Last.
func (r *pageRead) order() []message.OrderOption {
	if r.backward {
		return []message.OrderOption{ent.Desc(message.FieldCreatedAt), ent.Desc(message.FieldID)}
	}
	return []message.OrderOption{ent.Asc(message.FieldCreatedAt), ent.Asc(message.FieldID)}
}

// compare orders two messages of a contact as order does.
func (r *pageRead) compare(a, b *ent.Message) int {
	c := a.CreatedAt.Compare(b.CreatedAt)
	if c == 0 {
		c = bytes.Compare(a.ID[:], b.ID[:])
	}
	if r.backward {
		return -c
	}
	return c
}

// pagesPG turns the query of the conversations' messages (its tenant
// filter, bounds and order, ent's privacy having applied them) into the
// page of each of contactIDs in one statement: the query, with the
// contact and the page's limit, becomes a LATERAL subquery run for each
// id of the array, which PostgreSQL serves as one range of the
// (contact_id, created_at, id) index per contact, stopping at the limit
// (no sort, however long the conversations):
//
//	SELECT messages.* FROM unnest($1::uuid[]) AS c(id) CROSS JOIN LATERAL
//	(SELECT ... FROM messages WHERE organization_id = $2 AND <bounds>
//	 AND contact_id = c.id ORDER BY created_at DESC, id DESC LIMIT n+1) AS messages
func (r *pageRead) pagesPG(contactIDs []uuid.UUID) func(*sql.Selector) {
	return func(s *sql.Selector) {
		page := s.Clone()
		page.Where(sql.ExprP(page.C(message.FieldContactID) + " = c.id")).Limit(r.limit + 1)
		ids := database.NewArray(37 * len(contactIDs))
		for _, id := range contactIDs {
			ids.UUID(id)
		}
		s.SetP(nil).ClearOrder()
		s.FromExpr(sql.ExprFunc(func(b *sql.Builder) {
			b.WriteString("unnest(").Arg(ids).WriteString("::uuid[]) AS c(id) CROSS JOIN LATERAL ")
			b.Wrap(func(b *sql.Builder) { b.Join(page) })
			b.WriteString(" AS ").Ident(message.Table)
		}))
	}
}

// connection is the page of up to limit+1 messages read in r's order.
func (r *pageRead) connection(ms []*ent.Message) *Connection {
	c := &Connection{}
	c.PageInfo.HasNextPage = r.args.Before != nil
	c.PageInfo.HasPreviousPage = r.args.After != nil
	if len(ms) > r.limit {
		ms = ms[:r.limit]
		if r.backward {
			c.PageInfo.HasPreviousPage = true
		} else {
			c.PageInfo.HasNextPage = true
		}
	}
	if r.backward {
		slices.Reverse(ms)
	}
	c.Edges = make([]*Edge, len(ms))
	for i, m := range ms {
		c.Edges[i] = &Edge{Node: m, Cursor: ent.Cursor{ID: m.ID, Value: m.CreatedAt}}
	}
	if n := len(c.Edges); n > 0 {
		c.PageInfo.StartCursor = &c.Edges[0].Cursor
		c.PageInfo.EndCursor = &c.Edges[n-1].Cursor
	}
	return c
}

// distinct is ids without repeats, in order.
func distinct(ids []uuid.UUID) []uuid.UUID {
	seen := make(map[uuid.UUID]bool, len(ids))
	out := make([]uuid.UUID, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
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
