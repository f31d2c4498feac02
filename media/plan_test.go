package media_test

import (
	"context"
	"testing"

	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
	"switchboard/media"
	"switchboard/secrets"
)

// TestRecoverPlan asserts, on PostgreSQL with 200,000 incoming messages
// of the last week (a tenth of them images already fetched, the rest
// text), that the recovery sweep reads its partial index
// (message_media_unfetched) and never scans messages: at 10,000,000
// messages the scan took 2 s of both cores at every start (bench/scale).
func TestRecoverPlan(t *testing.T) {
	if testenv.PostgresURL(t) == "" {
		t.Skip("plans are PostgreSQL's")
	}
	db := testkit.OpenDB(t)
	org, ctx := testkit.NewOrg(t, db.Client, "acme")
	box, _ := secrets.NewBox("plan")
	contact := mustAccountAndContact(t, ctx, db.Client, box, "100000000000777")
	_, err := db.SQL.Exec(`INSERT INTO messages (id, created_at, updated_at, organization_id, contact_id, direction,
		message_type, content, status, chat_account, media_url, media_mime_type, media_filename, error_message)
		SELECT gen_random_uuid(), now() - make_interval(secs => i), now(), $1, $2, 'incoming',
			CASE WHEN i % 10 = 0 THEN 'image' ELSE 'text' END, '{"id": "M"}', 'read', 'Main',
			CASE WHEN i % 10 = 0 THEN '/api/media/x' ELSE '' END, '', '', ''
		FROM generate_series(1, 200000) AS i`, org, contact)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL.Exec(`ANALYZE messages`); err != nil {
		t.Fatal(err)
	}
	f := &media.Fetcher{Client: db.Client}
	n := -1
	plans := testkit.Plans(t, ctx, db.SQL, func(ctx context.Context) (err error) {
		n, err = f.Recover(ctx)
		return err
	})
	if n != 0 {
		t.Errorf("Recover queued %d, want 0 (every media message is fetched)", n)
	}
	testkit.AssertReadsIndex(t, plans, "messages", "message_media_unfetched")
}
