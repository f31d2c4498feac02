package widgets_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
	"switchboard/internal/testkit"
	"switchboard/widgets"
)

// fixture is the service on a migrated database, with members of one
// organization (an owner of widgets and a colleague, both without
// permissions; a sharer who may update settings) and a member of another.
type fixture struct {
	s                        *widgets.Service
	db                       *ent.Client
	system, otherSystem      context.Context
	owner, colleague, sharer context.Context
	outsider                 context.Context
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	db := testkit.OpenDB(t).Client
	org, ctx := testkit.NewOrg(t, db, "acme")
	other, otherCtx := testkit.NewOrg(t, db, "globex")
	return &fixture{
		s: &widgets.Service{Client: db}, db: db, system: ctx, otherSystem: otherCtx,
		owner:     testkit.NewMember(t, db, org, "Owen Owner"),
		colleague: testkit.NewMember(t, db, org, "Col League"),
		sharer:    testkit.NewMember(t, db, org, "Sha Rer", "settings:update"),
		outsider:  testkit.NewMember(t, db, other, "Out Sider", "settings:update"),
	}
}

func ptr[T any](v T) *T { return &v }

// counting is a valid number widget of messages.
func counting(name string) widgets.Input {
	return widgets.Input{Name: ptr(name), DataSource: ptr("messages")}
}

func (f *fixture) mustCreate(t *testing.T, ctx context.Context, in widgets.Input) *ent.DashboardWidget {
	t.Helper()
	w, err := f.s.Create(ctx, in)
	if err != nil {
		t.Fatalf("create %q: %v", *in.Name, err)
	}
	return w
}

