package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// DashboardWidget holds the schema definition for the DashboardWidget
// entity: a tile of a member's analytics dashboard that counts the rows of
// one data source (messages, contacts, ...) over a period, as a number or
// a chart (package widgets). It belongs to the member who made it and is
// visible to the whole organization when shared.
type DashboardWidget struct {
	ent.Schema
}

// Mixin of the DashboardWidget.
func (DashboardWidget) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{Covered: true}, TimeMixin{}}
}

// Fields of the DashboardWidget.
func (DashboardWidget) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.UUID("owner_id", uuid.UUID{}).Optional().Nillable().Immutable(),
		field.String("name").NotEmpty(),
		field.String("description").Default(""),
		field.String("data_source").Default(""),
		field.String("metric").Default("count"),
		field.String("metric_field").Default("").
			Comment("The numeric field of a sum or average metric (clients call it field)."),
		field.JSON("filters", []map[string]any{}).Default(emptyJSONList).
			Comment("Conditions {field, operator, value} every counted row meets.").
			Annotations(entgql.Type("[Map!]")),
		field.String("display_type").Default("number"),
		field.String("chart_type").Default(""),
		field.String("group_by_field").Default(""),
		field.Bool("show_change").Default(true),
		field.String("color").Default("blue"),
		field.String("size").Default("small"),
		field.JSON("config", map[string]any{}).Default(emptyJSONMap).
			Annotations(entgql.Type("Map")),
		field.Int("display_order").Default(0),
		field.Int("grid_x").Default(0).NonNegative(),
		field.Int("grid_y").Default(0).NonNegative(),
		field.Int("grid_w").Default(0).NonNegative(),
		field.Int("grid_h").Default(0).NonNegative(),
		field.Bool("is_shared").Default(false),
	}
}

// Edges of the DashboardWidget.
func (DashboardWidget) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("owner", User.Type).Field("owner_id").Unique().Immutable().
			Annotations(entsql.OnDelete(entsql.SetNull)),
	}
}

// Indexes of the DashboardWidget.
func (DashboardWidget) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "owner_id"),
	}
}

// Annotations of the DashboardWidget.
func (DashboardWidget) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
