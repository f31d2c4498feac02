package rest

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/widgets"
)

type widgetFilterJSON struct {
	Field    string `json:"field"`
	Operator string `json:"operator"`
	Value    string `json:"value"`
}

// widgetJSON is a dashboard widget.
type widgetJSON struct {
	ID           uuid.UUID          `json:"id"`
	Name         string             `json:"name"`
	Description  string             `json:"description"`
	DataSource   string             `json:"data_source"`
	Metric       string             `json:"metric"`
	Field        string             `json:"field"`
	Filters      []widgetFilterJSON `json:"filters"`
	DisplayType  string             `json:"display_type"`
	ChartType    string             `json:"chart_type"`
	GroupByField string             `json:"group_by_field"`
	ShowChange   bool               `json:"show_change"`
	Color        string             `json:"color"`
	Size         string             `json:"size"`
	Config       map[string]any     `json:"config"`
	DisplayOrder int                `json:"display_order"`
	GridX        int                `json:"grid_x"`
	GridY        int                `json:"grid_y"`
	GridW        int                `json:"grid_w"`
	GridH        int                `json:"grid_h"`
	IsShared     bool               `json:"is_shared"`
	IsDefault    bool               `json:"is_default"`
	IsOwner      bool               `json:"is_owner"`
	CreatedBy    *uuid.UUID         `json:"created_by"`
	CreatedAt    time.Time          `json:"created_at"`
	UpdatedAt    time.Time          `json:"updated_at"`
}

func presentWidget(ctx context.Context, w *ent.DashboardWidget) widgetJSON {
	out := widgetJSON{
		ID: w.ID, Name: w.Name, Description: w.Description, DataSource: w.DataSource, Metric: w.Metric,
		Field: w.MetricField, Filters: []widgetFilterJSON{}, DisplayType: w.DisplayType, ChartType: w.ChartType,
		GroupByField: w.GroupByField, ShowChange: w.ShowChange, Color: w.Color, Size: w.Size, Config: w.Config,
		DisplayOrder: w.DisplayOrder, GridX: w.GridX, GridY: w.GridY, GridW: w.GridW, GridH: w.GridH,
		IsShared: w.IsShared, IsDefault: widgets.IsDefault(w), IsOwner: widgets.IsOwner(ctx, w), CreatedBy: w.OwnerID,
		CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt,
	}
	for _, f := range widgets.FiltersOf(w) {
		out.Filters = append(out.Filters, widgetFilterJSON{Field: f.Field, Operator: f.Operator, Value: f.Value})
	}
	if out.Config == nil {
		out.Config = map[string]any{}
	}
	return out
}

type widgetPointJSON struct {
	Label string  `json:"label"`
	Value float64 `json:"value"`
}

// widgetDataJSON is a widget's numbers for a period.
type widgetDataJSON struct {
	WidgetID   uuid.UUID         `json:"widget_id"`
	Value      float64           `json:"value"`
	Change     float64           `json:"change"`
	PrevValue  float64           `json:"prev_value"`
	ChartData  []widgetPointJSON `json:"chart_data"`
	DataPoints []widgetPointJSON `json:"data_points"`
}

func presentPoints(ps []widgets.Point) []widgetPointJSON {
	out := make([]widgetPointJSON, len(ps))
	for i, p := range ps {
		out[i] = widgetPointJSON{Label: p.Label, Value: p.Value}
	}
	return out
}

func presentWidgetData(d *widgets.Data) widgetDataJSON {
	return widgetDataJSON{WidgetID: d.WidgetID, Value: d.Value, Change: d.Change, PrevValue: d.PrevValue,
		ChartData: presentPoints(d.ChartData), DataPoints: presentPoints(d.DataPoints)}
}

// createWidgetBody is the JSON of createDashboardWidget.
type createWidgetBody struct {
	Name         *string            `json:"name" required:"true" nullable:"false" minLength:"1" maxLength:"100" example:"Messages today"`
	Description  *string            `json:"description" maxLength:"500"`
	DataSource   *string            `json:"data_source" description:"What the widget counts (a name from GET /api/widgets/data-sources): required unless display_type is shortcuts."`
	Metric       *string            `json:"metric" description:"count (the default; the only metric)."`
	Field        *string            `json:"field" description:"Empty: sum and average metrics are not supported."`
	Filters      []widgetFilterJSON `json:"filters" description:"At most 10 conditions {field (of the data source), operator (equals, not_equals, contains), value (at most 255 characters)}."`
	DisplayType  *string            `json:"display_type" enum:"[\"\",\"number\",\"chart\",\"shortcuts\"]" description:"Empty: number."`
	ChartType    *string            `json:"chart_type" description:"line (the default), bar or pie: a chart's type."`
	GroupByField *string            `json:"group_by_field" description:"A field of the data source: a chart's grouping."`
	ShowChange   *bool              `json:"show_change"`
	Color        *string            `json:"color" enum:"[\"\",\"blue\",\"green\",\"purple\",\"orange\",\"red\",\"cyan\"]" description:"Empty: blue."`
	Size         *string            `json:"size" enum:"[\"\",\"small\",\"medium\",\"large\"]" description:"Empty: small."`
	Config       map[string]any     `json:"config" description:"A shortcuts widget's {shortcuts: [names]}."`
	IsShared     *bool              `json:"is_shared" description:"Shown to the whole organization (needs settings:update)."`
}

