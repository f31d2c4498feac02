// Package analytics owns the organization's reports: the dashboard's
// totals with their change against the period before, the agents' work on
// chatbot transfers (volumes, queue, first response and resolution times,
// breaks, messages sent) and the platform's own analytics of the
// organization's business accounts (messaging, pricing, template and call
// analytics), fetched from the Graph API and cached in Redis per
// organization and query.
//
// It reads rows through the ent client under the viewer's privacy rules
// (every count is of the viewer's organization) and writes nothing but its
// daily rollups (rollup.go) and its cache. Reports of other agents need AgentsPermission; the operations'
// own permission (analytics:read) is in access/operations.go.
package analytics

import (
	"context"
	"database/sql/driver"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/viewer"
	"switchboard/provider"
	"switchboard/secrets"
	"switchboard/worker"
)

// AgentsPermission lets a member see other members' agent analytics (the
// organization's summary, every agent's stats, the agent_id filter, one
// agent's details and the comparison). Admin and Manager hold it, Agent
// does not; without it a member sees their own numbers only.
const AgentsPermission = "users:read"

// MaxPeriodDays bounds a report's period.
const MaxPeriodDays = 366

// Service is the analytics operations.
type Service struct {
	Client *ent.Client
	// Secrets opens the accounts' access tokens for platform calls.
	Secrets *secrets.Box
	// Provider calls the platform's Graph API.
	Provider *provider.Client
	// Redis caches the platform's analytics; nil caches nothing.
	Redis *redis.Client
	// Prefix namespaces the Redis keys.
	Prefix string
	// CacheTTL is how long a platform answer is kept (DefaultCacheTTL
	// when zero).
	CacheTTL time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Postgres tells the dialect (SQLite otherwise) for the SQL the
	// rollups write.
	Postgres bool
	// Queue queues the periodic rollup tasks; nil queues none.
	Queue *worker.Client

	// scheduled is the last interval whose rollup tasks this node queued.
	scheduled atomic.Int64
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func (s *Service) db(ctx context.Context) *ent.Client { return database.ClientFor(ctx, s.Client) }

// Period is the days a report covers: From (midnight UTC) up to To
// (midnight UTC after the last day, exclusive).
type Period struct {
	From, To time.Time
}

// Days is the number of days of the period.
func (p Period) Days() int { return int(p.To.Sub(p.From).Hours() / 24) }

// Previous is the period of the same length just before p.
func (p Period) Previous() Period { return Period{From: p.From.Add(-p.To.Sub(p.From)), To: p.From} }

// ParsePeriod reads the days from and to (YYYY-MM-DD, both included); an
// empty from is the first day of now's month (UTC), an empty to is now's
// day. Errors: invalid (a bad date, to before from, more than
// MaxPeriodDays days).
func ParsePeriod(from, to string, now time.Time) (Period, error) {
	now = now.UTC()
	p := Period{
		From: time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC),
		To:   time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC),
	}
	var err error
	if from != "" {
		if p.From, err = parseDay("from", from); err != nil {
			return p, err
		}
	}
	if to != "" {
		if p.To, err = parseDay("to", to); err != nil {
			return p, err
		}
	}
	p.To = p.To.AddDate(0, 0, 1)
	switch {
	case !p.To.After(p.From):
		return p, apperr.Invalidf("to must not be before from")
	case p.Days() > MaxPeriodDays:
		return p, apperr.Invalidf("a period spans at most %d days", MaxPeriodDays)
	}
	return p, nil
}

func parseDay(name, s string) (time.Time, error) {
	if len(s) != len(time.DateOnly) {
		return time.Time{}, apperr.Invalidf("%s must be a date YYYY-MM-DD", name)
	}
	d, err := time.Parse(time.DateOnly, s)
	if err != nil || d.Year() < 2000 || d.Year() > 2999 {
		return time.Time{}, apperr.Invalidf("%s must be a date YYYY-MM-DD", name)
	}
	return d, nil
}

// GroupBy is the bucket of a trend: a day or an ISO week (from Monday).
type GroupBy string

// Trend buckets.
const (
	ByDay  GroupBy = "day"
	ByWeek GroupBy = "week"
)

// ParseGroupBy reads group_by (empty: day). Errors: invalid.
func ParseGroupBy(s string) (GroupBy, error) {
	switch GroupBy(s) {
	case "", ByDay:
		return ByDay, nil
	case ByWeek:
		return ByWeek, nil
	}
	return "", apperr.Invalidf("group_by must be day or week")
}

// bucket is the first day of t's bucket.
func (g GroupBy) bucket(t time.Time) time.Time {
	t = t.UTC()
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	if g == ByWeek {
		d = d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
	}
	return d
}

// next is the first day of the bucket after the one starting at d.
func (g GroupBy) next(d time.Time) time.Time {
	if g == ByWeek {
		return d.AddDate(0, 0, 7)
	}
	return d.AddDate(0, 0, 1)
}

// Change is the change from prev to cur in percent, one decimal (100
// from nothing, 0 from nothing to nothing).
func Change(prev, cur float64) float64 {
	switch {
	case prev == 0 && cur == 0:
		return 0
	case prev == 0:
		return 100
	}
	return round1((cur - prev) / prev * 100)
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }

// round2 keeps two decimals of a duration in minutes.
func round2(x float64) float64 { return math.Round(x*100) / 100 }

// viewerOf returns the acting member. Errors: unauthenticated.
func viewerOf(ctx context.Context) (*viewer.Viewer, error) {
	v := viewer.FromContext(ctx)
	if v == nil || !v.HasOrg() {
		return nil, apperr.New(apperr.Unauthenticated, "authentication required")
	}
	return v, nil
}

// nullTime scans a timestamp that may be NULL, whichever way the driver
// gives it (PostgreSQL a time, SQLite text for aggregates).
type nullTime struct {
	Time  time.Time
	Valid bool
}

// Scan implements sql.Scanner.
func (n *nullTime) Scan(src any) error {
	n.Valid = false
	switch v := src.(type) {
	case nil:
		return nil
	case time.Time:
		n.Time, n.Valid = v.UTC(), true
		return nil
	case string:
		return n.parse(v)
	case []byte:
		return n.parse(string(v))
	}
	return fmt.Errorf("analytics: cannot scan %T as a time", src)
}

func (n *nullTime) parse(s string) error {
	// RFC 3339, the text the SQLite driver writes (time.Time.String) and
	// the text of a day.
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999",
		"2006-01-02 15:04:05.999999999 -0700 MST", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			n.Time, n.Valid = t.UTC(), true
			return nil
		}
	}
	return fmt.Errorf("analytics: cannot read time %q", s)
}

// Value implements driver.Valuer (for completeness; never written).
func (n nullTime) Value() (driver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.Time, nil
}
