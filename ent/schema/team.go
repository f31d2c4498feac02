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

// Team groups agents and managers; transfers to a team follow its
// assignment strategy.
type Team struct{ ent.Schema }

// Mixin of the Team.
func (Team) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{BackRef: "teams"}, TimeMixin{}}
}

// Fields of the Team.
func (Team) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").NotEmpty().MaxLen(100).Annotations(entgql.OrderField("NAME")),
		field.String("description").Default("").MaxLen(1000),
		field.Enum("assignment_strategy").Values("round_robin", "load_balanced", "manual").Default("round_robin"),
		field.Int("per_agent_timeout_secs").Default(120).NonNegative(),
		field.Bool("is_active").Default(true),
		field.UUID("created_by_id", uuid.UUID{}).Optional().Nillable(),
	}
}

// Edges of the Team.
func (Team) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("members", TeamMember.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("created_by", User.Type).Field("created_by_id").Unique().Annotations(entgql.Skip()),
	}
}

// Indexes of the Team.
func (Team) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "name").Unique()}
}

// Annotations of the Team.
func (Team) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
