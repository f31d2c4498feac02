package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// AgentTransfer holds the schema definition for the AgentTransfer entity: a
// hand-off of a contact's conversation from the chatbot to human agents. It
// stays active (queued when agent_id is nil) until the chatbot is resumed.
type AgentTransfer struct {
	ent.Schema
}

// Mixin of the AgentTransfer.
func (AgentTransfer) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the AgentTransfer.
func (AgentTransfer) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.UUID("contact_id", uuid.UUID{}).Immutable(),
		field.String("chat_account").Default(""),
		field.Enum("status").Values("active", "resumed").Default("active"),
		field.String("source").Default("manual").
			Comment("Origin of the transfer: flow, manual, ivr, ..."),
		field.UUID("agent_id", uuid.UUID{}).Optional().Nillable(),
		field.UUID("team_id", uuid.UUID{}).Optional().Nillable(),
		field.String("notes").Default(""),
		field.Time("transferred_at").Default(nowUTC).Immutable().
			Annotations(entgql.OrderField("TRANSFERRED_AT")),
		field.Time("assigned_at").Optional().Nillable(),
		field.Time("resumed_at").Optional().Nillable(),
		field.Time("first_response_at").Optional().Nillable(),
		field.UUID("resumed_by_id", uuid.UUID{}).Optional().Nillable(),
	}
}

// Edges of the AgentTransfer.
func (AgentTransfer) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("contact", Contact.Type).
			Ref("agent_transfers").
			Field("contact_id").
			Unique().
			Required().
			Immutable(),
	}
}

// Indexes of the AgentTransfer.
func (AgentTransfer) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "status", "team_id"),
		index.Fields("organization_id", "agent_id", "status"),
		index.Fields("contact_id", "status"),
		// Agent analytics read the transfers created in a period, and
		// the list newest first, from (organization_id, transferred_at,
		// id), hand-written (database/listindex.go), built CONCURRENTLY.
	}
}
