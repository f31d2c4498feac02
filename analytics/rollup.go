package analytics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/agenttransfer"
	"switchboard/ent/analyticsagentday"
	"switchboard/ent/analyticsday"
	"switchboard/ent/chatbotsession"
	"switchboard/ent/contact"
	"switchboard/ent/message"
	"switchboard/ent/predicate"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
	"switchboard/worker"
)

// Rollups. The reports sum per-day rollups (AnalyticsDay for the
// dashboard, AnalyticsAgentDay for the agents) over the settled days of
// their period and read the rest live from the raw rows:
//
//   - A UTC day is settled Settle after its end; the days after the last
//     settled one (today, and yesterday during the first hour) are read
//     live, as are the active transfers of the whole period (they still
//     change, so they are never rolled up).
//   - A settled day without a valid rollup is built on first read (one
//     grouped query per table over all such days of the period) and
//     stored; the periodic task builds the missing days of the last two
//     years ahead of the reads.
//   - Every change that moves a past day's numbers through the ent client
//     bumps that day's version (hooks installed by Track, in the same
//     transaction): rows created with a past timestamp, a transfer of a
//     past day updated (resumed) or deleted, a contact deleted (with its
//     messages, sessions and transfers). A build stores a day only if its
//     version has not moved since the build started, so a day is valid
//     exactly when built_version = version.
//   - Writes by plain SQL bump the versions themselves (MarkPastDays):
//     the received messages' insert on PostgreSQL (their created_at is
//     the platform's timestamp, and the platform redelivers for up to
//     seven days) is the one such writer of past days. The periodic task
//     builds the days that are missing or stale; a valid day is not read
//     again (it rebuilt the last eight settled days every RollupInterval,
//     a read of every message of those days: 691,200 in 0.45 s every ten
//     minutes for an organization of 10,000,000 messages, bench/scale).
//
// Durations are summed in microseconds and counted, so means are exact.
// No report has percentiles.

// Settle is how long after its end a UTC day is still read live, so that
// the messages stamped just before midnight and delivered just after it
// are in its rollup.
const Settle = time.Hour

// RollupInterval is how often the periodic task runs per organization.
const RollupInterval = 10 * time.Minute

// rollupHistory is how many settled days the periodic task keeps built:
// a period of MaxPeriodDays and the one before it.
const rollupHistory = 2 * MaxPeriodDays

// TaskRollup refreshes one organization's rollups.
const TaskRollup = "analytics:rollup"

// dayOf is the midnight UTC starting t's day.
func dayOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// settledEnd is the first day that is not settled at now.
func settledEnd(now time.Time) time.Time { return dayOf(now.Add(-Settle)) }

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// span is whole days [From, To).
type span struct{ From, To time.Time }

// daysIn lists the days of [from, to).
func daysIn(from, to time.Time) []time.Time {
	var out []time.Time
	for d := from; d.Before(to); d = d.AddDate(0, 0, 1) {
		out = append(out, d)
	}
	return out
}

// spansOf covers sorted days with spans, bridging gaps of up to three
// days (a few more days read beat one more query).
func spansOf(days []time.Time) []span {
	var out []span
	for _, d := range days {
		if n := len(out); n > 0 && !d.After(out[n-1].To.AddDate(0, 0, 3)) {
			out[n-1].To = d.AddDate(0, 0, 1)
			continue
		}
		out = append(out, span{From: d, To: d.AddDate(0, 0, 1)})
	}
	return out
}

// inSpans keeps the rows whose column falls in one of the spans.
func inSpans(col string, spans []span) func(*sql.Selector) {
	return func(s *sql.Selector) {
		ps := make([]*sql.Predicate, len(spans))
		for i, sp := range spans {
			ps[i] = sql.And(sql.GTE(s.C(col), sp.From), sql.LT(s.C(col), sp.To))
		}
		s.Where(sql.Or(ps...))
	}
}

// dayExpr is the UTC day of a timestamp column in SQL: a date on
// PostgreSQL, the text YYYY-MM-DD on SQLite (which stores every time as
// UTC text, its day first).
func (s *Service) dayExpr(col string) string {
	if s.Postgres {
		return "((" + col + " AT TIME ZONE 'UTC')::date)"
	}
	return "substr(" + col + ", 1, 10)"
}

