package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"switchboard/ent/privacy"
	"switchboard/ent/rule"
)

// Permission is one entry of the global catalogue, "resource:action".
type Permission struct{ ent.Schema }

// Mixin of the Permission.
func (Permission) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

// Fields of the Permission.
func (Permission) Fields() []ent.Field {
	return []ent.Field{
		field.String("resource").NotEmpty().Immutable(),
		field.String("action").NotEmpty().Immutable(),
		field.String("description").Default(""),
	}
}

// Edges of the Permission.
func (Permission) Edges() []ent.Edge {
	return []ent.Edge{edge.From("roles", Role.Type).Ref("permissions").Annotations(entgql.Skip())}
}

// Indexes of the Permission.
func (Permission) Indexes() []ent.Index {
	return []ent.Index{index.Fields("resource", "action").Unique()}
}

// Annotations of the Permission.
func (Permission) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}

// Policy of the Permission: readable by any viewer; written only by the
// seeding code (privacy bypass).
func (Permission) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{rule.AllowReadWithViewer(), privacy.AlwaysDenyRule()},
		Mutation: privacy.MutationPolicy{privacy.AlwaysDenyRule()},
	}
}
