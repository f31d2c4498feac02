package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// CallLog holds the schema definition for the CallLog entity: one incoming
// or outgoing voice call of an account, with its outcome and recording.
type CallLog struct {
	ent.Schema
}

// Mixin of the CallLog.
func (CallLog) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the CallLog.
func (CallLog) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.String("chat_account").Default(""),
		field.UUID("contact_id", uuid.UUID{}).Optional().Nillable(),
		field.String("chat_call_id").NotEmpty().
			Comment("The platform's call identifier; unique per organization."),
		field.String("caller_phone").Default(""),
		field.Enum("direction").Values("incoming", "outgoing"),
		field.Enum("status").
			Values("ringing", "answered", "completed", "missed", "rejected", "failed").
			Default("ringing"),
		field.Int("duration").Default(0).NonNegative().
			Comment("Call duration in seconds.").
			Annotations(entgql.OrderField("DURATION")),
		field.UUID("ivr_flow_id", uuid.UUID{}).Optional().Nillable(),
		field.UUID("agent_id", uuid.UUID{}).Optional().Nillable(),
		field.Time("started_at").Default(nowUTC).
			Annotations(entgql.OrderField("STARTED_AT")),
		field.Time("answered_at").Optional().Nillable(),
		field.Time("ended_at").Optional().Nillable(),
		field.String("disconnected_by").Default(""),
		field.String("recording_storage_key").Default(""),
		field.Int("recording_duration").Default(0).NonNegative().
			Comment("Recording duration in seconds."),
	}
}

// Edges of the CallLog.
func (CallLog) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("transfers", CallTransfer.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the CallLog.
func (CallLog) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "chat_call_id").Unique(),
		// (organization_id, started_at, id) is hand-written
		// (database/listindex.go), built CONCURRENTLY.
		index.Fields("organization_id", "agent_id"),
	}
}
