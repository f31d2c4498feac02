package templates_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
	"switchboard/templates"
)

// planTemplates is the seeded size of the plan test: far more templates
// than one business account holds, so that the planner's choice is the
// one it makes on a table of every organization's templates.
const planTemplates = 100_000

// TestListPlans asserts, on PostgreSQL with 100,000 templates of one
// organization (four accounts, 70% approved, 60% marketing) and 1,000 of
// another, that the templates list (newest first) reads an index and
// never scans templates nor sorts what it found: the first and a deep
// page, by account, status and category, and a search of part of a
// name (name or display name, case-insensitive). The total is
// bounded (database.CountUpTo stops at database.CountBound+1 rows) and logged.
func TestListPlans(t *testing.T) {
	if testenv.PostgresURL(t) == "" {
		t.Skip("plans are PostgreSQL's")
	}
	db := testkit.OpenDB(t)
	org, ctx := testkit.NewOrg(t, db.Client, "acme")
	other, _ := testkit.NewOrg(t, db.Client, "globex")
	for _, s := range []struct {
		org uuid.UUID
		n   int
	}{{org, planTemplates}, {other, 1_000}} {
		_, err := db.SQL.Exec(`INSERT INTO templates (id, created_at, updated_at, organization_id, chat_account,
			provider_template_id, name, display_name, language, category, status, header_type, header_content,
			body_content, footer_content, buttons, sample_values, add_security_recommendation, quality_rating)
			SELECT gen_random_uuid(), now() - make_interval(mins => i), now(), $1, 'line ' || (i % 4), '',
				'offer_' || i, 'Offer ' || i, 'en',
				(CASE WHEN i % 10 < 6 THEN 'MARKETING' WHEN i % 10 < 9 THEN 'UTILITY' ELSE 'AUTHENTICATION' END),
				(CASE WHEN i % 10 < 7 THEN 'APPROVED' WHEN i % 10 < 8 THEN 'PENDING' WHEN i % 10 < 9 THEN 'REJECTED'
					ELSE 'DRAFT' END), 'NONE', '', 'Hello {{1}}', '', '[]', '[]', false, 'UNKNOWN'
			FROM generate_series(1, $2) AS i`, s.org, s.n)
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.SQL.Exec(`ANALYZE templates`); err != nil {
		t.Fatal(err)
	}
	svc := &templates.Service{Client: db.Client}
	created := []string{"template_organization_id_created_at"}
	for _, tc := range []struct {
		name    string
		f       templates.Filter
		indexes []string
		// sortOK: the search's matches, found by trigrams, are sorted
		// (a search names a few templates, not the organization's).
		sortOK bool
	}{
		{"FirstPage", templates.Filter{Page: 1}, created, false},
		{"DeepPage", templates.Filter{Page: 1_000}, created, false},
		{"Account", templates.Filter{Page: 1, Account: "line 1"}, created, false},
		{"Status", templates.Filter{Page: 1, Status: "approved"}, created, false},
		{"RareStatus", templates.Filter{Page: 1, Status: "draft"}, created, false},
		{"Category", templates.Filter{Page: 1, Category: "authentication"}, created, false},
		{"Search", templates.Filter{Page: 1, Search: "FER_4242"}, []string{"template_name_trgm", "template_display_name_trgm"}, true},
		{"SearchDisplayName", templates.Filter{Page: 1, Search: "fer 4242"}, []string{"template_name_trgm", "template_display_name_trgm"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.Limit = 20
			plans := testkit.Plans(t, ctx, db.SQL, func(ctx context.Context) error {
				p, err := svc.List(ctx, tc.f)
				if err == nil && len(p.Templates) == 0 {
					t.Error("no templates")
				}
				return err
			})
			testkit.ListPlan{Table: "templates", Indexes: tc.indexes, SortOK: tc.sortOK}.Check(t, plans)
		})
	}
}
