package messaging_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/message"
	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
	"switchboard/messaging"
)

// TestConversations pages the conversations of several contacts at once
// (GraphQL's Contact.messages on a list of contacts), on PostgreSQL (one
// statement for all of them) and in the embedded SQLite mode (one per
// contact): each contact gets its own messages only, oldest to newest,
// with its own look-ahead; a contact of another organization, one asked
// twice, one without messages and invalid arguments.
func TestConversations(t *testing.T) {
	t.Run("PostgreSQL", func(t *testing.T) {
		if testenv.PostgresURL(t) == "" {
			t.Skip("no PostgreSQL")
		}
		db := testkit.OpenDB(t)
		testConversations(t, db)
	})
	t.Run("SQLite", func(t *testing.T) {
		ctx := context.Background()
		db, err := database.Open(ctx, database.Options{DataDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		if err := db.AutoMigrate(ctx); err != nil {
			t.Fatal(err)
		}
		testConversations(t, db)
	})
}

func testConversations(t *testing.T, db *database.DB) {
	_, ctx := testkit.NewOrg(t, db.Client, "acme")
	_, otherCtx := testkit.NewOrg(t, db.Client, "other")
	svc := &messaging.Service{Client: db.Client, Postgres: db.Postgres()}
	// Four contacts with 0, 2, 5 and 7 messages whose timestamps tie in
	// threes and interleave across contacts, and a contact of another
	// organization with 4.
	sizes := []int{0, 2, 5, 7}
	ids := make([]uuid.UUID, len(sizes))
	want := map[uuid.UUID][]uuid.UUID{}
	base := time.Now().Add(-time.Hour).Truncate(time.Second).UTC()
	seed := func(ctx context.Context, phone string, n int) uuid.UUID {
		c, err := db.Client.Contact.Create().SetPhoneNumber(phone).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ms := make([]*ent.Message, n)
		for i := range ms {
			ms[i], err = db.Client.Message.Create().SetID(uuid.New()).SetContactID(c.ID).
				SetDirection(message.DirectionIncoming).SetContent(map[string]any{"body": fmt.Sprint(i)}).
				SetCreatedAt(base.Add(time.Duration(i/3) * time.Second)).Save(ctx)
			if err != nil {
				t.Fatal(err)
			}
		}
		slices.SortFunc(ms, func(a, b *ent.Message) int {
			if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
				return c
			}
			return bytes.Compare(a.ID[:], b.ID[:])
		})
		for _, m := range ms {
			want[c.ID] = append(want[c.ID], m.ID)
		}
		return c.ID
	}
	for i, n := range sizes {
		ids[i] = seed(ctx, fmt.Sprintf("1555030200%d", i), n)
	}
	foreign := seed(otherCtx, "15550302099", 4)

	type page struct {
		ids              []uuid.UUID
		hasPrev, hasNext bool
	}
	read := func(contacts []uuid.UUID, p messaging.PageArgs) map[uuid.UUID]page {
		t.Helper()
		pages, err := svc.Conversations(ctx, contacts, p)
		if err != nil {
			t.Fatal(err)
		}
		out := map[uuid.UUID]page{}
		for id, c := range pages {
			pg := page{hasPrev: c.PageInfo.HasPreviousPage, hasNext: c.PageInfo.HasNextPage, ids: []uuid.UUID{}}
			for _, e := range c.Edges {
				if e.Node.ContactID != id {
					t.Fatalf("contact %s's page holds message %s of %s", id, e.Node.ID, e.Node.ContactID)
				}
				if e.Cursor.ID != e.Node.ID {
					t.Fatalf("edge of %s has the cursor of %s", e.Node.ID, e.Cursor.ID)
				}
				pg.ids = append(pg.ids, e.Node.ID)
			}
			out[id] = pg
		}
		return out
	}
	n := func(v int) *int { return &v }
	last := func(id uuid.UUID, k int) []uuid.UUID { w := want[id]; return w[max(0, len(w)-k):] }
	first := func(id uuid.UUID, k int) []uuid.UUID { w := want[id]; return w[:min(len(w), k)] }
	check := func(name string, got map[uuid.UUID]page, id uuid.UUID, ids []uuid.UUID, hasPrev, hasNext bool) {
		t.Helper()
		p, ok := got[id]
		if !ok || !slices.Equal(p.ids, ids) || p.hasPrev != hasPrev || p.hasNext != hasNext {
			t.Errorf("%s, contact with %d messages: %+v (present %v), want %v prev %v next %v",
				name, len(want[id]), p, ok, ids, hasPrev, hasNext)
		}
	}

	all := append(slices.Clone(ids), foreign, ids[3])
	newest := read(all, messaging.PageArgs{Last: n(3)})
	if len(newest) != len(ids)+1 {
		t.Fatalf("%d pages for %d distinct contacts", len(newest), len(ids)+1)
	}
	for _, id := range ids {
		check("last 3", newest, id, last(id, 3), len(want[id]) > 3, false)
	}
	check("last 3 of another organization's contact", newest, foreign, []uuid.UUID{}, false, false)

	oldest := read(ids, messaging.PageArgs{First: n(4)})
	for _, id := range ids {
		check("first 4", oldest, id, first(id, 4), false, len(want[id]) > 4)
	}

	// A cursor bounds every contact's page by its position: that of the
	// 5th message of the longest conversation (the second timestamp).
	c7, at := ids[3], want[ids[3]][4]
	cursor := mustConversation(t, svc, ctx, c7, messaging.PageArgs{First: n(7)}).Edges[4].Cursor
	if cursor.ID != at {
		t.Fatalf("the 5th edge's cursor is %s's, want %s's", cursor.ID, at)
	}
	before := read([]uuid.UUID{ids[2], c7}, messaging.PageArgs{Last: n(2), Before: &cursor})
	check("last 2 before the 5th of 7", before, c7, want[c7][2:4], true, true)
	// Of the 5-message conversation, the messages before (second
	// timestamp, the 5th's id) are the first three and those of the
	// second timestamp whose id is lower.
	var earlier []uuid.UUID
	for i, m := range want[ids[2]] {
		if i < 3 || bytes.Compare(m[:], at[:]) < 0 {
			earlier = append(earlier, m)
		}
	}
	check("last 2 before the cursor", before, ids[2], earlier[max(0, len(earlier)-2):], len(earlier) > 2, true)

	empty := read(ids, messaging.PageArgs{Last: n(0)})
	for _, id := range ids {
		check("last 0", empty, id, []uuid.UUID{}, len(want[id]) > 0, false)
	}
	if pages, err := svc.Conversations(ctx, nil, messaging.PageArgs{Last: n(3)}); err != nil || len(pages) != 0 {
		t.Errorf("no contacts: %v, %v", pages, err)
	}
	for name, p := range map[string]messaging.PageArgs{
		"first and last": {First: n(1), Last: n(1)},
		"neither":        {},
		"negative":       {Last: n(-1)},
		"too large":      {First: n(messaging.MaxPageSize + 1)},
		"bad cursor":     {Last: n(1), Before: &ent.Cursor{ID: uuid.New(), Value: "x"}},
	} {
		if _, err := svc.Conversations(ctx, ids, p); apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("%s: %v, want invalid", name, err)
		}
	}
}

func mustConversation(t *testing.T, svc *messaging.Service, ctx context.Context, id uuid.UUID, p messaging.PageArgs) *messaging.Connection {
	t.Helper()
	pages, err := svc.Conversations(ctx, []uuid.UUID{id}, p)
	if err != nil {
		t.Fatal(err)
	}
	return pages[id]
}
