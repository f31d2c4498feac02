package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// AgentBreak is a period during which an agent was unavailable; analytics
// sums them. An open break has no ended_at.
type AgentBreak struct{ ent.Schema }

// Mixin of the AgentBreak.
func (AgentBreak) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TenantMixin{}, TimeMixin{}} }

// Fields of the AgentBreak.
func (AgentBreak) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("user_id", uuid.UUID{}).Immutable(),
		field.Time("started_at").Immutable(),
		field.Time("ended_at").Optional().Nillable(),
	}
}

// Indexes of the AgentBreak.
func (AgentBreak) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "user_id", "started_at")}
}
