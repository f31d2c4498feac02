package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// Contact holds the schema definition for the Contact entity: a person the
// organization talks to, identified by phone number. Deleting a contact
// deletes its messages, chatbot sessions, agent transfers, call
// permissions and notes. service_window_open is derived from last_inbound_at.
type Contact struct {
	ent.Schema
}

// Mixin of the Contact.
func (Contact) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{Covered: true}, TimeMixin{}}
}

// Fields of the Contact.
func (Contact) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.String("phone_number").NotEmpty().
			Annotations(entgql.OrderField("PHONE_NUMBER")),
		field.String("name").Default("").
			Annotations(entgql.OrderField("NAME")),
		field.String("profile_name").Default(""),
		field.String("avatar_url").Default(""),
		field.String("status").Default("active"),
		field.Strings("tags").Default([]string{}),
		field.JSON("metadata", map[string]any{}).Default(emptyJSONMap).
			Annotations(entgql.Type("Map")),
		field.Time("last_message_at").Optional().Nillable().
			Annotations(entgql.OrderField("LAST_MESSAGE_AT")),
		field.String("last_message_preview").Default(""),
		field.Int("unread_count").Default(0).NonNegative(),
		field.UUID("assigned_user_id", uuid.UUID{}).Optional().Nillable(),
		field.String("chat_account").Default(""),
		field.Time("last_inbound_at").Optional().Nillable(),
		field.Bool("marketing_opt_out").Default(false),
		// message_count is kept by database triggers in the transaction of
		// every message insert or delete (database/counters.go): the
		// history's total without counting the conversation.
		field.Int("message_count").Default(0).
			Annotations(entgql.Skip()),
	}
}

// Edges of the Contact.
func (Contact) Edges() []ent.Edge {
	return []ent.Edge{
		// GraphQL's Contact.messages is a hand-written Relay connection
		// (schema.graphql, messaging.Service.Conversation): a keyset read
		// of a page, where ent's edge would load the whole conversation.
		edge.To("messages", Message.Type).
			Annotations(entsql.OnDelete(entsql.Cascade), entgql.Skip(entgql.SkipType)),
		edge.To("agent_transfers", AgentTransfer.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("chatbot_sessions", ChatbotSession.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("call_permissions", CallPermission.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("notes", ContactNote.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the Contact.
func (Contact) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "phone_number").Unique(),
		index.Fields("organization_id", "assigned_user_id"),
		// The dashboard counts the contacts created in a period.
		index.Fields("organization_id", "created_at"),
		// The inbox's order, search and tag indexes, and the order by
		// last message, are hand-written (database/inboxindex.go,
		// database/listindex.go): built CONCURRENTLY.
	}
}

// Annotations of the Contact.
func (Contact) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
