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

// Catalog holds the schema definition for the Catalog entity: a product
// catalog of an account, mirrored from the provider. Deleting a catalog
// deletes its local products.
type Catalog struct {
	ent.Schema
}

// Mixin of the Catalog.
func (Catalog) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the Catalog.
func (Catalog) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.String("provider_catalog_id").Default(""),
		field.String("chat_account").NotEmpty(),
		field.String("name").NotEmpty().
			Annotations(entgql.OrderField("NAME")),
		field.Bool("is_active").Default(true),
	}
}

// Edges of the Catalog.
func (Catalog) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("products", Product.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the Catalog.
func (Catalog) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "chat_account"),
		// A platform catalog belongs to one organization: the platform's
		// ids are global, so the index spans tenants. The predicate is written
		// as PostgreSQL prints it back (see message.go).
		index.Fields("provider_catalog_id").Unique().
			Annotations(entsql.IndexWhere("((provider_catalog_id)::text <> ''::text)")),
	}
}
