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

// Product holds the schema definition for the Product entity: an item of a
// catalog. price is in minor units (cents) of currency.
type Product struct {
	ent.Schema
}

// Mixin of the Product.
func (Product) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the Product.
func (Product) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.UUID("catalog_id", uuid.UUID{}).Immutable(),
		field.String("provider_product_id").Default(""),
		field.String("name").NotEmpty().
			Annotations(entgql.OrderField("NAME")),
		field.String("description").Default(""),
		field.Int64("price").NonNegative().
			Comment("Price in minor units (cents).").
			Annotations(entgql.OrderField("PRICE")),
		field.String("currency").Default("USD"),
		field.String("url").Default(""),
		field.String("image_url").Default(""),
		field.String("retailer_id").Default(""),
		field.Bool("is_active").Default(true),
	}
}

// Edges of the Product.
func (Product) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("catalog", Catalog.Type).
			Ref("products").
			Field("catalog_id").
			Unique().
			Required().
			Immutable(),
	}
}

// Indexes of the Product.
func (Product) Indexes() []ent.Index {
	return []ent.Index{
		// A catalog's products (lists, product_count) and the lookup by
		// retailer id of product messages.
		index.Fields("catalog_id", "retailer_id"),
		// A platform product belongs to one organization, across tenants.
		index.Fields("provider_product_id").Unique().
			Annotations(entsql.IndexWhere("((provider_product_id)::text <> ''::text)")),
	}
}
