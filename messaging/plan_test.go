package messaging_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
	"switchboard/messaging"
)

// TestHistoryPlans asserts, on PostgreSQL with a conversation of 20,000
// messages among 200,000 of its organization, that the history's queries
// (the first page, whose total is the contact's counter, and a page
// before a message from the middle) read the (contact_id, created_at, id)
// index and never scan messages; and that the counter is the
// conversation's count.
func TestHistoryPlans(t *testing.T) {
	if testenv.PostgresURL(t) == "" {
		t.Skip("plans are PostgreSQL's")
	}
	db := testkit.OpenDB(t)
	orgID, ctx := testkit.NewOrg(t, db.Client, "acme")
	contacts := make([]uuid.UUID, 2)
	for i := range contacts {
		c, err := db.Client.Contact.Create().SetPhoneNumber("1555000000" + string(rune('1'+i))).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		contacts[i] = c.ID
	}
	_, err := db.SQL.Exec(`INSERT INTO messages (id, created_at, updated_at, organization_id, contact_id, direction,
		message_type, content, status, chat_account, media_url, media_mime_type, media_filename, error_message)
		SELECT gen_random_uuid(), now() - make_interval(secs => i), now(), $1,
			CASE WHEN i % 10 = 0 THEN $2::uuid ELSE $3::uuid END, 'incoming', 'text', '{"body": "hi"}', 'read',
			'Main', '', '', '', ''
		FROM generate_series(1, 200000) AS i`, orgID, contacts[0], contacts[1])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL.Exec(`ANALYZE messages`); err != nil {
		t.Fatal(err)
	}
	var middle uuid.UUID
	if err := db.SQL.QueryRow(`SELECT id FROM messages WHERE contact_id = $1 ORDER BY created_at, id OFFSET 10000 LIMIT 1`, contacts[0]).Scan(&middle); err != nil {
		t.Fatal(err)
	}
	svc := &messaging.Service{Client: db.Client, Postgres: true}
	for _, tc := range []struct {
		name    string
		before  *uuid.UUID
		account string
	}{
		{"FirstPage", nil, ""},
		{"BeforeID", &middle, ""},
		{"Account", nil, "Main"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var page *messaging.Page
			plans := testkit.Plans(t, ctx, db.SQL, func(ctx context.Context) (err error) {
				page, err = svc.History(ctx, contacts[0], tc.before, tc.account, 50)
				return err
			})
			read := false
			for q, nodes := range plans {
				for _, n := range nodes {
					if n.Type == "Seq Scan" && n.Relation == "messages" {
						t.Errorf("%s scans messages: %v", q, nodes)
					}
				}
				read = read || testkit.UsesIndex(nodes, "messages", "message_contact_id_created_at_id")
			}
			if !read {
				t.Errorf("no query reads message_contact_id_created_at_id: %v", plans)
			}
			if tc.before == nil && page.Total != 20_000 {
				t.Errorf("total %d, want 20000", page.Total)
			}
		})
	}
}