// byDay groups a query by the UTC day of col, counting its rows (and
// grouping further by the extra columns, selected too).
func (s *Service) byDay(col string, extra ...string) func(*sql.Selector) {
	return func(sel *sql.Selector) {
		day := s.dayExpr(sel.C(col))
		cols := []string{sql.As(day, "d")}
		group := []string{day}
		for _, c := range extra {
			cols = append(cols, sel.C(c))
			group = append(group, sel.C(c))
		}
		sel.Select(append(cols, sql.As(sql.Count("*"), "n"))...).GroupBy(group...)
	}
}

// dayCount is a row of a query grouped by byDay.
type dayCount struct {
	Day nullTime `sql:"d"`
	N   int64    `sql:"n"`
}

// dayNumbers are one day's dashboard counts.
type dayNumbers struct{ Messages, Contacts, Sessions int64 }

// countDays counts the messages, contacts and chatbot sessions created in
// the spans, by day.
func (s *Service) countDays(ctx context.Context, db *ent.Client, spans []span) (map[time.Time]*dayNumbers, error) {
	out := map[time.Time]*dayNumbers{}
	at := func(d nullTime) *dayNumbers {
		k := dayOf(d.Time)
		if out[k] == nil {
			out[k] = &dayNumbers{}
		}
		return out[k]
	}
	var rows []dayCount
	if err := db.Message.Query().Where(predicate.Message(inSpans(message.FieldCreatedAt, spans))).
		Modify(s.byDay(message.FieldCreatedAt)).Scan(ctx, &rows); err != nil {
		return nil, apperr.Wrap(err, "messages")
	}
	for _, r := range rows {
		at(r.Day).Messages += r.N
	}
	rows = rows[:0]
	if err := db.Contact.Query().Where(predicate.Contact(inSpans(contact.FieldCreatedAt, spans))).
		Modify(s.byDay(contact.FieldCreatedAt)).Scan(ctx, &rows); err != nil {
		return nil, apperr.Wrap(err, "contacts")
	}
	for _, r := range rows {
		at(r.Day).Contacts += r.N
	}
	rows = rows[:0]
	if err := db.ChatbotSession.Query().Where(predicate.ChatbotSession(inSpans(chatbotsession.FieldStartedAt, spans))).
		Modify(s.byDay(chatbotsession.FieldStartedAt)).Scan(ctx, &rows); err != nil {
		return nil, apperr.Wrap(err, "chatbot sessions")
	}
	for _, r := range rows {
		at(r.Day).Sessions += r.N
	}
	return out, nil
}

// tally sums a set of transfers' numbers; every field adds up, so the
// tallies of days, agents and sources merge by addition.
type tally struct {
	Transfers, Handled        int64
	QueueUS, QueueN           int64
	FirstUS, FirstN           int64
	ResolutionUS, ResolutionN int64
	MessagesSent              int64
}

func addSpan(sum, n *int64, from, to nullTime) {
	if !from.Valid || !to.Valid || to.Time.Before(from.Time) {
		return
	}
	*sum += to.Time.Sub(from.Time).Microseconds()
	*n++
}

// addTransfer counts one transfer: the first response only when it has
// an agent (the agent's answer), like handled.
func (t *tally) addTransfer(r *transferRow) {
	t.Transfers++
	if r.handled() {
		t.Handled++
	}
	addSpan(&t.QueueUS, &t.QueueN, r.TransferredAt, r.AssignedAt)
	if r.AgentID.Valid {
		addSpan(&t.FirstUS, &t.FirstN, r.since(), r.FirstResponse)
	}
	addSpan(&t.ResolutionUS, &t.ResolutionN, r.TransferredAt, r.ResumedAt)
}

func (t *tally) add(o *tally) {
	t.Transfers += o.Transfers
	t.Handled += o.Handled
	t.QueueUS += o.QueueUS
	t.QueueN += o.QueueN
	t.FirstUS += o.FirstUS
	t.FirstN += o.FirstN
	t.ResolutionUS += o.ResolutionUS
	t.ResolutionN += o.ResolutionN
	t.MessagesSent += o.MessagesSent
}

// meanMins is the mean of n durations summing to us microseconds, in
// minutes with two decimals.
func meanMins(us, n int64) float64 {
	if n == 0 {
		return 0
	}
	return round2(float64(us) / float64(n) / float64(time.Minute/time.Microsecond))
}

// agentKey is a rollup row's key: a day, an agent (uuid.Nil: none) and a
// transfer source.
type agentKey struct {
	Day    time.Time
	Agent  uuid.UUID
	Source string
}

// agentDays are tallies by day, agent and source.
type agentDays map[agentKey]*tally

func (a agentDays) at(k agentKey) *tally {
	t := a[k]
	if t == nil {
		t = &tally{}
		a[k] = t
	}
	return t
}

