package messaging

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"switchboard/database"
)

// A search of common words reads its hits past the first window from the
// text index a range of hours at a time (database.MessageSearchVector
// holds each message's organization and hour as a lexeme): the index
// intersects the words' entries with the range's hours, so a range costs
// about its hits, not its messages nor every message holding the words.
// A range that holds no hit is followed by one four times as long (up to
// searchMaxHours), so years of messages without one are crossed in a few
// statements; a range holding more than its cap of hits (searchRangeCap,
// searchPhraseRangeCap for a phrase; read in no order, as the index
// gives them) is dense: it is walked in order from its end, and when
// that walk holds too few, narrowed to its newest hour, read whole; the
// search goes on an hour at a time while hours hold hits.
// Between ranges the search jumps to the hour of the next older message.
const (
	searchMaxHours = 256
	searchRangeCap = 1_000
)

// byHours appends to ids the hits older than end, newest first, until
// there are n or none is left; when walkUntil passes first it answers
// them with walked, the cursor where the next page goes on.
func (s searcher) byHours(ctx context.Context, end searchCursor, ids []uuid.UUID, n int, walkUntil time.Time) ([]uuid.UUID, searchCursor, error) {
	from := end
	last := database.HourOf(from.at)
	span := int64(1)
	walkedDense := false // from this range's end, in order (see below)
	for len(ids) < n {
		if time.Now().After(walkUntil) {
			return ids, from, nil
		}
		first := last - span + 1
		hits, capped, err := s.hours(ctx, first, last, from, n-len(ids), s.rangeCap)
		if err != nil {
			return ids, searchCursor{}, err
		}
		if capped && !walkedDense {
			// Hits are dense here (more than the cap in the range): the
			// page is likely among the range's newest messages, walked
			// in order as the first window is, a few rows a hit, where
			// reading an hour whole rechecks each of its candidates (a
			// phrase). Too few there: the range is read as before.
			walkedDense = true
			walked, err := s.window(ctx, from, n-len(ids))
			if err != nil {
				return ids, searchCursor{}, err
			}
			if len(walked) == n-len(ids) {
				ids = append(ids, walked...)
				break
			}
		}
		if capped && span > 1 {
			span = 1 // the same end, its hour alone
			continue
		}
		if capped { // one hour holds more: read it whole
			if hits, _, err = s.hours(ctx, first, last, from, n-len(ids), 0); err != nil {
				return ids, searchCursor{}, err
			}
		}
		if ids = append(ids, hits...); len(ids) == n {
			break
		}
		// The range is searched: the next ends at the newest message
		// before it.
		from = searchCursor{set: true, at: database.HourStart(first), id: uuid.Nil}
		walkedDense = false
		older, err := s.olderThan(ctx, from.at)
		if err != nil || older == nil {
			return ids, searchCursor{}, err
		}
		last = database.HourOf(*older)
		if len(hits) == 0 {
			span = min(span*4, searchMaxHours)
		}
	}
	return ids, searchCursor{}, nil
}

// hours returns the hits (at most n, newest first) in the hours first to
// last before from, and whether the range holds more than limit (0: no
// limit).
func (s searcher) hours(ctx context.Context, first, last int64, from searchCursor, n, limit int) ([]uuid.UUID, bool, error) {
	var bound any
	if limit > 0 {
		bound = limit + 1
	}
	ids, held, err := database.QueryIDsHeld(ctx, s.db, searchHoursSQL, s.org, s.query, hourLexemes(s.org, first, last),
		from.at, from.id, bound, n)
	if err != nil {
		return nil, false, err
	}
	return ids, limit > 0 && held > limit, nil
}

// olderThan is the time of the organization's newest message before at
// (nil when there is none).
func (s searcher) olderThan(ctx context.Context, at time.Time) (*time.Time, error) {
	var t time.Time
	switch err := database.ScanOne(ctx, s.db, searchOlderSQL, []any{s.org, at}, &t); {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &t, nil
}

// hourLexemes is the tsquery of the organization's hours first to last
// (message_hour_key's lexemes), OR'd.
func hourLexemes(org uuid.UUID, first, last int64) string {
	var b strings.Builder
	for h := first; h <= last; h++ {
		if h > first {
			b.WriteString(" | ")
		}
		fmt.Fprintf(&b, "'#%s:%d'", org, h)
	}
	return b.String()
}
