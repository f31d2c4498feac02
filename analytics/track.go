package analytics

import (
	"context"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/agenttransfer"
	"switchboard/ent/analyticsday"
	"switchboard/ent/chatbotsession"
	"switchboard/ent/contact"
	"switchboard/ent/hook"
	"switchboard/ent/message"
	"switchboard/ent/predicate"
)

// Track installs on s.Client the hooks that bump the version of a past
// day's rollups (see rollup.go) when a change through ent moves its
// numbers, in the change's transaction: messages, contacts, chatbot
// sessions and transfers created with a timestamp before today (and an
// agent's past message that becomes a resumed transfer's first
// response); a transfer of a past day resumed, or a resumed one updated
// or deleted (active transfers are read live); messages and sessions
// deleted; a contact deleted, with the rows the database deletes with it.
func (s *Service) Track() {
	past := func(t time.Time, ok bool) bool { return ok && t.Before(dayOf(s.now())) }
	s.Client.Message.Use(hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.MessageFunc(func(ctx context.Context, m *ent.MessageMutation) (ent.Value, error) {
			if m.Op().Is(ent.OpCreate) {
				v, err := s.afterCreate(ctx, next, m, m.Client(), m.OrganizationID, func() bool { return past(m.CreatedAt()) },
					func() time.Time { t, _ := m.CreatedAt(); return t })
				if err != nil || !past(m.CreatedAt()) {
					return v, err
				}
				return v, s.answered(ctx, m)
			}
			return s.aroundDelete(ctx, next, m, m.Client(), func(ctx context.Context, db *ent.Client) ([]orgDay, error) {
				ids, err := m.IDs(ctx)
				if err != nil {
					return nil, err
				}
				return s.daysOf(ctx, ids, func(part []uuid.UUID) ([]orgDay, error) {
					var rows []orgDay
					err := db.Message.Query().Where(message.IDIn(part...), message.CreatedAtLT(dayOf(s.now()))).
						Modify(s.byDay(message.FieldCreatedAt, message.FieldOrganizationID)).Scan(ctx, &rows)
					return rows, err
				})
			})
		})
	}, ent.OpCreate|ent.OpDelete|ent.OpDeleteOne))

	s.Client.ChatbotSession.Use(hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.ChatbotSessionFunc(func(ctx context.Context, m *ent.ChatbotSessionMutation) (ent.Value, error) {
			if m.Op().Is(ent.OpCreate) {
				return s.afterCreate(ctx, next, m, m.Client(), m.OrganizationID, func() bool { return past(m.StartedAt()) },
					func() time.Time { t, _ := m.StartedAt(); return t })
			}
			return s.aroundDelete(ctx, next, m, m.Client(), func(ctx context.Context, db *ent.Client) ([]orgDay, error) {
				ids, err := m.IDs(ctx)
				if err != nil {
					return nil, err
				}
				return s.daysOf(ctx, ids, func(part []uuid.UUID) ([]orgDay, error) {
					var rows []orgDay
					err := db.ChatbotSession.Query().Where(chatbotsession.IDIn(part...), chatbotsession.StartedAtLT(dayOf(s.now()))).
						Modify(s.byDay(chatbotsession.FieldStartedAt, chatbotsession.FieldOrganizationID)).Scan(ctx, &rows)
					return rows, err
				})
			})
		})
	}, ent.OpCreate|ent.OpDelete|ent.OpDeleteOne))

	s.Client.AgentTransfer.Use(hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.AgentTransferFunc(func(ctx context.Context, m *ent.AgentTransferMutation) (ent.Value, error) {
			if m.Op().Is(ent.OpCreate) {
				return s.afterCreate(ctx, next, m, m.Client(), m.OrganizationID, func() bool {
					st, _ := m.Status()
					return st == agenttransfer.StatusResumed && past(m.TransferredAt())
				}, func() time.Time { t, _ := m.TransferredAt(); return t })
			}
			return s.aroundDelete(ctx, next, m, m.Client(), func(ctx context.Context, db *ent.Client) ([]orgDay, error) {
				ids, err := m.IDs(ctx)
				if err != nil {
					return nil, err
				}
				// Only resumed transfers are rolled up; setting the status
				// may make one.
				_, setsStatus := m.Status()
				return s.daysOf(ctx, ids, func(part []uuid.UUID) ([]orgDay, error) {
					return s.transferDays(ctx, db, !setsStatus, agenttransfer.IDIn(part...))
				})
			})
		})
	}, ent.OpCreate|ent.OpUpdate|ent.OpUpdateOne|ent.OpDelete|ent.OpDeleteOne))

	s.Client.Contact.Use(hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.ContactFunc(func(ctx context.Context, m *ent.ContactMutation) (ent.Value, error) {
			if m.Op().Is(ent.OpCreate) {
				return s.afterCreate(ctx, next, m, m.Client(), m.OrganizationID, func() bool { return past(m.CreatedAt()) },
					func() time.Time { t, _ := m.CreatedAt(); return t })
			}
			return s.aroundDelete(ctx, next, m, m.Client(), func(ctx context.Context, db *ent.Client) ([]orgDay, error) {
				ids, err := m.IDs(ctx)
				if err != nil {
					return nil, err
				}
				return s.daysOf(ctx, ids, func(part []uuid.UUID) ([]orgDay, error) {
					today := dayOf(s.now())
					var out, rows []orgDay
					if err := db.Contact.Query().Where(contact.IDIn(part...), contact.CreatedAtLT(today)).
						Modify(s.byDay(contact.FieldCreatedAt, contact.FieldOrganizationID)).Scan(ctx, &rows); err != nil {
						return nil, err
					}
					out = append(out, rows...)
					rows = rows[:0]
					if err := db.Message.Query().Where(message.ContactIDIn(part...), message.CreatedAtLT(today)).
						Modify(s.byDay(message.FieldCreatedAt, message.FieldOrganizationID)).Scan(ctx, &rows); err != nil {
						return nil, err
					}
					out = append(out, rows...)
					rows = rows[:0]
					if err := db.ChatbotSession.Query().Where(chatbotsession.ContactIDIn(part...), chatbotsession.StartedAtLT(today)).
						Modify(s.byDay(chatbotsession.FieldStartedAt, chatbotsession.FieldOrganizationID)).Scan(ctx, &rows); err != nil {
						return nil, err
					}
					out = append(out, rows...)
					rows, err := s.transferDays(ctx, db, true, agenttransfer.ContactIDIn(part...))
					return append(out, rows...), err
				})
			})
		})
	}, ent.OpCreate|ent.OpDelete|ent.OpDeleteOne))
}