// addTransfers tallies transfers by the day of their creation.
func (a agentDays) addTransfers(rows []transferRow) {
	for i := range rows {
		r := &rows[i]
		if !r.TransferredAt.Valid {
			continue
		}
		k := agentKey{Day: dayOf(r.TransferredAt.Time), Source: r.Source}
		if r.AgentID.Valid {
			k.Agent = r.AgentID.UUID
		}
		a.at(k).addTransfer(r)
	}
}

// transferRows reads the transfers matching preds with their first
// response: stamped on the transfer, else the agent's first outgoing
// message to the contact from the assignment (the creation when never
// queued) up to the resumption (the messages' (contact_id, created_at)
// index finds it). Bounding it by the resumption keeps a resumed
// transfer's numbers final.
func (s *Service) transferRows(ctx context.Context, db *ent.Client, preds ...predicate.AgentTransfer) ([]transferRow, error) {
	var rows []transferRow
	err := db.AgentTransfer.Query().Where(preds...).Modify(func(s *sql.Selector) {
		s.Select(s.C(agenttransfer.FieldAgentID), s.C(agenttransfer.FieldSource), s.C(agenttransfer.FieldStatus),
			s.C(agenttransfer.FieldTransferredAt), s.C(agenttransfer.FieldAssignedAt), s.C(agenttransfer.FieldResumedAt))
		s.AppendSelectExprAs(sql.Raw(fmt.Sprintf(
			"COALESCE(%s, (SELECT MIN(m.created_at) FROM messages m WHERE m.contact_id = %s AND m.direction = 'outgoing' "+
				"AND m.sent_by_user_id = %s AND m.created_at >= COALESCE(%s, %s) AND (%s IS NULL OR m.created_at <= %s)))",
			s.C(agenttransfer.FieldFirstResponseAt), s.C(agenttransfer.FieldContactID), s.C(agenttransfer.FieldAgentID),
			s.C(agenttransfer.FieldAssignedAt), s.C(agenttransfer.FieldTransferredAt),
			s.C(agenttransfer.FieldResumedAt), s.C(agenttransfer.FieldResumedAt))), "first_response")
	}).Scan(ctx, &rows)
	return rows, apperr.Wrap(err, "transfers")
}

// agentDaysOf tallies, over the spans, the resumed transfers created and
// the messages agents sent, by day, agent and source (the messages under
// source ""), of one agent (scope) or of everyone.
func (s *Service) agentDaysOf(ctx context.Context, db *ent.Client, spans []span, scope *uuid.UUID) (agentDays, error) {
	out := agentDays{}
	tp := []predicate.AgentTransfer{
		predicate.AgentTransfer(inSpans(agenttransfer.FieldTransferredAt, spans)),
		agenttransfer.StatusEQ(agenttransfer.StatusResumed),
	}
	if scope != nil {
		tp = append(tp, agenttransfer.AgentID(*scope))
	}
	rows, err := s.transferRows(ctx, db, tp...)
	if err != nil {
		return nil, err
	}
	out.addTransfers(rows)

	mq := db.Message.Query().Where(predicate.Message(inSpans(message.FieldCreatedAt, spans)),
		message.DirectionEQ(message.DirectionOutgoing))
	if scope != nil {
		mq.Where(message.SentByUserID(*scope))
	} else {
		mq.Where(message.SentByUserIDNotNil())
	}
	var sent []struct {
		Day    nullTime  `sql:"d"`
		N      int64     `sql:"n"`
		UserID uuid.UUID `sql:"sent_by_user_id"`
	}
	if err := mq.Modify(s.byDay(message.FieldCreatedAt, message.FieldSentByUserID)).Scan(ctx, &sent); err != nil {
		return nil, apperr.Wrap(err, "messages")
	}
	for _, r := range sent {
		out.at(agentKey{Day: dayOf(r.Day.Time), Agent: r.UserID}).MessagesSent += r.N
	}
	return out, nil
}

