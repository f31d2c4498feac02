package messaging

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"html"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/message"
	"switchboard/internal/valid"
)

// Bounds of a message search: the default and largest page, and the
// longest search text in characters.
const (
	SearchDefaultSize = 20
	SearchMaxSize     = 100
	SearchMaxQuery    = 200
)

// The snippet's markup: a snippet is HTML-escaped text in which these
// tags, and only these, surround each matched word. Customer text can
// never produce them (its <, >, & and quotes arrive escaped), so a browser
// may show a snippet as HTML; other clients split on the two tags and
// unescape the text between them.
const (
	SnippetMarkOpen  = "<mark>"
	SnippetMarkClose = "</mark>"
)

// The private-use characters ts_headline marks matches with before the
// snippet is escaped and the marks become tags; they are removed from the
// text first, so only the search's own marks remain.
const (
	rawMarkOpen  = "\uE000"
	rawMarkClose = "\uE001"
)

// SearchHit is one message that matches, with its contact and a snippet
// of its text (see SnippetMarkOpen).
type SearchHit struct {
	Message *ent.Message
	Contact *ent.Contact
	Snippet string
}

// SearchEdge is a hit and the cursor that reads the hits after it.
type SearchEdge struct {
	Cursor string
	Node   *SearchHit
}

// SearchPageInfo tells whether older hits exist, and the cursor of the
// page's last hit (nil on an empty page).
type SearchPageInfo struct {
	HasNextPage bool
	EndCursor   *string
}

// SearchPage is one page of a message search, newest first.
type SearchPage struct {
	Edges    []*SearchEdge
	PageInfo SearchPageInfo
}

// Search finds the organization's messages whose text matches query,
// newest first (created_at, id), limit at a time, after the hit whose
// cursor is after (empty: from the newest). Who may search is who may
// read message history (the messages:read permission, the same
// operation-table entry); a hit whose contact the viewer may not read
// is left out, as the contact's history would be.
//
// The query is web-search syntax: words (all must occur), "a quoted
// phrase" (the words in that order, adjacent), OR between alternatives,
// -word to exclude. On PostgreSQL it is websearch_to_tsquery('simple')
// over database.MessageBodyVector (whole words, case-insensitive in any
// script); in the embedded SQLite mode each word or phrase is a
// case-insensitive (ASCII letters) substring match over a plain scan.
// Errors: invalid (query empty, too long, NUL or bad UTF-8; limit out of
// 1..SearchMaxSize; a cursor this search did not hand out).
func (s *Service) Search(ctx context.Context, query string, limit int, after string) (*SearchPage, error) {
	query, err := valid.RequiredText("q", query, SearchMaxQuery)
	if err != nil {
		return nil, err
	}
	if limit < 1 || limit > SearchMaxSize {
		return nil, apperr.Invalidf("first/limit must be between 1 and %d", SearchMaxSize)
	}
	q, terms, err := s.searchQuery(ctx, query, limit, after)
	if err != nil {
		return nil, err
	}
	if q == nil {
		return &SearchPage{Edges: []*SearchEdge{}}, nil
	}
	ms, err := q.All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "message")
	}
	page := &SearchPage{Edges: make([]*SearchEdge, 0, min(len(ms), limit))}
	if len(ms) > limit {
		page.PageInfo.HasNextPage = true
		ms = ms[:limit]
	}
	for _, m := range ms {
		cursor := EncodeSearchCursor(m.CreatedAt, m.ID)
		page.PageInfo.EndCursor = &cursor
		if m.Edges.Contact == nil {
			continue // a contact the viewer may not read: its messages neither
		}
		hit := &SearchHit{Message: m, Contact: m.Edges.Contact}
		if s.Postgres {
			hit.Snippet = markSnippet(database.StringValue(m.Value("snippet")))
		} else {
			hit.Snippet = highlight(bodyOf(m), positiveTexts(terms))
		}
		page.Edges = append(page.Edges, &SearchEdge{Cursor: cursor, Node: hit})
	}
	return page, nil
}