func TestCreate(t *testing.T) {
	f := newFixture(t)
	filters := func(n int) []widgets.Filter {
		fs := make([]widgets.Filter, n)
		for i := range fs {
			fs[i] = widgets.Filter{Field: "status", Operator: widgets.OpEquals, Value: "sent"}
		}
		return fs
	}
	tests := []struct {
		name  string
		ctx   context.Context
		in    widgets.Input
		code  apperr.Code
		msg   string
		check func(t *testing.T, w *ent.DashboardWidget)
	}{
		{"OKDefaults", f.owner, counting(" Messages "), "", "", func(t *testing.T, w *ent.DashboardWidget) {
			if w.Name != "Messages" || w.DisplayType != widgets.DisplayNumber || w.Metric != widgets.MetricCount ||
				w.Color != "blue" || w.Size != "small" || !w.ShowChange || w.ChartType != "" || w.IsShared || len(w.Config) != 0 {
				t.Errorf("defaults: %+v", w)
			}
		}},
		{"OKChart", f.owner, with(counting("By status"), func(in *widgets.Input) {
			in.DisplayType, in.GroupByField, in.Filters = ptr(widgets.DisplayChart), ptr("status"),
				[]widgets.Filter{{Field: "direction", Operator: widgets.OpNotEquals, Value: "incoming"}}
		}), "", "", func(t *testing.T, w *ent.DashboardWidget) {
			if w.ChartType != "line" || w.GroupByField != "status" || len(widgets.FiltersOf(w)) != 1 {
				t.Errorf("chart: %+v", w)
			}
		}},
		{"OKNumberDropsChartFields", f.owner, with(counting("Plain"), func(in *widgets.Input) {
			in.ChartType, in.GroupByField = ptr("bar"), ptr("status")
		}), "", "", func(t *testing.T, w *ent.DashboardWidget) {
			if w.ChartType != "" || w.GroupByField != "" {
				t.Errorf("a number widget kept %q %q", w.ChartType, w.GroupByField)
			}
		}},
		{"OKShortcutsCountNothing", f.owner, widgets.Input{Name: ptr("Go to"), DisplayType: ptr(widgets.DisplayShortcuts),
			DataSource: ptr("messages"), Filters: filters(1), Config: map[string]any{"shortcuts": []any{"chat", "contacts"}}},
			"", "", func(t *testing.T, w *ent.DashboardWidget) {
				if w.DataSource != "" || len(w.Filters) != 0 || len(w.Config["shortcuts"].([]any)) != 2 {
					t.Errorf("shortcuts: %+v", w)
				}
			}},
		{"OKShared", f.sharer, with(counting("Team"), func(in *widgets.Input) { in.IsShared = ptr(true) }), "", "", nil},
		{"ErrNoUser", f.system, counting("Nobody's"), apperr.Unauthenticated, "a dashboard belongs to a user", nil},
		{"ErrNameRequired", f.owner, counting("  "), apperr.Invalid, "name is required", nil},
		{"ErrNameTooLong", f.owner, counting(strings.Repeat("n", 101)), apperr.Invalid, "name must be at most 100 characters", nil},
		{"ErrNameNUL", f.owner, counting("a\x00"), apperr.Invalid, "name must not contain NUL characters", nil},
		{"ErrDescriptionTooLong", f.owner, with(counting("D"), func(in *widgets.Input) { in.Description = ptr(strings.Repeat("d", 501)) }),
			apperr.Invalid, "description must be at most 500 characters", nil},
		{"ErrDisplay", f.owner, with(counting("D"), func(in *widgets.Input) { in.DisplayType = ptr("table") }),
			apperr.Invalid, `display_type "table" is not supported`, nil},
		{"ErrColor", f.owner, with(counting("D"), func(in *widgets.Input) { in.Color = ptr("pink") }), apperr.Invalid, `color "pink"`, nil},
		{"ErrSize", f.owner, with(counting("D"), func(in *widgets.Input) { in.Size = ptr("huge") }), apperr.Invalid, `size "huge"`, nil},
		{"ErrDataSourceRequired", f.owner, widgets.Input{Name: ptr("D")}, apperr.Invalid, "data_source is required", nil},
		{"ErrDataSource", f.owner, with(counting("D"), func(in *widgets.Input) { in.DataSource = ptr("invoices") }),
			apperr.Invalid, `data source "invoices" is not supported (supported: messages, contacts`, nil},
		{"ErrMetric", f.owner, with(counting("D"), func(in *widgets.Input) { in.Metric = ptr("sum") }), apperr.Invalid, `metric "sum"`, nil},
		{"ErrField", f.owner, with(counting("D"), func(in *widgets.Input) { in.Field = ptr("price") }), apperr.Invalid, "field applies to sum", nil},
		{"ErrTooManyFilters", f.owner, with(counting("D"), func(in *widgets.Input) { in.Filters = filters(11) }),
			apperr.Invalid, "at most 10 filters", nil},
		{"ErrFilterField", f.owner, with(counting("D"), func(in *widgets.Input) {
			in.Filters = []widgets.Filter{{Field: "content", Operator: widgets.OpEquals, Value: "x"}}
		}), apperr.Invalid, `filter field "content"`, nil},
		{"ErrFilterOperator", f.owner, with(counting("D"), func(in *widgets.Input) {
			in.Filters = []widgets.Filter{{Field: "status", Operator: "like", Value: "x"}}
		}), apperr.Invalid, `filter operator "like"`, nil},
		{"ErrFilterValue", f.owner, with(counting("D"), func(in *widgets.Input) {
			in.Filters = []widgets.Filter{{Field: "status", Operator: widgets.OpContains, Value: strings.Repeat("v", 256)}}
		}), apperr.Invalid, "filter value must be at most 255 characters", nil},
		{"ErrChartType", f.owner, with(counting("D"), func(in *widgets.Input) {
			in.DisplayType, in.ChartType = ptr(widgets.DisplayChart), ptr("radar")
		}), apperr.Invalid, `chart_type "radar"`, nil},
		{"ErrGroupBy", f.owner, with(counting("D"), func(in *widgets.Input) {
			in.DisplayType, in.GroupByField = ptr(widgets.DisplayChart), ptr("content")
		}), apperr.Invalid, `group_by_field "content"`, nil},
		{"ErrShortcutsConfig", f.owner, widgets.Input{Name: ptr("S"), DisplayType: ptr(widgets.DisplayShortcuts),
			Config: map[string]any{"links": []any{}}}, apperr.Invalid, "holds only shortcuts", nil},
		{"ErrShortcutsNotAList", f.owner, widgets.Input{Name: ptr("S"), DisplayType: ptr(widgets.DisplayShortcuts),
			Config: map[string]any{"shortcuts": "chat"}}, apperr.Invalid, "must be an array", nil},
		{"ErrShortcut", f.owner, widgets.Input{Name: ptr("S"), DisplayType: ptr(widgets.DisplayShortcuts),
			Config: map[string]any{"shortcuts": []any{"billing"}}}, apperr.Invalid, `shortcut "billing"`, nil},
		{"ForbiddenShare", f.owner, with(counting("Mine for all"), func(in *widgets.Input) { in.IsShared = ptr(true) }),
			apperr.Forbidden, "sharing a widget with the organization needs settings:update", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := f.s.Create(tt.ctx, tt.in)
			testkit.ExpectError(t, err, tt.code, tt.msg)
			if err == nil && tt.check != nil {
				tt.check(t, w)
			}
		})
	}
}

