package analytics

import (
	"context"
	"sort"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/agentbreak"
	"switchboard/ent/agenttransfer"
	"switchboard/ent/analyticsagentday"
	"switchboard/ent/organizationmember"
	"switchboard/ent/predicate"
	"switchboard/ent/user"
)

// AgentStats are one agent's numbers over a period.
type AgentStats struct {
	AgentID   uuid.UUID `json:"agent_id"`
	AgentName string    `json:"agent_name"`
	// AvgFirstResponseMins is the mean time from a transfer's assignment
	// (its creation when it was never queued) to the agent's first
	// message to the contact.
	AvgFirstResponseMins float64 `json:"avg_first_response_mins"`
	// AvgResolutionMins is the mean time from a transfer's creation to
	// the chatbot's resumption.
	AvgResolutionMins float64 `json:"avg_resolution_mins"`
	// TransfersHandled counts the agent's transfers of the period that
	// are resolved (resumed).
	TransfersHandled int `json:"transfers_handled"`
	// ActiveTransfers counts the agent's transfers active now.
	ActiveTransfers int `json:"active_transfers"`
	// MessagesSent counts the outgoing messages the agent sent in the
	// period.
	MessagesSent int `json:"messages_sent"`
	// TotalBreakTimeMins is the agent's time on break within the period
	// (an open break counts up to now).
	TotalBreakTimeMins float64 `json:"total_break_time_mins"`
	// BreakCount counts the breaks the agent started in the period.
	BreakCount  int  `json:"break_count"`
	IsAvailable bool `json:"is_available"`
	// CurrentBreakStart is when the agent's open break started (agent
	// details only; nil when available).
	CurrentBreakStart *time.Time `json:"current_break_start,omitempty"`
}

// AgentSummary sums up the transfers of the organization or of one
// agent over a period.
type AgentSummary struct {
	TotalTransfersHandled int     `json:"total_transfers_handled"`
	ActiveTransfers       int     `json:"active_transfers"`
	AvgQueueTimeMins      float64 `json:"avg_queue_time_mins"`
	AvgFirstResponseMins  float64 `json:"avg_first_response_mins"`
	AvgResolutionMins     float64 `json:"avg_resolution_mins"`
	// TransfersBySource counts the period's transfers by their source
	// (flow, manual, ivr...).
	TransfersBySource  map[string]any `json:"transfers_by_source"`
	TotalBreakTimeMins float64        `json:"total_break_time_mins"`
	BreakCount         int            `json:"break_count"`
}

// TrendPoint is one bucket (day or week, by its first day) of a trend.
type TrendPoint struct {
	Date             string  `json:"date"`
	TransfersHandled int     `json:"transfers_handled"`
	AvgResponseMins  float64 `json:"avg_response_mins"`
}

// AgentReport is the agents' analytics answer. MyStats are the numbers of
// the agent the answer is about: the viewer without AgentsPermission, the
// agent filtered on; nil for the whole organization.
type AgentReport struct {
	Summary    AgentSummary  `json:"summary"`
	AgentStats []*AgentStats `json:"agent_stats"`
	TrendData  []*TrendPoint `json:"trend_data"`
	MyStats    *AgentStats   `json:"my_stats"`
}

// AgentDetail is one agent's stats and trend.
type AgentDetail struct {
	Agent     *AgentStats   `json:"agent"`
	TrendData []*TrendPoint `json:"trend_data"`
}

// AgentsInput asks for the agents' analytics.
type AgentsInput struct {
	Period  Period
	GroupBy GroupBy
	// AgentID narrows the report to one agent (needs AgentsPermission).
	AgentID *uuid.UUID
}