// ensure makes the rollups of the settled days of [from, to) valid,
// building the missing and stale ones, and returns every settled day's
// dashboard counts.
func (s *Service) ensure(ctx context.Context, from, to time.Time) (map[time.Time]*dayNumbers, error) {
	if end := settledEnd(s.now()); to.After(end) {
		to = end
	}
	out := map[time.Time]*dayNumbers{}
	if !from.Before(to) {
		return out, nil
	}
	db := s.db(ctx)
	rows, err := db.AnalyticsDay.Query().Where(analyticsday.DayGTE(from), analyticsday.DayLT(to)).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "rollups")
	}
	versions := map[time.Time]int64{}
	for _, r := range rows {
		d := dayOf(r.Day)
		versions[d] = r.Version
		if r.BuiltVersion != nil && *r.BuiltVersion == r.Version {
			out[d] = &dayNumbers{Messages: r.Messages, Contacts: r.Contacts, Sessions: r.ChatbotSessions}
		}
	}
	var stale []time.Time
	for _, d := range daysIn(from, to) {
		if out[d] == nil {
			stale = append(stale, d)
		}
	}
	if len(stale) == 0 {
		return out, nil
	}
	built, err := s.build(ctx, stale, versions)
	if err != nil {
		return nil, err
	}
	for d, n := range built {
		out[d] = n
	}
	return out, nil
}

// versionsOf reads the versions of the days' rollups (0 when missing).
func (s *Service) versionsOf(ctx context.Context, days []time.Time) (map[time.Time]int64, error) {
	out := map[time.Time]int64{}
	if len(days) == 0 {
		return out, nil
	}
	rows, err := s.db(ctx).AnalyticsDay.Query().
		Where(analyticsday.DayGTE(days[0]), analyticsday.DayLT(days[len(days)-1].AddDate(0, 0, 1))).
		Select(analyticsday.FieldDay, analyticsday.FieldVersion).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "rollups")
	}
	for _, r := range rows {
		out[dayOf(r.Day)] = r.Version
	}
	return out, nil
}

// build computes the rollups of the days (sorted) from the raw rows and
// stores those whose version is still the one read before (versions,
// read before the raw rows: a change committed in between bumped it).
// It returns the days' dashboard counts as computed.
func (s *Service) build(ctx context.Context, days []time.Time, versions map[time.Time]int64) (map[time.Time]*dayNumbers, error) {
	v := viewer.FromContext(ctx)
	if !v.HasOrg() {
		return nil, apperr.New(apperr.Unauthenticated, "authentication required")
	}
	db := s.db(ctx)
	spans := spansOf(days)
	counts, err := s.countDays(ctx, db, spans)
	if err != nil {
		return nil, err
	}
	agents, err := s.agentDaysOf(ctx, db, spans, nil)
	if err != nil {
		return nil, err
	}
	out := make(map[time.Time]*dayNumbers, len(days))
	for _, d := range days {
		if counts[d] == nil {
			counts[d] = &dayNumbers{}
		}
		out[d] = counts[d]
	}
	err = database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		applied, err := s.storeDays(ctx, db, v.OrgID, days, versions, counts)
		if err != nil || len(applied) == 0 {
			return err
		}
		ds := make([]time.Time, 0, len(applied))
		for d := range applied {
			ds = append(ds, d)
		}
		if _, err := db.AnalyticsAgentDay.Delete().Where(analyticsagentday.DayIn(ds...)).Exec(ctx); err != nil {
			return err
		}
		keys := make([]agentKey, 0, len(agents))
		for k := range agents {
			if applied[k.Day] {
				keys = append(keys, k)
			}
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i].Day.Before(keys[j].Day) })
		return database.InChunks(keys, len(analyticsagentday.Columns), func(part []agentKey) error {
			bs := make([]*ent.AnalyticsAgentDayCreate, len(part))
			for i, k := range part {
				t := agents[k]
				bs[i] = db.AnalyticsAgentDay.Create().SetOrganizationID(v.OrgID).SetDay(k.Day).SetAgentID(k.Agent).
					SetSource(k.Source).SetTransfers(t.Transfers).SetHandled(t.Handled).
					SetQueueUs(t.QueueUS).SetQueueN(t.QueueN).SetFirstResponseUs(t.FirstUS).SetFirstResponseN(t.FirstN).
					SetResolutionUs(t.ResolutionUS).SetResolutionN(t.ResolutionN).SetMessagesSent(t.MessagesSent)
			}
			return db.AnalyticsAgentDay.CreateBulk(bs...).Exec(ctx)
		})
	})
	if err != nil {
		return nil, apperr.Wrap(err, "rollups")
	}
	return out, nil
}