// TestOwnersAndSharing: a member sees their own widgets and the shared
// ones of their organization, and changes only their own.
func TestOwnersAndSharing(t *testing.T) {
	f := newFixture(t)
	mine := f.mustCreate(t, f.owner, counting("Mine"))
	shared := f.mustCreate(t, f.sharer, with(counting("Shared"), func(in *widgets.Input) { in.IsShared = ptr(true) }))
	private := f.mustCreate(t, f.sharer, counting("Private"))
	elsewhere := f.mustCreate(t, f.outsider, with(counting("Elsewhere"), func(in *widgets.Input) { in.IsShared = ptr(true) }))

	lists := []struct {
		name string
		ctx  context.Context
		want []uuid.UUID
	}{
		{"Owner", f.owner, []uuid.UUID{mine.ID, shared.ID}},
		{"Colleague", f.colleague, []uuid.UUID{shared.ID}},
		{"Sharer", f.sharer, []uuid.UUID{shared.ID, private.ID}},
		{"OtherOrganization", f.outsider, []uuid.UUID{elsewhere.ID}},
	}
	for _, tt := range lists {
		t.Run("List"+tt.name, func(t *testing.T) {
			ws, err := f.s.List(tt.ctx)
			if err != nil {
				t.Fatal(err)
			}
			var got []uuid.UUID
			for _, w := range ws {
				got = append(got, w.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("listed %v, want %v", got, tt.want)
			}
		})
	}
	_, err := f.s.List(f.system)
	testkit.ExpectError(t, err, apperr.Unauthenticated, "")

	changes := []struct {
		name string
		ctx  context.Context
		id   uuid.UUID
		in   widgets.Input
		code apperr.Code
		msg  string
	}{
		{"NotFoundPrivate", f.colleague, private.ID, counting("Taken"), apperr.NotFound, ""},
		{"CrossTenantNotFound", f.outsider, shared.ID, counting("Taken"), apperr.NotFound, ""},
		{"ForbiddenShared", f.colleague, shared.ID, counting("Taken"), apperr.Forbidden, "only the widget's owner can change it"},
		{"ForbiddenShareWithoutPermission", f.owner, mine.ID, widgets.Input{IsShared: ptr(true)}, apperr.Forbidden, "needs settings:update"},
		{"ErrInvalid", f.owner, mine.ID, widgets.Input{Color: ptr("pink")}, apperr.Invalid, `color "pink"`},
		{"OwnerKeepsTheRest", f.owner, mine.ID, widgets.Input{Name: ptr("Renamed")}, "", ""},
		{"SharedStaysSharedWithoutTheCheck", f.sharer, shared.ID, widgets.Input{Name: ptr("Still shared")}, "", ""},
	}
	for _, tt := range changes {
		t.Run("Update"+tt.name, func(t *testing.T) {
			w, err := f.s.Update(tt.ctx, tt.id, tt.in)
			testkit.ExpectError(t, err, tt.code, tt.msg)
			if err == nil && (w.Name != *tt.in.Name || w.DataSource != "messages") {
				t.Errorf("updated %+v", w)
			}
		})
	}
	testkit.ExpectError(t, f.s.Delete(f.colleague, shared.ID), apperr.Forbidden, "only the widget's owner")
	testkit.ExpectError(t, f.s.Delete(f.outsider, mine.ID), apperr.NotFound, "")
	testkit.ExpectError(t, f.s.Delete(f.owner, mine.ID), "", "")
	_, err = f.s.Get(f.owner, mine.ID)
	testkit.ExpectError(t, err, apperr.NotFound, "")
}

// with is in changed.
func with(in widgets.Input, change func(*widgets.Input)) widgets.Input { change(&in); return in }

// TestDashboardBounds: a member's dashboard holds at most 50 of their
// widgets; the layout moves their own widgets only, inside the grid.
func TestDashboardBounds(t *testing.T) {
	f := newFixture(t)
	var first *ent.DashboardWidget
	for i := range 50 {
		w := f.mustCreate(t, f.owner, counting(fmt.Sprintf("W%d", i)))
		if first == nil {
			first = w
		}
		if w.DisplayOrder != i {
			t.Fatalf("widget %d placed at %d", i, w.DisplayOrder)
		}
	}
	_, err := f.s.Create(f.owner, counting("One too many"))
	testkit.ExpectError(t, err, apperr.Invalid, "at most 50 widgets of one member")
	f.mustCreate(t, f.colleague, counting("The colleague's first")) // the bound is per member

	shared := f.mustCreate(t, f.sharer, with(counting("Shared"), func(in *widgets.Input) { in.IsShared = ptr(true) }))
	private := f.mustCreate(t, f.sharer, counting("Private"))
	at := func(id uuid.UUID, x, y, w, h int) widgets.LayoutItem {
		return widgets.LayoutItem{ID: id, GridX: x, GridY: y, GridW: w, GridH: h}
	}
	tests := []struct {
		name  string
		items []widgets.LayoutItem
		moved int
		code  apperr.Code
		msg   string
	}{
		{"ErrTooMany", make([]widgets.LayoutItem, 201), 0, apperr.Invalid, "at most 200 widgets"},
		{"ErrNegative", []widgets.LayoutItem{at(first.ID, -1, 0, 2, 2)}, 0, apperr.Invalid, "outside the 12-column grid"},
		{"ErrWider", []widgets.LayoutItem{at(first.ID, 6, 0, 7, 2)}, 0, apperr.Invalid, "outside"},
		{"ErrFlat", []widgets.LayoutItem{at(first.ID, 0, 0, 2, 0)}, 0, apperr.Invalid, "outside"},
		{"NotFoundPrivate", []widgets.LayoutItem{at(private.ID, 0, 0, 2, 2)}, 0, apperr.NotFound, ""},
		{"SharedIsLeft", []widgets.LayoutItem{at(first.ID, 6, 3, 6, 4), at(shared.ID, 0, 0, 12, 24)}, 1, "", ""},
	}
	for _, tt := range tests {
		t.Run("Layout"+tt.name, func(t *testing.T) {
			moved, err := f.s.SaveLayout(f.owner, tt.items)
			testkit.ExpectError(t, err, tt.code, tt.msg)
			if moved != tt.moved {
				t.Errorf("moved %d, want %d", moved, tt.moved)
			}
		})
	}
	if w, _ := f.s.Get(f.owner, first.ID); w.GridX != 6 || w.GridY != 3 || w.GridW != 6 || w.GridH != 4 {
		t.Errorf("first widget at %d,%d %dx%d", w.GridX, w.GridY, w.GridW, w.GridH)
	}
	if w, _ := f.s.Get(f.sharer, shared.ID); w.GridW == 12 {
		t.Error("a colleague's layout moved a shared widget")
	}
}

func TestParsePeriod(t *testing.T) {
	now := time.Date(2026, 3, 17, 15, 4, 5, 0, time.FixedZone("X", 3600))
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		name, from, to string
		want           widgets.Period
		msg            string
	}{
		{"DefaultIsTheMonthSoFar", "", "", widgets.Period{From: day(3, 1), To: day(3, 18)}, ""},
		{"BothDaysIncluded", "2026-02-01", "2026-02-28", widgets.Period{From: day(2, 1), To: day(3, 1)}, ""},
		{"OneDay", "2026-03-05", "2026-03-05", widgets.Period{From: day(3, 5), To: day(3, 6)}, ""},
		{"ErrFrom", "05/03/2026", "", widgets.Period{}, "from must be a date YYYY-MM-DD"},
		{"ErrTo", "", "tomorrow", widgets.Period{}, "to must be a date YYYY-MM-DD"},
		{"ErrBackwards", "2026-03-05", "2026-03-04", widgets.Period{}, "to must not be before from"},
		{"ErrTooLong", "2025-01-01", "2026-01-02", widgets.Period{}, "at most 366 days"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := widgets.ParsePeriod(tt.from, tt.to, now)
			if tt.msg != "" {
				testkit.ExpectError(t, err, apperr.Invalid, tt.msg)
				return
			}
			if err != nil || !p.From.Equal(tt.want.From) || !p.To.Equal(tt.want.To) {
				t.Errorf("ParsePeriod = %v..%v, %v; want %v..%v", p.From, p.To, err, tt.want.From, tt.want.To)
			}
		})
	}
}

