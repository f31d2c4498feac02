package campaigns_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"switchboard/campaigns"
	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
)

// planRecipients is the size of the campaign the plan test lists, and
// of each of the nine campaigns sent before it.
const planRecipients = 30_000

// TestListPlans asserts, on PostgreSQL with a campaign of 30,000
// recipients among 300,000 of its organization (ten campaigns, the one
// listed imported last, so that its ids come after the others' as UUIDv7
// ids do) and 1,000 of another organization, that the
// recipients list reads the campaign's rows through an index in id
// order and never scans campaign_recipients nor sorts them: the first
// page, a deep page, and each status filter (a common one, a rare one).
// The total is bounded (database.CountUpTo stops at 10,001 rows) and logged.
func TestListPlans(t *testing.T) {
	if testenv.PostgresURL(t) == "" {
		t.Skip("plans are PostgreSQL's")
	}
	db := testkit.OpenDB(t)
	org, ctx := testkit.NewOrg(t, db.Client, "acme")
	other, _ := testkit.NewOrg(t, db.Client, "globex")
	// Campaigns numbered in import order, with UUIDv7 ids as the schema
	// makes them (the planner weighs campaign_id's correlation with the
	// table's order); recipient ids are made from the number and the row,
	// time-ordered as UUIDv7 ids are.
	seed := func(org uuid.UUID, number, n int) uuid.UUID {
		t.Helper()
		id := uuid.Must(uuid.NewV7())
		_, err := db.SQL.Exec(`INSERT INTO campaigns (id, created_at, updated_at, organization_id, name, chat_account,
			status, total_recipients, sent_count, delivered_count, read_count, failed_count, header_media_id,
			header_media_path, header_media_filename, header_media_mime_type, error_message)
			VALUES ($1, now(), now(), $2, 'Campaign ' || $3::int, 'acme line', 'completed', $4, 0, 0, 0, 0, '', '', '', '', '')`,
			id, org, number, n)
		if err != nil {
			t.Fatal(err)
		}
		// 60% delivered, 20% read, 10% sent, 5% pending, 4% sending, 1%
		// failed.
		_, err = db.SQL.Exec(`INSERT INTO campaign_recipients (id, created_at, updated_at, organization_id, campaign_id,
			phone_number, recipient_name, template_params, header_params, status, error_message, attempts)
			SELECT (lpad(to_hex($3::int), 8, '0') || '-0000-7000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, now(), now(),
				$1, $2, '1666' || lpad(i::text, 8, '0'), '', '{}', '{}',
				(CASE WHEN i % 100 < 60 THEN 'delivered' WHEN i % 100 < 80 THEN 'read' WHEN i % 100 < 90 THEN 'sent'
					WHEN i % 100 < 95 THEN 'pending' WHEN i % 100 < 99 THEN 'sending' ELSE 'failed' END),
				'', 1
			FROM generate_series(1, $4) AS i`, org, id, number, n)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	seed(other, 1, 1_000)
	for n := 2; n < 11; n++ {
		seed(org, n, planRecipients)
	}
	// The listed campaign is a tenth of the organization's recipients,
	// as in an organization that has sent many: the primary key alone
	// would walk every older campaign's recipients before reaching its
	// own (the planner expects them spread evenly).
	listed := seed(org, 11, planRecipients)
	if _, err := db.SQL.Exec(`ANALYZE campaign_recipients`); err != nil {
		t.Fatal(err)
	}
	svc := &campaigns.Service{Client: db.Client, Postgres: true}
	all := testkit.ListPlan{Table: "campaign_recipients", Indexes: []string{"campaign_recipient_campaign_id_id_org"}}
	byStatus := testkit.ListPlan{Table: "campaign_recipients", Indexes: []string{"campaign_recipient_campaign_id_status_id"}}
	for _, tc := range []struct {
		name, status string
		offset       int
		plan         testkit.ListPlan
	}{
		{"FirstPage", "", 0, all},
		{"DeepPage", "", 20_000, testkit.ListPlan{Table: "campaign_recipients", Indexes: all.Indexes, IndexOnly: true}},
		{"Delivered", "delivered", 0, byStatus},
		{"Failed", "failed", 0, byStatus},
		{"FailedDeepPage", "failed", 200, byStatus},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plans := testkit.Plans(t, ctx, db.SQL, func(ctx context.Context) error {
				rs, _, err := svc.Recipients(ctx, listed, tc.status, tc.offset, campaigns.DefaultRecipientsPage)
				if err == nil && len(rs) != campaigns.DefaultRecipientsPage {
					t.Errorf("%d recipients, want %d", len(rs), campaigns.DefaultRecipientsPage)
				}
				return err
			})
			tc.plan.Check(t, plans)
		})
	}
}
