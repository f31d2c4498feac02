package contacts_test

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"

	"entgo.io/contrib/entgql"
	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"

	"switchboard/contacts"
	"switchboard/ent"
	"switchboard/ent/contact"
	"switchboard/ent/viewer"
	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
)

// planContacts is the seeded size of the plan test: enough rows that the
// planner's choice is the one it makes on a large organization (at 30,000
// it still reads the whole table for a search).
const planContacts = 100_000

// seedPlanContacts writes planContacts contacts of org in one statement
// (90% with a last message, a tag on every tenth, every twentieth
// assigned to member, half held from "acme line"), 100 of another
// organization, and analyses.
func seedPlanContacts(t *testing.T, db *sql.DB, org, other, member uuid.UUID) {
	t.Helper()
	for _, s := range []struct {
		org uuid.UUID
		n   int
	}{{org, planContacts}, {other, 100}} {
		_, err := db.Exec(`INSERT INTO contacts (id, created_at, updated_at, organization_id, phone_number, name,
			profile_name, avatar_url, status, tags, metadata, last_message_at, last_message_preview, unread_count,
			assigned_user_id, chat_account, marketing_opt_out)
			SELECT gen_random_uuid(), now() - make_interval(mins => i), now(), $1, '1666' || lpad(i::text, 8, '0'),
				'', 'Person ' || i, '', 'active',
				CASE WHEN i % 10 = 0 THEN '["vip"]'::jsonb ELSE '[]'::jsonb END, '{}',
				CASE WHEN i % 10 <> 9 THEN now() - make_interval(secs => i) END, '', 0,
				CASE WHEN i % 20 = 0 THEN $3::uuid END, CASE WHEN i % 2 = 0 THEN 'acme line' ELSE '' END, false
			FROM generate_series(1, $2) AS i`, s.org, s.n, member)
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`ANALYZE contacts, contact_tag_order`); err != nil {
		t.Fatal(err)
	}
}

