package widgets

import (
	"context"
	"fmt"
	"math"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/agenttransfer"
	"switchboard/ent/campaign"
	"switchboard/ent/chatbotsession"
	"switchboard/ent/contact"
	"switchboard/ent/message"
	"switchboard/ent/predicate"
)

// Source is a data source a widget counts: the rows of one kind, dated by
// one of their times, with the fields a widget may filter and group by.
type Source struct {
	Name   string
	Label  string
	Fields []string
	// date is the time that places a row in a period.
	date string
	scan scanFunc
}

// scanFunc runs a query of the source under the viewer's privacy rules:
// where narrows the rows, shape selects the aggregate, dst receives it.
type scanFunc func(ctx context.Context, db *ent.Client, where []func(*sql.Selector), shape func(*sql.Selector), dst any) error

func asPredicates[P ~func(*sql.Selector)](ps []func(*sql.Selector)) []P {
	out := make([]P, len(ps))
	for i, p := range ps {
		out[i] = P(p)
	}
	return out
}

// Sources are the data sources widgets count, in the order clients list
// them: those whose rows the service keeps.
var Sources = []Source{
	{Name: "messages", Label: "Messages", date: message.FieldCreatedAt,
		Fields: []string{message.FieldStatus, message.FieldDirection, message.FieldMessageType, message.FieldChatAccount},
		scan: func(ctx context.Context, db *ent.Client, w []func(*sql.Selector), shape func(*sql.Selector), dst any) error {
			return db.Message.Query().Where(asPredicates[predicate.Message](w)...).Modify(shape).Scan(ctx, dst)
		}},
	{Name: "contacts", Label: "Contacts", date: contact.FieldCreatedAt,
		Fields: []string{contact.FieldStatus, contact.FieldChatAccount},
		scan: func(ctx context.Context, db *ent.Client, w []func(*sql.Selector), shape func(*sql.Selector), dst any) error {
			return db.Contact.Query().Where(asPredicates[predicate.Contact](w)...).Modify(shape).Scan(ctx, dst)
		}},
	{Name: "campaigns", Label: "Campaigns", date: campaign.FieldCreatedAt,
		Fields: []string{campaign.FieldStatus, campaign.FieldChatAccount},
		scan: func(ctx context.Context, db *ent.Client, w []func(*sql.Selector), shape func(*sql.Selector), dst any) error {
			return db.Campaign.Query().Where(asPredicates[predicate.Campaign](w)...).Modify(shape).Scan(ctx, dst)
		}},
	{Name: "transfers", Label: "Transfers", date: agenttransfer.FieldTransferredAt,
		Fields: []string{agenttransfer.FieldStatus, agenttransfer.FieldSource},
		scan: func(ctx context.Context, db *ent.Client, w []func(*sql.Selector), shape func(*sql.Selector), dst any) error {
			return db.AgentTransfer.Query().Where(asPredicates[predicate.AgentTransfer](w)...).Modify(shape).Scan(ctx, dst)
		}},
	{Name: "sessions", Label: "Chatbot sessions", date: chatbotsession.FieldStartedAt,
		Fields: []string{chatbotsession.FieldStatus},
		scan: func(ctx context.Context, db *ent.Client, w []func(*sql.Selector), shape func(*sql.Selector), dst any) error {
			return db.ChatbotSession.Query().Where(asPredicates[predicate.ChatbotSession](w)...).Modify(shape).Scan(ctx, dst)
		}},
}

func sourceNamed(name string) (Source, bool) {
	for _, s := range Sources {
		if s.Name == name {
			return s, true
		}
	}
	return Source{}, false
}

// maxPeriodDays bounds a period, and so the points of a chart.
const maxPeriodDays = 366

// Period is the days a widget counts: From (midnight UTC) up to To
// (exclusive).
type Period struct {
	From, To time.Time
}

// days is the number of days of the period.
func (p Period) days() int { return int(p.To.Sub(p.From).Hours() / 24) }

// previous is the period of the same length just before p.
func (p Period) previous() Period { return Period{From: p.From.Add(-p.To.Sub(p.From)), To: p.From} }

// ParsePeriod reads the days from and to (YYYY-MM-DD, both included); an
// empty from is the first day of now's month, an empty to is now's day.
// Errors: invalid (a bad date, to before from, more than 366 days).
func ParsePeriod(from, to string, now time.Time) (Period, error) {
	now = now.UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	p := Period{From: time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC), To: today}
	var err error
	if from != "" {
		if p.From, err = time.Parse(time.DateOnly, from); err != nil {
			return p, apperr.Invalidf("from must be a date YYYY-MM-DD")
		}
	}
	if to != "" {
		if p.To, err = time.Parse(time.DateOnly, to); err != nil {
			return p, apperr.Invalidf("to must be a date YYYY-MM-DD")
		}
	}
	p.To = p.To.AddDate(0, 0, 1)
	switch {
	case !p.To.After(p.From):
		return p, apperr.Invalidf("to must not be before from")
	case p.days() > maxPeriodDays:
		return p, apperr.Invalidf("a period spans at most %d days", maxPeriodDays)
	}
	return p, nil
}

// Point is a labelled count of a chart.
type Point struct {
	Label string
	Value float64
}

// Data is what a widget shows for a period: the count, the count of the
// period before and the change between them in percent, the count of
// each day (charts) and of each value of the group-by field.
type Data struct {
	WidgetID   uuid.UUID
	Value      float64
	PrevValue  float64
	Change     float64
	ChartData  []Point
	DataPoints []Point
}

