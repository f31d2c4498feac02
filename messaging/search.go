package messaging

import (
	"context"
	stdsql "database/sql"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"html"
	"strings"
	"time"
	"unicode"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/message"
	"switchboard/ent/viewer"
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
// A page may hold fewer hits than limit, none maybe, while HasNextPage
// is true: on PostgreSQL a walk of words that many messages hold stops
// at searchWalkBudget, and EndCursor goes on from where it stopped.
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
	var (
		q      *ent.MessageQuery
		terms  [][]searchTerm
		walked searchCursor // where a walk that stopped early stopped
	)
	if s.Postgres {
		q, walked, err = s.searchQueryPG(ctx, query, limit, after)
	} else {
		q, terms, err = s.searchQueryLike(ctx, query, limit, after)
	}
	if err != nil {
		return nil, err
	}
	page := &SearchPage{Edges: []*SearchEdge{}}
	if q != nil {
		if err := s.fillSearchPage(ctx, page, q, terms, limit); err != nil {
			return nil, err
		}
	}
	if walked.set {
		// The walk stopped before the page was full: the next page goes on
		// from where it stopped, older than every hit of this one.
		cursor := EncodeSearchCursor(walked.at, walked.id)
		page.PageInfo.HasNextPage, page.PageInfo.EndCursor = true, &cursor
	}
	return page, nil
}

// fillSearchPage reads q's hits (limit+1 at most) into page.
func (s *Service) fillSearchPage(ctx context.Context, page *SearchPage, q *ent.MessageQuery, terms [][]searchTerm, limit int) error {
	ms, err := q.All(ctx)
	if err != nil {
		return apperr.Wrap(err, "message")
	}
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
	return nil
}

// searchQueryLike is the embedded mode's query of one page of hits
// (limit+1 rows, to tell whether more follow), with the terms it
// matches; nil when the query has no term to look for.
func (s *Service) searchQueryLike(ctx context.Context, query string, limit int, after string) (*ent.MessageQuery, [][]searchTerm, error) {
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
	terms := parseSearch(query)
	if len(terms) == 0 {
		return nil, nil, nil
	}
	return q.Where(matchesLike(terms)).WithContact().
		Order(ent.Desc(message.FieldCreatedAt), ent.Desc(message.FieldID)).
		Limit(limit + 1), terms, nil
}

// searchWindow is how many of the organization's newest messages (before
// the cursor) a PostgreSQL search reads in order before it asks the text
// index. The planner cannot tell a word held by most messages from one
// held by a single message when the word is not among its statistics'
// most common (an order number, a name): it then expects thousands of
// matches and walks the organization's messages newest first, testing
// each, which for a rare word is every message (over a minute at
// 10,000,000, bench/scale). So the search chooses: a word common enough
// to fill the page from the newest searchWindow messages is found there
// (a few milliseconds), and only when they hold too few hits are the
// older hits read from the text index, whose bitmap is then that of a
// rarer word, and sorted.
const searchWindow = 1_000

// searchQueryPG is PostgreSQL's query of one page of hits (limit+1 rows):
// the page's ids found as searchWindow says, their rows read with their
// contacts and snippets, through ent so that the organization's privacy
// rule applies to what is returned.
func (s *Service) searchQueryPG(ctx context.Context, query string, limit int, after string) (*ent.MessageQuery, searchCursor, error) {
	c := searchCursor{}
	if after != "" {
		var err error
		if c.at, c.id, err = DecodeSearchCursor(after); err != nil {
			return nil, c, err
		}
		c.set = true
	}
	ids, walked, err := searchIDsPG(ctx, s.Client, viewer.FromContext(ctx).OrgID, query, c, limit+1)
	if err != nil || len(ids) == 0 {
		return nil, walked, apperr.Wrap(err, "message")
	}
	q := database.ClientFor(ctx, s.Client).Message.Query().Where(message.IDIn(ids...))
	q.Modify(headlinePG(query)) // adds the snippet to q's columns
	return q.WithContact().Order(ent.Desc(message.FieldCreatedAt), ent.Desc(message.FieldID)), walked, nil
}

// searchCursor is the hit a page starts after, when set.
type searchCursor struct {
	set bool
	at  time.Time
	id  uuid.UUID
}