// Agents reports the agents' work on transfers over the period: for a
// viewer with AgentsPermission the organization's summary and trend and
// every member's stats (or, with AgentID, that agent's); for others their
// own. Errors: unauthenticated, forbidden (AgentID without
// AgentsPermission), not_found (AgentID is no member).
func (s *Service) Agents(ctx context.Context, in AgentsInput) (*AgentReport, error) {
	v, err := viewerOf(ctx)
	if err != nil {
		return nil, err
	}
	all := v.Can(AgentsPermission)
	if in.AgentID != nil && !all {
		return nil, apperr.Forbiddenf("filtering by agent_id needs the permission %s", AgentsPermission)
	}
	var scope *uuid.UUID
	switch {
	case in.AgentID != nil:
		scope = in.AgentID
	case !all:
		scope = &v.UserID
	}
	d, err := s.load(ctx, in.Period, scope, true)
	if err != nil {
		return nil, err
	}
	r := &AgentReport{
		Summary: d.summary(s.now(), in.Period), AgentStats: []*AgentStats{},
		TrendData: d.trend(in.Period, in.GroupBy),
	}
	if scope == nil {
		r.AgentStats = d.agentStats(s.now(), in.Period)
		return r, nil
	}
	stats := d.agentStats(s.now(), in.Period)
	if len(stats) == 1 {
		r.MyStats = stats[0]
		if in.AgentID != nil {
			r.AgentStats = stats
		}
	}
	return r, nil
}

// Agent reports one member's stats (with their open break's start) and
// trend. A member may read their own; others' need AgentsPermission.
// Errors: unauthenticated, forbidden, not_found.
func (s *Service) Agent(ctx context.Context, id uuid.UUID, p Period, g GroupBy) (*AgentDetail, error) {
	v, err := viewerOf(ctx)
	if err != nil {
		return nil, err
	}
	if id != v.UserID && !v.Can(AgentsPermission) {
		return nil, apperr.Forbiddenf("another agent's analytics need the permission %s", AgentsPermission)
	}
	d, err := s.load(ctx, p, &id, true)
	if err != nil {
		return nil, err
	}
	stats := d.agentStats(s.now(), p)
	if len(stats) != 1 {
		return nil, apperr.NotFoundf("agent not found")
	}
	a := stats[0]
	for _, b := range d.breaks {
		if !b.EndedAt.Valid {
			start := b.StartedAt.Time
			a.CurrentBreakStart = &start
		}
	}
	if a.CurrentBreakStart == nil && !a.IsAvailable {
		// An open break that started before the period.
		open, err := s.db(ctx).AgentBreak.Query().
			Where(agentbreak.UserID(id), agentbreak.EndedAtIsNil()).
			Order(ent.Desc(agentbreak.FieldStartedAt)).First(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return nil, apperr.Wrap(err, "break")
		}
		if open != nil {
			a.CurrentBreakStart = &open.StartedAt
		}
	}
	return &AgentDetail{Agent: a, TrendData: d.trend(p, g)}, nil
}

// Comparison lists every member's stats over the period, most transfers
// handled first. Errors: unauthenticated, forbidden.
func (s *Service) Comparison(ctx context.Context, p Period) ([]*AgentStats, error) {
	v, err := viewerOf(ctx)
	if err != nil {
		return nil, err
	}
	if !v.Can(AgentsPermission) {
		return nil, apperr.Forbiddenf("comparing agents needs the permission %s", AgentsPermission)
	}
	d, err := s.load(ctx, p, nil, false)
	if err != nil {
		return nil, err
	}
	out := d.agentStats(s.now(), p)
	sort.SliceStable(out, func(i, j int) bool { return out[i].TransfersHandled > out[j].TransfersHandled })
	return out, nil
}

// transferRow is what the reports read of a transfer.
type transferRow struct {
	AgentID       uuid.NullUUID `sql:"agent_id"`
	Source        string        `sql:"source"`
	Status        string        `sql:"status"`
	TransferredAt nullTime      `sql:"transferred_at"`
	AssignedAt    nullTime      `sql:"assigned_at"`
	ResumedAt     nullTime      `sql:"resumed_at"`
	FirstResponse nullTime      `sql:"first_response"`
}

type breakRow struct {
	UserID    uuid.UUID `sql:"user_id"`
	StartedAt nullTime  `sql:"started_at"`
	EndedAt   nullTime  `sql:"ended_at"`
}

type member struct {
	id        uuid.UUID
	name      string
	available bool
}

// agentSource keys the period's tallies: an agent (uuid.Nil: none) and a
// transfer source.
type agentSource struct {
	Agent  uuid.UUID
	Source string
}

