package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// Tag holds the schema definition for the Tag entity: a label of the
// organization's catalogue, with the color clients show it in. Contacts
// carry tags by name (Contact.tags); renaming or deleting a tag rewrites
// the contacts that carry it (package tags).
type Tag struct {
	ent.Schema
}

// Mixin of the Tag.
func (Tag) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{Covered: true}, TimeMixin{}}
}

// Fields of the Tag.
func (Tag) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.String("name").NotEmpty().MaxLen(64).
			Annotations(entgql.OrderField("NAME")),
		field.String("color").NotEmpty().Default("gray").
			Comment("One of the palette of package tags (blue, red, green, yellow, purple, gray)."),
	}
}

// Indexes of the Tag.
func (Tag) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "name").Unique(),
	}
}

// Annotations of the Tag.
func (Tag) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
