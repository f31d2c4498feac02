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

// Message holds the schema definition for the Message entity: one incoming
// or outgoing message of a contact's conversation. chat_message_id is the
// platform's message identifier that status webhooks refer to.
type Message struct {
	ent.Schema
}

// Mixin of the Message.
func (Message) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{Covered: true}, TimeMixin{}}
}

// Fields of the Message.
func (Message) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.UUID("contact_id", uuid.UUID{}).Immutable(),
		field.Enum("direction").Values("incoming", "outgoing").Immutable(),
		field.String("message_type").Default("text").
			Comment("text, image, video, document, audio, template, interactive, flow, ..."),
		field.JSON("content", map[string]any{}).Default(emptyJSONMap).
			Annotations(entgql.Type("Map")),
		field.Enum("status").
			Values("pending", "sent", "delivered", "read", "failed").
			Default("pending"),
		field.String("chat_message_id").Optional().Nillable().Unique(),
		field.String("chat_account").Default(""),
		field.String("media_url").Default(""),
		field.String("media_mime_type").Default(""),
		field.String("media_filename").Default(""),
		field.JSON("interactive_data", map[string]any{}).Optional().Default(emptyJSONMap).
			Annotations(entgql.Type("Map")),
		field.String("error_message").Default(""),
		field.UUID("sent_by_user_id", uuid.UUID{}).Optional().Nillable(),
		field.Time("platform_timestamp").Optional().Nillable(),
		field.UUID("reply_to_id", uuid.UUID{}).Optional().Nillable(),
		field.Enum("bot_source").
			Values("keyword", "flow", "ai", "greeting", "fallback", "out_of_hours", "system").
			Optional().Nillable().
			Comment("Set on an outgoing message the chatbot sent, naming what produced it; null for people's messages. The chatbot stats count these rows (messages_handled: any value, ai_responses: ai)."),
		field.Time("bot_handled_at").Optional().Nillable().
			Annotations(entgql.Skip()).
			Comment("When the chatbot handled this incoming message (replied, or decided not to); null while it waits. The bot's per-contact cursor: a message handled once is never handled again."),
	}
}

// Edges of the Message.
func (Message) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("contact", Contact.Type).
			Ref("messages").
			Field("contact_id").
			Unique().
			Required().
			Immutable(),
	}
}

// Indexes of the Message.
func (Message) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("contact_id", "created_at", "id"),
		index.Fields("organization_id", "created_at"),
		// What the chatbot sent (its stats): partial, so that received
		// messages, which have no bot_source, add nothing to it.
		index.Fields("organization_id", "bot_source").
			Annotations(entsql.IndexWhere("(bot_source IS NOT NULL)")),
		// The incoming messages the chatbot has still to handle: a small
		// index, as every message leaves it within moments. The predicate
		// is written as PostgreSQL prints it back (pg_get_expr), so that
		// Atlas's diff sees the migrated index as the schema's.
		index.Fields("contact_id", "created_at").
			Annotations(entsql.IndexWhere("(((direction)::text = 'incoming'::text) AND (bot_handled_at IS NULL))")).
			StorageKey("message_bot_pending"),
		// Agent analytics count the messages agents sent by day (rollup
		// builds, the days read live): an index-only scan of a day range.
		index.Fields("organization_id", "created_at", "sent_by_user_id").
			Annotations(entsql.IndexWhere("((sent_by_user_id IS NOT NULL) AND ((direction)::text = 'outgoing'::text))")).
			StorageKey("message_agent_sent"),
	}
}