// agentData is what one report reads: the members it is about, the
// tallies of the period's transfers and messages sent by agent and source
// and (for trends) by day, the active transfers per agent and the breaks
// overlapping the period.
type agentData struct {
	scope   *uuid.UUID
	members []member
	byAgent map[agentSource]*tally
	byDay   map[time.Time]*tally
	active  map[uuid.UUID]int
	// activeAll counts every active transfer (queued ones too).
	activeAll int
	breaks    []breakRow
}

func (d *agentData) add(k agentKey, t *tally) {
	a := agentSource{Agent: k.Agent, Source: k.Source}
	if d.byAgent[a] == nil {
		d.byAgent[a] = &tally{}
	}
	d.byAgent[a].add(t)
	if d.byDay != nil {
		if d.byDay[k.Day] == nil {
			d.byDay[k.Day] = &tally{}
		}
		d.byDay[k.Day].add(t)
	}
}

// rollupSums is a row of the sums of AnalyticsAgentDay rows.
type rollupSums struct {
	AgentID      uuid.UUID `sql:"agent_id"`
	Source       string    `sql:"source"`
	Day          nullTime  `sql:"day"`
	Transfers    int64     `sql:"transfers"`
	Handled      int64     `sql:"handled"`
	QueueUS      int64     `sql:"queue_us"`
	QueueN       int64     `sql:"queue_n"`
	FirstUS      int64     `sql:"first_response_us"`
	FirstN       int64     `sql:"first_response_n"`
	ResolutionUS int64     `sql:"resolution_us"`
	ResolutionN  int64     `sql:"resolution_n"`
	MessagesSent int64     `sql:"messages_sent"`
}

func (r *rollupSums) tally() *tally {
	return &tally{Transfers: r.Transfers, Handled: r.Handled, QueueUS: r.QueueUS, QueueN: r.QueueN, FirstUS: r.FirstUS,
		FirstN: r.FirstN, ResolutionUS: r.ResolutionUS, ResolutionN: r.ResolutionN, MessagesSent: r.MessagesSent}
}

// sumRollups sums the agent rollups of [from, to) (valid after ensure)
// grouped by the columns.
func sumRollups(ctx context.Context, db *ent.Client, from, to time.Time, scope *uuid.UUID, group ...string) ([]rollupSums, error) {
	q := db.AnalyticsAgentDay.Query().Where(analyticsagentday.DayGTE(from), analyticsagentday.DayLT(to))
	if scope != nil {
		q.Where(analyticsagentday.AgentID(*scope))
	}
	var rows []rollupSums
	err := q.Modify(func(s *sql.Selector) {
		cols := make([]string, 0, len(group)+9)
		for _, g := range group {
			cols = append(cols, s.C(g))
		}
		for _, c := range []string{analyticsagentday.FieldTransfers, analyticsagentday.FieldHandled,
			analyticsagentday.FieldQueueUs, analyticsagentday.FieldQueueN, analyticsagentday.FieldFirstResponseUs,
			analyticsagentday.FieldFirstResponseN, analyticsagentday.FieldResolutionUs, analyticsagentday.FieldResolutionN,
			analyticsagentday.FieldMessagesSent} {
			cols = append(cols, sql.As(sql.Sum(s.C(c)), c))
		}
		gs := make([]string, len(group))
		for i, g := range group {
			gs[i] = s.C(g)
		}
		s.Select(cols...).GroupBy(gs...)
	}).Scan(ctx, &rows)
	return rows, apperr.Wrap(err, "rollups")
}