// TestListPlans asserts, on PostgreSQL at a seeded size, that every query
// of the contacts list, search and count reads an index and none scans
// the contacts table: the first and a deep page, name and phone-digit
// search, the tag filter, GraphQL's connection in its default order, by
// assigned user and by account. Only the bounded count may scan, under
// its LIMIT.
func TestListPlans(t *testing.T) {
	if testenv.PostgresURL(t) == "" {
		t.Skip("plans are PostgreSQL's")
	}
	f := newFixture(t)
	sqlDB := f.sql
	org := viewer.FromContext(f.ctx).OrgID
	seedPlanContacts(t, sqlDB, org, viewer.FromContext(f.other).OrgID, f.member)
	list := func(flt contacts.Filter, offset int) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := f.s.List(ctx, flt, offset, 20)
			return err
		}
	}
	paginateBy := func(order *ent.ContactOrder, flt contacts.Filter, where ...func(*ent.ContactQuery)) func(context.Context) error {
		return func(ctx context.Context) error {
			narrow := func(q *ent.ContactQuery) (*ent.ContactQuery, error) {
				for _, w := range where {
					w(q)
				}
				return q, nil
			}
			_, err := f.s.Paginate(ctx, flt, true, narrow, func(q *ent.ContactQuery) (*ent.ContactConnection, error) {
				first := 20
				return q.Paginate(edgesOnly(ctx), nil, &first, nil, nil, ent.WithContactOrder(order))
			})
			return err
		}
	}
	paginate := func(flt contacts.Filter, where ...func(*ent.ContactQuery)) func(context.Context) error {
		return paginateBy(nil, flt, where...)
	}
	byLastMessage := &ent.ContactOrder{Direction: entgql.OrderDirectionDesc, Field: ent.ContactOrderFieldLastMessageAt}
	for _, tc := range []struct {
		name string
		op   func(context.Context) error
		// index is what the list's query reads (any of them).
		index []string
		// inOrder: no query sorts (not even incrementally); the index
		// gives the page's order.
		inOrder bool
		// noScan: not even the bounded count reads the table in order
		// (a search: see countSearch).
		noScan bool
	}{
		{"FirstPage", list(contacts.Filter{}, 0), []string{"contact_inbox_order"}, false, false},
		{"DeepPage", list(contacts.Filter{}, 20_000), []string{"contact_inbox_order"}, false, false},
		{"SearchName", list(contacts.Filter{Search: "son 2999"}, 0), []string{"contact_names_hours", "contact_inbox_order"}, false, false},
		// "person 1" is held by a ninth of the organization: the
		// planner would test rows in table order for the count's bound.
		{name: "SearchBroad", op: list(contacts.Filter{Search: "person 1"}, 0), index: []string{"contact_names_hours"}, noScan: true},
		{name: "SearchBroadGraphQL", op: paginate(contacts.Filter{Search: "person 1"}), index: []string{"contact_names_hours"}, noScan: true},
		{"SearchPhoneDigits", list(contacts.Filter{Search: "0012345"}, 0), []string{"contact_phone_hours"}, false, false},
		{"TagFilter", list(contacts.Filter{Tags: []string{"vip"}}, 0), []string{"contact_tag_order_inbox"}, false, false},
		{"TagFilterDeepPage", list(contacts.Filter{Tags: []string{"vip"}}, 5_000), []string{"contact_tag_order_inbox"}, false, false},
		{"TwoTags", list(contacts.Filter{Tags: []string{"vip", "lead"}}, 0), []string{"contact_tag_order_inbox"}, false, false},
		{"GraphQLFirst", paginate(contacts.Filter{}), []string{"contact_organization_id_id"}, false, false},
		// Its total from the tag order, not a bounded scan of the table.
		{name: "GraphQLTag", op: paginate(contacts.Filter{Tags: []string{"vip"}}), index: []string{"contact_tag_order_inbox"}, noScan: true},
		// ORDER BY last_message_at DESC, id DESC: the tenth without a
		// message come first (NULLS FIRST) and tie; the index orders them.
		{"GraphQLByLastMessage", paginateBy(byLastMessage, contacts.Filter{}), []string{"contact_organization_id_last_message_at_id"}, true, false},
		{"GraphQLAssignedUser", paginate(contacts.Filter{Narrowed: true}, func(q *ent.ContactQuery) {
			q.Where(contact.AssignedUserID(f.member))
		}), []string{"contact_organization_id_assigned_user_id", "contact_organization_id_id"}, false, false},
		{"GraphQLAccount", paginate(contacts.Filter{Narrowed: true}, func(q *ent.ContactQuery) {
			q.Where(contact.ChatAccount("acme line"))
		}), []string{"contact_organization_id_id"}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plans := testkit.Plans(t, f.ctx, sqlDB, tc.op)
			read := false
			for q, nodes := range plans {
				// The bounded count (SELECT 1 ... LIMIT bound+1) may read
				// the table in order when the filter matches many rows: the
				// scan stops at the bound.
				bounded := strings.HasPrefix(q, "SELECT 1 FROM") && nodes[0].Type == "Limit" && !tc.noScan
				for _, n := range nodes {
					if n.Type == "Seq Scan" && (n.Relation == "contacts" || n.Relation == "messages" || n.Relation == "contact_tag_order") && !bounded {
						t.Errorf("%s scans %s: %v", q, n.Relation, nodes)
					}
					if tc.inOrder && strings.HasSuffix(n.Type, "Sort") {
						t.Errorf("%s sorts: %v", q, nodes)
					}
				}
				for _, ix := range tc.index {
					read = read || testkit.UsesIndex(nodes, "contacts", ix) || testkit.UsesIndex(nodes, "contact_tag_order", ix)
				}
			}
			if !read {
				t.Errorf("no query reads %v: %v", tc.index, plans)
			}
		})
	}
}

// edgesOnly is ctx as a GraphQL field selecting edges { node { id } } and
// no totalCount (the transport hides it from ent's Paginate, which would
// count every row).
func edgesOnly(ctx context.Context) context.Context {
	leaf := func(name string, sel ...ast.Selection) *ast.Field {
		return &ast.Field{Name: name, Alias: name, SelectionSet: sel}
	}
	ctx = graphql.WithOperationContext(ctx, &graphql.OperationContext{Variables: map[string]any{}})
	return graphql.WithFieldContext(ctx, &graphql.FieldContext{Field: graphql.CollectedField{
		Field: leaf("contacts"), Selections: ast.SelectionSet{leaf("edges", leaf("node", leaf("id")))},
	}})
}

