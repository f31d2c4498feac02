package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// Invitation lets an email address register into an organization. It is
// created when an admin adds a member by an email that has no account yet.
type Invitation struct{ ent.Schema }

// Mixin of the Invitation.
func (Invitation) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TenantMixin{}, TimeMixin{}} }

// Fields of the Invitation.
func (Invitation) Fields() []ent.Field {
	return []ent.Field{
		field.String("email").NotEmpty(),
		field.UUID("role_id", uuid.UUID{}),
		field.UUID("invited_by_id", uuid.UUID{}).Optional().Nillable(),
		field.Time("expires_at"),
		field.Time("accepted_at").Optional().Nillable(),
	}
}

// Indexes of the Invitation.
func (Invitation) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "email").Unique()}
}
