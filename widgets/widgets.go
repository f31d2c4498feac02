// Package widgets owns the analytics dashboard's widgets: what a widget
// counts (a data source of rows the service keeps, filtered, over a
// period), how it is shown, who sees it (its owner, or everyone when
// shared) and who changes it (its owner). It computes each widget's data
// from the stored rows; a data source, metric or display it cannot compute
// is refused, not stored.
package widgets

import (
	"context"
	"slices"
	"strings"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/dashboardwidget"
	"switchboard/ent/viewer"
	"switchboard/internal/valid"
)

// Displays, chart types, metrics and filter operators a widget may use.
const (
	DisplayNumber    = "number"
	DisplayChart     = "chart"
	DisplayShortcuts = "shortcuts"

	MetricCount = "count"

	OpEquals    = "equals"
	OpNotEquals = "not_equals"
	OpContains  = "contains"
)

// Choices a widget is checked against; clients read them from
// GET /api/widgets/data-sources.
var (
	Displays   = []string{DisplayNumber, DisplayChart, DisplayShortcuts}
	ChartTypes = []string{"line", "bar", "pie"}
	Metrics    = []string{MetricCount}
	Colors     = []string{"blue", "green", "purple", "orange", "red", "cyan"}
	Sizes      = []string{"small", "medium", "large"}
	Shortcuts  = []string{"chat", "campaigns", "templates", "chatbot", "contacts", "analytics"}
	// Operators are the filter operators with their labels.
	Operators = []struct{ Value, Label string }{
		{OpEquals, "Equals"}, {OpNotEquals, "Not Equals"}, {OpContains, "Contains"},
	}
)

// Bounds of a widget and of a member's dashboard.
const (
	maxName        = 100
	maxDescription = 500
	maxFilters     = 10
	maxFilterValue = 255
	maxPerOwner    = 50
	maxGridCells   = 1000
	maxGridSpan    = 12
	maxLayoutItems = 200
)

// sharePermission lets a member show a widget to the whole organization.
const sharePermission = "settings:update"

// Service is the widgets' operations.
type Service struct {
	Client *ent.Client
}

// Filter is a condition every counted row meets.
type Filter struct {
	Field    string
	Operator string
	Value    string
}

// Input is a widget's definition; on update, nil fields (and a nil
// Filters or Config) keep their value.
type Input struct {
	Name         *string
	Description  *string
	DataSource   *string
	Metric       *string
	Field        *string
	Filters      []Filter
	DisplayType  *string
	ChartType    *string
	GroupByField *string
	ShowChange   *bool
	Color        *string
	Size         *string
	Config       map[string]any
	IsShared     *bool
}

// LayoutItem places a widget on the dashboard's grid.
type LayoutItem struct {
	ID                         uuid.UUID
	GridX, GridY, GridW, GridH int
}

// spec is a widget's complete definition, checked as a whole.
type spec struct {
	name, description, source, metric, field string
	filters                                  []Filter
	display, chart, groupBy                  string
	showChange                               bool
	color, size                              string
	config                                   map[string]any
	shared                                   bool
}

func specOf(w *ent.DashboardWidget) spec {
	return spec{
		name: w.Name, description: w.Description, source: w.DataSource, metric: w.Metric, field: w.MetricField,
		filters: filtersOf(w.Filters), display: w.DisplayType, chart: w.ChartType, groupBy: w.GroupByField,
		showChange: w.ShowChange, color: w.Color, size: w.Size, config: w.Config, shared: w.IsShared,
	}
}

func (sp *spec) apply(in Input) {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = strings.TrimSpace(*v)
		}
	}
	set(&sp.name, in.Name)
	set(&sp.description, in.Description)
	set(&sp.source, in.DataSource)
	set(&sp.metric, in.Metric)
	set(&sp.field, in.Field)
	set(&sp.display, in.DisplayType)
	set(&sp.chart, in.ChartType)
	set(&sp.groupBy, in.GroupByField)
	set(&sp.color, in.Color)
	set(&sp.size, in.Size)
	if in.Filters != nil {
		sp.filters = in.Filters
	}
	if in.Config != nil {
		sp.config = in.Config
	}
	if in.ShowChange != nil {
		sp.showChange = *in.ShowChange
	}
	if in.IsShared != nil {
		sp.shared = *in.IsShared
	}
}

