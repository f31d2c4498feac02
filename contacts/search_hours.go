package contacts

import (
	"context"
	stdsql "database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/viewer"
)

// A search whose term more contacts hold than a page reaches (a first
// name: tens of thousands at a million contacts), and whose matches are
// not among the most recent conversations the probe reads (a campaign's
// contacts came after them), reads its page a range of hours of the inbox
// order at a time on PostgreSQL: the search indexes hold each contact's
// organization and hour (database.ContactHourKey) beside its trigrams, so
// GIN intersects the term's entries with the range's and the range costs
// about its hits, not the organization nor every holder of the term (read
// from the trigram bitmap and sorted, 20,767 of them cost 81 ms p50 in
// bench/scale). The order's hours are a partition of it: every contact of
// an hour comes after those of a later hour; contacts without a message,
// the order's tail, are keyed by their creation's hour.
//
// A range without a hit is followed by one four times as long (up to
// hourSearchMaxSpan); between ranges the walk jumps to the hour of the
// next older contact, so gaps cost nothing. A range holding more than
// hourRangeCap hits (read in no order, as the index gives them) is
// narrowed to its newest hour, which is read whole. After hourSearchSteps
// ranges the walk gives up and the page is read from the bitmap, a cost
// bounded by the term's holders.
const (
	hourSearchMaxSpan = 256
	hourRangeCap      = 1_000
	// hourSearchDepth: deeper pages are read from the bitmap.
	hourSearchDepth = CountBound
)

// hourSearchSteps is how many ranges a walk reads before it gives up (a
// variable for tests).
var hourSearchSteps = 16

// hourPhase is a part of the inbox order keyed by one time: contacts
// with a last message by its hour, then those without by their
// creation's.
type hourPhase struct {
	// key is the prefix of contact_hour_key's hour in this phase.
	key string
	// olderSQL selects the phase's newest time before $2.
	olderSQL string
}

var hourPhases = []hourPhase{
	{"", `SELECT last_message_at FROM contacts WHERE organization_id = $1 AND last_message_at < $2
		ORDER BY last_message_at DESC NULLS LAST LIMIT 1`},
	{"c", `SELECT created_at FROM contacts WHERE organization_id = $1 AND last_message_at IS NULL
		AND created_at < $2 ORDER BY last_message_at DESC NULLS LAST, created_at DESC LIMIT 1`},
}

// endOfTime is after every contact's times: a phase's walk starts before it.
var endOfTime = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// hourSearchSQL selects, of the organization $1's contacts whose name or
// profile name is like $2 in the hours $3 (contact_hour_key's), or whose
// phone number is like $6 in the hours $7 (contact_phone_hour_key's), at
// most $4 in no order (NULL: all), and returns the first $5 of those in
// inbox order with how many were read. Each arm of the OR names one
// index's two columns, so the planner ORs the bitmaps of intersected
// entries.
func hourSearchSQL(phone bool) string {
	arms := "(" + database.ContactNames + " ILIKE $2 AND " + database.ContactHourKey +
		" && $3 AND (name ILIKE $2 OR profile_name ILIKE $2))"
	if phone {
		arms += " OR (phone_number LIKE $6 AND " + database.ContactPhoneHourKey + " && $7)"
	}
	return `WITH hits AS MATERIALIZED (
		SELECT id, last_message_at, created_at FROM contacts WHERE organization_id = $1 AND (` + arms + `)
		LIMIT $4)
	SELECT id, (SELECT count(*) FROM hits) FROM hits
	ORDER BY last_message_at DESC NULLS LAST, created_at DESC, id LIMIT $5`
}

var (
	hourSearchByName  = hourSearchSQL(false)
	hourSearchByPhone = hourSearchSQL(true)
)

// hourSearch is one search's walk of the inbox order.
type hourSearch struct {
	db      *ent.Client
	org     uuid.UUID
	pattern string // the term as ILIKE's '%term%'
	digits  string // '%digits%' when the term reads as a phone number
}

func (s *Service) newHourSearch(ctx context.Context, term string) hourSearch {
	h := hourSearch{db: s.db(ctx), org: viewer.FromContext(ctx).OrgID,
		pattern: "%" + database.EscapeLike(term) + "%"}
	if d := phoneDigits(term); d != "" {
		h.digits = "%" + d + "%"
	}
	return h
}

// byHours returns the ids of the first need contacts the search selects,
// in inbox order (fewer when fewer match); ok is false when the walk gave
// up after hourSearchSteps ranges.
func (h hourSearch) byHours(ctx context.Context, need int) ([]uuid.UUID, bool, error) {
	var ids []uuid.UUID
	steps := 0
	for _, phase := range hourPhases {
		older, err := h.olderThan(ctx, phase, endOfTime)
		span := int64(1)
		for older != nil && err == nil {
			if steps++; steps > hourSearchSteps {
				return ids, false, nil
			}
			last := database.HourOf(*older)
			first := last - span + 1
			var hits []uuid.UUID
			var capped bool
			hits, capped, err = h.hours(ctx, phase, first, last, need-len(ids), hourRangeCap)
			switch {
			case err != nil:
				return nil, false, err
			case capped && span > 1:
				span = 1 // the same end, its hour alone
				continue
			case capped: // one hour holds more: read it whole
				if hits, _, err = h.hours(ctx, phase, first, last, need-len(ids), 0); err != nil {
					return nil, false, err
				}
			}
			if ids = append(ids, hits...); len(ids) >= need {
				return ids, true, nil
			}
			if len(hits) == 0 {
				span = min(span*4, hourSearchMaxSpan)
			}
			older, err = h.olderThan(ctx, phase, database.HourStart(first))
		}
		if err != nil {
			return nil, false, err
		}
	}
	return ids, true, nil
}

// hours returns the hits (at most n, in inbox order) in the phase's hours
// first to last, and whether the range holds more than limit (0: no
// limit).
func (h hourSearch) hours(ctx context.Context, phase hourPhase, first, last int64, n, limit int) ([]uuid.UUID, bool, error) {
	keys := h.hourKeys(phase, "", first, last)
	var bound any
	if limit > 0 {
		bound = limit + 1
	}
	query, args := hourSearchByName, []any{h.org, h.pattern, keys, bound, n}
	if h.digits != "" {
		query, args = hourSearchByPhone, append(args, h.digits, h.hourKeys(phase, "p", first, last))
	}
	ids, held, err := database.QueryIDsHeld(ctx, h.db, query, args...)
	if err != nil {
		return nil, false, err
	}
	return ids, limit > 0 && held > limit, nil
}

// hourKeys are the keys of the phase's hours first to last, of
// contact_hour_key (index "") or contact_phone_hour_key ("p").
func (h hourSearch) hourKeys(phase hourPhase, index string, first, last int64) *database.Array {
	keys := database.NewArray(64 * int(last-first+1))
	for hour := first; hour <= last; hour++ {
		keys.String(fmt.Sprintf("#%s:%s%s%d", h.org, index, phase.key, hour))
	}
	return keys
}

// olderThan is the phase's newest time before at (nil when there is
// none).
func (h hourSearch) olderThan(ctx context.Context, phase hourPhase, at time.Time) (*time.Time, error) {
	var t time.Time
	switch err := database.ScanOne(ctx, h.db, phase.olderSQL, []any{h.org, at}, &t); {
	case errors.Is(err, stdsql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &t, nil
}
