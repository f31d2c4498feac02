package messaging_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
	"switchboard/messaging"
)

// TestHistoryPlans asserts, on PostgreSQL with a conversation of 20,000
// messages among 200,000 of its organization, that the history's queries
// (the first page, whose total is the contact's counter, and a page
// before a message from the middle) and those of the conversation's Relay
// connection (GraphQL's Contact.messages: the newest page, a page before
// and one after a cursor from the middle, whose total is the contact's
// counter the resolver holds) read the (contact_id, created_at, id)
// index, never scan messages and never sort; and that the counter is the
// conversation's count.
func TestHistoryPlans(t *testing.T) {
	if testenv.PostgresURL(t) == "" {
		t.Skip("plans are PostgreSQL's")
	}
	db := testkit.OpenDB(t)
	// Every tenth message is the first contact's: 20,000 of 200,000.
	contacts, ctx := seedPlanMessages(t, db, 2, `CASE WHEN i % 10 = 0 THEN ($2::uuid[])[1] ELSE ($2::uuid[])[2] END`)
	middle := cursorAt(t, db, contacts[0], 10_000)
	svc := &messaging.Service{Client: db.Client, Postgres: true}
	history := func(before *uuid.UUID, account string) func(context.Context) (int, error) {
		return func(ctx context.Context) (int, error) {
			page, err := svc.History(ctx, contacts[0], before, account, 50)
			if err != nil || before != nil {
				return -1, err
			}
			return page.Total, nil
		}
	}
	connection := func(p messaging.PageArgs) func(context.Context) (int, error) {
		return func(ctx context.Context) (int, error) {
			pages, err := svc.Conversations(ctx, contacts[:1], p)
			if err != nil {
				return 0, err
			}
			if c := pages[contacts[0]]; c == nil || len(c.Edges) != 20 {
				t.Errorf("a page of %+v, want 20 edges", c)
			}
			return -1, nil
		}
	}
	twenty := 20
	for _, tc := range []struct {
		name string
		// read returns the total it gave, -1 for none.
		read func(context.Context) (int, error)
		// total is the total it must give: the counter's 20,000, or an
		// account's count stopped at the bound.
		total int
		// index is what one of its queries at least must read.
		index string
	}{
		{"FirstPage", history(nil, ""), 20_000, conversationIndex},
		{"BeforeID", history(&middle.ID, ""), -1, conversationIndex},
		// Half the contact's messages are of the account "Main": the page
		// and the bounded total read the account's range of its index.
		{"Account", history(nil, "Main"), database.CountBound + 1, "message_contact_id_chat_account_created_at"},
		{"ConnectionNewest", connection(messaging.PageArgs{Last: &twenty}), -1, conversationIndex},
		{"ConnectionBefore", connection(messaging.PageArgs{Last: &twenty, Before: &middle}), -1, conversationIndex},
		{"ConnectionAfter", connection(messaging.PageArgs{First: &twenty, After: &middle}), -1, conversationIndex},
	} {
		t.Run(tc.name, func(t *testing.T) {
			total := 0
			plans := testkit.Plans(t, ctx, db.SQL, func(ctx context.Context) (err error) {
				total, err = tc.read(ctx)
				return err
			})
			assertIndexReads(t, plans, tc.index)
			if total != -1 && total != tc.total {
				t.Errorf("total %d, want %d", total, tc.total)
			}
		})
	}
}

// TestRecoverPlans asserts, on PostgreSQL with 200,000 messages none of
// them a pending send, that the recovery sweep of pending sends reads its
// partial index (message_pending_sends) and never scans messages: at
// 10,000,000 messages the scan took 2 s of both cores at every start and
// after every loss of Redis's tasks (bench/scale).
func TestRecoverPlans(t *testing.T) {
	if testenv.PostgresURL(t) == "" {
		t.Skip("plans are PostgreSQL's")
	}
	db := testkit.OpenDB(t)
	_, ctx := seedPlanMessages(t, db, 1, `($2::uuid[])[1]`)
	svc := &messaging.Service{Client: db.Client, Postgres: true}
	n := -1
	plans := testkit.Plans(t, ctx, db.SQL, func(ctx context.Context) (err error) {
		n, err = svc.Recover(ctx)
		return err
	})
	if n != 0 {
		t.Errorf("Recover queued %d, want 0 (no send is pending)", n)
	}
	assertIndexReads(t, plans, "message_pending_sends")
}

// conversationIndex is the conversation's (contact_id, created_at, id).
const conversationIndex = "message_contact_id_created_at_id"