// load reads a report's numbers over p, of one member (scope) or of the
// organization: the settled days from the rollups, the other days and
// the active transfers live; by day too when trend. Errors: not_found
// (scope is no member).
func (s *Service) load(ctx context.Context, p Period, scope *uuid.UUID, trend bool) (*agentData, error) {
	db := s.db(ctx)
	d := &agentData{scope: scope, active: map[uuid.UUID]int{}, byAgent: map[agentSource]*tally{}}
	if trend {
		d.byDay = map[time.Time]*tally{}
	}
	mq := db.OrganizationMember.Query()
	if scope != nil {
		mq.Where(organizationmember.UserID(*scope))
	}
	ids, err := mq.Select(organizationmember.FieldUserID).Strings(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "members")
	}
	if scope != nil && len(ids) == 0 {
		return nil, apperr.NotFoundf("agent not found")
	}
	uids := make([]uuid.UUID, 0, len(ids))
	for _, id := range ids {
		if u, err := uuid.Parse(id); err == nil {
			uids = append(uids, u)
		}
	}
	users, err := db.User.Query().Where(user.IDIn(uids...)).
		Select(user.FieldID, user.FieldFullName, user.FieldEmail, user.FieldIsAvailable).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "members")
	}
	for _, u := range users {
		name := u.FullName
		if name == "" {
			name = u.Email
		}
		d.members = append(d.members, member{id: u.ID, name: name, available: u.IsAvailable})
	}
	sort.Slice(d.members, func(i, j int) bool { return d.members[i].name < d.members[j].name })

	// The settled days: rollups.
	end := settledEnd(s.now())
	if p.From.Before(end) {
		to := p.To
		if end.Before(to) {
			to = end
		}
		if _, err := s.ensure(ctx, p.From, to); err != nil {
			return nil, err
		}
		rows, err := sumRollups(ctx, db, p.From, to, scope, analyticsagentday.FieldAgentID, analyticsagentday.FieldSource)
		if err != nil {
			return nil, err
		}
		for i := range rows {
			a := agentSource{Agent: rows[i].AgentID, Source: rows[i].Source}
			if d.byAgent[a] == nil {
				d.byAgent[a] = &tally{}
			}
			d.byAgent[a].add(rows[i].tally())
		}
		if trend {
			if rows, err = sumRollups(ctx, db, p.From, to, scope, analyticsagentday.FieldDay); err != nil {
				return nil, err
			}
			for i := range rows {
				k := dayOf(rows[i].Day.Time)
				if d.byDay[k] == nil {
					d.byDay[k] = &tally{}
				}
				d.byDay[k].add(rows[i].tally())
			}
		}
	}
	// The days after: live.
	if from := later(p.From, end); from.Before(p.To) {
		live, err := s.agentDaysOf(ctx, db, []span{{From: from, To: p.To}}, scope)
		if err != nil {
			return nil, err
		}
		for k, t := range live {
			d.add(k, t)
		}
	}
	// The period's active transfers: live.
	tp := []predicate.AgentTransfer{agenttransfer.StatusEQ(agenttransfer.StatusActive),
		agenttransfer.TransferredAtGTE(p.From), agenttransfer.TransferredAtLT(p.To)}
	if scope != nil {
		tp = append(tp, agenttransfer.AgentID(*scope))
	}
	rows, err := s.transferRows(ctx, db, tp...)
	if err != nil {
		return nil, err
	}
	live := agentDays{}
	live.addTransfers(rows)
	for k, t := range live {
		d.add(k, t)
	}

	var active []struct {
		AgentID uuid.NullUUID `sql:"agent_id"`
		N       int           `sql:"n"`
	}
	aq := db.AgentTransfer.Query().Where(agenttransfer.StatusEQ(agenttransfer.StatusActive))
	if scope != nil {
		aq.Where(agenttransfer.AgentID(*scope))
	}
	err = aq.Modify(func(s *sql.Selector) {
		s.Select(s.C(agenttransfer.FieldAgentID), sql.As(sql.Count("*"), "n")).GroupBy(s.C(agenttransfer.FieldAgentID))
	}).Scan(ctx, &active)
	if err != nil {
		return nil, apperr.Wrap(err, "transfers")
	}
	for _, a := range active {
		d.activeAll += a.N
		if a.AgentID.Valid {
			d.active[a.AgentID.UUID] = a.N
		}
	}

	bq := db.AgentBreak.Query().Where(agentbreak.StartedAtLT(p.To),
		agentbreak.Or(agentbreak.EndedAtIsNil(), agentbreak.EndedAtGT(p.From)))
	if scope != nil {
		bq.Where(agentbreak.UserID(*scope))
	}
	err = bq.Modify(func(s *sql.Selector) {
		s.Select(s.C(agentbreak.FieldUserID), s.C(agentbreak.FieldStartedAt), s.C(agentbreak.FieldEndedAt))
	}).Scan(ctx, &d.breaks)
	if err != nil {
		return nil, apperr.Wrap(err, "breaks")
	}
	return d, nil
}

