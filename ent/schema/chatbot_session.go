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

// ChatbotSession holds the schema definition for the ChatbotSession entity:
// a contact's run through a chatbot flow, with the step it waits at and the
// variables collected so far.
type ChatbotSession struct {
	ent.Schema
}

// Mixin of the ChatbotSession.
func (ChatbotSession) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the ChatbotSession.
func (ChatbotSession) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.UUID("contact_id", uuid.UUID{}).Immutable(),
		field.String("chat_account").Default(""),
		field.Enum("status").
			Values("active", "completed", "cancelled", "timeout").
			Default("active"),
		field.UUID("current_flow_id", uuid.UUID{}).Optional().Nillable(),
		field.String("current_step").Default(""),
		field.JSON("variables", map[string]any{}).Default(emptyJSONMap).
			Annotations(entgql.Type("Map")),
		field.Time("started_at").Default(nowUTC).Immutable().
			Annotations(entgql.OrderField("STARTED_AT")),
		field.Time("last_activity").Default(nowUTC).
			Annotations(entgql.OrderField("LAST_ACTIVITY")),
		field.Time("completed_at").Optional().Nillable(),
	}
}

// Edges of the ChatbotSession.
func (ChatbotSession) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("contact", Contact.Type).
			Ref("chatbot_sessions").
			Field("contact_id").
			Unique().
			Required().
			Immutable(),
	}
}

// Indexes of the ChatbotSession.
func (ChatbotSession) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "status"),
		// The dashboard counts the sessions started in a period.
		index.Fields("organization_id", "started_at"),
		index.Fields("contact_id", "status"),
	}
}

// Annotations of the ChatbotSession: GraphQL lists it as a paged connection.
func (ChatbotSession) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