// compute counts the rows of the widget's source in p.
func compute(ctx context.Context, db *ent.Client, w *ent.DashboardWidget, p Period) (*Data, error) {
	d := &Data{WidgetID: w.ID, ChartData: []Point{}, DataPoints: []Point{}}
	src, ok := sourceNamed(w.DataSource)
	if w.DisplayType == DisplayShortcuts || !ok {
		return d, nil
	}
	filters := filtersOf(w.Filters)
	count := func(p Period) (float64, error) {
		var rows []struct {
			N int `json:"n"`
		}
		err := src.scan(ctx, db, where(src, filters, p), func(s *sql.Selector) {
			s.Select(sql.As(sql.Count("*"), "n"))
		}, &rows)
		if err != nil || len(rows) == 0 {
			return 0, err
		}
		return float64(rows[0].N), nil
	}
	var err error
	if d.Value, err = count(p); err != nil {
		return nil, apperr.Wrap(err, w.DataSource)
	}
	if w.ShowChange {
		if d.PrevValue, err = count(p.previous()); err != nil {
			return nil, apperr.Wrap(err, w.DataSource)
		}
		d.Change = change(d.PrevValue, d.Value)
	}
	if w.DisplayType != DisplayChart {
		return d, nil
	}
	if d.ChartData, err = daily(ctx, db, src, filters, p); err != nil {
		return nil, apperr.Wrap(err, w.DataSource)
	}
	if w.GroupByField != "" {
		if d.DataPoints, err = grouped(ctx, db, src, filters, p, w.GroupByField); err != nil {
			return nil, apperr.Wrap(err, w.DataSource)
		}
	}
	return d, nil
}

// change is the change from prev to cur in percent (100 from nothing).
func change(prev, cur float64) float64 {
	switch {
	case prev == 0 && cur == 0:
		return 0
	case prev == 0:
		return 100
	}
	return math.Round((cur-prev)/prev*1000) / 10
}

func where(src Source, filters []Filter, p Period) []func(*sql.Selector) {
	out := []func(*sql.Selector){sql.FieldGTE(src.date, p.From), sql.FieldLT(src.date, p.To)}
	for _, f := range filters {
		switch f.Operator {
		case OpEquals:
			out = append(out, sql.FieldEQ(f.Field, f.Value))
		case OpNotEquals:
			out = append(out, sql.FieldNEQ(f.Field, f.Value))
		case OpContains:
			out = append(out, sql.FieldContainsFold(f.Field, f.Value))
		}
	}
	return out
}

// daily counts the rows of each day of p (UTC), days without rows
// included.
func daily(ctx context.Context, db *ent.Client, src Source, filters []Filter, p Period) ([]Point, error) {
	var rows []struct {
		Day string `json:"day"`
		N   int    `json:"n"`
	}
	err := src.scan(ctx, db, where(src, filters, p), func(s *sql.Selector) {
		day := fmt.Sprintf("substr(%s, 1, 10)", s.C(src.date))
		if s.Dialect() == dialect.Postgres {
			day = fmt.Sprintf("to_char(%s AT TIME ZONE 'UTC', 'YYYY-MM-DD')", s.C(src.date))
		}
		s.Select(sql.As(day, "day"), sql.As(sql.Count("*"), "n")).GroupBy("day")
	}, &rows)
	if err != nil {
		return nil, err
	}
	byDay := make(map[string]int, len(rows))
	for _, r := range rows {
		byDay[r.Day] = r.N
	}
	out := make([]Point, 0, p.days())
	for d := p.From; d.Before(p.To); d = d.AddDate(0, 0, 1) {
		label := d.Format(time.DateOnly)
		out = append(out, Point{Label: label, Value: float64(byDay[label])})
	}
	return out, nil
}

// noValue labels the rows whose group-by field is empty.
const noValue = "(none)"

// grouped counts the rows of p by the value of field, largest first.
func grouped(ctx context.Context, db *ent.Client, src Source, filters []Filter, p Period, field string) ([]Point, error) {
	var rows []struct {
		Label string `json:"label"`
		N     int    `json:"n"`
	}
	err := src.scan(ctx, db, where(src, filters, p), func(s *sql.Selector) {
		s.Select(sql.As(s.C(field), "label"), sql.As(sql.Count("*"), "n")).
			GroupBy(s.C(field)).OrderBy(sql.Desc("n"), "label")
	}, &rows)
	if err != nil {
		return nil, err
	}
	out := make([]Point, len(rows))
	for i, r := range rows {
		if r.Label == "" {
			r.Label = noValue
		}
		out[i] = Point{Label: r.Label, Value: float64(r.N)}
	}
	return out, nil
}

// Data computes a widget the viewer sees for p. Errors: not_found.
func (s *Service) Data(ctx context.Context, id uuid.UUID, p Period) (*Data, error) {
	w, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return compute(ctx, database.ClientFor(ctx, s.Client), w, p)
}

// AllData computes every widget the viewer sees for p, in dashboard
// order. Errors: unauthenticated.
func (s *Service) AllData(ctx context.Context, p Period) ([]*Data, error) {
	ws, err := s.List(ctx)
	if err != nil {
		return nil, err
	}
	db := database.ClientFor(ctx, s.Client)
	out := make([]*Data, len(ws))
	for i, w := range ws {
		if out[i], err = compute(ctx, db, w, p); err != nil {
			return nil, err
		}
	}
	return out, nil
}
