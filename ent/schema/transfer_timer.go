package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// TransferTimer is a timer of a chatbot agent transfer: the per-agent
// response timeout, the SLA timers and the client inactivity timers. The
// row is the truth (a queued task only carries its id): a worker fires it
// by moving it from pending to fired with a conditional update, so it
// fires once whatever the number of workers and tasks; when its condition
// is met first it is cancelled.
type TransferTimer struct{ ent.Schema }

// Mixin of the TransferTimer.
func (TransferTimer) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}, TimeMixin{}}
}

// Fields of the TransferTimer.
func (TransferTimer) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("transfer_id", uuid.UUID{}).Immutable(),
		field.Enum("kind").Values("agent_timeout", "sla_response", "sla_escalation", "sla_resolution",
			"sla_auto_close", "client_reminder", "client_auto_close").Immutable(),
		field.Time("due_at").Immutable(),
		field.Enum("status").Values("pending", "fired", "cancelled").Default("pending"),
		// The agent an agent_timeout watches: a later assignment is not
		// theirs to time out.
		field.UUID("agent_id", uuid.UUID{}).Optional().Nillable().Immutable(),
		field.Time("fired_at").Optional().Nillable(),
		// What firing did (reassigned, escalated, closed, reminded) or
		// why it did nothing; empty while pending.
		field.String("outcome").Default(""),
	}
}

// Indexes of the TransferTimer.
func (TransferTimer) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("transfer_id", "status"),
		index.Fields("status", "due_at"),
	}
}

// Annotations of the TransferTimer.
func (TransferTimer) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
