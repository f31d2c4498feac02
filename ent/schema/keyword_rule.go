package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// KeywordRule holds the schema definition for the KeywordRule entity: a
// chatbot rule that answers incoming messages matching its keywords.
type KeywordRule struct {
	ent.Schema
}

// Mixin of the KeywordRule.
func (KeywordRule) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the KeywordRule.
func (KeywordRule) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.String("name").NotEmpty().
			Annotations(entgql.OrderField("NAME")),
		field.Strings("keywords").Default([]string{}),
		field.Enum("match_type").Values("exact", "contains", "starts_with", "regex"),
		field.String("response_type").Default("text"),
		field.JSON("response_content", map[string]any{}).Default(emptyJSONMap).
			Comment("Response payload, e.g. {body, buttons}.").
			Annotations(entgql.Type("Map")),
		field.Int("priority").Default(0).
			Annotations(entgql.OrderField("PRIORITY")),
		field.Bool("enabled").Default(true),
	}
}

// Indexes of the KeywordRule.
func (KeywordRule) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "priority"),
	}
}

// Annotations of the KeywordRule: GraphQL lists it as a paged connection.
func (KeywordRule) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
