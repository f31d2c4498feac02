package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"github.com/google/uuid"
)

// ChatbotFlow holds the schema definition for the ChatbotFlow entity: a
// graph-based chatbot conversation started by its trigger keywords. graph
// holds {version, entry_node, nodes[], edges[]}.
type ChatbotFlow struct {
	ent.Schema
}

// Mixin of the ChatbotFlow.
func (ChatbotFlow) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the ChatbotFlow.
func (ChatbotFlow) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.String("name").NotEmpty().
			Annotations(entgql.OrderField("NAME")),
		field.String("description").Default(""),
		field.Strings("trigger_keywords").Default([]string{}),
		field.Bool("enabled").Default(true),
		field.JSON("graph", map[string]any{}).Default(emptyJSONMap).
			Annotations(entgql.Type("Map")),
		field.String("chat_account").Default("").
			Comment("Account the flow is limited to; empty for all accounts."),
	}
}

// Annotations of the ChatbotFlow: GraphQL lists it as a paged connection.
func (ChatbotFlow) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
