package main

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/google/uuid"

	"switchboard/bench/internal/benchkit"
	"switchboard/ent/migrate/migrations"
	"switchboard/internal/apiclient"
)

// world is what seed made and measured.
type world struct {
	big, small org
	seedTime   time.Duration
	// indexBuilds are the hand-written indexes' CONCURRENTLY builds on
	// the seeded size, in order; backfill the counters' backfill,
	// tagBackfill the tag order's (its versioned migration).
	indexBuilds []timed
	backfill    time.Duration
	tagBackfill time.Duration
	// Disk use of the messages table: heap (with TOAST) and indexes.
	messagesHeap, messagesIndexes int64
	messageRows                   int64
}

type timed struct {
	name string
	took time.Duration
}

// adminAndOrg returns the logged-in admin's id and organization (the
// large one).
func adminAndOrg(ctx context.Context, db *sql.DB, api *apiclient.Client) (admin, org uuid.UUID, err error) {
	if err := db.QueryRowContext(ctx, `SELECT id FROM users WHERE email = $1`, adminEmail).Scan(&admin); err != nil {
		return admin, org, fmt.Errorf("the admin's id: %w", err)
	}
	org, err = uuid.Parse(api.OrgID)
	return admin, org, err
}

// seed creates the accounts and organizations through the API, then
// copies the rows with the counters' triggers and the hand-written
// indexes off, rebuilds both as the migrations do (timed) and analyses.
func seed(ctx context.Context, db *sql.DB, api *apiclient.Client, sz sizes) (*world, error) {
	w := &world{}
	start := time.Now()
	admin, bigOrg, err := adminAndOrg(ctx, db, api)
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"Main", "Second"} {
		if err := addAccount(ctx, api, name); err != nil {
			return nil, err
		}
	}
	var smallOrgs []uuid.UUID
	for i := range sz.orgs {
		var o struct {
			ID uuid.UUID `json:"id"`
		}
		if err := api.Call(ctx, http.MethodPost, "/api/organizations", map[string]any{"name": fmt.Sprintf("Small %d", i)}, http.StatusCreated, &o); err != nil {
			return nil, err
		}
		smallOrgs = append(smallOrgs, o.ID)
	}
	builds, err := handWritten(ctx, db)
	if err != nil {
		return nil, err
	}
	for _, s := range []string{"ALTER TABLE contacts DISABLE TRIGGER USER", "ALTER TABLE messages DISABLE TRIGGER USER"} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return nil, err
		}
	}
	for _, b := range builds {
		if _, err := db.ExecContext(ctx, "DROP INDEX "+b[0]); err != nil {
			return nil, err
		}
	}
	now := time.Now().UTC()
	log.Printf("seeding %d contacts, %d messages, %d organizations of %d", sz.contacts, sz.messages, sz.orgs, sz.smallContacts)
	if w.big, err = seedOrg(ctx, db, bigOrg, admin, sz.contacts, sz.messages, sz.longest, now); err != nil {
		return nil, err
	}
	for i, o := range smallOrgs {
		s, err := seedOrg(ctx, db, o, admin, sz.smallContacts, sz.smallContacts*10, 20, now)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			w.small = s
		}
	}
	w.seedTime = time.Since(start)
	if err := w.rebuild(ctx, db, builds); err != nil {
		return nil, err
	}
	log.Printf("analysing")
	if _, err := db.ExecContext(ctx, "VACUUM ANALYZE"); err != nil {
		return nil, err
	}
	err = db.QueryRowContext(ctx, `SELECT pg_table_size('messages'), pg_indexes_size('messages'), (SELECT count(*) FROM messages)`).
		Scan(&w.messagesHeap, &w.messagesIndexes, &w.messageRows)
	return w, err
}

// tagOrderBackfill is the migration that fills the tag order.
const tagOrderBackfill = "20261129200001_contact_tag_order_backfill.up.sql"

// rebuild backfills the counters as the migration does and enables
// their triggers, fills the tag order with its migration (the seed's
// contacts were copied with the triggers off), then builds the
// hand-written indexes CONCURRENTLY, each timed.
func (w *world) rebuild(ctx context.Context, db *sql.DB, builds [][2]string) error {
	log.Printf("backfilling the counters")
	start := time.Now()
	for _, s := range []string{
		`UPDATE organizations o SET contact_count = n.n FROM (SELECT organization_id, count(*) AS n FROM contacts GROUP BY organization_id) n WHERE o.id = n.organization_id`,
		`UPDATE contacts c SET message_count = n.n FROM (SELECT contact_id, count(*) AS n FROM messages GROUP BY contact_id) n WHERE c.id = n.contact_id`,
		"ALTER TABLE contacts ENABLE TRIGGER USER", "ALTER TABLE messages ENABLE TRIGGER USER",
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	w.backfill = time.Since(start)
	log.Printf("backfilling the tag order")
	start = time.Now()
	if _, err := db.ExecContext(ctx, "TRUNCATE contact_tag_order"); err != nil {
		return err
	}
	backfill, err := migrations.FS.ReadFile(tagOrderBackfill)
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, string(backfill)); err != nil {
		return fmt.Errorf("the tag order's backfill: %w", err)
	}
	w.tagBackfill = time.Since(start)
	for _, b := range builds {
		log.Printf("building %s", b[0])
		start := time.Now()
		if _, err := db.ExecContext(ctx, b[1]); err != nil {
			return fmt.Errorf("%s: %w", b[0], err)
		}
		w.indexBuilds = append(w.indexBuilds, timed{b[0], time.Since(start)})
	}
	return nil
}

// seedOrg writes an organization's contacts, messages and other lists
// (seedLists) and picks what the reads address.
func seedOrg(ctx context.Context, db *sql.DB, id, agent uuid.UUID, contacts, messages, longest int, now time.Time) (org, error) {
	o := org{org: id, agent: agent}
	ids, err := seedContacts(ctx, db, id, agent, contacts, now)
	if err != nil {
		return o, err
	}
	var withHistory []uuid.UUID
	for i, c := range ids {
		if i%10 != 9 {
			withHistory = append(withHistory, c)
		}
	}
	if err := seedMessages(ctx, db, id, withHistory, messages, longest, now); err != nil {
		return o, err
	}
	if o.campaign, err = seedLists(ctx, db, id, agent, ids, now); err != nil {
		return o, err
	}
	o.history = withHistory[0]
	err = db.QueryRowContext(ctx, `SELECT id FROM messages WHERE contact_id = $1 ORDER BY created_at, id OFFSET $2 LIMIT 1`,
		o.history, min(longest, messages)/2).Scan(&o.middle)
	mid := contacts / 2
	// A contact's whole name: one match, or a few (names repeat).
	o.nameTerm = contactName(mid)
	// The last six digits of a contact's number: how an agent looks a
	// customer up.
	o.digits = contactPhone(mid)[5:]
	// The two words of the middle message ("about order 5000000"): one match.
	o.messageTerm = fmt.Sprintf("order %d", messages/2)
	return o, err
}

func addAccount(ctx context.Context, api *apiclient.Client, name string) error {
	return api.Call(ctx, http.MethodPost, "/api/accounts", map[string]any{
		"name": name, "phone_id": benchkit.RandomDigits(15), "business_id": benchkit.RandomDigits(15),
		"access_token": "bench-token", "app_secret": "bench-secret",
	}, http.StatusCreated, nil)
}