func oneOf(name, v string, choices []string) error {
	if !slices.Contains(choices, v) {
		return apperr.Invalidf("%s %q is not supported (supported: %s)", name, v, strings.Join(choices, ", "))
	}
	return nil
}

// check validates sp and normalizes what depends on the display: a
// shortcuts widget counts nothing, only a chart has a chart type and a
// group-by field. Errors: invalid.
func (sp *spec) check() error {
	if sp.name == "" {
		return valid.Required("name")
	}
	if err := valid.Check("name", sp.name, maxName); err != nil {
		return err
	}
	if err := valid.Check("description", sp.description, maxDescription); err != nil {
		return err
	}
	if sp.display == "" {
		sp.display = DisplayNumber
	}
	if sp.color == "" {
		sp.color = Colors[0]
	}
	if sp.size == "" {
		sp.size = Sizes[0]
	}
	for _, c := range []struct {
		name, v string
		choices []string
	}{{"display_type", sp.display, Displays}, {"color", sp.color, Colors}, {"size", sp.size, Sizes}} {
		if err := oneOf(c.name, c.v, c.choices); err != nil {
			return err
		}
	}
	if sp.display == DisplayShortcuts {
		sp.source, sp.metric, sp.field, sp.chart, sp.groupBy, sp.filters = "", MetricCount, "", "", "", nil
		return checkShortcuts(sp.config)
	}
	sp.config = map[string]any{}
	return sp.checkCount()
}

// checkCount checks what a counting widget counts.
func (sp *spec) checkCount() error {
	if sp.source == "" {
		return apperr.Invalidf("data_source is required")
	}
	src, ok := sourceNamed(sp.source)
	if !ok {
		names := make([]string, len(Sources))
		for i, s := range Sources {
			names[i] = s.Name
		}
		return apperr.Invalidf("data source %q is not supported (supported: %s)", sp.source, strings.Join(names, ", "))
	}
	if sp.metric == "" {
		sp.metric = MetricCount
	}
	if err := oneOf("metric", sp.metric, Metrics); err != nil {
		return err
	}
	if sp.field != "" {
		return apperr.Invalidf("field applies to sum and average metrics, which are not supported; leave it empty")
	}
	if len(sp.filters) > maxFilters {
		return apperr.Invalidf("a widget has at most %d filters", maxFilters)
	}
	for i := range sp.filters {
		f := &sp.filters[i]
		if err := oneOf("filter field", f.Field, src.Fields); err != nil {
			return err
		}
		if err := oneOf("filter operator", f.Operator, []string{OpEquals, OpNotEquals, OpContains}); err != nil {
			return err
		}
		if err := valid.Check("filter value", f.Value, maxFilterValue); err != nil {
			return err
		}
	}
	if sp.display != DisplayChart {
		sp.chart, sp.groupBy = "", ""
		return nil
	}
	if sp.chart == "" {
		sp.chart = ChartTypes[0]
	}
	if err := oneOf("chart_type", sp.chart, ChartTypes); err != nil {
		return err
	}
	if sp.groupBy != "" {
		return oneOf("group_by_field", sp.groupBy, src.Fields)
	}
	return nil
}

func checkShortcuts(config map[string]any) error {
	for k := range config {
		if k != "shortcuts" {
			return apperr.Invalidf("config of a shortcuts widget holds only shortcuts")
		}
	}
	list, _ := config["shortcuts"].([]any)
	if config["shortcuts"] != nil && list == nil {
		return apperr.Invalidf("config.shortcuts must be an array of shortcut names")
	}
	for _, v := range list {
		name, _ := v.(string)
		if err := oneOf("shortcut", name, Shortcuts); err != nil {
			return err
		}
	}
	return nil
}

// filtersOf reads stored filters.
func filtersOf(stored []map[string]any) []Filter {
	out := make([]Filter, len(stored))
	for i, m := range stored {
		f, _ := m["field"].(string)
		op, _ := m["operator"].(string)
		v, _ := m["value"].(string)
		out[i] = Filter{Field: f, Operator: op, Value: v}
	}
	return out
}

func storedFilters(fs []Filter) []map[string]any {
	out := make([]map[string]any, len(fs))
	for i, f := range fs {
		out[i] = map[string]any{"field": f.Field, "operator": f.Operator, "value": f.Value}
	}
	return out
}

