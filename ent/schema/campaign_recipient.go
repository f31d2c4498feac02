package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// CampaignRecipient holds the schema definition for the CampaignRecipient
// entity: one phone number a campaign sends to, with its template
// parameters and delivery state.
type CampaignRecipient struct {
	ent.Schema
}

// Mixin of the CampaignRecipient.
func (CampaignRecipient) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the CampaignRecipient.
func (CampaignRecipient) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.UUID("campaign_id", uuid.UUID{}).Immutable(),
		field.String("phone_number").NotEmpty(),
		field.String("recipient_name").Default(""),
		field.JSON("template_params", map[string]any{}).Default(emptyJSONMap).
			Annotations(entgql.Type("Map")),
		field.JSON("header_params", map[string]any{}).Default(emptyJSONMap).
			Annotations(entgql.Type("Map")),
		field.Enum("status").
			Values("pending", "sending", "sent", "delivered", "read", "failed").
			Default("pending"),
		field.UUID("message_id", uuid.UUID{}).Optional().Nillable(),
		field.String("chat_message_id").Optional().Nillable(),
		field.String("error_message").Default(""),
		field.Time("sent_at").Optional().Nillable(),
		field.Time("delivered_at").Optional().Nillable(),
		field.Time("read_at").Optional().Nillable(),
		// sending_at is when the sender claimed the recipient (status
		// sending) before calling the platform; a recipient left sending
		// by a crash waits for the platform's status webhook until a
		// bound after it.
		field.Time("sending_at").Optional().Nillable(),
		// retry_at delays the next attempt (the platform's per-pair rate
		// limit, 131056).
		field.Time("retry_at").Optional().Nillable(),
		field.Int("attempts").Default(0).NonNegative(),
	}
}

// Edges of the CampaignRecipient.
func (CampaignRecipient) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("campaign", Campaign.Type).
			Ref("recipients").
			Field("campaign_id").
			Unique().
			Required().
			Immutable(),
	}
}

// Indexes of the CampaignRecipient.
func (CampaignRecipient) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("campaign_id", "phone_number").Unique(),
		index.Fields("campaign_id", "status"),
		// Status webhooks look recipients up by the platform message id.
		index.Fields("chat_message_id"),
	}
}
