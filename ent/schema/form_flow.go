package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// FormFlow holds the schema definition for the FormFlow entity: a platform
// interactive form of one account, edited locally and saved/published to
// the provider. Deletion is soft (deleted_at).
type FormFlow struct {
	ent.Schema
}

// Mixin of the FormFlow.
func (FormFlow) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the FormFlow.
func (FormFlow) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.String("chat_account").NotEmpty().Immutable(),
		field.String("provider_flow_id").Default("").
			Comment("Empty until the flow is saved to the provider."),
		field.String("name").NotEmpty().
			Annotations(entgql.OrderField("NAME")),
		field.Enum("status").Values("DRAFT", "PUBLISHED", "DEPRECATED").Default("DRAFT"),
		field.String("category").Default(""),
		field.String("json_version").Default("6.0"),
		field.JSON("flow_json", map[string]any{}).Default(emptyJSONMap).
			Annotations(entgql.Type("Map")),
		field.JSON("screens", []map[string]any{}).Default(emptyJSONList).
			Comment("Screens {id, title, layout{type, children[]}}.").
			Annotations(entgql.Type("[Map!]")),
		field.String("preview_url").Default(""),
		field.Bool("has_local_changes").Default(false),
		field.String("provider_json_sha256").Default("").
			Annotations(entgql.Skip()).
			Comment("SHA-256 (hex) of the Flow JSON last uploaded to the provider; has_local_changes compares the current one with it."),
		field.Time("deleted_at").Optional().Nillable(),
	}
}

// Indexes of the FormFlow.
func (FormFlow) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "status"),
		index.Fields("organization_id", "chat_account"),
		// The platform's flow id is an external identifier: one row in
		// the whole database holds it (a flow not yet saved has none).
		index.Fields("provider_flow_id").Unique().
			Annotations(entsql.IndexWhere("((provider_flow_id)::text <> ''::text)")),
	}
}