// FiltersOf returns a widget's filters.
func FiltersOf(w *ent.DashboardWidget) []Filter { return filtersOf(w.Filters) }

// IsDefault reports whether w is one of the organization's default
// widgets (seeded with it, owned by no member).
func IsDefault(w *ent.DashboardWidget) bool { return w.OwnerID == nil }

// IsOwner reports whether the viewer made the widget.
func IsOwner(ctx context.Context, w *ent.DashboardWidget) bool {
	v := viewer.FromContext(ctx)
	return v != nil && w.OwnerID != nil && *w.OwnerID == v.UserID
}

// visible is what the viewer sees: their own widgets and shared ones.
func (s *Service) visible(ctx context.Context) (*ent.DashboardWidgetQuery, error) {
	v := viewer.FromContext(ctx)
	if v == nil || v.UserID == uuid.Nil {
		return nil, apperr.New(apperr.Unauthenticated, "a dashboard belongs to a user")
	}
	return database.ClientFor(ctx, s.Client).DashboardWidget.Query().
		Where(dashboardwidget.Or(dashboardwidget.OwnerID(v.UserID), dashboardwidget.IsShared(true))), nil
}

// List returns the widgets the viewer sees, in dashboard order. Errors:
// unauthenticated (no user behind the viewer).
func (s *Service) List(ctx context.Context) ([]*ent.DashboardWidget, error) {
	q, err := s.visible(ctx)
	if err != nil {
		return nil, err
	}
	ws, err := q.Order(ent.Asc(dashboardwidget.FieldDisplayOrder), ent.Asc(dashboardwidget.FieldCreatedAt),
		ent.Asc(dashboardwidget.FieldID)).All(ctx)
	return ws, apperr.Wrap(err, "widget")
}

// Get returns a widget the viewer sees. Errors: not_found.
func (s *Service) Get(ctx context.Context, id uuid.UUID) (*ent.DashboardWidget, error) {
	q, err := s.visible(ctx)
	if err != nil {
		return nil, err
	}
	w, err := q.Where(dashboardwidget.ID(id)).Only(ctx)
	return w, apperr.Wrap(err, "widget")
}

// MayChange reports whether the viewer may change w: they made it, or it
// is one of the organization's default widgets (no owner) and they may
// change the organization's settings.
func MayChange(ctx context.Context, w *ent.DashboardWidget) bool {
	if IsDefault(w) {
		return access.Require(viewer.FromContext(ctx), sharePermission) == nil
	}
	return IsOwner(ctx, w)
}

// owned returns a widget the viewer may change (MayChange).
func (s *Service) owned(ctx context.Context, id uuid.UUID) (*ent.DashboardWidget, error) {
	w, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if !MayChange(ctx, w) {
		if IsDefault(w) {
			return nil, apperr.Forbiddenf("changing the organization's default widgets needs %s", sharePermission)
		}
		return nil, apperr.Forbiddenf("only the widget's owner can change it")
	}
	return w, nil
}

func checkShare(ctx context.Context, sp spec, wasShared bool) error {
	if sp.shared && !wasShared {
		if err := access.Require(viewer.FromContext(ctx), sharePermission); err != nil {
			return apperr.Forbiddenf("sharing a widget with the organization needs %s", sharePermission)
		}
	}
	return nil
}

// Create adds a widget of the viewer at the end of their dashboard.
// Errors: unauthenticated, invalid, forbidden (sharing without
// settings:update).
func (s *Service) Create(ctx context.Context, in Input) (*ent.DashboardWidget, error) {
	v := viewer.FromContext(ctx)
	if v == nil || v.UserID == uuid.Nil {
		return nil, apperr.New(apperr.Unauthenticated, "a dashboard belongs to a user")
	}
	sp := spec{showChange: true}
	sp.apply(in)
	if err := sp.check(); err != nil {
		return nil, err
	}
	if err := checkShare(ctx, sp, false); err != nil {
		return nil, err
	}
	var out *ent.DashboardWidget
	err := database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		mine, err := db.DashboardWidget.Query().Where(dashboardwidget.OwnerID(v.UserID)).All(ctx)
		if err != nil {
			return apperr.Wrap(err, "widget")
		}
		if len(mine) >= maxPerOwner {
			return apperr.Invalidf("a dashboard holds at most %d widgets of one member", maxPerOwner)
		}
		order := 0
		for _, w := range mine {
			order = max(order, w.DisplayOrder+1)
		}
		c := db.DashboardWidget.Create().SetOwnerID(v.UserID).SetDisplayOrder(order)
		save(c.Mutation(), sp)
		out, err = c.Save(ctx)
		return apperr.Wrap(err, "widget")
	})
	return out, err
}

