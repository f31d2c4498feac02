package contacts_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/uuid"

	"switchboard/contacts"
	"switchboard/ent/viewer"
	"switchboard/internal/testenv"
)

// TestTagPagesAreTheInboxOrder: on PostgreSQL a filter on tags alone is
// read from the tag order; its pages and totals are what a plain query
// of the contacts gives, for one tag and several (a contact holding two
// is listed once), at every depth, with ties on the last message time,
// contacts without one, and another organization holding the same tags.
// The total is exact up to the bound and capped past it.
func TestTagPagesAreTheInboxOrder(t *testing.T) {
	if testenv.PostgresURL(t) == "" {
		t.Skip("the tag order is PostgreSQL's")
	}
	f := newFixture(t)
	org, other := viewer.FromContext(f.ctx).OrgID, viewer.FromContext(f.other).OrgID
	for _, o := range []uuid.UUID{org, other} {
		// Tags by i: "a" every 2nd, "b" every 3rd, "c" every 7th; the last
		// message time ties by threes, a tenth has none.
		if _, err := f.sql.Exec(`INSERT INTO contacts (id, created_at, updated_at, organization_id, phone_number, name,
			profile_name, avatar_url, status, tags, metadata, last_message_at, last_message_preview, unread_count,
			chat_account, marketing_opt_out)
			SELECT gen_random_uuid(), now() - make_interval(secs => i % 50), now(), $1, '1999' || lpad(i::text, 8, '0'), '',
				'Tagged ' || i, '', 'active',
				(SELECT coalesce(jsonb_agg(t), '[]') FROM (VALUES ('a', 2), ('b', 3), ('c', 7)) AS v(t, n) WHERE i % n = 0),
				'{}', CASE WHEN i % 10 <> 0 THEN now() - make_interval(mins => i / 3) END, '', 0, '', false
			FROM generate_series(1, 3000) AS i`, o); err != nil {
			t.Fatal(err)
		}
	}
	want := func(t *testing.T, tags []string, offset, limit int) ([]uuid.UUID, int) {
		t.Helper()
		rows, err := f.sql.Query(`SELECT id, count(*) OVER () FROM contacts
			WHERE organization_id = $1 AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(tags) e WHERE e = ANY($2))
			ORDER BY last_message_at DESC NULLS LAST, created_at DESC, id`, org, fmt.Sprintf("{%s}", joinTags(tags)))
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var ids []uuid.UUID
		total := 0
		for rows.Next() {
			var id uuid.UUID
			if err := rows.Scan(&id, &total); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return ids[min(offset, len(ids)):min(offset+limit, len(ids))], total
	}
	for _, tags := range [][]string{{"c"}, {"a"}, {"b", "c"}, {"a", "b", "c"}, {" c ", "c", ""}, {"none"}} {
		for _, offset := range []int{0, 20, 380, 1980, 2980} {
			t.Run(fmt.Sprintf("%v@%d", tags, offset), func(t *testing.T) {
				page, err := f.s.List(f.ctx, contacts.Filter{Tags: tags}, offset, 20)
				if err != nil {
					t.Fatal(err)
				}
				var got []uuid.UUID
				for _, c := range page.Contacts {
					got = append(got, c.ID)
				}
				w, total := want(t, tags, offset, 20)
				if !slices.Equal(got, w) {
					t.Errorf("page %v, want %v", got, w)
				}
				wantTotal, capped := total, false
				if bound := max(contacts.CountBound, offset+20); total > bound {
					wantTotal, capped = bound+1, true
				}
				if page.Total != wantTotal || page.TotalCapped != capped {
					t.Errorf("total %d (capped %v), want %d (%v)", page.Total, page.TotalCapped, wantTotal, capped)
				}
			})
		}
	}
}

func joinTags(tags []string) string {
	out := ""
	for i, t := range tags {
		if i > 0 {
			out += ","
		}
		out += `"` + t + `"`
	}
	return out
}

// TestTagPageOfAnyName: a tag is data in the tag order's array parameter,
// whatever it holds (quotes, a backslash, a comma, braces).
func TestTagPageOfAnyName(t *testing.T) {
	if testenv.PostgresURL(t) == "" {
		t.Skip("the tag order is PostgreSQL's")
	}
	f := newFixture(t)
	names := []string{`say "hi"`, `back\slash`, `comma,here`, `{braces}`, `NULL`}
	c := f.mustCreate(t, contacts.CreateInput{PhoneNumber: "+15550001234", Tags: names})
	f.mustCreate(t, contacts.CreateInput{PhoneNumber: "+15550001235", Tags: []string{"other"}})
	for _, name := range names {
		page, err := f.s.List(f.ctx, contacts.Filter{Tags: []string{name}}, 0, 20)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Contacts) != 1 || page.Contacts[0].ID != c.ID || page.Total != 1 {
			t.Errorf("tag %q: %d contacts, total %d", name, len(page.Contacts), page.Total)
		}
	}
}
