package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// CallTransfer holds the schema definition for the CallTransfer entity: the
// hand-off of a live call to a team or agent, from waiting to completion.
type CallTransfer struct {
	ent.Schema
}

// Mixin of the CallTransfer.
func (CallTransfer) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the CallTransfer.
func (CallTransfer) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.UUID("call_log_id", uuid.UUID{}).Immutable(),
		field.String("chat_call_id").Default(""),
		field.String("caller_phone").Default(""),
		field.UUID("contact_id", uuid.UUID{}).Optional().Nillable(),
		field.String("chat_account").Default(""),
		field.Enum("status").
			Values("waiting", "connected", "completed", "abandoned", "no_answer").
			Default("waiting"),
		field.UUID("team_id", uuid.UUID{}).Optional().Nillable(),
		field.UUID("agent_id", uuid.UUID{}).Optional().Nillable(),
		field.Time("transferred_at").Default(nowUTC).Immutable().
			Annotations(entgql.OrderField("TRANSFERRED_AT")),
		field.Time("connected_at").Optional().Nillable(),
		field.Time("completed_at").Optional().Nillable(),
		field.Int("hold_duration").Default(0).NonNegative().
			Comment("Seconds the caller waited before being connected."),
		field.Int("talk_duration").Default(0).NonNegative().
			Comment("Seconds the caller talked with the agent."),
	}
}

// Edges of the CallTransfer.
func (CallTransfer) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("call_log", CallLog.Type).
			Ref("transfers").
			Field("call_log_id").
			Unique().
			Required().
			Immutable(),
	}
}

// Indexes of the CallTransfer.
func (CallTransfer) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "status"),
	}
}