// The statements of searchIDsPG. $1 the organization, $2 the search
// text, $3 and $4 the cursor (null: the newest), then as each says.
const (
	searchBeforeCursor = `($3::timestamptz IS NULL OR (created_at, id) < ($3, $4::uuid))`
	// Hits among the newest searchWindow messages before the cursor ($5),
	// newest first ($6: how many). The match is tested above the window's
	// LIMIT, where no index can serve it: the window is walked in order
	// and the walk stops at the page, whatever the planner expects of
	// the words (it would AND the text index's bitmap, every message
	// for a common word).
	searchInWindowSQL = `SELECT id FROM (
			SELECT id, created_at, content FROM messages WHERE organization_id = $1 AND ` + searchBeforeCursor + `
			ORDER BY created_at DESC, id DESC LIMIT $5) AS w
		WHERE ` + database.MessageBodyVector + ` @@ websearch_to_tsquery('simple', $2)
		ORDER BY created_at DESC, id DESC LIMIT $6`
	// The window's oldest message ($2 and $3 the cursor, $4 the window's
	// size less one).
	searchWindowEndSQL = `SELECT created_at, id FROM messages WHERE organization_id = $1
		AND ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3::uuid))
		ORDER BY created_at DESC, id DESC OFFSET $4 LIMIT 1`
	// Hits older than the window ($5, $6 its oldest), from the text
	// index ($7: how many): the CTE has no order for an index to give, so
	// its rows are the index's bitmap, and only they are sorted.
	searchPastWindowSQL = `WITH hits AS MATERIALIZED (
			SELECT id, created_at FROM messages WHERE organization_id = $1
			AND ` + database.MessageSearchVector + ` @@ websearch_to_tsquery('simple', $2)
			AND ` + searchBeforeCursor + ` AND (created_at, id) < ($5, $6::uuid))
		SELECT id FROM hits ORDER BY created_at DESC, id DESC LIMIT $7`
	// The frequency of the query's ($1) rarest word among the messages,
	// from the statistics ANALYZE keeps of the text index's most common
	// words: 0 for a word they do not list (rarer than any they do), or
	// when there are none yet.
	searchRarestWordSQL = `WITH s AS (
			SELECT most_common_elems::text::text[] AS words, most_common_elem_freqs AS freqs FROM pg_stats
			WHERE schemaname = current_schema() AND tablename = '` + database.MessageSearchIndex + `' LIMIT 1)
		SELECT coalesce(min(coalesce(s.freqs[array_position(s.words, w)], 0)), 0)
		FROM unnest(tsvector_to_array(to_tsvector('simple', $1))) AS w LEFT JOIN s ON true`
	// Hits in a range of hours ($3: an OR of their hour lexemes, see
	// database.MessageSearchVector) before $4, $5 (the range's end),
	// newest first ($7: how many), and how many the range holds up to $6
	// (searchRangeCap): the index intersects the words' entries with the
	// hours', and the CTE, without order, keeps it from walking instead.
	// The words and the hours are two conditions, two keys of one index
	// scan, not one query: GIN leapfrogs between keys, each skipping to
	// the other's next item through its posting tree, so a range costs
	// about its hits; within one query it reads the rarer entry whole and
	// tests each item, and a range cost the lesser of its messages and
	// the words' (the newest hour of 289,487 messages without the word:
	// 28 ms as one query, 3 ms as two; four hours of 1.4 million: 106 ms
	// and 4 ms, bench/scale).
	searchHoursSQL = `WITH hits AS MATERIALIZED (
			SELECT id, created_at FROM messages WHERE organization_id = $1
			AND ` + database.MessageSearchVector + ` @@ websearch_to_tsquery('simple', $2)
			AND ` + database.MessageSearchVector + ` @@ $3::tsquery
			AND (created_at, id) < ($4, $5::uuid) LIMIT $6)
		SELECT id, (SELECT count(*) FROM hits) FROM hits ORDER BY created_at DESC, id DESC LIMIT $7`
	// The newest message before $2: where the next range of hours ends.
	searchOlderSQL = `SELECT created_at FROM messages WHERE organization_id = $1 AND created_at < $2
		ORDER BY created_at DESC LIMIT 1`
	// For the statements of one search: the bitmap of a word the
	// planner misjudges as common would otherwise start parallel workers
	// for a few rows, costing more than the search (no connection
	// compiles, database.connectionSQL).
	searchSettingsSQL = `SET LOCAL max_parallel_workers_per_gather = 0`
)

// searchTimeout bounds a search: its statements and its walk (a variable
// for tests).
var searchTimeout = 5 * time.Second

