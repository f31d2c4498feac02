package main

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lib/pq"

	"switchboard/bench/internal/benchkit"
)

// counts is what the database holds for the run.
type counts struct {
	At               time.Time `json:"-"`
	Seconds          float64   `json:"t"` // since the load started
	Messages         int64     `json:"messages"`
	DistinctMessages int64     `json:"distinct_messages,omitempty"`
	Contacts         int64     `json:"contacts,omitempty"`
	DistinctPhones   int64     `json:"distinct_phones,omitempty"`
}

// store counts the run's rows in the server's PostgreSQL: messages whose
// chat_message_id starts with the run's wamid prefix, contacts whose phone
// number starts with the run's phone prefix. The prefix conditions are
// written as ranges too, so that the unique indexes serve them.
type store struct {
	db          *sql.DB
	orgID       string
	wamidPrefix string
	phonePrefix string
}

func openStore(ctx context.Context, dsn, orgID, wamidPrefix, phonePrefix string) (*store, error) {
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return &store{db: db, orgID: orgID, wamidPrefix: wamidPrefix, phonePrefix: phonePrefix}, nil
}

const (
	countMessages = `SELECT count(*), count(DISTINCT chat_message_id) FROM messages
WHERE chat_message_id >= $1 AND chat_message_id < $2 AND chat_message_id LIKE $3`
	countContacts = `SELECT count(*), count(DISTINCT phone_number) FROM contacts
WHERE organization_id = $1 AND phone_number >= $2 AND phone_number < $3 AND phone_number LIKE $4`
	storedAmong  = `SELECT chat_message_id FROM messages WHERE chat_message_id = ANY($1::text[])`
	listMessages = `SELECT chat_message_id FROM messages
WHERE chat_message_id >= $1 AND chat_message_id < $2 AND chat_message_id LIKE $3`
)

func (s *store) count(ctx context.Context) (counts, error) {
	c := counts{At: time.Now()}
	lo, hi, like := benchkit.PrefixRange(s.wamidPrefix)
	err := s.db.QueryRowContext(ctx, countMessages, lo, hi, like).Scan(&c.Messages, &c.DistinctMessages)
	if err != nil {
		return c, err
	}
	lo, hi, like = benchkit.PrefixRange(s.phonePrefix)
	err = s.db.QueryRowContext(ctx, countContacts, s.orgID, lo, hi, like).Scan(&c.Contacts, &c.DistinctPhones)
	return c, err
}

// storedAmongChunk is how many ids one storedAmong statement looks up.
const storedAmongChunk = 10_000

// storedAmong returns which of ids are stored: the poller's sample. It
// looks up only the ids given (by the unique index), so a sample costs
// what is not yet seen stored, not the whole run: counting the run's rows
// each second cost the database it measures 0.4 s a sample at half a
// million rows (no index-only scan: the visibility map of rows just
// written is not set), 0.4 of its 2 cores.
func (s *store) storedAmong(ctx context.Context, ids []string) ([]string, error) {
	var found []string
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), storedAmongChunk)]
		ids = ids[len(chunk):]
		rows, err := s.db.QueryContext(ctx, storedAmong, pq.Array(chunk))
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, err
			}
			found = append(found, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return found, nil
}

// storedIDs lists the run's stored message ids.
func (s *store) storedIDs(ctx context.Context) (map[string]bool, error) {
	lo, hi, like := benchkit.PrefixRange(s.wamidPrefix)
	rows, err := s.db.QueryContext(ctx, listMessages, lo, hi, like)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids[id] = true
	}
	return ids, rows.Err()
}

// poller samples how many of the run's messages are stored every
// interval (which may change while it runs) and keeps the series. It
// counts the started message ids it has seen stored, looking up at each
// sample only those not seen yet.
type poller struct {
	s        *store
	t        *tracker
	start    time.Time
	interval atomic.Int64

	// Only run's goroutine uses these.
	next   int             // started ids taken from the tracker
	unseen map[string]bool // taken ids not seen stored yet
	seen   int64

	mu     sync.Mutex
	series []counts
	errs   int
	wake   chan struct{} // receives after each sample
	nudge  chan struct{} // cuts the current wait short (setInterval)
}

func newPoller(s *store, t *tracker, start time.Time, every time.Duration) *poller {
	p := &poller{s: s, t: t, start: start, unseen: map[string]bool{}, wake: make(chan struct{}, 1), nudge: make(chan struct{}, 1)}
	p.interval.Store(int64(every))
	return p
}

func (p *poller) run(ctx context.Context) {
	for ctx.Err() == nil {
		c, err := p.sample(ctx)
		p.mu.Lock()
		if err != nil {
			p.errs++
		} else {
			c.Seconds = c.At.Sub(p.start).Seconds()
			p.series = append(p.series, c)
		}
		p.mu.Unlock()
		select {
		case p.wake <- struct{}{}:
		default:
		}
		select {
		case <-ctx.Done():
		case <-p.nudge:
		case <-time.After(time.Duration(p.interval.Load())):
		}
	}
}

// sample takes the ids started since the last sample and counts those
// now stored among the ones not seen yet.
func (p *poller) sample(ctx context.Context) (counts, error) {
	c := counts{At: time.Now()}
	started := p.t.startedSince(p.next)
	p.next += len(started)
	for _, id := range started {
		p.unseen[id] = true
	}
	ids := make([]string, 0, len(p.unseen))
	for id := range p.unseen {
		ids = append(ids, id)
	}
	found, err := p.s.storedAmong(ctx, ids)
	if err != nil {
		return c, err
	}
	for _, id := range found {
		if p.unseen[id] {
			delete(p.unseen, id)
			p.seen++
		}
	}
	c.Messages = p.seen
	return c, nil
}

// setInterval changes the sampling interval and samples at once, so that
// the drain after the load is not measured late by a wait of the load's
// longer interval.
func (p *poller) setInterval(every time.Duration) {
	p.interval.Store(int64(every))
	select {
	case p.nudge <- struct{}{}:
	default:
	}
}

// latest is the last sample (zero before the first).
func (p *poller) latest() counts {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.series) == 0 {
		return counts{}
	}
	return p.series[len(p.series)-1]
}

func (p *poller) samples() ([]counts, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]counts(nil), p.series...), p.errs
}