// answered bumps the days of the resumed transfers whose first response
// a created past message of their agent becomes (none stamped, the
// message between the assignment and the resumption). Messages sent now
// never do: only an import with past timestamps.
func (s *Service) answered(ctx context.Context, m *ent.MessageMutation) error {
	by, ok := m.SentByUserID()
	dir, _ := m.Direction()
	ct, _ := m.ContactID()
	at, _ := m.CreatedAt()
	if !ok || dir != message.DirectionOutgoing {
		return nil
	}
	days, err := s.transferDays(ctx, m.Client(), true, func(sel *sql.Selector) {
		sel.Where(sql.And(sql.EQ(sel.C(agenttransfer.FieldContactID), ct), sql.EQ(sel.C(agenttransfer.FieldAgentID), by),
			sql.IsNull(sel.C(agenttransfer.FieldFirstResponseAt)), sql.GTE(sel.C(agenttransfer.FieldResumedAt), at),
			sql.Or(sql.LTE(sel.C(agenttransfer.FieldAssignedAt), at),
				sql.And(sql.IsNull(sel.C(agenttransfer.FieldAssignedAt)), sql.LTE(sel.C(agenttransfer.FieldTransferredAt), at)))))
	})
	if err != nil || len(days) == 0 {
		return err
	}
	return markDays(ctx, m.Client(), days)
}

// orgDay is a day of an organization, as byDay groups it.
type orgDay struct {
	Day   nullTime  `sql:"d"`
	N     int64     `sql:"n"`
	OrgID uuid.UUID `sql:"organization_id"`
}

