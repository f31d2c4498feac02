package widgets

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent"
)

// Every new organization starts with the default dashboard, in the
// transaction that creates it (access.CreateOrganization runs the
// registered seeders).
func init() { access.RegisterOrgSeeder(SeedDefaults) }

// defaultWidget is one widget of the default dashboard and its place.
type defaultWidget struct {
	spec
	x, y, w, h int
}

// defaults is the dashboard a new organization starts with: the four
// figures of the analytics dashboard (messages, contacts, chatbot
// sessions, campaigns, each with its change over the previous period),
// the messages per day as a line chart, and the shortcuts to the main
// pages. They are shared and belong to no member: a member who may
// change the organization's settings changes or removes them.
var defaults = []defaultWidget{
	{spec: spec{name: "Messages", description: "Messages sent and received in the period", source: "messages", color: "blue"}, w: 3, h: 2},
	{spec: spec{name: "Contacts", description: "Contacts added in the period", source: "contacts", color: "green"}, x: 3, w: 3, h: 2},
	{spec: spec{name: "Chatbot sessions", description: "Chatbot sessions started in the period", source: "sessions", color: "purple"}, x: 6, w: 3, h: 2},
	{spec: spec{name: "Campaigns", description: "Campaigns created in the period", source: "campaigns", color: "orange"}, x: 9, w: 3, h: 2},
	{spec: spec{name: "Messages over time", description: "Messages per day", source: "messages", display: DisplayChart, chart: "line", color: "blue", size: "large"}, y: 2, w: 8, h: 4},
	{spec: spec{name: "Shortcuts", display: DisplayShortcuts, color: "cyan", size: "medium",
		config: map[string]any{"shortcuts": []any{"chat", "contacts", "campaigns", "templates", "chatbot", "analytics"}}}, x: 8, y: 2, w: 4, h: 4},
}

// SeedDefaults creates the default dashboard of orgID unless it has
// widgets already. ctx is the organization's system context and c the
// client of the transaction creating it.
func SeedDefaults(ctx context.Context, c *ent.Client, orgID uuid.UUID) error {
	exists, err := c.DashboardWidget.Query().Exist(ctx)
	if err != nil || exists {
		return err
	}
	builders := make([]*ent.DashboardWidgetCreate, len(defaults))
	for i, d := range defaults {
		sp := d.spec
		sp.showChange, sp.shared = sp.display == "" || sp.display == DisplayNumber, true
		if err := sp.check(); err != nil {
			return fmt.Errorf("default widget %q: %w", sp.name, err)
		}
		b := c.DashboardWidget.Create().SetDisplayOrder(i).
			SetGridX(d.x).SetGridY(d.y).SetGridW(d.w).SetGridH(d.h)
		save(b.Mutation(), sp)
		builders[i] = b
	}
	if err := c.DashboardWidget.CreateBulk(builders...).Exec(ctx); err != nil {
		return fmt.Errorf("seeding the default widgets: %w", err)
	}
	return nil
}
