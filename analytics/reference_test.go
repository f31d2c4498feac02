package analytics

import (
	"context"
	"fmt"
	"sort"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/ent/agentbreak"
	"switchboard/ent/agenttransfer"
	"switchboard/ent/campaign"
	"switchboard/ent/chatbotsession"
	"switchboard/ent/contact"
	"switchboard/ent/message"
	"switchboard/ent/organizationmember"
	"switchboard/ent/user"
)

// The reference: the reports as they were computed before the rollups,
// from the period's raw rows only. Two differences, both in the rollups'
// favour: a fallback first response must come before the resumption, and
// durations are summed in whole microseconds (the rollups' exact sums)
// instead of float minutes.

func refDashboard(ctx context.Context, db *ent.Client, p Period) (DashboardStats, error) {
	var st DashboardStats
	prev := p.Previous()
	counts := []struct {
		count func(Period) (int, error)
		cur   *int
		chg   *float64
	}{
		{func(q Period) (int, error) {
			return db.Message.Query().Where(message.CreatedAtGTE(q.From), message.CreatedAtLT(q.To)).Count(ctx)
		}, &st.TotalMessages, &st.MessagesChange},
		{func(q Period) (int, error) {
			return db.Contact.Query().Where(contact.CreatedAtGTE(q.From), contact.CreatedAtLT(q.To)).Count(ctx)
		}, &st.TotalContacts, &st.ContactsChange},
		{func(q Period) (int, error) {
			return db.ChatbotSession.Query().Where(chatbotsession.StartedAtGTE(q.From), chatbotsession.StartedAtLT(q.To)).Count(ctx)
		}, &st.ChatbotSessions, &st.ChatbotChange},
		{func(q Period) (int, error) {
			return db.Campaign.Query().Where(campaign.StartedAtGTE(q.From), campaign.StartedAtLT(q.To)).Count(ctx)
		}, &st.CampaignsSent, &st.CampaignsChange},
	}
	for _, c := range counts {
		cur, err := c.count(p)
		if err != nil {
			return st, err
		}
		before, err := c.count(prev)
		if err != nil {
			return st, err
		}
		*c.cur, *c.chg = cur, Change(float64(before), float64(cur))
	}
	return st, nil
}

// refAgents is Agents (for a viewer with AgentsPermission) on the
// reference.
func refAgents(ctx context.Context, db *ent.Client, now time.Time, in AgentsInput) (*AgentReport, error) {
	d, err := refLoad(ctx, db, in.Period, in.AgentID)
	if err != nil {
		return nil, err
	}
	r := &AgentReport{Summary: d.summary(now, in.Period), AgentStats: d.agentStats(now, in.Period),
		TrendData: d.trend(in.Period, in.GroupBy)}
	if in.AgentID != nil && len(r.AgentStats) == 1 {
		r.MyStats = r.AgentStats[0]
	}
	return r, nil
}

type refData struct {
	scope     *uuid.UUID
	members   []member
	transfers []transferRow
	active    map[uuid.UUID]int
	activeAll int
	sent      map[uuid.UUID]int
	breaks    []breakRow
}

