package main

import (
	"context"
	"os"
	"testing"
	"time"

	"switchboard/bench/internal/benchkit"
)

// TestPollerCountsWhatIsStored: a sample counts the started ids that are
// stored, checks each once, and keeps counting as more are started and
// stored (on PostgreSQL: TEST_DATABASE_URL).
func TestPollerCountsWhatIsStored(t *testing.T) {
	admin := os.Getenv("TEST_DATABASE_URL")
	if admin == "" {
		if os.Getenv("TEST_REQUIRE_SERVICES") != "" {
			t.Fatal("TEST_DATABASE_URL is required")
		}
		t.Skip("TEST_DATABASE_URL is not set")
	}
	ctx := context.Background()
	dsn, drop, err := benchkit.FreshDatabase(ctx, admin, "switchboard_poller_test_", false)
	if err != nil {
		t.Fatal(err)
	}
	defer drop()
	st, err := openStore(ctx, dsn, "", "w", "1")
	if err != nil {
		t.Fatal(err)
	}
	defer st.db.Close()
	if _, err := st.db.ExecContext(ctx, `CREATE TABLE messages (chat_message_id text UNIQUE)`); err != nil {
		t.Fatal(err)
	}
	store := func(ids ...string) {
		for _, id := range ids {
			if _, err := st.db.ExecContext(ctx, `INSERT INTO messages VALUES ($1)`, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	tr := newTracker(8)
	for _, id := range []string{"w1", "w2", "w3"} {
		tr.started(&delivery{wamid: id})
	}
	tr.started(&delivery{wamid: "w1", dup: true})
	store("w1", "other")
	p := newPoller(st, tr, time.Now(), time.Hour)
	sample := func(want int64) {
		t.Helper()
		c, err := p.sample(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if c.Messages != want {
			t.Fatalf("sample counts %d stored, want %d", c.Messages, want)
		}
	}
	sample(1)
	sample(1)
	store("w2", "w3")
	tr.started(&delivery{wamid: "w4"})
	sample(3)
	store("w4")
	sample(4)
	if len(p.unseen) != 0 {
		t.Fatalf("%d ids left unseen, want none", len(p.unseen))
	}
}