// transferDays are the days before today of the transfers matching p
// (only the resumed ones when resumedOnly).
func (s *Service) transferDays(ctx context.Context, db *ent.Client, resumedOnly bool, p predicate.AgentTransfer) ([]orgDay, error) {
	q := db.AgentTransfer.Query().Where(p, agenttransfer.TransferredAtLT(dayOf(s.now())))
	if resumedOnly {
		q.Where(agenttransfer.StatusEQ(agenttransfer.StatusResumed))
	}
	var rows []orgDay
	err := q.Modify(s.byDay(agenttransfer.FieldTransferredAt, agenttransfer.FieldOrganizationID)).Scan(ctx, &rows)
	return rows, err
}

// daysOf runs days over ids in parts small enough for an IN list.
func (s *Service) daysOf(_ context.Context, ids []uuid.UUID, days func([]uuid.UUID) ([]orgDay, error)) ([]orgDay, error) {
	var out []orgDay
	err := database.InChunks(ids, 1, func(part []uuid.UUID) error {
		rows, err := days(part)
		out = append(out, rows...)
		return err
	})
	return out, err
}

// afterCreate runs a create, then bumps the version of the created row's
// day when isPast.
func (s *Service) afterCreate(ctx context.Context, next ent.Mutator, m ent.Mutation, db *ent.Client,
	org func() (uuid.UUID, bool), isPast func() bool, at func() time.Time) (ent.Value, error) {
	v, err := next.Mutate(ctx, m)
	if err != nil || !isPast() {
		return v, err
	}
	id, _ := org()
	return v, markDays(ctx, db, []orgDay{{Day: nullTime{Time: at(), Valid: true}, OrgID: id}})
}

// aroundDelete reads the days a change moves before running it, and bumps
// their versions after it.
func (s *Service) aroundDelete(ctx context.Context, next ent.Mutator, m ent.Mutation, db *ent.Client,
	days func(context.Context, *ent.Client) ([]orgDay, error)) (ent.Value, error) {
	ds, err := days(ctx, db)
	if err != nil {
		return nil, err
	}
	v, err := next.Mutate(ctx, m)
	if err != nil || len(ds) == 0 {
		return v, err
	}
	return v, markDays(ctx, db, ds)
}

// markAhead is how far ahead of now MarkPastDays counts a day settled: a
// write whose transaction began before its day settled may commit after
// a build of that day read its rows, and it must mark the day as well.
const markAhead = 10 * time.Minute

// MarkPastDays does for a write by plain SQL what Track's hooks do for
// ent's writes: in db's transaction, it bumps the rollup versions of
// org's settled days among times (the created_at of the rows it wrote),
// so that a report reads them again instead of a rollup that misses the
// rows. The received messages' insert on PostgreSQL is such a writer: a
// message's created_at is the platform's timestamp, and the platform
// redelivers for up to seven days. Without such a day among times (the
// ingest's usual batch, stamped today) it writes nothing.
func MarkPastDays(ctx context.Context, db *ent.Client, org uuid.UUID, times []time.Time, now time.Time) error {
	end := settledEnd(now.Add(markAhead))
	var days []orgDay
	for _, t := range times {
		if t.Before(end) {
			days = append(days, orgDay{Day: nullTime{Time: t, Valid: true}, OrgID: org})
		}
	}
	if len(days) == 0 {
		return nil
	}
	return markDays(ctx, db, days)
}

// markDays bumps the versions of the days' rollups (creating the rows of
// days never built, at version 1, so that a build that read no row does
// not store).
func markDays(ctx context.Context, db *ent.Client, days []orgDay) error {
	type key struct {
		org uuid.UUID
		day time.Time
	}
	seen := map[key]bool{}
	var bs []*ent.AnalyticsDayCreate
	for _, d := range days {
		k := key{d.OrgID, dayOf(d.Day.Time)}
		if !d.Day.Valid || seen[k] {
			continue
		}
		seen[k] = true
		bs = append(bs, db.AnalyticsDay.Create().SetOrganizationID(k.org).SetDay(k.day).SetVersion(1))
	}
	return database.InChunks(bs, len(analyticsday.Columns), func(part []*ent.AnalyticsDayCreate) error {
		return db.AnalyticsDay.CreateBulk(part...).
			OnConflictColumns(analyticsday.FieldOrganizationID, analyticsday.FieldDay).AddVersion(1).Exec(ctx)
	})
}