// searchWalkBudget is how long a search of common words reads ranges of
// hours after the first window before it answers with the hits found so
// far, fewer than asked (none, maybe), and a cursor that goes on from
// where it stopped: an organization's years of messages without a hit
// are searched a page at a time instead of refused at searchTimeout. A
// variable for tests.
var searchWalkBudget = 250 * time.Millisecond

// searchCommonWord: a search whose rarest word is held by this share of
// the messages or more never reads the text index's entries of its words
// alone: their bitmap is millions of rows at 10,000,000 messages (two
// common words rarely together: 18 s, bench/scale). Its hits past the
// first window are read a range of hours at a time (byHours).
const searchCommonWord = 0.01

// searchIDsPG returns the ids of org's first n hits of query after c,
// newest first (see searchWindow), or fewer and walked, the oldest
// message walked, when the walk of common words stopped at
// searchWalkBudget.
func searchIDsPG(ctx context.Context, root *ent.Client, org uuid.UUID, query string, c searchCursor, n int) (ids []uuid.UUID, walked searchCursor, err error) {
	walkUntil := time.Now().Add(searchWalkBudget)
	bounded, cancel := context.WithTimeout(ctx, searchTimeout)
	defer cancel()
	err = database.InTx(bounded, root, func(ctx context.Context, db *ent.Client) error {
		if _, err := db.ExecContext(ctx, searchSettingsSQL); err != nil {
			return err
		}
		s := searcher{db: db, org: org, query: query}
		if ids, err = s.window(ctx, c, n); err != nil || len(ids) == n {
			return err
		}
		end, err := s.windowEnd(ctx, c)
		if err != nil || !end.set {
			return err // none: the window held every message before c
		}
		var rarest float64
		if err := database.ScanOne(ctx, db, searchRarestWordSQL, []any{query}, &rarest); err != nil {
			return err
		}
		if rarest < searchCommonWord {
			older, err := database.QueryIDs(ctx, db, searchPastWindowSQL, org, query, c.args()[0], c.args()[1], end.at, end.id, n-len(ids))
			ids = append(ids, older...)
			return err
		}
		// Every word is common: the older hits come from the text index
		// a range of hours at a time, newest first.
		s.rangeCap = rangeCapOf(query)
		ids, walked, err = s.byHours(ctx, end, ids, n, walkUntil)
		return err
	})
	if err != nil && ctx.Err() == nil && (bounded.Err() != nil || database.IsQueryCanceled(err)) {
		return nil, walked, apperr.Invalidf("the search took longer than %s: its words are common and rarely together; add a rarer word or a phrase", searchTimeout)
	}
	return ids, walked, err
}

// searcher runs the statements of one search.
type searcher struct {
	db    *ent.Client
	org   uuid.UUID
	query string
	// rangeCap is how many hits a range of hours reads before it counts
	// as dense (see byHours).
	rangeCap int
}

// searchPhraseRangeCap is a phrase's rangeCap: the index cannot test a
// phrase's word order, so each candidate is rechecked against its
// message's text (about 30 µs: 1,001 of them took 29.7 ms of a range's
// 33, bench/scale), and a dense range is better found early and walked.
const searchPhraseRangeCap = 100

// rangeCapOf is the rangeCap of a search's query.
func rangeCapOf(query string) int {
	for _, alt := range parseSearch(query) {
		for _, t := range alt {
			if strings.ContainsFunc(t.Text, unicode.IsSpace) {
				return searchPhraseRangeCap
			}
		}
	}
	return searchRangeCap
}

// window returns the hits (at most n) among the searchWindow messages
// before c.
func (s searcher) window(ctx context.Context, c searchCursor, n int) ([]uuid.UUID, error) {
	a := c.args()
	return database.QueryIDs(ctx, s.db, searchInWindowSQL, s.org, s.query, a[0], a[1], searchWindow, n)
}

// windowEnd returns the oldest of the searchWindow messages before c,
// unset when fewer are left.
func (s searcher) windowEnd(ctx context.Context, c searchCursor) (searchCursor, error) {
	a := c.args()
	end := searchCursor{}
	switch err := database.ScanOne(ctx, s.db, searchWindowEndSQL, []any{s.org, a[0], a[1], searchWindow - 1}, &end.at, &end.id); {
	case errors.Is(err, stdsql.ErrNoRows):
		return end, nil
	case err != nil:
		return end, err
	}
	end.set = true
	return end, nil
}

// args are the cursor's statement arguments: its time and id, null when
// it is unset (from the newest).
func (c searchCursor) args() [2]any {
	if !c.set {
		return [2]any{nil, nil}
	}
	return [2]any{c.at, c.id}
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
