package contacts_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/contacts"
	"switchboard/database"
	"switchboard/ent/viewer"
	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
)

// seedHoursContacts writes the contacts of TestSearchByHours into org,
// oldest first: 3,000 over five weeks (a third named Nadia, phones
// 1555...), gaps of days between their weeks; 1,500 Nadias in one hour
// (more than a range reads before it narrows); 600 without a message (the
// order's tail, by creation; a third Nadias, by name where the others
// are by profile name); then a campaign's 3,000 in
// the last two hours, none of them a Nadia nor a 1555 phone (the probe
// finds no match among them). Times tie by twos.
func seedHoursContacts(t *testing.T, f *fixture, org uuid.UUID) {
	t.Helper()
	for _, q := range []string{
		`SELECT gen_random_uuid(), now() - interval '60 days', now(), $1, '1555' || lpad(i::text, 8, '0'), '',
			CASE WHEN i % 3 = 0 THEN 'Nadia ' ELSE 'Other ' END || i, '', 'active', '[]', '{}',
			now() - interval '3 days' - make_interval(mins => (i / 2) * 17 + (i / 500) * 2880), '', 0, '', false
			FROM generate_series(1, 3000) AS i`,
		`SELECT gen_random_uuid(), now() - interval '60 days', now(), $1, '1666' || lpad(i::text, 8, '0'), '',
			'Nadia busy ' || i, '', 'active', '[]', '{}',
			date_trunc('hour', now() - interval '2 days') + make_interval(secs => (i / 2) * 2), '', 0, '', false
			FROM generate_series(1, 1500) AS i`,
		`SELECT gen_random_uuid(), now() - make_interval(mins => (i / 2) * 13), now(), $1, '1888' || lpad(i::text, 8, '0'),
			CASE WHEN i % 3 = 0 THEN 'Nadia nomsg ' ELSE 'Silent ' END || i, 'Profile', '', 'active', '[]', '{}',
			NULL, '', 0, '', false
			FROM generate_series(1, 600) AS i`,
		`SELECT gen_random_uuid(), now(), now(), $1, '1777' || lpad(i::text, 8, '0'), '',
			'Campaign ' || i, '', 'active', '[]', '{}', now() - make_interval(secs => i * 2), '', 0, '', false
			FROM generate_series(1, 3000) AS i`,
	} {
		if _, err := f.sql.Exec(`INSERT INTO contacts (id, created_at, updated_at, organization_id, phone_number,
			name, profile_name, avatar_url, status, tags, metadata, last_message_at, last_message_preview,
			unread_count, chat_account, marketing_opt_out) `+q, org); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSearchByHours: on PostgreSQL a search held by more contacts than
// its page reaches, whose holders are older than the most recent
// conversations, reads its page a range of hours at a time; each page is
// what a plain ORDER BY gives, at every depth the walk serves: across
// gaps of days, through an hour holding more hits than a range reads,
// into the contacts without a message, by name, profile name (case
// folded), part of a word and phone digits, with another organization
// holding the same names more recently. Past its steps the walk gives up
// and the page is read from the bitmap, the same page.
func TestSearchByHours(t *testing.T) {
	if testenv.PostgresURL(t) == "" {
		t.Skip("the search by hours is PostgreSQL's")
	}
	f := newFixture(t)
	org, other := viewer.FromContext(f.ctx).OrgID, viewer.FromContext(f.other).OrgID
	seedHoursContacts(t, f, org)
	// The other organization's Nadias are the newest of all.
	if _, err := f.sql.Exec(`INSERT INTO contacts (id, created_at, updated_at, organization_id, phone_number,
		name, profile_name, avatar_url, status, tags, metadata, last_message_at, last_message_preview,
		unread_count, chat_account, marketing_opt_out)
		SELECT gen_random_uuid(), now(), now(), $1, '1555' || lpad(i::text, 8, '0'), 'Nadia ' || i, '', '', 'active',
			'[]', '{}', now() + interval '1 hour', '', 0, '', false FROM generate_series(1, 500) AS i`, other); err != nil {
		t.Fatal(err)
	}
	if _, err := f.sql.Exec(`ANALYZE contacts`); err != nil {
		t.Fatal(err)
	}
	want := func(t *testing.T, where string, arg any, offset, limit int) []uuid.UUID {
		t.Helper()
		ids, err := database.QueryIDs(context.Background(), f.db, `SELECT id FROM contacts WHERE organization_id = $1 AND `+where+`
			ORDER BY last_message_at DESC NULLS LAST, created_at DESC, id`, org, arg)
		if err != nil {
			t.Fatal(err)
		}
		return ids[min(offset, len(ids)):min(offset+limit, len(ids))]
	}
	byName := `(name ILIKE $2 OR profile_name ILIKE $2)`
	for _, tc := range []struct {
		name, search, where string
		arg                 any
		// walks: the page is read by hours (more hold the term than
		// the count's bound).
		walks bool
	}{
		{"FirstName", "nadia", byName, "%nadia%", true},
		{"ProfileNameFolded", "BUSY", byName, "%busy%", true},
		{"PartOfAWord", "adia b", byName, "%adia b%", true},
		{"PhoneDigits", "1555", `(name ILIKE $2 OR profile_name ILIKE $2 OR phone_number LIKE $2)`, "%1555%", true},
		{"WithoutMessages", "nadia nomsg", byName, "%nadia nomsg%", false},
	} {
		for _, offset := range []int{0, 20, 980, 1_000, 4_000} {
			page, err := f.s.List(f.ctx, contacts.Filter{Search: tc.search}, offset, 20)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]uuid.UUID, len(page.Contacts))
			for i, c := range page.Contacts {
				got[i] = c.ID
			}
			if w := want(t, tc.where, tc.arg, offset, 20); !slices.Equal(got, w) {
				t.Errorf("%s at %d: %d contacts %v, want %d %v", tc.name, offset, len(got), got, len(w), w)
			}
		}
		plans := testkit.Plans(t, f.ctx, f.sql, func(ctx context.Context) error {
			_, err := f.s.List(ctx, contacts.Filter{Search: tc.search}, 0, 20)
			return err
		})
		if walked := readsByHours(t, plans); walked != tc.walks {
			t.Errorf("%s: read by hours %v, want %v: %v", tc.name, walked, tc.walks, plans)
		}
	}
	t.Run("FewMatchesOneRead", func(t *testing.T) {
		// 200 hold the term: their ids and order come with the total, in
		// one statement; the rows are the second.
		st := &database.Statements{}
		page, err := f.s.List(database.CountStatements(f.ctx, st), contacts.Filter{Search: "nadia nomsg"}, 20, 20)
		if err != nil {
			t.Fatal(err)
		}
		if page.Total != 200 || page.TotalCapped || len(page.Contacts) != 20 {
			t.Errorf("total %d (capped %v), %d contacts; want 200 and 20", page.Total, page.TotalCapped, len(page.Contacts))
		}
		var reads []string
		for _, q := range st.Texts() {
			if !strings.HasPrefix(q, "SET LOCAL") {
				reads = append(reads, q)
			}
		}
		if len(reads) != 2 {
			t.Errorf("%d reads, want 2: %q", len(reads), reads)
		}
	})
	t.Run("NotAcrossTheNames", func(t *testing.T) {
		// The names' index holds name, a separator, profile name: a term
		// holding the separator matches neither name.
		page, err := f.s.List(f.ctx, contacts.Filter{Search: "nomsg 3\x1fProfile"}, 0, 20)
		if err != nil {
			t.Fatal(err)
		}
		if page.Total != 0 || len(page.Contacts) != 0 {
			t.Errorf("%d contacts across the names", page.Total)
		}
	})
	t.Run("GivesUp", func(t *testing.T) {
		contacts.SetHourSearchSteps(t, 2)
		page, err := f.s.List(f.ctx, contacts.Filter{Search: "nadia"}, 0, 20)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]uuid.UUID, len(page.Contacts))
		for i, c := range page.Contacts {
			got[i] = c.ID
		}
		if w := want(t, byName, "%nadia%", 0, 20); !slices.Equal(got, w) {
			t.Errorf("page %v, want %v", got, w)
		}
	})
	t.Run("AnHourNewerThanTheStatistics", func(t *testing.T) {
		// An ingest's new contacts in an hour the last ANALYZE has not
		// seen, none a Nadia: the planner expects the hour to hold few,
		// yet a name search's ranges are still read through the names
		// index, its term and hours together (readsByHours), never by the
		// hours alone, as the phone index could when it had the same keys.
		if _, err := f.sql.Exec(`INSERT INTO contacts (id, created_at, updated_at, organization_id, phone_number,
			name, profile_name, avatar_url, status, tags, metadata, last_message_at, last_message_preview,
			unread_count, chat_account, marketing_opt_out)
			SELECT gen_random_uuid(), now(), now(), $1, '1999' || lpad(i::text, 8, '0'), '', 'Fresh ' || i, '',
				'active', '[]', '{}', date_trunc('hour', now()) + interval '3 hours' + make_interval(secs => i % 3000), '', 0, '', false
				FROM generate_series(1, 6000) AS i`, org); err != nil {
			t.Fatal(err)
		}
		plans := testkit.Plans(t, f.ctx, f.sql, func(ctx context.Context) error {
			_, err := f.s.List(ctx, contacts.Filter{Search: "nadia"}, 0, 20)
			return err
		})
		if !readsByHours(t, plans) {
			t.Errorf("not read by hours: %v", plans)
		}
	})
}

// readsByHours reports whether a statement of plans searched a range of
// hours, and fails unless each such statement reads a search index, a
// name search's the names index only, and none walks the organization's
// order or scans it.
func readsByHours(t *testing.T, plans map[string][]testkit.PlanNode) bool {
	t.Helper()
	walked := false
	for q, nodes := range plans {
		if !strings.Contains(q, "contact_hour_key(") {
			continue
		}
		walked = true
		read := false
		for _, ix := range []string{"contact_names_hours", "contact_phone_hours"} {
			read = read || testkit.UsesIndex(nodes, "contacts", ix)
		}
		if !read {
			t.Errorf("%s reads no search index: %v", q, nodes)
		}
		for _, n := range nodes {
			if n.Index == "contact_inbox_order" || n.Type == "Seq Scan" {
				t.Errorf("%s walks the organization: %v", q, nodes)
			}
			if !strings.Contains(q, "phone_number LIKE") && strings.HasPrefix(n.Index, "contact_phone") {
				t.Errorf("%s, a name search, reads the phone index: %v", q, nodes)
			}
		}
	}
	return walked
}
