package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// CannedResponse holds the schema definition for the CannedResponse entity:
// a reusable reply agents insert by shortcut, with optional buttons.
type CannedResponse struct {
	ent.Schema
}

// Mixin of the CannedResponse.
func (CannedResponse) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the CannedResponse.
func (CannedResponse) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.String("name").NotEmpty().
			Annotations(entgql.OrderField("NAME")),
		field.String("shortcut").Default(""),
		field.Text("content").NotEmpty().
			Comment("Reply text; placeholders {{contact_name}}, {{phone_number}}."),
		field.String("category").Default(""),
		field.Bool("is_active").Default(true),
		field.Int("usage_count").Default(0).NonNegative().
			Annotations(entgql.OrderField("USAGE_COUNT")),
		field.JSON("buttons", []map[string]any{}).Default(emptyJSONList).
			Comment("Buttons {id, title, type, url, phone_number, ttl_minutes}.").
			Annotations(entgql.Type("[Map!]")),
		field.UUID("created_by_id", uuid.UUID{}).Optional().Nillable(),
	}
}

// Indexes of the CannedResponse.
func (CannedResponse) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "category"),
	}
}

// Annotations of the CannedResponse.
func (CannedResponse) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
