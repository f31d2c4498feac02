package analytics

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/agenttransfer"
	"switchboard/ent/analyticsday"
	"switchboard/ent/message"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
	"switchboard/worker"
)

// openDB opens a fresh database of the engine, schema created.
func openDB(t *testing.T, engine string) *database.DB {
	t.Helper()
	url := ""
	if engine == "postgres" {
		if url = testenv.PostgresURL(t); url == "" {
			t.Skip("no PostgreSQL")
		}
	}
	db, err := database.Open(context.Background(), database.Options{URL: url, DataDir: t.TempDir(),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := db.AutoMigrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// fixture is an organization with agents and a history over the days
// before now (and today), written through ent.
type fixture struct {
	s      *Service
	db     *database.DB
	ctx    context.Context
	org    uuid.UUID
	agents []uuid.UUID
	now    *time.Time
}

func newFixture(t *testing.T, engine string, now time.Time) *fixture {
	t.Helper()
	db := openDB(t, engine)
	f := &fixture{db: db, now: &now}
	f.s = &Service{Client: db.Client, Postgres: db.Postgres(), Now: func() time.Time { return *f.now }}
	f.s.Track()
	bg := rule.Bypass(context.Background(), "test fixture")
	org, err := db.Client.Organization.Create().SetName("Org").SetSlug("org-" + uuid.NewString()[:8]).Save(bg)
	if err != nil {
		t.Fatal(err)
	}
	f.org = org.ID
	f.ctx = viewer.SystemContext(context.Background(), org.ID)
	role, err := db.Client.Role.Create().SetName("Agent").Save(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		u, err := db.Client.User.Create().SetEmail(fmt.Sprintf("agent%d-%s@example.com", i, uuid.NewString()[:6])).
			SetFullName(fmt.Sprintf("Agent %d", i)).Save(bg)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Client.OrganizationMember.Create().SetUserID(u.ID).SetRoleID(role.ID).Exec(f.ctx); err != nil {
			t.Fatal(err)
		}
		f.agents = append(f.agents, u.ID)
	}
	return f
}

// seed writes a random history over the 20 days up to now: contacts,
// messages in both directions (some sent by agents), chatbot sessions,
// transfers (resumed and active, some without agent, first responses
// stamped or found in the messages) and breaks.
func (f *fixture) seed(t *testing.T, r *rand.Rand) {
	t.Helper()
	c := f.db.Client
	now := *f.now
	start := dayOf(now).AddDate(0, 0, -19)
	at := func() time.Time {
		return start.Add(time.Duration(r.Int64N(int64(now.Sub(start)))))
	}
	var contacts []*ent.Contact
	for i := 0; i < 30; i++ {
		ct, err := c.Contact.Create().SetPhoneNumber(fmt.Sprintf("1555%07d", i)).SetCreatedAt(at()).Save(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		contacts = append(contacts, ct)
	}
	msg := func(ct *ent.Contact, when time.Time, by *uuid.UUID) {
		q := c.Message.Create().SetContactID(ct.ID).SetCreatedAt(when).SetContent(map[string]any{"body": "x"}).
			SetDirection(message.DirectionIncoming)
		if by != nil {
			q.SetDirection(message.DirectionOutgoing).SetSentByUserID(*by)
		} else if r.IntN(2) == 0 {
			q.SetDirection(message.DirectionOutgoing)
		}
		if err := q.Exec(f.ctx); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 300; i++ {
		var by *uuid.UUID
		if r.IntN(4) == 0 {
			by = &f.agents[r.IntN(len(f.agents))]
		}
		msg(contacts[r.IntN(len(contacts))], at(), by)
	}
	for i := 0; i < 40; i++ {
		if err := c.ChatbotSession.Create().SetContactID(contacts[r.IntN(len(contacts))].ID).SetStartedAt(at()).Exec(f.ctx); err != nil {
			t.Fatal(err)
		}
	}
	minutes := func(n int) time.Duration { return time.Duration(r.IntN(n*60)) * time.Second }
	for i := 0; i < 60; i++ {
		ct := contacts[r.IntN(len(contacts))]
		when := at()
		q := c.AgentTransfer.Create().SetContactID(ct.ID).SetTransferredAt(when).
			SetSource([]string{"flow", "manual", "ivr"}[r.IntN(3)])
		var agent *uuid.UUID
		if r.IntN(5) != 0 {
			agent = &f.agents[r.IntN(len(f.agents))]
			assigned := when.Add(minutes(30))
			q.SetAgentID(*agent).SetAssignedAt(assigned)
			switch r.IntN(3) {
			case 0:
				q.SetFirstResponseAt(assigned.Add(minutes(20)))
			case 1: // found in the messages
				msg(ct, assigned.Add(minutes(20)), agent)
			}
		}
		if r.IntN(10) < 7 {
			resumed := when.Add(minutes(600))
			if resumed.After(now) {
				resumed = now
			}
			q.SetStatus(agenttransfer.StatusResumed).SetResumedAt(resumed)
		}
		if err := q.Exec(f.ctx); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 12; i++ {
		b := c.AgentBreak.Create().SetUserID(f.agents[r.IntN(len(f.agents))]).SetStartedAt(at())
		if i > 0 {
			b.SetEndedAt(now.Add(-time.Duration(r.IntN(3600)) * time.Second))
		}
		if err := b.Exec(f.ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// check compares every report, over periods with settled days, today and
// days to come, with the reference computed from the raw rows.
func (f *fixture) check(t *testing.T, label string) {
	t.Helper()
	today := dayOf(*f.now)
	day := func(n int) time.Time { return today.AddDate(0, 0, n) }
	periods := []Period{
		{From: day(-19), To: day(1)}, {From: day(-12), To: day(-3)}, {From: day(-6), To: day(3)},
		{From: day(0), To: day(1)}, {From: day(-40), To: day(1)}, {From: day(-1), To: day(0)},
	}
	for _, p := range periods {
		name := fmt.Sprintf("%s %s..%s", label, p.From.Format(time.DateOnly), p.To.Format(time.DateOnly))
		got, err := f.s.Dashboard(f.ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := refDashboard(f.ctx, f.db.Client, p)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := jsonOf(t, got.Stats), jsonOf(t, want); g != w {
			t.Errorf("%s: dashboard\n got %s\nwant %s", name, g, w)
		}
		for _, in := range []AgentsInput{{Period: p, GroupBy: ByDay}, {Period: p, GroupBy: ByWeek},
			{Period: p, GroupBy: ByDay, AgentID: &f.agents[1]}} {
			got, err := f.s.Agents(f.ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := refAgents(f.ctx, f.db.Client, *f.now, in)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := jsonOf(t, got), jsonOf(t, want); g != w {
				t.Errorf("%s: agents (%s, agent %v)\n got %s\nwant %s", name, in.GroupBy, in.AgentID != nil, g, w)
			}
		}
		cmp, err := f.s.Comparison(f.ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		var handled, wantHandled int
		for _, a := range cmp {
			handled += a.TransfersHandled
		}
		want2, err := refAgents(f.ctx, f.db.Client, *f.now, AgentsInput{Period: p, GroupBy: ByDay})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range want2.AgentStats {
			wantHandled += a.TransfersHandled
		}
		if len(cmp) != len(f.agents) || handled != wantHandled {
			t.Errorf("%s: comparison %s", name, jsonOf(t, cmp))
		}
	}
}

// validDays counts the organization's valid day rollups.
func (f *fixture) validDays(t *testing.T) int {
	t.Helper()
	rows, err := f.db.Client.AnalyticsDay.Query().All(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rows {
		if r.BuiltVersion != nil && *r.BuiltVersion == r.Version {
			n++
		}
	}
	return n
}

// rawInsert writes a message with plain SQL, as the received messages'
// insert on PostgreSQL does: no hook sees it.
func (f *fixture) rawInsert(t *testing.T, contactID uuid.UUID, at time.Time) {
	t.Helper()
	q := `INSERT INTO messages (id, created_at, updated_at, direction, message_type, content, status, chat_account,
		media_url, media_mime_type, media_filename, error_message, contact_id, organization_id)
		VALUES ($1, $2, $3, 'incoming', 'text', '{}', 'delivered', '', '', '', '', '', $4, $5)`
	if !f.db.Postgres() {
		q = strings.NewReplacer("$1", "?1", "$2", "?2", "$3", "?3", "$4", "?4", "$5", "?5").Replace(q)
	}
	if _, err := f.db.SQL.ExecContext(context.Background(), q, uuid.New(), at, *f.now, contactID, f.org); err != nil {
		t.Fatal(err)
	}
}

// The rollup-backed reports answer what the raw rows say, on both
// engines: cold (building), warm, after late changes through ent (marked
// at once), after a plain-SQL late write marked by MarkPastDays, after the
// periodic refresh, and when the clock moves on (today settles).
func TestRollupsMatchRaw(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			now := time.Date(2026, 3, 10, 12, 30, 0, 0, time.UTC)
			f := newFixture(t, engine, now)
			f.seed(t, rand.New(rand.NewPCG(1, 2)))
			f.check(t, "cold")
			if n := f.validDays(t); n < 40 {
				t.Fatalf("%d days built", n)
			}
			f.check(t, "warm")

			// A transfer of a past day resumed.
			tr, err := f.db.Client.AgentTransfer.Query().Where(agenttransfer.StatusEQ(agenttransfer.StatusActive),
				agenttransfer.AgentIDNotNil(), agenttransfer.TransferredAtLT(dayOf(now).AddDate(0, 0, -2))).First(f.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.db.Client.AgentTransfer.UpdateOne(tr).SetStatus(agenttransfer.StatusResumed).SetResumedAt(now).
				Exec(f.ctx); err != nil {
				t.Fatal(err)
			}
			f.check(t, "resumed")

			// A contact deleted with its messages, sessions and transfers.
			ct, err := f.db.Client.Contact.Query().Order(ent.Asc("phone_number")).First(f.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.db.Client.Contact.DeleteOne(ct).Exec(f.ctx); err != nil {
				t.Fatal(err)
			}
			f.check(t, "contact deleted")

			// A message with a past timestamp through ent.
			other, err := f.db.Client.Contact.Query().Order(ent.Desc("phone_number")).First(f.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.db.Client.Message.Create().SetContactID(other.ID).SetDirection(message.DirectionIncoming).SetCreatedAt(dayOf(now).AddDate(0, 0, -4).Add(time.Hour)).
				Exec(f.ctx); err != nil {
				t.Fatal(err)
			}
			f.check(t, "late message")

			// An agent's past message answering a resumed transfer of the
			// day before.
			trs, err := f.db.Client.AgentTransfer.Query().Where(agenttransfer.StatusEQ(agenttransfer.StatusResumed),
				agenttransfer.AgentIDNotNil(), agenttransfer.FirstResponseAtIsNil(), agenttransfer.AssignedAtNotNil(),
				agenttransfer.ResumedAtLT(dayOf(now).AddDate(0, 0, -1))).All(f.ctx)
			if err != nil {
				t.Fatal(err)
			}
			tr = nil
			for _, c := range trs {
				answered, err := f.db.Client.Message.Query().Where(message.ContactID(c.ContactID), message.SentByUserID(*c.AgentID),
					message.CreatedAtGTE(*c.AssignedAt), message.CreatedAtLTE(*c.ResumedAt)).Exist(f.ctx)
				if err != nil {
					t.Fatal(err)
				}
				if !answered && dayOf(*c.ResumedAt).After(dayOf(c.TransferredAt)) {
					tr = c
				}
			}
			if tr == nil {
				t.Fatal("no transfer resumed the day after its assignment")
			}
			answer := tr.ResumedAt.Add(-time.Second)
			if err := f.db.Client.Message.Create().SetContactID(tr.ContactID).SetDirection(message.DirectionOutgoing).
				SetSentByUserID(*tr.AgentID).SetCreatedAt(answer).Exec(f.ctx); err != nil {
				t.Fatal(err)
			}
			f.check(t, "late answer")

			// A plain-SQL late write: stale until it marks its day
			// (MarkPastDays, as the received messages' insert does), then
			// counted at once; one stamped today marks nothing.
			late := dayOf(now).AddDate(0, 0, -2).Add(time.Hour)
			f.rawInsert(t, other.ID, late)
			p := Period{From: dayOf(now).AddDate(0, 0, -2), To: dayOf(now).AddDate(0, 0, -1)}
			before, err := f.s.Dashboard(f.ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			want, err := refDashboard(f.ctx, f.db.Client, p)
			if err != nil {
				t.Fatal(err)
			}
			if before.Stats.TotalMessages != want.TotalMessages-1 {
				t.Errorf("before the mark: %d messages, raw %d", before.Stats.TotalMessages, want.TotalMessages)
			}
			valid := f.validDays(t)
			if err := MarkPastDays(f.ctx, f.db.Client, f.org, []time.Time{now, late, late.Add(time.Minute)}, now); err != nil {
				t.Fatal(err)
			}
			if n := f.validDays(t); n != valid-1 {
				t.Errorf("%d valid days after marking one, want %d", n, valid-1)
			}
			f.check(t, "marked")
			if err := f.s.Refresh(f.ctx); err != nil {
				t.Fatal(err)
			}
			f.check(t, "refreshed")
			if n := f.validDays(t); n < rollupHistory {
				t.Errorf("%d days built by the refresh, want %d", n, rollupHistory)
			}

			// The next day, and the first hour of the one after (yesterday
			// not settled yet).
			*f.now = now.Add(24 * time.Hour)
			f.check(t, "next day")
			*f.now = dayOf(now).AddDate(0, 0, 2).Add(30 * time.Minute)
			f.check(t, "after midnight")
		})
	}
}

// A build that read a day's version before a change stores nothing for
// that day: the day stays stale and the next read rebuilds it.
func TestRollupStoreSkipsChangedDay(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	f := newFixture(t, "sqlite", now)
	day := dayOf(now).AddDate(0, 0, -3)
	days := []time.Time{day}
	versions, err := f.s.versionsOf(f.ctx, days)
	if err != nil {
		t.Fatal(err)
	}
	// The change lands between the version read and the store.
	if err := markDays(f.ctx, f.db.Client, []orgDay{{Day: nullTime{Time: day, Valid: true}, OrgID: f.org}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.build(f.ctx, days, versions); err != nil {
		t.Fatal(err)
	}
	r, err := f.db.Client.AnalyticsDay.Query().Where(analyticsday.Day(day)).Only(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.BuiltVersion != nil {
		t.Fatalf("stored over a change: version %d, built %d", r.Version, *r.BuiltVersion)
	}
	if _, err := f.s.ensure(f.ctx, day, day.AddDate(0, 0, 1)); err != nil {
		t.Fatal(err)
	}
	if f.validDays(t) != 1 {
		t.Fatal("not rebuilt")
	}
}

// The periodic task, queued by the sweep once per interval, builds the
// organization's history of rollups on a worker.
func TestRollupTask(t *testing.T) {
	url := testenv.RedisURL(t)
	if url == "" {
		t.Skip("no Redis")
	}
	opt, err := asynq.ParseRedisURI(url)
	if err != nil {
		t.Fatal(err)
	}
	prefix := testenv.Namespace() + uuid.NewString()[:8]
	f := newFixture(t, "sqlite", time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC))
	f.seed(t, rand.New(rand.NewPCG(3, 4)))
	f.s.Queue = worker.NewClient(opt, prefix)
	t.Cleanup(func() { _ = f.s.Queue.Close() })
	w := worker.New(opt, worker.Options{QueuePrefix: prefix, Concurrency: 1})
	f.s.Register(w)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Shutdown)

	if n, err := f.s.ScheduleRollups(context.Background()); err != nil || n != 1 {
		t.Fatalf("queued %d, %v", n, err)
	}
	// Once per interval: this node does not try again, another node's
	// try finds the task id taken.
	if n, err := f.s.ScheduleRollups(context.Background()); err != nil || n != 0 {
		t.Fatalf("queued again %d, %v", n, err)
	}
	f.s.scheduled.Store(0)
	if !testkit.Poll(time.Minute, func() bool { return f.validDays(t) >= rollupHistory }) {
		t.Fatalf("%d days built", f.validDays(t))
	}
	if n, err := f.s.ScheduleRollups(context.Background()); err != nil || n != 0 {
		t.Fatalf("queued again by another node %d, %v", n, err)
	}
	f.check(t, "after the task")
}