// storeDays upserts the days' AnalyticsDay rows, each only if its version
// is still versions[day] (0: no row), and returns the days stored. The
// conditional upsert locks the row, so concurrent builds of a day store
// one after the other, and a change's version bump waits for the build
// that read before it.
func (s *Service) storeDays(ctx context.Context, db *ent.Client, org uuid.UUID, days []time.Time, versions map[time.Time]int64,
	counts map[time.Time]*dayNumbers) (map[time.Time]bool, error) {
	d := dialect.SQLite
	if s.Postgres {
		d = dialect.Postgres
	}
	applied := map[time.Time]bool{}
	cols := []string{analyticsday.FieldID, analyticsday.FieldOrganizationID, analyticsday.FieldDay, analyticsday.FieldVersion,
		analyticsday.FieldCreatedAt, analyticsday.FieldBuiltVersion, analyticsday.FieldBuiltAt, analyticsday.FieldUpdatedAt,
		analyticsday.FieldMessages, analyticsday.FieldContacts, analyticsday.FieldChatbotSessions}
	now := s.now()
	err := database.InChunks(days, len(cols), func(part []time.Time) error {
		ins := sql.Dialect(d).Insert(analyticsday.Table).Columns(cols...)
		for _, day := range part {
			n := counts[day]
			ins.Values(uuid.Must(uuid.NewV7()), org, day, versions[day], now, versions[day], now, now, n.Messages, n.Contacts, n.Sessions)
		}
		ins.OnConflict(
			sql.ConflictColumns(analyticsday.FieldOrganizationID, analyticsday.FieldDay),
			sql.ResolveWith(func(u *sql.UpdateSet) {
				for _, c := range cols[5:] {
					u.SetExcluded(c)
				}
			}),
			sql.UpdateWhere(sql.ExprP(analyticsday.Table+"."+analyticsday.FieldVersion+" = excluded."+analyticsday.FieldVersion)),
		).Returning(analyticsday.FieldDay)
		query, args := ins.Query()
		rows, err := db.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var t nullTime
			if err := rows.Scan(&t); err != nil {
				return err
			}
			applied[dayOf(t.Time)] = true
		}
		return rows.Err()
	})
	return applied, err
}

// Rebuild rebuilds the rollups of the days [from, to) of the viewer's
// organization from the raw rows, whatever their state (settled days
// only).
func (s *Service) Rebuild(ctx context.Context, from, to time.Time) error {
	if end := settledEnd(s.now()); to.After(end) {
		to = end
	}
	days := daysIn(dayOf(from), to)
	if len(days) == 0 {
		return nil
	}
	versions, err := s.versionsOf(ctx, days)
	if err != nil {
		return err
	}
	_, err = s.build(ctx, days, versions)
	return err
}

// Refresh is the periodic task's work for the viewer's organization:
// build the missing or stale days of the last rollupHistory settled days.
func (s *Service) Refresh(ctx context.Context) error {
	end := settledEnd(s.now())
	_, err := s.ensure(ctx, end.AddDate(0, 0, -rollupHistory), end)
	return err
}

// rollupTask is TaskRollup's payload.
type rollupTask struct {
	OrgID uuid.UUID `json:"organization_id"`
}

// Register installs the rollup task's handler on w.
func (s *Service) Register(w *worker.Worker) {
	w.HandleFunc(TaskRollup, func(ctx context.Context, t *asynq.Task) error {
		var p rollupTask
		if err := json.Unmarshal(t.Payload(), &p); err != nil {
			return fmt.Errorf("%w: %v", asynq.SkipRetry, err)
		}
		return s.Refresh(viewer.SystemContext(ctx, p.OrgID))
	})
}

// ScheduleRollups queues the rollup task of every organization once per
// RollupInterval (the task id names the interval, and a done task keeps
// it for the interval), whichever node's sweep runs first; a node tries
// once per interval. It returns how many it queued.
func (s *Service) ScheduleRollups(ctx context.Context) (int, error) {
	slot := s.now().Truncate(RollupInterval).Unix()
	if s.Queue == nil || s.scheduled.Load() == slot {
		return 0, nil
	}
	ids, err := s.Client.Organization.Query().IDs(rule.Bypass(ctx, "the analytics rollups of every organization"))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		payload, _ := json.Marshal(rollupTask{OrgID: id})
		_, err := s.Queue.Enqueue(ctx, asynq.NewTask(TaskRollup, payload),
			asynq.TaskID(fmt.Sprintf("analytics-rollup:%s:%d", id, slot)), asynq.Retention(RollupInterval),
			asynq.MaxRetry(3), asynq.Queue(worker.QueueLow))
		switch {
		case err == nil:
			n++
		case errors.Is(err, asynq.ErrTaskIDConflict), errors.Is(err, asynq.ErrDuplicateTask):
		default:
			return n, err
		}
	}
	s.scheduled.Store(slot)
	return n, nil
}