func refLoad(ctx context.Context, db *ent.Client, p Period, scope *uuid.UUID) (*refData, error) {
	d := &refData{scope: scope, active: map[uuid.UUID]int{}, sent: map[uuid.UUID]int{}}
	mq := db.OrganizationMember.Query()
	if scope != nil {
		mq.Where(organizationmember.UserID(*scope))
	}
	ids, err := mq.Select(organizationmember.FieldUserID).Strings(ctx)
	if err != nil {
		return nil, err
	}
	uids := make([]uuid.UUID, 0, len(ids))
	for _, id := range ids {
		uids = append(uids, uuid.MustParse(id))
	}
	users, err := db.User.Query().Where(user.IDIn(uids...)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, u := range users {
		name := u.FullName
		if name == "" {
			name = u.Email
		}
		d.members = append(d.members, member{id: u.ID, name: name, available: u.IsAvailable})
	}
	sort.Slice(d.members, func(i, j int) bool { return d.members[i].name < d.members[j].name })

	tq := db.AgentTransfer.Query().Where(agenttransfer.TransferredAtGTE(p.From), agenttransfer.TransferredAtLT(p.To))
	if scope != nil {
		tq.Where(agenttransfer.AgentID(*scope))
	}
	err = tq.Modify(func(s *sql.Selector) {
		s.Select(s.C(agenttransfer.FieldAgentID), s.C(agenttransfer.FieldSource), s.C(agenttransfer.FieldStatus),
			s.C(agenttransfer.FieldTransferredAt), s.C(agenttransfer.FieldAssignedAt), s.C(agenttransfer.FieldResumedAt))
		s.AppendSelectExprAs(sql.Raw(fmt.Sprintf(
			"COALESCE(%s, (SELECT MIN(m.created_at) FROM messages m WHERE m.contact_id = %s AND m.direction = 'outgoing' "+
				"AND m.sent_by_user_id = %s AND m.created_at >= COALESCE(%s, %s) AND (%s IS NULL OR m.created_at <= %s)))",
			s.C(agenttransfer.FieldFirstResponseAt), s.C(agenttransfer.FieldContactID), s.C(agenttransfer.FieldAgentID),
			s.C(agenttransfer.FieldAssignedAt), s.C(agenttransfer.FieldTransferredAt),
			s.C(agenttransfer.FieldResumedAt), s.C(agenttransfer.FieldResumedAt))), "first_response")
	}).Scan(ctx, &d.transfers)
	if err != nil {
		return nil, err
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
		return nil, err
	}
	for _, a := range active {
		d.activeAll += a.N
		if a.AgentID.Valid {
			d.active[a.AgentID.UUID] = a.N
		}
	}

	sq := db.Message.Query().Where(message.CreatedAtGTE(p.From), message.CreatedAtLT(p.To),
		message.DirectionEQ(message.DirectionOutgoing))
	if scope != nil {
		sq.Where(message.SentByUserID(*scope))
	} else {
		sq.Where(message.SentByUserIDNotNil())
	}
	var sent []struct {
		UserID uuid.UUID `sql:"sent_by_user_id"`
		N      int       `sql:"n"`
	}
	err = sq.Modify(func(s *sql.Selector) {
		s.Select(s.C(message.FieldSentByUserID), sql.As(sql.Count("*"), "n")).GroupBy(s.C(message.FieldSentByUserID))
	}).Scan(ctx, &sent)
	if err != nil {
		return nil, err
	}
	for _, r := range sent {
		d.sent[r.UserID] = r.N
	}

	bq := db.AgentBreak.Query().Where(agentbreak.StartedAtLT(p.To),
		agentbreak.Or(agentbreak.EndedAtIsNil(), agentbreak.EndedAtGT(p.From)))
	if scope != nil {
		bq.Where(agentbreak.UserID(*scope))
	}
	err = bq.Modify(func(s *sql.Selector) {
		s.Select(s.C(agentbreak.FieldUserID), s.C(agentbreak.FieldStartedAt), s.C(agentbreak.FieldEndedAt))
	}).Scan(ctx, &d.breaks)
	return d, err
}

// refMean keeps a running mean of durations (whole microseconds).
type refMean struct{ sum, n int64 }

func (m *refMean) add(from, to nullTime) {
	if !from.Valid || !to.Valid || to.Time.Before(from.Time) {
		return
	}
	m.sum += to.Time.Sub(from.Time).Microseconds()
	m.n++
}

func (m refMean) value() float64 { return meanMins(m.sum, m.n) }

func (d *refData) breakTime(now time.Time, p Period, who *uuid.UUID) (float64, int) {
	ad := &agentData{breaks: d.breaks}
	return ad.breakTime(now, p, who)
}

func (d *refData) summary(now time.Time, p Period) AgentSummary {
	var queue, first, resolution refMean
	sm := AgentSummary{TransfersBySource: map[string]any{}}
	bySource := map[string]int{}
	for i := range d.transfers {
		t := &d.transfers[i]
		bySource[t.Source]++
		if t.handled() {
			sm.TotalTransfersHandled++
		}
		queue.add(t.TransferredAt, t.AssignedAt)
		if t.AgentID.Valid {
			first.add(t.since(), t.FirstResponse)
		}
		resolution.add(t.TransferredAt, t.ResumedAt)
	}
	for k, n := range bySource {
		sm.TransfersBySource[k] = n
	}
	sm.AvgQueueTimeMins, sm.AvgFirstResponseMins, sm.AvgResolutionMins = queue.value(), first.value(), resolution.value()
	if d.scope == nil {
		sm.ActiveTransfers = d.activeAll
	} else {
		sm.ActiveTransfers = d.active[*d.scope]
	}
	sm.TotalBreakTimeMins, sm.BreakCount = d.breakTime(now, p, d.scope)
	return sm
}

func (d *refData) agentStats(now time.Time, p Period) []*AgentStats {
	type acc struct{ first, resolution refMean }
	per := map[uuid.UUID]*acc{}
	handled := map[uuid.UUID]int{}
	for i := range d.transfers {
		t := &d.transfers[i]
		if !t.AgentID.Valid {
			continue
		}
		a := per[t.AgentID.UUID]
		if a == nil {
			a = &acc{}
			per[t.AgentID.UUID] = a
		}
		a.first.add(t.since(), t.FirstResponse)
		a.resolution.add(t.TransferredAt, t.ResumedAt)
		if t.handled() {
			handled[t.AgentID.UUID]++
		}
	}
	out := make([]*AgentStats, 0, len(d.members))
	for _, m := range d.members {
		st := &AgentStats{
			AgentID: m.id, AgentName: m.name, TransfersHandled: handled[m.id], ActiveTransfers: d.active[m.id],
			MessagesSent: d.sent[m.id], IsAvailable: m.available,
		}
		if a := per[m.id]; a != nil {
			st.AvgFirstResponseMins, st.AvgResolutionMins = a.first.value(), a.resolution.value()
		}
		id := m.id
		st.TotalBreakTimeMins, st.BreakCount = d.breakTime(now, p, &id)
		out = append(out, st)
	}
	return out
}

func (d *refData) trend(p Period, g GroupBy) []*TrendPoint {
	type bucket struct {
		handled int
		first   refMean
	}
	buckets := map[time.Time]*bucket{}
	var order []time.Time
	for b := g.bucket(p.From); b.Before(p.To); b = g.next(b) {
		buckets[b] = &bucket{}
		order = append(order, b)
	}
	for i := range d.transfers {
		t := &d.transfers[i]
		if !t.TransferredAt.Valid {
			continue
		}
		b := buckets[g.bucket(t.TransferredAt.Time)]
		if b == nil {
			continue
		}
		if t.handled() {
			b.handled++
		}
		if t.AgentID.Valid {
			b.first.add(t.since(), t.FirstResponse)
		}
	}
	out := make([]*TrendPoint, 0, len(order))
	for _, k := range order {
		b := buckets[k]
		out = append(out, &TrendPoint{Date: k.Format(time.DateOnly), TransfersHandled: b.handled, AvgResponseMins: b.first.value()})
	}
	return out
}
