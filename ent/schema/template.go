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

// Template holds the schema definition for the Template entity: a message
// template of one account, drafted locally and submitted to the provider.
// status is a free string because the provider's statuses are open-ended
// (DRAFT, PENDING, APPROVED, REJECTED, ...).
type Template struct {
	ent.Schema
}

// Mixin of the Template.
func (Template) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the Template.
func (Template) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.String("chat_account").NotEmpty(),
		field.String("provider_template_id").Default("").
			Comment("Empty until the template is submitted to the provider."),
		field.String("name").NotEmpty().
			Annotations(entgql.OrderField("NAME")),
		field.String("display_name").Default("").
			Annotations(entgql.OrderField("DISPLAY_NAME")),
		field.String("language").NotEmpty(),
		field.Enum("category").Values("MARKETING", "UTILITY", "AUTHENTICATION"),
		field.String("status").Default("DRAFT"),
		field.Enum("header_type").
			Values("TEXT", "IMAGE", "VIDEO", "DOCUMENT", "NONE").
			Default("NONE"),
		field.String("header_content").Default(""),
		field.String("body_content").Default(""),
		field.String("footer_content").Default(""),
		field.JSON("buttons", []map[string]any{}).Default(emptyJSONList).
			Annotations(entgql.Type("[Map!]")),
		field.Strings("sample_values").Default([]string{}),
		field.Bool("add_security_recommendation").Default(false),
		field.Int("code_expiration_minutes").Optional().Nillable().Range(1, 90),
		field.String("quality_rating").Default("UNKNOWN"),
		field.UUID("created_by_id", uuid.UUID{}).Optional().Nillable(),
		field.UUID("updated_by_id", uuid.UUID{}).Optional().Nillable(),
	}
}

// Edges of the Template.
func (Template) Edges() []ent.Edge {
	return []ent.Edge{
		// Deleting a template keeps its campaigns; their template_id is
		// cleared.
		edge.To("campaigns", Campaign.Type).
			Annotations(entsql.OnDelete(entsql.SetNull)),
	}
}

// Indexes of the Template.
func (Template) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "chat_account", "name", "language").Unique(),
		index.Fields("organization_id", "status"),
		index.Fields("organization_id", "category"),
	}
}