// widgetMutation is what save sets, on a create or an update.
type widgetMutation interface {
	SetName(string)
	SetDescription(string)
	SetDataSource(string)
	SetMetric(string)
	SetMetricField(string)
	SetFilters([]map[string]any)
	SetDisplayType(string)
	SetChartType(string)
	SetGroupByField(string)
	SetShowChange(bool)
	SetColor(string)
	SetSize(string)
	SetConfig(map[string]any)
	SetIsShared(bool)
}

// save sets every field of sp on m.
func save(m widgetMutation, sp spec) {
	m.SetName(sp.name)
	m.SetDescription(sp.description)
	m.SetDataSource(sp.source)
	m.SetMetric(sp.metric)
	m.SetMetricField(sp.field)
	m.SetFilters(storedFilters(sp.filters))
	m.SetDisplayType(sp.display)
	m.SetChartType(sp.chart)
	m.SetGroupByField(sp.groupBy)
	m.SetShowChange(sp.showChange)
	m.SetColor(sp.color)
	m.SetSize(sp.size)
	if sp.config == nil {
		sp.config = map[string]any{}
	}
	m.SetConfig(sp.config)
	m.SetIsShared(sp.shared)
}

// Update changes a widget the viewer may change (MayChange). Errors:
// not_found, forbidden (another member's widget, a default one without
// settings:update; sharing without settings:update), invalid.
func (s *Service) Update(ctx context.Context, id uuid.UUID, in Input) (*ent.DashboardWidget, error) {
	var out *ent.DashboardWidget
	err := database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		w, err := s.owned(ctx, id)
		if err != nil {
			return err
		}
		sp := specOf(w)
		sp.apply(in)
		if err := sp.check(); err != nil {
			return err
		}
		if err := checkShare(ctx, sp, w.IsShared); err != nil {
			return err
		}
		u := db.DashboardWidget.UpdateOne(w)
		save(u.Mutation(), sp)
		out, err = u.Save(ctx)
		return apperr.Wrap(err, "widget")
	})
	return out, err
}

// Delete removes a widget the viewer may change (MayChange). Errors:
// not_found, forbidden (another member's widget, a default one without
// settings:update).
func (s *Service) Delete(ctx context.Context, id uuid.UUID) error {
	return database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		w, err := s.owned(ctx, id)
		if err != nil {
			return err
		}
		return apperr.Wrap(db.DashboardWidget.DeleteOne(w).Exec(ctx), "widget")
	})
}

// SaveLayout places the widgets the viewer may change (MayChange) on the
// grid; items naming a widget the viewer sees but may not change (a
// colleague's shared one) are left as they are. It returns how many widgets moved. Errors: invalid
// (too many items, a position out of the grid), not_found (a widget the
// viewer does not see).
func (s *Service) SaveLayout(ctx context.Context, items []LayoutItem) (int, error) {
	if len(items) > maxLayoutItems {
		return 0, apperr.Invalidf("a layout holds at most %d widgets", maxLayoutItems)
	}
	for _, it := range items {
		if it.GridX < 0 || it.GridY < 0 || it.GridX+it.GridW > maxGridSpan || it.GridY > maxGridCells ||
			it.GridW < 1 || it.GridW > maxGridSpan || it.GridH < 1 || it.GridH > maxGridSpan*2 {
			return 0, apperr.Invalidf("widget %s: the position is outside the %d-column grid", it.ID, maxGridSpan)
		}
	}
	moved := 0
	err := database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		for _, it := range items {
			w, err := s.Get(ctx, it.ID)
			if err != nil {
				return err
			}
			if !MayChange(ctx, w) {
				continue
			}
			err = db.DashboardWidget.UpdateOne(w).
				SetGridX(it.GridX).SetGridY(it.GridY).SetGridW(it.GridW).SetGridH(it.GridH).Exec(ctx)
			if err != nil {
				return apperr.Wrap(err, "widget")
			}
			moved++
		}
		return nil
	})
	return moved, err
}
