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

// Campaign holds the schema definition for the Campaign entity: a bulk
// send of one template to many recipients, with delivery counters.
type Campaign struct {
	ent.Schema
}

// Mixin of the Campaign.
func (Campaign) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the Campaign.
func (Campaign) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.String("name").NotEmpty().
			Annotations(entgql.OrderField("NAME")),
		field.String("chat_account").NotEmpty(),
		field.UUID("template_id", uuid.UUID{}).Optional().Nillable(),
		field.Enum("status").
			Values("draft", "scheduled", "sending", "paused", "completed", "cancelled", "failed").
			Default("draft"),
		field.Int("total_recipients").Default(0).NonNegative(),
		field.Int("sent_count").Default(0).NonNegative(),
		field.Int("delivered_count").Default(0).NonNegative(),
		field.Int("read_count").Default(0).NonNegative(),
		field.Int("failed_count").Default(0).NonNegative(),
		field.String("header_media_id").Default(""),
		// The campaign's header file as stored under DATA_DIR (media
		// store key), its name and type; header_media_id is its platform
		// id once uploaded.
		field.String("header_media_path").Default(""),
		field.String("header_media_filename").Default(""),
		field.String("header_media_mime_type").Default(""),
		// error_message says why a campaign failed (its account or
		// template became unusable).
		field.String("error_message").Default(""),
		field.Time("scheduled_at").Optional().Nillable().
			Annotations(entgql.OrderField("SCHEDULED_AT")),
		field.Time("started_at").Optional().Nillable(),
		field.Time("completed_at").Optional().Nillable(),
		field.UUID("created_by_id", uuid.UUID{}).Optional().Nillable(),
	}
}

// Edges of the Campaign.
func (Campaign) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("template", Template.Type).
			Ref("campaigns").
			Field("template_id").
			Unique(),
		edge.To("recipients", CampaignRecipient.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the Campaign.
func (Campaign) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "status"),
		index.Fields("organization_id", "created_at"),
	}
}
