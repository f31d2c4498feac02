package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// ChatbotSettings holds the schema definition for the ChatbotSettings
// entity: the chatbot configuration of an organization, one row per
// organization (seeded with it). The read-only stats of the settings
// endpoint are computed, not stored.
type ChatbotSettings struct {
	ent.Schema
}

// Mixin of the ChatbotSettings.
func (ChatbotSettings) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the ChatbotSettings.
func (ChatbotSettings) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),

		// Switches.
		field.Bool("enabled").Default(false),
		field.Bool("business_hours_enabled").Default(false),
		field.Bool("allow_automated_outside_hours").Default(false),
		field.Bool("allow_agent_queue_pickup").Default(true),
		field.Bool("assign_to_same_agent").Default(true),
		field.Bool("agent_current_conversation_only").Default(false),
		field.Bool("ai_enabled").Default(false),
		field.Bool("sla_enabled").Default(false),
		field.Bool("client_reminder_enabled").Default(false),

		// Texts.
		field.String("greeting_message").Default(""),
		field.String("fallback_message").Default(""),
		field.String("out_of_hours_message").Default(""),
		field.String("ai_provider").Default(""),
		field.String("ai_model").Default(""),
		field.Text("ai_system_prompt").Default(""),
		field.String("sla_auto_close_message").Default(""),
		field.String("sla_warning_message").Default(""),
		field.String("client_reminder_message").Default(""),
		field.String("client_auto_close_message").Default(""),

		// Arrays.
		field.JSON("greeting_buttons", []map[string]any{}).Default(emptyJSONList).
			Comment("Reply buttons {id, title} sent with the greeting.").
			Annotations(entgql.Type("[Map!]")),
		field.JSON("fallback_buttons", []map[string]any{}).Default(emptyJSONList).
			Comment("Reply buttons {id, title} sent with the fallback message.").
			Annotations(entgql.Type("[Map!]")),
		field.JSON("business_hours", []map[string]any{}).Default(emptyJSONList).
			Comment("Weekly schedule entries {day, enabled, start_time, end_time}.").
			Annotations(entgql.Type("[Map!]")),
		field.Strings("sla_escalation_notify_ids").Default([]string{}).
			Comment("User ids notified when a transfer escalates."),

		// Numbers.
		field.Int("session_timeout_minutes").Default(30).NonNegative(),
		field.Int("ai_max_tokens").Default(500).NonNegative(),
		field.Int("sla_response_minutes").Default(15).NonNegative(),
		field.Int("sla_resolution_minutes").Default(60).NonNegative(),
		field.Int("sla_escalation_minutes").Default(30).NonNegative(),
		field.Int("sla_auto_close_hours").Default(24).NonNegative(),
		field.Int("client_reminder_minutes").Default(60).NonNegative(),
		field.Int("client_auto_close_minutes").Default(120).NonNegative(),

		// Secrets (write-only).
		field.Bytes("ai_api_key_encrypted").Optional().Sensitive().
			Annotations(entgql.Skip()),
	}
}

// Indexes of the ChatbotSettings.
func (ChatbotSettings) Indexes() []ent.Index {
	return []ent.Index{
		// Named apart from the plain organization_id index TenantMixin adds.
		index.Fields("organization_id").Unique().
			StorageKey("chatbotsettings_organization_id_unique"),
	}
}
