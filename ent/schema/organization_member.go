package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// OrganizationMember ties a user to an organization with a role.
type OrganizationMember struct{ ent.Schema }

// Mixin of the OrganizationMember.
func (OrganizationMember) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{BackRef: "members"}, TimeMixin{}}
}

// Fields of the OrganizationMember.
func (OrganizationMember) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("user_id", uuid.UUID{}).Immutable(),
		field.UUID("role_id", uuid.UUID{}),
		field.Bool("is_default").Default(false),
	}
}

// Edges of the OrganizationMember.
func (OrganizationMember) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("memberships").Field("user_id").Unique().Required().Immutable(),
		edge.To("role", Role.Type).Field("role_id").Unique().Required(),
	}
}

// Indexes of the OrganizationMember.
func (OrganizationMember) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "user_id").Unique(),
		index.Fields("user_id"),
		index.Fields("role_id"),
	}
}

// Annotations of the OrganizationMember.
func (OrganizationMember) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