func (b createWidgetBody) input() widgets.Input { return updateWidgetBody(b).input() }

// updateWidgetBody is the JSON of updateDashboardWidget: absent or null fields
// keep their value.
type updateWidgetBody struct {
	Name         *string            `json:"name" minLength:"1" maxLength:"100"`
	Description  *string            `json:"description" maxLength:"500"`
	DataSource   *string            `json:"data_source" description:"What the widget counts (a name from GET /api/widgets/data-sources): required unless display_type is shortcuts."`
	Metric       *string            `json:"metric" description:"count (the default; the only metric)."`
	Field        *string            `json:"field" description:"Empty: sum and average metrics are not supported."`
	Filters      []widgetFilterJSON `json:"filters" description:"At most 10 conditions {field (of the data source), operator (equals, not_equals, contains), value (at most 255 characters)}."`
	DisplayType  *string            `json:"display_type" enum:"[\"\",\"number\",\"chart\",\"shortcuts\"]" description:"Empty: number."`
	ChartType    *string            `json:"chart_type" description:"line (the default), bar or pie: a chart's type."`
	GroupByField *string            `json:"group_by_field" description:"A field of the data source: a chart's grouping."`
	ShowChange   *bool              `json:"show_change"`
	Color        *string            `json:"color" enum:"[\"\",\"blue\",\"green\",\"purple\",\"orange\",\"red\",\"cyan\"]" description:"Empty: blue."`
	Size         *string            `json:"size" enum:"[\"\",\"small\",\"medium\",\"large\"]" description:"Empty: small."`
	Config       map[string]any     `json:"config" description:"A shortcuts widget's {shortcuts: [names]}."`
	IsShared     *bool              `json:"is_shared" description:"Shown to the whole organization (needs settings:update)."`
}

func (b updateWidgetBody) input() widgets.Input {
	in := widgets.Input{
		Name: b.Name, Description: b.Description, DataSource: b.DataSource, Metric: b.Metric, Field: b.Field,
		DisplayType: b.DisplayType, ChartType: b.ChartType, GroupByField: b.GroupByField, ShowChange: b.ShowChange,
		Color: b.Color, Size: b.Size, Config: b.Config, IsShared: b.IsShared,
	}
	if b.Filters != nil {
		in.Filters = make([]widgets.Filter, len(b.Filters))
		for i, f := range b.Filters {
			in.Filters[i] = widgets.Filter{Field: f.Field, Operator: f.Operator, Value: f.Value}
		}
	}
	return in
}

func (a *API) listWidgets(c *gin.Context) (int, any, error) {
	ws, err := a.R.Widgets.List(ctx(c))
	if err != nil {
		return 0, nil, err
	}
	out := make([]widgetJSON, len(ws))
	for i, w := range ws {
		out[i] = presentWidget(ctx(c), w)
	}
	return http.StatusOK, widgetsData{Widgets: out}, nil
}