// searchQuery is the query of one page of hits (limit+1 rows, to tell
// whether more follow), with the terms the embedded mode matched; nil
// when the query has no term to look for.
func (s *Service) searchQuery(ctx context.Context, query string, limit int, after string) (*ent.MessageQuery, [][]searchTerm, error) {
	q := database.ClientFor(ctx, s.Client).Message.Query()
	if after != "" {
		at, id, err := DecodeSearchCursor(after)
		if err != nil {
			return nil, nil, err
		}
		q = q.Where(message.Or(
			message.CreatedAtLT(at),
			message.And(message.CreatedAt(at), message.IDLT(id)),
		))
	}
	var terms [][]searchTerm
	if s.Postgres {
		q = q.Where(matchesPG(query))
		q.Modify(headlinePG(query)) // adds the snippet to q's columns
	} else {
		if terms = parseSearch(query); len(terms) == 0 {
			return nil, nil, nil
		}
		q = q.Where(matchesLike(terms))
	}
	return q.WithContact().
		Order(ent.Desc(message.FieldCreatedAt), ent.Desc(message.FieldID)).
		Limit(limit + 1), terms, nil
}

// matchesPG is the full-text match, written so that the planner serves
// it from database.MessageBodySearchIndex.
func matchesPG(query string) func(*sql.Selector) {
	return func(s *sql.Selector) {
		s.Where(sql.P(func(b *sql.Builder) {
			b.WriteString(database.MessageBodyVector + " @@ websearch_to_tsquery('simple', ").Arg(query).WriteString(")")
		}))
	}
}

// headlineOptions: 10 to 25 words around the matches (ts_headline's
// fragment mode would keep little more than the matched words); the marks
// are rawMarkOpen and rawMarkClose.
const headlineOptions = `StartSel=` + rawMarkOpen + `, StopSel=` + rawMarkClose + `, MaxWords=25, MinWords=10`

// headlinePG selects ts_headline's snippet as "snippet", from the text
// with the mark characters removed. PostgreSQL computes it after the sort
// and limit, for the page's rows only.
func headlinePG(query string) func(*sql.Selector) {
	return func(s *sql.Selector) {
		s.AppendSelectExprAs(sql.ExprFunc(func(b *sql.Builder) {
			b.WriteString("ts_headline('simple', translate(content ->> 'body', ").Arg(rawMarkOpen + rawMarkClose).
				WriteString(", ''), websearch_to_tsquery('simple', ").Arg(query).
				WriteString("), ").Arg(headlineOptions).WriteString(")")
		}), "snippet")
	}
}

// markSnippet escapes ts_headline's text and turns its marks into the
// snippet's tags.
func markSnippet(raw string) string {
	return strings.NewReplacer(rawMarkOpen, SnippetMarkOpen, rawMarkClose, SnippetMarkClose).
		Replace(html.EscapeString(raw))
}

// bodyOf is a message's text: what the search matches.
func bodyOf(m *ent.Message) string {
	s, _ := m.Content["body"].(string)
	return s
}

// The cursor is the hit's created_at (Unix nanoseconds) and id, 24 bytes
// in unpadded base64url: opaque to clients, and the keyset (created_at,
// id) the search orders by.
const cursorBytes = 8 + 16

// EncodeSearchCursor returns the cursor of the hit at (at, id).
func EncodeSearchCursor(at time.Time, id uuid.UUID) string {
	var b [cursorBytes]byte
	binary.BigEndian.PutUint64(b[:8], uint64(at.UnixNano()))
	copy(b[8:], id[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// DecodeSearchCursor reads a cursor EncodeSearchCursor wrote. Errors:
// invalid for anything else.
func DecodeSearchCursor(s string) (time.Time, uuid.UUID, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != cursorBytes {
		return time.Time{}, uuid.Nil, apperr.Invalidf("after/cursor is not a cursor of this search")
	}
	at := time.Unix(0, int64(binary.BigEndian.Uint64(b[:8]))).UTC()
	id, _ := uuid.FromBytes(b[8:])
	return at, id, nil
}
