package main

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// seedLists fills an organization's other lists in proportion to its n
// contacts (ids, in ordinal order: the newest conversation first), as a
// bot that answers every customer and a campaign to all of them leave
// them: a chatbot session per contact with a conversation (the newest
// n/500 active, the rest completed, timed out or cancelled), a transfer
// to an agent for every tenth contact (the newest n/2,000 waiting, the
// rest resumed), a call for every fifth, 2,000 templates (or n, if
// fewer) and one campaign sent to every contact. At a million contacts:
// 900,000 sessions, 100,000 transfers, 200,000 calls, 2,000 templates,
// 1,000,000 campaign recipients. It returns the campaign.
func seedLists(ctx context.Context, db *sql.DB, org, agent uuid.UUID, ids []uuid.UUID, now time.Time) (uuid.UUID, error) {
	n := len(ids)
	at := func(i int, step time.Duration) time.Time { return now.Add(-time.Duration(i) * step) }
	err := copyRows(ctx, db, "chatbot_sessions", []string{"id", "created_at", "updated_at", "organization_id",
		"contact_id", "chat_account", "status", "current_step", "variables", "started_at", "last_activity",
		"completed_at"}, n*9/10, func(i int) []any {
		c := withHistoryAt(i) // the contact's ordinal: its conversation's age
		last := at(c, time.Second)
		status, done := "active", any(nil)
		if i >= max(1, n/500) {
			status, done = [...]string{"completed", "completed", "timeout", "cancelled"}[i%4], last
		}
		return []any{uuid.New(), last, last, org, ids[c], "Main", status, "", "{}", last.Add(-5 * time.Minute), last, done}
	})
	if err != nil {
		return uuid.Nil, err
	}
	err = copyRows(ctx, db, "agent_transfers", []string{"id", "created_at", "updated_at", "organization_id",
		"contact_id", "chat_account", "status", "source", "agent_id", "notes", "transferred_at", "assigned_at",
		"resumed_at"}, n/10, func(i int) []any {
		t := at(i, 10*time.Second)
		status, to, assigned, resumed := "active", any(nil), any(nil), any(nil)
		if i%4 == 0 { // a quarter taken by the agent
			to, assigned = agent, t.Add(time.Minute)
		}
		if i >= max(1, n/2_000) {
			status, resumed = "resumed", t.Add(10*time.Minute)
		}
		return []any{uuid.New(), t, t, org, ids[i*10%n], "Main", status, "chatbot", to, "", t, assigned, resumed}
	})
	if err != nil {
		return uuid.Nil, err
	}
	err = copyRows(ctx, db, "call_logs", []string{"id", "created_at", "updated_at", "organization_id", "contact_id",
		"chat_account", "chat_call_id", "caller_phone", "direction", "status", "duration", "agent_id", "started_at",
		"answered_at", "ended_at"}, n/5, func(i int) []any {
		c := i * 5 % n
		start := at(i, 30*time.Second)
		dir := [...]string{"incoming", "outgoing"}[i%2]
		status, duration, agentID, answered := "missed", 0, any(nil), any(nil)
		if i%10 < 7 {
			status, duration, agentID, answered = "completed", 30+i%600, agent, start.Add(5*time.Second)
		}
		return []any{uuid.New(), start, start, org, ids[c], "Main", fmt.Sprintf("wacid.bench.%s.%d", org, i),
			contactPhone(c), dir, status, duration, agentID, start, answered, start.Add(time.Duration(duration+10) * time.Second)}
	})
	if err != nil {
		return uuid.Nil, err
	}
	err = copyRows(ctx, db, "templates", []string{"id", "created_at", "updated_at", "organization_id", "chat_account",
		"name", "display_name", "language", "category", "status", "body_content", "buttons", "sample_values"},
		min(n, 2_000), func(i int) []any {
			t := at(i, time.Hour)
			return []any{uuid.New(), t, t, org, "Main", fmt.Sprintf("bench_template_%d", i), fmt.Sprintf("Bench template %d", i),
				"en_US", [...]string{"MARKETING", "UTILITY"}[i%2], [...]string{"APPROVED", "APPROVED", "APPROVED", "PENDING", "REJECTED"}[i%5],
				"Hello {{1}}, " + phrases[i%len(phrases)], "[]", "[]"}
		})
	if err != nil {
		return uuid.Nil, err
	}
	campaign := uuid.New()
	sent := now.Add(-24 * time.Hour)
	if _, err := db.ExecContext(ctx, `INSERT INTO campaigns (id, created_at, updated_at, organization_id, name, chat_account,
		status, total_recipients, sent_count, delivered_count, read_count, failed_count, started_at, completed_at)
		VALUES ($1, $2, $2, $3, 'Everyone', 'Main', 'completed', $4, $5, $6, $7, $8, $2, $2)`,
		campaign, sent, org, n, n-n/10, n*6/10, n*3/10, n/10); err != nil {
		return uuid.Nil, err
	}
	err = copyRows(ctx, db, "campaign_recipients", []string{"id", "created_at", "updated_at", "organization_id",
		"campaign_id", "phone_number", "recipient_name", "template_params", "header_params", "status", "sent_at",
		"delivered_at", "read_at", "error_message", "attempts"}, n, func(i int) []any {
		status, delivered, read, failure := "delivered", any(sent), any(nil), ""
		switch i % 10 {
		case 0:
			status, delivered, failure = "failed", nil, "(#131026) Message undeliverable"
		case 1, 2, 3:
			status, read = "read", sent.Add(time.Hour)
		}
		var sentAt any = sent
		if status == "failed" {
			sentAt = nil
		}
		return []any{uuid.New(), sent, sent, org, campaign, contactPhone(i), contactName(i), "{}", "{}", status,
			sentAt, delivered, read, failure, 1}
	})
	return campaign, err
}

// withHistoryAt is the ordinal of the i-th contact with a conversation
// (seedContacts leaves every tenth without one).
func withHistoryAt(i int) int { return i/9*10 + i%9 }
