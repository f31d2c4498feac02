package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent/message"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
)

var widgetKeys = []string{"id", "name", "description", "data_source", "metric", "field", "filters", "display_type",
	"chart_type", "group_by_field", "show_change", "color", "size", "config", "display_order", "grid_x", "grid_y",
	"grid_w", "grid_h", "is_shared", "is_default", "is_owner", "created_by", "created_at", "updated_at"}

// storeMessages stores messages of a new contact of orgID at the given
// times and directions, as inbound processing would.
func storeMessages(t *testing.T, env *apitest.Env, orgID uuid.UUID, phone string, at map[time.Time]message.Direction) {
	t.Helper()
	ctx := viewer.SystemContext(context.Background(), orgID)
	c := env.Client()
	ct, err := c.Contact.Create().SetPhoneNumber(phone).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for when, dir := range at {
		if err := c.Message.Create().SetContactID(ct.ID).SetDirection(dir).SetMessageType("text").
			SetCreatedAt(when).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWidgets(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	manager := env.NewUser(env.OrgID, access.RoleManager)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")
	day := func(d, h int) time.Time { return time.Date(2026, 1, d, h, 0, 0, 0, time.UTC) }
	storeMessages(t, env, env.OrgID, "+15550003001", map[time.Time]message.Direction{
		day(10, 9): message.DirectionIncoming, day(10, 23): message.DirectionIncoming,
		day(12, 0): message.DirectionOutgoing, day(8, 12): message.DirectionIncoming, day(20, 1): message.DirectionIncoming,
	})
	storeMessages(t, env, other.OrgID, "+15550003002", map[time.Time]message.Direction{
		day(10, 1): message.DirectionIncoming, day(11, 1): message.DirectionIncoming,
	})
	period := "?from=2026-01-10&to=2026-01-12"

	// Every organization starts with the default dashboard, the bootstrap
	// one too; a member who may change settings removes them (the rest of
	// this test counts the widgets it makes).
	t.Run("DefaultWidgets", func(t *testing.T) {
		for name, c := range map[string]*apitest.Client{"Bootstrap": admin, "New": other} {
			res := c.Do(http.MethodGet, "/api/widgets", nil).ExpectStatus(t, http.StatusOK)
			names := []string{}
			for i := range res.Len("data.widgets") {
				w := fmt.Sprintf("data.widgets.%d.", i)
				if res.Get(w+"is_default") != true || res.Get(w+"is_shared") != true || res.Get(w+"created_by") != nil {
					t.Errorf("%s: default widget %d: %s", name, i, res.Raw)
				}
				names = append(names, res.String(w+"name"))
			}
			want := []string{"Messages", "Contacts", "Chatbot sessions", "Campaigns", "Messages over time", "Shortcuts"}
			if !slices.Equal(names, want) {
				t.Errorf("%s organization's widgets %v, want %v", name, names, want)
			}
		}
		list := manager.Do(http.MethodGet, "/api/widgets", nil).ExpectStatus(t, http.StatusOK)
		first := list.String("data.widgets.0.id")
		manager.Do(http.MethodPut, "/api/widgets/"+first, map[string]any{"name": "Mine now"}).ExpectError(t, http.StatusForbidden)
		manager.Do(http.MethodDelete, "/api/widgets/"+first, nil).ExpectError(t, http.StatusForbidden)
		if d := admin.Do(http.MethodGet, "/api/widgets/"+first+"/data"+period, nil).ExpectStatus(t, http.StatusOK); d.Number("data.value") != 3 {
			t.Errorf("default messages widget: %s", d.Raw)
		}
		for i := range list.Len("data.widgets") {
			admin.Do(http.MethodDelete, "/api/widgets/"+list.String(fmt.Sprintf("data.widgets.%d.id", i)), nil).ExpectStatus(t, http.StatusOK)
		}
		if n := manager.Do(http.MethodGet, "/api/widgets", nil).ExpectStatus(t, http.StatusOK).Len("data.widgets"); n != 0 {
			t.Fatalf("%d widgets left after deleting the defaults", n)
		}
	})

	t.Run("DataSources", func(t *testing.T) {
		res := manager.Do(http.MethodGet, "/api/widgets/data-sources", nil).ExpectStatus(t, http.StatusOK)
		expectKeys(t, res, "data", "data_sources", "metrics", "display_types", "operators")
		expectKeys(t, res, "data.data_sources.0", "name", "label", "fields")
		expectKeys(t, res, "data.operators.0", "value", "label")
		if res.String("data.data_sources.0.name") != "messages" || res.String("data.metrics.0") != "count" {
			t.Errorf("data sources: %s", res.Raw)
		}
	})

	var number, chart string
	t.Run("CreateAndCount", func(t *testing.T) {
		res := admin.Do(http.MethodPost, "/api/widgets", map[string]any{
			"name": "Messages", "data_source": "messages", "metric": "count", "field": "", "display_type": "number",
			"filters": []any{}, "config": map[string]any{}, "color": "green", "size": "small",
		}).ExpectStatus(t, http.StatusCreated)
		expectKeys(t, res, "data", widgetKeys...)
		number = res.String("data.id")
		if res.Get("data.is_owner") != true || res.Get("data.show_change") != true || res.String("data.created_by") != admin.UserID.String() {
			t.Fatalf("widget: %s", res.Raw)
		}
		d := admin.Do(http.MethodGet, "/api/widgets/"+number+"/data"+period, nil).ExpectStatus(t, http.StatusOK)
		expectKeys(t, d, "data", "widget_id", "value", "change", "prev_value", "chart_data", "data_points")
		// Three messages from the 10th to the 12th, one in the three days
		// before; another organization's messages do not count.
		if d.Number("data.value") != 3 || d.Number("data.prev_value") != 1 || d.Number("data.change") != 200 {
			t.Fatalf("data: %s", d.Raw)
		}
	})
	t.Run("FilteredChart", func(t *testing.T) {
		res := admin.Do(http.MethodPost, "/api/widgets", map[string]any{
			"name": "Incoming by day", "data_source": "messages", "display_type": "chart", "chart_type": "line",
			"filters": []map[string]string{{"field": "direction", "operator": "equals", "value": "incoming"}},
		}).ExpectStatus(t, http.StatusCreated)
		chart = res.String("data.id")
		d := admin.Do(http.MethodGet, "/api/widgets/"+chart+"/data"+period, nil).ExpectStatus(t, http.StatusOK)
		if d.Number("data.value") != 2 || d.Len("data.chart_data") != 3 || d.Number("data.chart_data.0.value") != 2 ||
			d.String("data.chart_data.0.label") != "2026-01-10" || d.Number("data.chart_data.1.value") != 0 {
			t.Fatalf("data: %s", d.Raw)
		}
		res = admin.Do(http.MethodPut, "/api/widgets/"+chart, map[string]any{
			"chart_type": "pie", "group_by_field": "direction", "filters": []any{},
		}).ExpectStatus(t, http.StatusOK)
		if res.String("data.name") != "Incoming by day" || res.String("data.chart_type") != "pie" {
			t.Fatalf("updated: %s", res.Raw)
		}
		d = admin.Do(http.MethodGet, "/api/widgets/"+chart+"/data"+period, nil).ExpectStatus(t, http.StatusOK)
		if d.Len("data.data_points") != 2 || d.String("data.data_points.0.label") != "incoming" || d.Number("data.data_points.0.value") != 2 {
			t.Fatalf("grouped: %s", d.Raw)
		}
	})
	t.Run("AllData", func(t *testing.T) {
		res := admin.Do(http.MethodGet, "/api/widgets/data"+period, nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.data."+number+".value") != 3 || res.Number("data.data."+chart+".value") != 3 {
			t.Fatalf("all data: %s", res.Raw)
		}
		list := admin.Do(http.MethodGet, "/api/widgets", nil).ExpectStatus(t, http.StatusOK)
		if list.Len("data.widgets") != 2 || list.String("data.widgets.0.id") != number {
			t.Fatalf("widgets: %s", list.Raw)
		}
	})
	t.Run("ContactsAndShortcuts", func(t *testing.T) {
		res := admin.Do(http.MethodPost, "/api/widgets", map[string]any{"name": "New contacts", "data_source": "contacts"}).
			ExpectStatus(t, http.StatusCreated)
		if d := admin.Do(http.MethodGet, "/api/widgets/"+res.String("data.id")+"/data", nil).ExpectStatus(t, http.StatusOK); d.Number("data.value") != 1 {
			t.Errorf("contacts created this month: %s", d.Raw)
		}
		res = admin.Do(http.MethodPost, "/api/widgets", map[string]any{"name": "Go to", "display_type": "shortcuts",
			"config": map[string]any{"shortcuts": []string{"chat", "contacts"}}}).ExpectStatus(t, http.StatusCreated)
		if res.String("data.data_source") != "" || res.Len("data.config.shortcuts") != 2 {
			t.Errorf("shortcuts: %s", res.Raw)
		}
	})
	badRequests(t, admin, http.MethodPost, "/api/widgets", map[string]any{
		"ErrMalformedJSON":      "{",
		"ErrNameRequired":       `{"data_source": "messages"}`,
		"ErrSourceRequired":     `{"name": "x"}`,
		"ErrUnsupportedSource":  `{"name": "x", "data_source": "calls"}`,
		"ErrUnsupportedMetric":  `{"name": "x", "data_source": "messages", "metric": "sum", "field": "duration"}`,
		"ErrUnsupportedDisplay": `{"name": "x", "data_source": "messages", "display_type": "table"}`,
		"ErrFilterField":        `{"name": "x", "data_source": "messages", "filters": [{"field": "content", "operator": "equals", "value": "a"}]}`,
		"ErrFilterOperator":     `{"name": "x", "data_source": "messages", "filters": [{"field": "status", "operator": "gt", "value": "a"}]}`,
		"ErrChartType":          `{"name": "x", "data_source": "messages", "display_type": "chart", "chart_type": "radar"}`,
		"ErrGroupBy":            `{"name": "x", "data_source": "contacts", "display_type": "chart", "group_by_field": "direction"}`,
		"ErrColor":              `{"name": "x", "data_source": "messages", "color": "pink"}`,
		"ErrShortcut":           `{"name": "x", "display_type": "shortcuts", "config": {"shortcuts": ["nowhere"]}}`,
		"ErrWrongType":          `{"name": "x", "data_source": "messages", "show_change": "yes"}`,
	})
	t.Run("BadPeriods", func(t *testing.T) {
		for _, q := range []string{"?from=yesterday", "?from=2026-01-12&to=2026-01-10", "?from=2024-01-01&to=2026-01-01", "?to=2026-13-01"} {
			admin.Do(http.MethodGet, "/api/widgets/"+number+"/data"+q, nil).ExpectError(t, http.StatusBadRequest)
			admin.Do(http.MethodGet, "/api/widgets/data"+q, nil).ExpectError(t, http.StatusBadRequest)
		}
	})

	var managers string
	t.Run("OwnersAndSharing", func(t *testing.T) {
		managers = manager.Do(http.MethodPost, "/api/widgets", map[string]any{"name": "Mine", "data_source": "messages"}).
			ExpectStatus(t, http.StatusCreated).String("data.id")
		t.Run("ErrShareWithoutSettingsUpdate", func(t *testing.T) {
			manager.Do(http.MethodPost, "/api/widgets", map[string]any{"name": "All", "data_source": "messages", "is_shared": true}).
				ExpectError(t, http.StatusForbidden)
			manager.Do(http.MethodPut, "/api/widgets/"+managers, map[string]any{"is_shared": true}).ExpectError(t, http.StatusForbidden)
		})
		// Not shared: another member does not see it.
		admin.Do(http.MethodGet, "/api/widgets/"+managers, nil).ExpectError(t, http.StatusNotFound)
		manager.Do(http.MethodGet, "/api/widgets/"+number, nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodPut, "/api/widgets/"+number, map[string]any{"is_shared": true}).ExpectStatus(t, http.StatusOK)
		res := manager.Do(http.MethodGet, "/api/widgets", nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.widgets") != 2 || res.String("data.widgets.0.id") != number || res.Get("data.widgets.0.is_owner") != false {
			t.Fatalf("manager's widgets: %s", res.Raw)
		}
		manager.Do(http.MethodGet, "/api/widgets/"+number+"/data"+period, nil).ExpectStatus(t, http.StatusOK)
		manager.Do(http.MethodPut, "/api/widgets/"+number, map[string]any{"name": "Taken"}).ExpectError(t, http.StatusForbidden)
		manager.Do(http.MethodDelete, "/api/widgets/"+number, nil).ExpectError(t, http.StatusForbidden)
	})
	t.Run("Layout", func(t *testing.T) {
		res := manager.Do(http.MethodPost, "/api/widgets/layout", map[string]any{"layout": []map[string]any{
			{"id": number, "grid_x": 0, "grid_y": 0, "grid_w": 3, "grid_h": 3},
			{"id": managers, "grid_x": 3, "grid_y": 0, "grid_w": 6, "grid_h": 4},
		}}).ExpectStatus(t, http.StatusOK)
		if res.Number("data.updated") != 1 {
			t.Fatalf("layout: %s", res.Raw)
		}
		w := manager.Do(http.MethodGet, "/api/widgets/"+managers, nil).ExpectStatus(t, http.StatusOK)
		if w.Number("data.grid_x") != 3 || w.Number("data.grid_w") != 6 {
			t.Errorf("placed: %s", w.Raw)
		}
		if w := admin.Do(http.MethodGet, "/api/widgets/"+number, nil); w.Number("data.grid_w") != 0 {
			t.Errorf("another member moved the owner's widget: %s", w.Raw)
		}
		badRequests(t, manager, http.MethodPost, "/api/widgets/layout", map[string]any{
			"ErrMissing":  `{}`,
			"ErrBadID":    `{"layout": [{"id": "x", "grid_w": 1, "grid_h": 1}]}`,
			"ErrZeroSize": map[string]any{"layout": []map[string]any{{"id": managers, "grid_w": 0, "grid_h": 1}}},
			"ErrOffGrid":  map[string]any{"layout": []map[string]any{{"id": managers, "grid_x": 11, "grid_w": 3, "grid_h": 1}}},
		})
		manager.Do(http.MethodPost, "/api/widgets/layout", map[string]any{"layout": []map[string]any{
			{"id": uuid.NewString(), "grid_w": 1, "grid_h": 1}}}).ExpectError(t, http.StatusNotFound)
	})
	t.Run("Isolation", func(t *testing.T) {
		other.Do(http.MethodGet, "/api/widgets/"+number, nil).ExpectError(t, http.StatusNotFound)
		other.Do(http.MethodGet, "/api/widgets/"+number+"/data", nil).ExpectError(t, http.StatusNotFound)
		other.Do(http.MethodDelete, "/api/widgets/"+number, nil).ExpectError(t, http.StatusNotFound)
		res := other.Do(http.MethodGet, "/api/widgets", nil).ExpectStatus(t, http.StatusOK)
		for i := range res.Len("data.widgets") {
			if res.Get(fmt.Sprintf("data.widgets.%d.is_default", i)) != true {
				t.Errorf("another organization's widgets: %s", res.Raw)
			}
		}
	})
	t.Run("Permissions", func(t *testing.T) {
		agent.Do(http.MethodGet, "/api/widgets", nil).ExpectError(t, http.StatusForbidden)
		agent.Do(http.MethodGet, "/api/widgets/data-sources", nil).ExpectError(t, http.StatusForbidden)
		env.Anonymous().Do(http.MethodGet, "/api/widgets", nil).ExpectError(t, http.StatusUnauthorized)
		admin.Do(http.MethodGet, "/api/widgets/not-a-uuid", nil).ExpectError(t, http.StatusBadRequest)
	})
	t.Run("Delete", func(t *testing.T) {
		manager.Do(http.MethodDelete, "/api/widgets/"+managers, nil).ExpectStatus(t, http.StatusOK)
		manager.Do(http.MethodGet, "/api/widgets/"+managers, nil).ExpectError(t, http.StatusNotFound)
	})
	t.Run("GraphQL", func(t *testing.T) {
		res := admin.GraphQL(`query($id: ID!) { dashboardWidgets { id isOwner }
			widgetData(id: $id, from: "2026-01-10", to: "2026-01-12") { value prevValue change } }`, map[string]any{"id": number})
		if res.Get("errors") != nil || res.Get("data.dashboardWidgets.0.isOwner") != true || res.Number("data.widgetData.value") != 3 {
			t.Fatalf("graphql: %s", res.Raw)
		}
		res = manager.GraphQL(`mutation { createDashboardWidget(input: {name: "x", dataSource: "calls"}) { id } }`, nil)
		if res.GraphQLErrorCode() != "invalid" {
			t.Errorf("unsupported data source: %s", res.Raw)
		}
		res = manager.GraphQL(`mutation($id: ID!) { deleteDashboardWidget(id: $id) }`, map[string]any{"id": number})
		if res.GraphQLErrorCode() != "forbidden" {
			t.Errorf("another member's widget: %s", res.Raw)
		}
		res = agent.GraphQL(`{ widgetDataSources { name } }`, nil)
		if res.GraphQLErrorCode() != "forbidden" {
			t.Errorf("agent: %s", res.Raw)
		}
	})
}