func (a *API) getWidget(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	w, err := a.R.Widgets.Get(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentWidget(ctx(c), w), nil
}

func (a *API) createWidget(c *gin.Context) (int, any, error) {
	var b createWidgetBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	w, err := a.R.Widgets.Create(ctx(c), b.input())
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, presentWidget(ctx(c), w), nil
}

func (a *API) updateWidget(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b updateWidgetBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	w, err := a.R.Widgets.Update(ctx(c), id, b.input())
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentWidget(ctx(c), w), nil
}

func (a *API) deleteWidget(c *gin.Context) (int, any, error) {
	return idAction(a.R.Widgets.Delete, messageData{Message: "Widget deleted"})(c)
}

func widgetPeriod(c *gin.Context) (widgets.Period, error) {
	q := queryOf[periodQuery](c)
	return widgets.ParsePeriod(q.From, q.To, time.Now())
}

func (a *API) widgetData(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	p, err := widgetPeriod(c)
	if err != nil {
		return 0, nil, err
	}
	d, err := a.R.Widgets.Data(ctx(c), id, p)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentWidgetData(d), nil
}

// allWidgetData answers the data of every widget by widget id.
func (a *API) allWidgetData(c *gin.Context) (int, any, error) {
	p, err := widgetPeriod(c)
	if err != nil {
		return 0, nil, err
	}
	ds, err := a.R.Widgets.AllData(ctx(c), p)
	if err != nil {
		return 0, nil, err
	}
	out := make(map[string]widgetDataJSON, len(ds))
	for _, d := range ds {
		out[d.WidgetID.String()] = presentWidgetData(d)
	}
	return http.StatusOK, widgetsDataData{Data: out}, nil
}

type widgetSourceJSON struct {
	Name   string   `json:"name"`
	Label  string   `json:"label"`
	Fields []string `json:"fields"`
}

type widgetOperatorJSON struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

func (a *API) widgetDataSources(*gin.Context) (int, any, error) {
	sources := make([]widgetSourceJSON, len(widgets.Sources))
	for i, s := range widgets.Sources {
		sources[i] = widgetSourceJSON{Name: s.Name, Label: s.Label, Fields: s.Fields}
	}
	ops := make([]widgetOperatorJSON, len(widgets.Operators))
	for i, o := range widgets.Operators {
		ops[i] = widgetOperatorJSON{Value: o.Value, Label: o.Label}
	}
	return http.StatusOK, widgetSourcesData{
		DataSources: sources, Metrics: widgets.Metrics, DisplayTypes: widgets.Displays,
		ChartTypes: widgets.ChartTypes, Operators: ops,
	}, nil
}

// saveWidgetLayoutBody is the JSON body of saveWidgetLayout.
type saveWidgetLayoutBody struct {
	Layout []struct {
		ID    string `json:"id" required:"true" format:"uuid"`
		GridX int    `json:"grid_x" minimum:"0" maximum:"11" description:"The column, from 0; grid_x + grid_w is at most 12."`
		GridY int    `json:"grid_y" minimum:"0" maximum:"1000"`
		GridW int    `json:"grid_w" required:"true" minimum:"1" maximum:"12"`
		GridH int    `json:"grid_h" required:"true" minimum:"1" maximum:"24"`
	} `json:"layout" required:"true" nullable:"false" maxItems:"200"`
}

func (a *API) saveWidgetLayout(c *gin.Context) (int, any, error) {
	var b saveWidgetLayoutBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	if b.Layout == nil {
		return 0, nil, apperr.Invalidf("layout is required (an array of {id, grid_x, grid_y, grid_w, grid_h})")
	}
	items := make([]widgets.LayoutItem, len(b.Layout))
	for i, it := range b.Layout {
		id, err := uuid.Parse(it.ID)
		if err != nil {
			return 0, nil, apperr.Invalidf("layout[%d].id must be a valid UUID", i)
		}
		items[i] = widgets.LayoutItem{ID: id, GridX: it.GridX, GridY: it.GridY, GridW: it.GridW, GridH: it.GridH}
	}
	n, err := a.R.Widgets.SaveLayout(ctx(c), items)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, layoutData{Message: "Layout saved", Updated: n}, nil
}

// widgetRoutes: the dashboard is analytics; anyone who reads analytics
// keeps their own widgets (the operations let only a widget's owner change
// it, and sharing one with the organization needs settings:update).
func (a *API) widgetRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/widgets", Op: "dashboardWidgets", Out: widgetsData{}, Handle: a.listWidgets},
		{Method: post, Path: "/api/widgets", Op: "createDashboardWidget", Status: http.StatusCreated, In: createWidgetBody{}, Out: widgetJSON{}, Handle: a.createWidget},
		{Method: get, Path: "/api/widgets/data-sources", Op: "widgetDataSources", Out: widgetSourcesData{}, Handle: a.widgetDataSources},
		{Method: get, Path: "/api/widgets/data", Op: "dashboardData", Query: periodQuery{}, Out: widgetsDataData{}, Handle: a.allWidgetData},
		{Method: post, Path: "/api/widgets/layout", Op: "saveDashboardLayout", In: saveWidgetLayoutBody{}, Out: layoutData{}, Handle: a.saveWidgetLayout},
		{Method: put, Path: "/api/widgets/layout", Op: "saveDashboardLayout", In: saveWidgetLayoutBody{}, Out: layoutData{}, Handle: a.saveWidgetLayout},
		{Method: get, Path: "/api/widgets/:id", Op: "dashboardWidget", Out: widgetJSON{}, Handle: a.getWidget},
		{Method: put, Path: "/api/widgets/:id", Op: "updateDashboardWidget", In: updateWidgetBody{}, Out: widgetJSON{}, Handle: a.updateWidget},
		{Method: del, Path: "/api/widgets/:id", Op: "deleteDashboardWidget", Out: messageData{}, Handle: a.deleteWidget},
		{Method: get, Path: "/api/widgets/:id/data", Op: "widgetData", Query: periodQuery{}, Out: widgetDataJSON{}, Handle: a.widgetData},
	}
}
