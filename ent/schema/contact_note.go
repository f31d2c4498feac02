package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// ContactNote holds the schema definition for the ContactNote entity: an
// internal note a member writes on a contact's conversation, never sent
// to the contact. Deleting the contact deletes its notes; a deleted
// author leaves the note without one.
type ContactNote struct {
	ent.Schema
}

// Mixin of the ContactNote.
func (ContactNote) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the ContactNote.
func (ContactNote) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.UUID("contact_id", uuid.UUID{}).Immutable(),
		field.UUID("author_id", uuid.UUID{}).Optional().Nillable().Immutable(),
		field.Text("content").NotEmpty(),
	}
}

// Edges of the ContactNote.
func (ContactNote) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("contact", Contact.Type).Ref("notes").
			Field("contact_id").Unique().Required().Immutable(),
		edge.To("author", User.Type).Field("author_id").Unique().Immutable().
			Annotations(entsql.OnDelete(entsql.SetNull)),
	}
}

// Indexes of the ContactNote.
func (ContactNote) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("contact_id", "created_at"),
	}
}

// Annotations of the ContactNote.
func (ContactNote) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
