package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// IVRFlow holds the schema definition for the IVRFlow entity: a voice menu
// played to callers of one account. menu holds {nodes[]}. Deletion is soft
// (deleted_at).
type IVRFlow struct {
	ent.Schema
}

// Mixin of the IVRFlow.
func (IVRFlow) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the IVRFlow.
func (IVRFlow) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.String("chat_account").NotEmpty(),
		field.String("name").NotEmpty().
			Annotations(entgql.OrderField("NAME")),
		field.String("description").Default(""),
		field.Bool("is_active").Default(true),
		field.Bool("is_call_start").Default(false),
		field.Bool("is_outgoing_end").Default(false),
		field.JSON("menu", map[string]any{}).Default(emptyJSONMap).
			Annotations(entgql.Type("Map")),
		field.String("welcome_audio_url").Default(""),
		field.UUID("created_by_id", uuid.UUID{}).Optional().Nillable(),
		field.UUID("updated_by_id", uuid.UUID{}).Optional().Nillable(),
		field.Time("deleted_at").Optional().Nillable(),
	}
}

// Indexes of the IVRFlow.
func (IVRFlow) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "chat_account"),
	}
}
