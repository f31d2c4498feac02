package messaging_test

import (
	"context"
	"crypto/md5"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/internal/testkit"
	"switchboard/messaging"
)

// TestSearchUsesTheTextIndex seeds 100,000 messages in one organization
// (and 20,000 in another), analyses them, and EXPLAINs the statements
// Search sends: for a word a few messages hold (and a phrase of 100),
// after the window of the newest messages (messaging's searchWindow)
// held too few hits, one statement reads the GIN index over the
// messages' words (database.MessageSearchIndex); for a word every
// message holds, the window fills the page and the text index is never
// asked (its bitmap would be every message); two such words rarely
// together are read from it a range of hours at a time (byHours). No statement scans the
// table, so that a later change to the queries cannot fall back to a
// scan unnoticed. Seeding takes a few seconds.
func TestSearchUsesTheTextIndex(t *testing.T) {
	db := testkit.OpenDB(t)
	if !db.Postgres() {
		t.Skip("the text index is PostgreSQL's; the embedded mode scans")
	}
	org, sys := testkit.NewOrg(t, db.Client, "Big")
	_, osys := testkit.NewOrg(t, db.Client, "Beside")
	ctx := context.Background()
	for _, o := range []struct {
		ctx      context.Context
		messages int
	}{{sys, 100_000}, {osys, 20_000}} {
		c, err := db.Client.Contact.Create().SetPhoneNumber("15550100001").Save(o.ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Each message holds a common word, one of 1,000 order numbers,
		// a word of its own and "even" or "odd", both every fourth of
		// 25,000 (two common words rarely together).
		if _, err := db.SQL.ExecContext(ctx, `
			INSERT INTO messages (id, created_at, updated_at, direction, content, contact_id, organization_id)
			SELECT gen_random_uuid(), now() - g * interval '1 second', now(), 'incoming',
			       jsonb_build_object('body', 'hello order ' || (g % 1000) || ' code' || md5(g::text) ||
			           CASE WHEN g % 2 = 0 THEN ' even' ELSE ' odd' END || CASE WHEN g % 25000 = 7 THEN ' even' ELSE '' END),
			       $1, $2
			FROM generate_series(1, $3) AS g`, c.ID, c.OrganizationID, o.messages); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.SQL.ExecContext(ctx, "ANALYZE messages"); err != nil {
		t.Fatal(err)
	}
	reader := testkit.NewMember(t, db.Client, org, "Reader", "messages:read")
	svc := &messaging.Service{Client: db.Client, Postgres: true}
	messaging.SetSearchWalkBudget(t, time.Minute) // the whole walk, however busy the machine
	for _, tc := range []struct {
		q string
		// hits is how many the page holds; reads and skips the indexes
		// some statement reads and none reads.
		hits         int
		reads, skips string
		// byHours: a statement reads a range of hours, its words and its
		// hours two conditions of the text index's scan (two keys, which
		// GIN leapfrogs; one query of both would read the rarer entry
		// whole).
		byHours bool
	}{
		{"code" + md5Of("777"), 1, database.MessageSearchIndex, "", false},
		{`"order 42"`, messaging.SearchDefaultSize, database.MessageSearchIndex, "", false},
		// Every message: newest first through the organization's index,
		// stopping at the page.
		{"hello", messaging.SearchDefaultSize, "message_organization_id_created_at", database.MessageSearchIndex, false},
		// Two words of half the messages each, together in four, none of
		// them among the newest: past the window, read from the text
		// index by ranges of hours (the words' entries intersected with
		// the hours', never their whole bitmap).
		{"even odd", 4, database.MessageSearchIndex, "", true},
	} {
		t.Run(tc.q, func(t *testing.T) {
			var page *messaging.SearchPage
			plans := testkit.Plans(t, reader, db.SQL, func(ctx context.Context) (err error) {
				page, err = svc.Search(ctx, tc.q, messaging.SearchDefaultSize, "")
				return err
			})
			if len(page.Edges) != tc.hits {
				t.Errorf("%d hits, want %d", len(page.Edges), tc.hits)
			}
			reads := false
			for q, nodes := range plans {
				for _, n := range nodes {
					if n.Type == "Seq Scan" && n.Relation == "messages" {
						t.Errorf("%s scans messages: %v", q, nodes)
					}
				}
				reads = reads || testkit.UsesIndex(nodes, "messages", tc.reads)
				if tc.skips != "" && testkit.UsesIndex(nodes, "messages", tc.skips) {
					t.Errorf("%s reads %s: %v", q, tc.skips, nodes)
				}
			}
			if !reads {
				t.Errorf("no statement reads %s: %v", tc.reads, plans)
			}
			if tc.byHours && !readsHoursAsTheirOwnKey(plans) {
				t.Errorf("no statement reads a range of hours as a condition of its own: %v", plans)
			}
		})
	}
}

// readsHoursAsTheirOwnKey reports whether a plan reads the text index
// with two conditions, one of them an hour's lexeme.
func readsHoursAsTheirOwnKey(plans map[string][]testkit.PlanNode) bool {
	for _, nodes := range plans {
		for _, n := range nodes {
			if n.Index == database.MessageSearchIndex && strings.Count(n.IndexCond, "@@") == 2 &&
				strings.Contains(n.IndexCond, "'#") {
				return true
			}
		}
	}
	return false
}

// TestSearchTimeout: a search that outlasts its bound (here two common
// words rarely together, walked, with the bound at a millisecond) is
// refused as invalid, with what to do, not a 500 or a 503.
func TestSearchTimeout(t *testing.T) {
	db := testkit.OpenDB(t)
	if !db.Postgres() {
		t.Skip("the bound is PostgreSQL's search's")
	}
	org := seedConversation(t, db, `CASE WHEN g % 2 = 0 THEN 'even' ELSE 'odd' END`, 20_000)
	reader := testkit.NewMember(t, db.Client, org, "Reader", "messages:read")
	svc := &messaging.Service{Client: db.Client, Postgres: true}
	messaging.SetSearchTimeout(t, time.Millisecond)
	_, err := svc.Search(reader, "even odd", messaging.SearchDefaultSize, "")
	testkit.ExpectError(t, err, apperr.Invalid, "took longer than")
}

// TestSearchWalkAnswersAPartialPage: two common words rarely together
// are walked a budget at a time (here none: one window a page); each
// page answers what its walk found, none here, with a cursor that goes on
// from where the walk stopped, and reading on finds the one message that
// holds both, then ends.
func TestSearchWalkAnswersAPartialPage(t *testing.T) {
	db := testkit.OpenDB(t)
	if !db.Postgres() {
		t.Skip("the walk is PostgreSQL's search's")
	}
	org := seedConversation(t, db, `CASE WHEN g = 4321 THEN 'even odd' WHEN g % 2 = 0 THEN 'even' ELSE 'odd' END`, 10_000)
	reader := testkit.NewMember(t, db.Client, org, "Reader", "messages:read")
	svc := &messaging.Service{Client: db.Client, Postgres: true}
	messaging.SetSearchWalkBudget(t, 0)
	var hits []string
	after, pages := "", 0
	for ; pages < 20; pages++ {
		page, err := svc.Search(reader, "even odd", messaging.SearchDefaultSize, after)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Edges {
			hits = append(hits, messaging.BodyOf(e.Node.Message))
		}
		if !page.PageInfo.HasNextPage {
			break
		}
		if page.PageInfo.EndCursor == nil {
			t.Fatalf("page %d has more without a cursor", pages)
		}
		after = *page.PageInfo.EndCursor
	}
	// Each page walks one window of 1,000: the 10,000 messages take 10
	// pages, and an 11th finds none older.
	if pages != 10 || len(hits) != 1 || hits[0] != "even odd" {
		t.Fatalf("%d pages, hits %q; want 11 pages and the one message", pages+1, hits)
	}
}

// seedConversation creates an organization with one contact and n
// messages of it, a second apart (g = 1 the newest), each body the SQL
// expression body of g, analyses, and returns the organization.
func seedConversation(t *testing.T, db *database.DB, body string, n int) uuid.UUID {
	t.Helper()
	return seedConversationEvery(t, db, body, n, "1 second")
}

// seedConversationEvery is seedConversation with the messages step apart
// (an interval, "1 hour").
func seedConversationEvery(t *testing.T, db *database.DB, body string, n int, step string) uuid.UUID {
	t.Helper()
	org, sys := testkit.NewOrg(t, db.Client, "Big")
	c, err := db.Client.Contact.Create().SetPhoneNumber("15550100001").Save(sys)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL.ExecContext(context.Background(), `
		INSERT INTO messages (id, created_at, updated_at, direction, content, contact_id, organization_id)
		SELECT gen_random_uuid(), now() - g * $4::interval, now(), 'incoming',
		       jsonb_build_object('body', `+body+`), $1, $2
		FROM generate_series(1, $3) AS g`, c.ID, c.OrganizationID, n, step); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL.ExecContext(context.Background(), "ANALYZE messages"); err != nil {
		t.Fatal(err)
	}
	return org
}

// md5Of is PostgreSQL's md5(s): the seed's own words.
func md5Of(s string) string { return fmt.Sprintf("%x", md5.Sum([]byte(s))) }

// TestSearchByHours: a common word none of the newest messages holds is
// read by ranges of hours, and the page is the newest hits in order: here
// 5,000 newest messages without "refund", then 15,000 with it, 3,600 an
// hour (a range holding more than the cap is narrowed to its newest
// hour, read whole). Two common words rarely together, in a conversation of a
// message an hour over 3,000 hours, are found at the far end in one page.
func TestSearchByHours(t *testing.T) {
	db := testkit.OpenDB(t)
	if !db.Postgres() {
		t.Skip("the ranges of hours are PostgreSQL's search's")
	}
	messaging.SetSearchWalkBudget(t, time.Minute) // the whole search, however busy the machine
	svc := &messaging.Service{Client: db.Client, Postgres: true}
	t.Run("DenseAfterNone", func(t *testing.T) {
		org := seedConversation(t, db, `CASE WHEN g <= 5000 THEN 'campaign ' || g ELSE 'refund please ' || g END`, 20_000)
		reader := testkit.NewMember(t, db.Client, org, "Reader", "messages:read")
		after := ""
		for page, first := range []int{5001, 5021} {
			got, err := svc.Search(reader, "refund", messaging.SearchDefaultSize, after)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Edges) != messaging.SearchDefaultSize || !got.PageInfo.HasNextPage {
				t.Fatalf("page %d: %d hits, more %v", page, len(got.Edges), got.PageInfo.HasNextPage)
			}
			for i, e := range got.Edges {
				if want := fmt.Sprint("refund please ", first+i); messaging.BodyOf(e.Node.Message) != want {
					t.Fatalf("page %d hit %d is %q, want %q", page, i, messaging.BodyOf(e.Node.Message), want)
				}
			}
			after = *got.PageInfo.EndCursor
		}
	})
	t.Run("SparseOverMonths", func(t *testing.T) {
		org := seedConversationEvery(t, db, `CASE WHEN g = 2999 THEN 'even odd' WHEN g % 2 = 0 THEN 'even' ELSE 'odd' END`, 3000, "1 hour")
		reader := testkit.NewMember(t, db.Client, org, "Reader", "messages:read")
		got, err := svc.Search(reader, "even odd", messaging.SearchDefaultSize, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Edges) != 1 || messaging.BodyOf(got.Edges[0].Node.Message) != "even odd" || got.PageInfo.HasNextPage {
			t.Fatalf("%d hits, more %v; want the one message", len(got.Edges), got.PageInfo.HasNextPage)
		}
	})
}
