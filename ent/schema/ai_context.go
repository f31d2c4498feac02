package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// AIContext holds the schema definition for the AIContext entity: knowledge
// given to the chatbot's AI when a message matches its trigger keywords,
// either fixed text (static) or fetched from an external API (api).
type AIContext struct {
	ent.Schema
}

// Mixin of the AIContext.
func (AIContext) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the AIContext.
func (AIContext) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.String("name").NotEmpty().
			Annotations(entgql.OrderField("NAME")),
		field.Enum("context_type").Values("static", "api").Default("static"),
		field.Strings("trigger_keywords").Default([]string{}),
		field.Text("static_content").Default(""),
		field.JSON("api_config", map[string]any{}).Optional().Default(emptyJSONMap).
			Comment("External API request settings for context_type api.").
			Annotations(entgql.Type("Map")),
		field.Bool("enabled").Default(true),
		field.Int("priority").Default(0).
			Annotations(entgql.OrderField("PRIORITY")),
	}
}

// Indexes of the AIContext.
func (AIContext) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "priority"),
	}
}

// Annotations of the AIContext: GraphQL lists it as a paged connection.
func (AIContext) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
