package inbound

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/ent/inboundevent"
	"switchboard/ent/rule"
)

// A drainer reads the oldest pending deliveries of its lanes only, oldest
// first across the lanes (id breaking ties), at most the limit, whichever
// lane they are in.
func TestPendingTakesItsLanesOldestFirst(t *testing.T) {
	db := migratedPostgres(t, "the drainers' read is PostgreSQL's")
	ctx := rule.Bypass(context.Background(), "test")
	t0 := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	tieA, tieB := uuid.MustParse("00000000-0000-7000-8000-00000000000a"), uuid.MustParse("00000000-0000-7000-8000-00000000000b")
	type row struct {
		name   string
		id     uuid.UUID
		lane   int
		sec    int
		status inboundevent.Status
	}
	rows := []row{
		{"lane 1 processed", uuid.New(), 1, 0, inboundevent.StatusProcessed},
		{"lane 1 failed", uuid.New(), 1, 1, inboundevent.StatusFailed},
		{"lane 3 oldest", uuid.New(), 3, 2, inboundevent.StatusPending},
		{"lane 2 first", uuid.New(), 2, 3, inboundevent.StatusPending},
		{"lane 1 first", uuid.New(), 1, 4, inboundevent.StatusPending},
		{"lane 1 tie b", tieB, 1, 5, inboundevent.StatusPending},
		{"lane 2 tie a", tieA, 2, 5, inboundevent.StatusPending},
		{"lane 1 third", uuid.New(), 1, 6, inboundevent.StatusPending},
		{"lane 1 fourth", uuid.New(), 1, 7, inboundevent.StatusPending},
		{"lane 2 last", uuid.New(), 2, 8, inboundevent.StatusPending},
	}
	for i, r := range rows {
		err := db.Client.InboundEvent.Create().SetID(r.id).SetLane(r.lane).SetStatus(r.status).
			SetCreatedAt(t0.Add(time.Duration(r.sec) * time.Second)).SetPayload([]byte("{}")).
			SetDedupeKey(fmt.Sprint("key-", i)).Exec(ctx)
		if err != nil {
			t.Fatal(err)
		}
	}
	names := map[uuid.UUID]string{}
	for _, r := range rows {
		names[r.id] = r.name
	}
	tests := []struct {
		lanes []int
		limit int
		want  []string
	}{
		{[]int{1, 2}, 4, []string{"lane 2 first", "lane 1 first", "lane 2 tie a", "lane 1 tie b"}},
		{[]int{1, 2}, 100, []string{"lane 2 first", "lane 1 first", "lane 2 tie a", "lane 1 tie b", "lane 1 third", "lane 1 fourth", "lane 2 last"}},
		{[]int{1}, 2, []string{"lane 1 first", "lane 1 tie b"}},
		{[]int{3, 0}, 10, []string{"lane 3 oldest"}},
		{[]int{0}, 10, nil},
	}
	for _, tt := range tests {
		tx, err := db.Client.Tx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		evs, err := pgPending(ctx, tx, tt.lanes, tt.limit)
		_ = tx.Rollback()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ev := range evs {
			got = append(got, names[ev.ID])
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("lanes %v, limit %d: got %q, want %q", tt.lanes, tt.limit, got, tt.want)
		}
	}
}