// TestData counts the rows of a widget's source in its organization:
// the period's total, the period before it, each day and each value of
// the group-by field, with the filters applied.
func TestData(t *testing.T) {
	f := newFixture(t)
	day := func(d, h int) time.Time { return time.Date(2026, 3, d, h, 0, 0, 0, time.UTC) }
	seed := func(ctx context.Context, phone string, at time.Time, status string) {
		t.Helper()
		if err := f.db.Contact.Create().SetPhoneNumber(phone).SetStatus(status).SetCreatedAt(at).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	seed(f.system, "15550000001", day(2, 10), "active")  // the period before
	seed(f.system, "15550000002", day(4, 9), "active")   // day 1
	seed(f.system, "15550000003", day(4, 23), "blocked") // day 1
	seed(f.system, "15550000004", day(6, 0), "active")   // day 3
	seed(f.system, "15550000005", day(7, 0), "active")   // after the period
	for i := range 3 {
		seed(f.otherSystem, fmt.Sprintf("1555000010%d", i), day(4, 12), "active")
	}
	chart := f.mustCreate(t, f.owner, widgets.Input{Name: ptr("Contacts"), DataSource: ptr("contacts"),
		DisplayType: ptr(widgets.DisplayChart), GroupByField: ptr("status")})
	active := f.mustCreate(t, f.owner, widgets.Input{Name: ptr("Active"), DataSource: ptr("contacts"),
		Filters: []widgets.Filter{{Field: "status", Operator: widgets.OpNotEquals, Value: "blocked"}}})
	shortcuts := f.mustCreate(t, f.owner, widgets.Input{Name: ptr("Go"), DisplayType: ptr(widgets.DisplayShortcuts)})
	p, err := widgets.ParsePeriod("2026-03-04", "2026-03-06", time.Now())
	if err != nil {
		t.Fatal(err)
	}

	d, err := f.s.Data(f.owner, chart.ID, p)
	if err != nil {
		t.Fatal(err)
	}
	points := func(ps []widgets.Point) string { return fmt.Sprint(ps) }
	if d.Value != 3 || d.PrevValue != 1 || d.Change != 200 ||
		points(d.ChartData) != "[{2026-03-04 2} {2026-03-05 0} {2026-03-06 1}]" ||
		points(d.DataPoints) != "[{active 2} {blocked 1}]" {
		t.Errorf("chart data %+v", d)
	}
	all, err := f.s.AllData(f.owner, p)
	if err != nil || len(all) != 3 {
		t.Fatalf("all data: %v, %v", all, err)
	}
	if got := all[1]; got.WidgetID != active.ID || got.Value != 2 || got.PrevValue != 1 || got.Change != 100 || len(got.ChartData) != 0 {
		t.Errorf("filtered number %+v", got)
	}
	if got := all[2]; got.WidgetID != shortcuts.ID || got.Value != 0 || len(got.ChartData) != 0 || len(got.DataPoints) != 0 {
		t.Errorf("shortcuts data %+v", got)
	}
	_, err = f.s.Data(f.colleague, chart.ID, p)
	testkit.ExpectError(t, err, apperr.NotFound, "")
}

// TestDefaultDashboard: an organization made by access.CreateOrganization
// (as the REST, GraphQL, CLI and bootstrap paths make one) starts with the
// default widgets, written in its transaction; they are shared, belong to
// no member, and only a member who may change settings changes them.
func TestDefaultDashboard(t *testing.T) {
	db := testkit.OpenDB(t).Client
	ctx := context.Background()
	owner, err := db.User.Create().SetEmail("owner@example.com").SetFullName("Owner").Save(rule.Bypass(ctx, "test fixture"))
	if err != nil {
		t.Fatal(err)
	}
	create := func(name string, fail bool) (*ent.Organization, error) {
		var org *ent.Organization
		err := access.WithTx(ctx, db, func(tx *ent.Client) error {
			var err error
			if org, err = access.CreateOrganization(ctx, tx, name, owner.ID, false); err != nil || !fail {
				return err
			}
			return errors.New("the creation fails after the organization is made")
		})
		return org, err
	}
	org, err := create("acme", false)
	if err != nil {
		t.Fatal(err)
	}
	s := &widgets.Service{Client: db}
	colleague := testkit.NewMember(t, db, org.ID, "Col League")
	settings := testkit.NewMember(t, db, org.ID, "Set Tings", "settings:update")
	ws, err := s.List(colleague)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range ws {
		if !widgets.IsDefault(w) || !w.IsShared || w.GridW == 0 {
			t.Errorf("default widget %+v", w)
		}
		names = append(names, w.Name)
	}
	if want := []string{"Messages", "Contacts", "Chatbot sessions", "Campaigns", "Messages over time", "Shortcuts"}; !slices.Equal(names, want) {
		t.Fatalf("default widgets %v, want %v", names, want)
	}
	t.Run("SeedingAgainAddsNothing", func(t *testing.T) {
		if err := widgets.SeedDefaults(viewer.SystemContext(ctx, org.ID), db, org.ID); err != nil {
			t.Fatal(err)
		}
		if n := db.DashboardWidget.Query().CountX(viewer.SystemContext(ctx, org.ID)); n != len(names) {
			t.Errorf("%d widgets after seeding again, want %d", n, len(names))
		}
	})
	t.Run("RolledBackWithTheOrganization", func(t *testing.T) {
		if _, err := create("globex", true); err == nil {
			t.Fatal("the failing creation committed")
		}
		if n := db.DashboardWidget.Query().CountX(rule.Bypass(ctx, "test: every organization")); n != len(names) {
			t.Errorf("%d widgets in the database, want only acme's %d", n, len(names))
		}
	})
	t.Run("ChangedWithSettingsUpdateOnly", func(t *testing.T) {
		_, err := s.Update(colleague, ws[0].ID, widgets.Input{Name: ptr("Mine now")})
		testkit.ExpectError(t, err, apperr.Forbidden, "default widgets needs settings:update")
		testkit.ExpectError(t, s.Delete(colleague, ws[0].ID), apperr.Forbidden, "default widgets needs settings:update")
		if w, err := s.Update(settings, ws[0].ID, widgets.Input{Name: ptr("All messages")}); err != nil || w.Name != "All messages" {
			t.Fatalf("update by a member who may change settings: %v %+v", err, w)
		}
		testkit.ExpectError(t, s.Delete(settings, ws[1].ID), "", "")
	})
}