// assertIndexReads fails unless plans read messages through index (a
// query at least), never scanning nor sorting them.
func assertIndexReads(t *testing.T, plans map[string][]testkit.PlanNode, index string) {
	t.Helper()
	testkit.AssertReadsIndex(t, plans, "messages", index)
	for q, nodes := range plans {
		for _, n := range nodes {
			if strings.HasSuffix(n.Type, "Sort") {
				t.Errorf("%s sorts: %v", q, nodes)
			}
		}
	}
}

// TestConversationListPlans asserts, on PostgreSQL with 200,000 messages
// of an organization spread over 50 contacts, that the pages of a list
// of contacts (GraphQL's contacts { messages(last: 20) }: newest, before
// and after a cursor from the middle) are one statement reading each
// contact's range of the (contact_id, created_at, id) index, without
// scanning or sorting messages, and give each contact 20 of its own.
func TestConversationListPlans(t *testing.T) {
	if testenv.PostgresURL(t) == "" {
		t.Skip("plans are PostgreSQL's")
	}
	db := testkit.OpenDB(t)
	contacts, ctx := seedPlanMessages(t, db, 50, `($2::uuid[])[1 + i % 50]`)
	middle := cursorAt(t, db, contacts[0], 2_000)
	svc := &messaging.Service{Client: db.Client, Postgres: true}
	twenty := 20
	for name, p := range map[string]messaging.PageArgs{
		"Newest": {Last: &twenty},
		"Before": {Last: &twenty, Before: &middle},
		"After":  {First: &twenty, After: &middle},
	} {
		t.Run(name, func(t *testing.T) {
			plans := testkit.Plans(t, ctx, db.SQL, func(ctx context.Context) error {
				pages, err := svc.Conversations(ctx, contacts, p)
				if err != nil {
					return err
				}
				for _, id := range contacts {
					c := pages[id]
					if c == nil || len(c.Edges) != 20 {
						t.Fatalf("contact %s: %+v, want a page of 20 edges", id, c)
					}
					for _, e := range c.Edges {
						if e.Node.ContactID != id {
							t.Fatalf("contact %s's page holds message %s of %s", id, e.Node.ID, e.Node.ContactID)
						}
					}
				}
				return nil
			})
			if len(plans) != 1 {
				t.Errorf("%d statements for the list's pages, want 1: %v", len(plans), plans)
			}
			assertIndexReads(t, plans, conversationIndex)
		})
	}
}

// seedPlanMessages creates n contacts of a new organization and 200,000
// text messages of it, each given to the contact contactOf picks (SQL
// over the series' i and $2, the contacts' ids as a uuid[]), newest
// first one a second apart, and analyses messages. It returns the ids and
// the organization's context.
func seedPlanMessages(t *testing.T, db *database.DB, n int, contactOf string) ([]uuid.UUID, context.Context) {
	t.Helper()
	orgID, ctx := testkit.NewOrg(t, db.Client, "acme")
	contacts := make([]uuid.UUID, n)
	ids := database.NewArray(37 * n)
	for i := range contacts {
		c, err := db.Client.Contact.Create().SetPhoneNumber(fmt.Sprintf("15550001%03d", i)).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		contacts[i] = c.ID
		ids.UUID(c.ID)
	}
	_, err := db.SQL.Exec(`INSERT INTO messages (id, created_at, updated_at, organization_id, contact_id, direction,
		message_type, content, status, chat_account, media_url, media_mime_type, media_filename, error_message)
		SELECT gen_random_uuid(), now() - make_interval(secs => i), now(), $1,
			`+contactOf+`, 'incoming', 'text', '{"body": "hi"}', 'read',
			CASE WHEN i % 4 = 0 THEN 'Second' ELSE 'Main' END, '', '', '', ''
		FROM generate_series(1, 200000) AS i`, orgID, ids)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL.Exec(`ANALYZE messages`); err != nil {
		t.Fatal(err)
	}
	return contacts, ctx
}

// cursorAt is the position of the contact's message at offset, oldest
// first.
func cursorAt(t *testing.T, db *database.DB, contact uuid.UUID, offset int) ent.Cursor {
	t.Helper()
	var c ent.Cursor
	var at time.Time
	err := db.SQL.QueryRow(`SELECT id, created_at FROM messages WHERE contact_id = $1 ORDER BY created_at, id OFFSET $2 LIMIT 1`,
		contact, offset).Scan(&c.ID, &at)
	if err != nil {
		t.Fatal(err)
	}
	c.Value = at
	return c
}
