package chatbot_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/chatbot"
	"switchboard/ent/chatbotsession"
	"switchboard/internal/testkit"
)

// TestExpireSessions: each organization's active sessions time out after
// its own session_timeout_minutes (0 counts as one minute), whichever
// organizations share a timeout; finished sessions, sessions still within
// their timeout and those of an organization without chatbot settings
// are left as they are.
func TestExpireSessions(t *testing.T) {
	db := testkit.OpenDB(t)
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	bot := &chatbot.Bot{Client: db.Client, Now: func() time.Time { return now }}

	type session struct {
		idle   time.Duration
		status chatbotsession.Status
		want   chatbotsession.Status
	}
	orgs := []struct {
		name     string
		minutes  *int // nil: no chatbot settings
		sessions []session
	}{
		{"ten", ptr(10), []session{
			{11 * time.Minute, chatbotsession.StatusActive, chatbotsession.StatusTimeout},
			{9 * time.Minute, chatbotsession.StatusActive, chatbotsession.StatusActive},
			{time.Hour, chatbotsession.StatusCompleted, chatbotsession.StatusCompleted},
		}},
		{"ten too", ptr(10), []session{
			{20 * time.Minute, chatbotsession.StatusActive, chatbotsession.StatusTimeout},
		}},
		{"sixty", ptr(60), []session{
			{11 * time.Minute, chatbotsession.StatusActive, chatbotsession.StatusActive},
			{61 * time.Minute, chatbotsession.StatusActive, chatbotsession.StatusTimeout},
			{2 * time.Hour, chatbotsession.StatusCancelled, chatbotsession.StatusCancelled},
		}},
		{"zero", ptr(0), []session{
			{2 * time.Minute, chatbotsession.StatusActive, chatbotsession.StatusTimeout},
			{30 * time.Second, chatbotsession.StatusActive, chatbotsession.StatusActive},
		}},
		{"no settings", nil, []session{
			{48 * time.Hour, chatbotsession.StatusActive, chatbotsession.StatusActive},
		}},
	}
	want := map[uuid.UUID]chatbotsession.Status{}
	ctxOf := map[uuid.UUID]context.Context{}
	expired := 0
	for _, o := range orgs {
		_, ctx := testkit.NewOrg(t, db.Client, o.name)
		if o.minutes != nil {
			if _, err := db.Client.ChatbotSettings.Create().SetSessionTimeoutMinutes(*o.minutes).Save(ctx); err != nil {
				t.Fatal(err)
			}
		}
		c, err := db.Client.Contact.Create().SetPhoneNumber("15550000001").Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range o.sessions {
			create := db.Client.ChatbotSession.Create().SetContactID(c.ID).SetStatus(s.status).
				SetStartedAt(now.Add(-s.idle - time.Minute)).SetLastActivity(now.Add(-s.idle))
			if s.status != chatbotsession.StatusActive {
				create.SetCompletedAt(now.Add(-s.idle))
			}
			row, err := create.Save(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want[row.ID], ctxOf[row.ID] = s.want, ctx
			if s.want != s.status {
				expired++
			}
		}
	}

	if n, err := bot.ExpireSessions(context.Background()); err != nil || n != expired {
		t.Fatalf("ExpireSessions = %d, %v; want %d", n, err, expired)
	}
	for id, status := range want {
		s, err := db.Client.ChatbotSession.Get(ctxOf[id], id)
		if err != nil {
			t.Fatal(err)
		}
		if s.Status != status {
			t.Errorf("session idle %s: %s, want %s", now.Sub(s.LastActivity), s.Status, status)
		}
		if status == chatbotsession.StatusTimeout && (s.CompletedAt == nil || !s.CompletedAt.Equal(now)) {
			t.Errorf("timed out session completed at %v, want %v", s.CompletedAt, now)
		}
	}
	if n, err := bot.ExpireSessions(context.Background()); err != nil || n != 0 {
		t.Fatalf("second sweep = %d, %v; want 0", n, err)
	}
}

func ptr[T any](v T) *T { return &v }