// since is when a transfer's wait for its agent's answer starts.
func (t *transferRow) since() nullTime {
	if t.AssignedAt.Valid {
		return t.AssignedAt
	}
	return t.TransferredAt
}

func (t *transferRow) handled() bool {
	return t.AgentID.Valid && t.Status == agenttransfer.StatusResumed.String()
}

// breakTime sums the minutes of breaks within p (up to now) and counts
// the breaks started in p, of one user or (nil) of everyone.
func (d *agentData) breakTime(now time.Time, p Period, who *uuid.UUID) (float64, int) {
	var mins float64
	var n int
	end := p.To
	if now.Before(end) {
		end = now
	}
	for _, b := range d.breaks {
		if who != nil && b.UserID != *who {
			continue
		}
		from, to := b.StartedAt.Time, end
		if b.EndedAt.Valid && b.EndedAt.Time.Before(to) {
			to = b.EndedAt.Time
		}
		if from.Before(p.From) {
			from = p.From
		} else {
			n++
		}
		if to.After(from) {
			mins += to.Sub(from).Minutes()
		}
	}
	return round2(mins), n
}

func (d *agentData) summary(now time.Time, p Period) AgentSummary {
	var all tally
	bySource := map[string]int64{}
	for k, t := range d.byAgent {
		all.add(t)
		if t.Transfers > 0 {
			bySource[k.Source] += t.Transfers
		}
	}
	sm := AgentSummary{TransfersBySource: map[string]any{}, TotalTransfersHandled: int(all.Handled)}
	for k, n := range bySource {
		sm.TransfersBySource[k] = int(n)
	}
	sm.AvgQueueTimeMins = meanMins(all.QueueUS, all.QueueN)
	sm.AvgFirstResponseMins = meanMins(all.FirstUS, all.FirstN)
	sm.AvgResolutionMins = meanMins(all.ResolutionUS, all.ResolutionN)
	if d.scope == nil {
		sm.ActiveTransfers = d.activeAll
	} else {
		sm.ActiveTransfers = d.active[*d.scope]
	}
	sm.TotalBreakTimeMins, sm.BreakCount = d.breakTime(now, p, d.scope)
	return sm
}

// agentStats computes every member's stats, in the members' order.
func (d *agentData) agentStats(now time.Time, p Period) []*AgentStats {
	per := map[uuid.UUID]*tally{}
	for k, t := range d.byAgent {
		if per[k.Agent] == nil {
			per[k.Agent] = &tally{}
		}
		per[k.Agent].add(t)
	}
	out := make([]*AgentStats, 0, len(d.members))
	for _, m := range d.members {
		st := &AgentStats{AgentID: m.id, AgentName: m.name, ActiveTransfers: d.active[m.id], IsAvailable: m.available}
		if t := per[m.id]; t != nil {
			st.TransfersHandled, st.MessagesSent = int(t.Handled), int(t.MessagesSent)
			st.AvgFirstResponseMins, st.AvgResolutionMins = meanMins(t.FirstUS, t.FirstN), meanMins(t.ResolutionUS, t.ResolutionN)
		}
		id := m.id
		st.TotalBreakTimeMins, st.BreakCount = d.breakTime(now, p, &id)
		out = append(out, st)
	}
	return out
}

// trend buckets the handled transfers and the first response times by
// the day or week of their creation; every bucket of p is present.
func (d *agentData) trend(p Period, g GroupBy) []*TrendPoint {
	buckets := map[time.Time]*tally{}
	var order []time.Time
	for b := g.bucket(p.From); b.Before(p.To); b = g.next(b) {
		buckets[b] = &tally{}
		order = append(order, b)
	}
	for day, t := range d.byDay {
		if b := buckets[g.bucket(day)]; b != nil {
			b.add(t)
		}
	}
	out := make([]*TrendPoint, 0, len(order))
	for _, k := range order {
		b := buckets[k]
		out = append(out, &TrendPoint{Date: k.Format(time.DateOnly), TransfersHandled: int(b.Handled),
			AvgResponseMins: meanMins(b.FirstUS, b.FirstN)})
	}
	return out
}