// TestFilteredPageWhenTheRecentDoNotMatch: after a campaign brought
// thousands of new contacts, none tagged "vip" nor named like the search,
// the first page of a tag filter or a search is not a walk of the inbox
// order through every new contact. A search's is read a range of hours at
// a time (its term is held by thousands); where the recent contacts do
// match, it comes from them, a walk bounded to the most recent
// conversations. A tag
// filter's is always read from the tag order, the tag's own entries in
// inbox order. Either way the page is the inbox order's, as a plain ORDER
// BY gives it.
func TestFilteredPageWhenTheRecentDoNotMatch(t *testing.T) {
	if testenv.PostgresURL(t) == "" {
		t.Skip("the probe and the bitmaps are PostgreSQL's")
	}
	f := newFixture(t)
	org := viewer.FromContext(f.ctx).OrgID
	seedPlanContacts(t, f.sql, org, viewer.FromContext(f.other).OrgID, f.member)
	want := func(t *testing.T, org uuid.UUID, where string) []uuid.UUID {
		t.Helper()
		rows, err := f.sql.Query(`SELECT id FROM contacts WHERE organization_id = $1 AND `+where+`
			ORDER BY last_message_at DESC NULLS LAST, created_at DESC, id LIMIT 20`, org)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var ids []uuid.UUID
		for rows.Next() {
			var id uuid.UUID
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return ids
	}
	type filterCase = struct {
		name, where string
		filter      contacts.Filter
	}
	cases := []filterCase{
		{"TagFilter", `tags @> '"vip"'`, contacts.Filter{Tags: []string{"vip"}}},
		{"Search", `(name ILIKE '%person 1%' OR profile_name ILIKE '%person 1%')`, contacts.Filter{Search: "person 1"}},
	}
	check := func(t *testing.T, ctx context.Context, tc filterCase, recentMatch bool) {
		flt, where := tc.filter, tc.where
		var page *contacts.Page
		plans := testkit.Plans(t, ctx, f.sql, func(ctx context.Context) (err error) {
			page, err = f.s.List(ctx, flt, 0, 20)
			return err
		})
		var got []uuid.UUID
		for _, c := range page.Contacts {
			got = append(got, c.ID)
		}
		if w := want(t, viewer.FromContext(ctx).OrgID, where); !slices.Equal(got, w) {
			t.Fatalf("page %v, want %v", got, w)
		}
		if len(flt.Tags) > 0 {
			checkReadsTagOrder(t, plans)
			return
		}
		// No statement reads the page from the whole order (the probe is
		// bounded by the window's last message time); where the recent do
		// not match, the term ("person 1", held by a ninth) is read a
		// range of hours at a time.
		for q, nodes := range plans {
			if !strings.HasPrefix(q, `SELECT "contacts"."id" FROM`) || !strings.Contains(q, "ORDER BY") ||
				strings.Contains(q, `"last_message_at" >= `) {
				continue
			}
			t.Errorf("%s reads the page from the whole order: %v", q, nodes)
		}
		if walked := readsByHours(t, plans); walked == recentMatch {
			t.Errorf("read by hours %v, want %v: %v", walked, !recentMatch, plans)
		}
	}
	for _, tc := range cases {
		t.Run(tc.name+"RecentMatch", func(t *testing.T) { check(t, f.ctx, tc, true) })
	}
	// A campaign's 5,000 contacts, the most recent conversations.
	if _, err := f.sql.Exec(`INSERT INTO contacts (id, created_at, updated_at, organization_id, phone_number, name,
		profile_name, avatar_url, status, tags, metadata, last_message_at, last_message_preview, unread_count,
		chat_account, marketing_opt_out)
		SELECT gen_random_uuid(), now(), now(), $1, '1777' || lpad(i::text, 8, '0'), '', 'Newcomer ' || i, '', 'active',
			'[]', '{}', now() + make_interval(secs => i), '', 0, '', false
		FROM generate_series(1, 5000) AS i`, org); err != nil {
		t.Fatal(err)
	}
	if _, err := f.sql.Exec(`ANALYZE contacts`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name+"RecentDoNotMatch", func(t *testing.T) { check(t, f.ctx, tc, false) })
	}
	// An imported list: 5,000 contacts without a message (the order's
	// tail, by creation), the 4,000 newest untagged. No bound on the last
	// message time walks them: the page is read from the tag index.
	if _, err := f.sql.Exec(`INSERT INTO contacts (id, created_at, updated_at, organization_id, phone_number, name,
		profile_name, avatar_url, status, tags, metadata, last_message_preview, unread_count, chat_account, marketing_opt_out)
		SELECT gen_random_uuid(), now() - make_interval(secs => i), now(), $1, '1888' || lpad(i::text, 8, '0'), '',
			'Imported ' || i, '', 'active', CASE WHEN i > 4000 THEN '["vip"]'::jsonb ELSE '[]' END, '{}', '', 0, '', false
		FROM generate_series(1, 5000) AS i`, viewer.FromContext(f.other).OrgID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.sql.Exec(`ANALYZE contacts`); err != nil {
		t.Fatal(err)
	}
	t.Run("TagFilterImportedList", func(t *testing.T) { check(t, f.other, cases[0], false) })
}

// checkReadsTagOrder fails unless a statement of plans reads the tag
// order's index and none reads the contacts in inbox order or scans them.
func checkReadsTagOrder(t *testing.T, plans map[string][]testkit.PlanNode) {
	t.Helper()
	read := false
	for q, nodes := range plans {
		for _, n := range nodes {
			if n.Index == "contact_inbox_order" || n.Type == "Seq Scan" {
				t.Errorf("%s walks the organization: %v", q, nodes)
			}
		}
		read = read || testkit.UsesIndex(nodes, "contact_tag_order", "contact_tag_order_inbox")
	}
	if !read {
		t.Errorf("no statement reads contact_tag_order_inbox: %v", plans)
	}
}
