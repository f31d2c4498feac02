package messaging_test

import (
	"context"
	"crypto/md5"
	"fmt"
	"strings"
	"testing"

	"switchboard/internal/testkit"
	"switchboard/messaging"
)

// TestSearchUsesTheTextIndex seeds 100,000 messages in one organization
// (and 20,000 in another), analyses them, and EXPLAINs the statement
// Search sends for a word a few messages hold: the plan must read the GIN
// index over the messages' words (database.MessageBodySearchIndex), not
// scan the table, so that a later change to the query cannot fall back
// to a scan unnoticed. Seeding takes a few seconds.
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
		// Each message holds a common word, one of 1,000 order numbers
		// and a word of its own.
		if _, err := db.SQL.ExecContext(ctx, `
			INSERT INTO messages (id, created_at, updated_at, direction, content, contact_id, organization_id)
			SELECT gen_random_uuid(), now() - g * interval '1 second', now(), 'incoming',
			       jsonb_build_object('body', 'hello order ' || (g % 1000) || ' code' || md5(g::text)),
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
	for _, tc := range []struct{ q, wantIndex string }{
		{"code" + md5Of("777"), "message_body_search"}, // one message
		{`"order 42"`, "message_body_search"},          // 100 messages, a phrase
		// Every message: newest first through the organization's index,
		// stopping at the page, is cheaper than the bitmap of all.
		{"hello", "message_organization_id_created_at"},
	} {
		t.Run(tc.q, func(t *testing.T) {
			q := tc.q
			text, args, err := svc.SearchSQL(reader, q, messaging.SearchDefaultSize)
			if err != nil {
				t.Fatal(err)
			}
			var plan strings.Builder
			rows, err := db.SQL.QueryContext(ctx, "EXPLAIN "+text, args...)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var line string
				if err := rows.Scan(&line); err != nil {
					t.Fatal(err)
				}
				plan.WriteString(line + "\n")
			}
			if !strings.Contains(plan.String(), tc.wantIndex) || strings.Contains(plan.String(), "Seq Scan on messages") {
				t.Errorf("the search does not read %s:\n%s\n%s", tc.wantIndex, text, plan.String())
			}
		})
	}
}

// md5Of is PostgreSQL's md5(s): the seed's own words.
func md5Of(s string) string { return fmt.Sprintf("%x", md5.Sum([]byte(s))) }
