package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Role is a named set of permissions within an organization. System roles
// (Admin, Manager, Agent) are seeded and cannot be renamed or deleted.
type Role struct{ ent.Schema }

// Mixin of the Role.
func (Role) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{BackRef: "roles"}, TimeMixin{}}
}

// Fields of the Role.
func (Role) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").NotEmpty().MaxLen(100).Annotations(entgql.OrderField("NAME")),
		field.String("description").Default("").MaxLen(500),
		field.Bool("is_system").Default(false).Immutable(),
		field.Bool("is_default").Default(false),
	}
}

// Edges of the Role.
func (Role) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("permissions", Permission.Type),
	}
}

// Indexes of the Role.
func (Role) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "name").Unique()}
}

// Annotations of the Role.
func (Role) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
