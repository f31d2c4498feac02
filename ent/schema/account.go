package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// Account holds the schema definition for the Account entity: a business
// phone number of the organization connected to the chat platform. The
// access token and app secret are stored encrypted and are write-only.
type Account struct {
	ent.Schema
}

// Mixin of the Account.
func (Account) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the Account.
func (Account) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.String("name").NotEmpty().
			Annotations(entgql.OrderField("NAME")),
		field.String("app_id").Default(""),
		field.String("phone_id").NotEmpty().
			Comment("Platform phone number id; the inbound webhook finds the account by it."),
		field.String("business_id").NotEmpty(),
		field.String("webhook_verify_token").Default(""),
		field.String("api_version").Default("v21.0"),
		field.Bool("is_default_incoming").Default(false),
		field.Bool("is_default_outgoing").Default(false),
		field.Bool("auto_read_receipt").Default(false),
		field.Bool("business_calling_enabled").Default(false),
		field.Enum("status").Values("active", "suspended").Default("active"),
		field.Bytes("access_token_encrypted").Optional().Sensitive().
			Annotations(entgql.Skip()),
		field.Bytes("app_secret_encrypted").Optional().Sensitive().
			Annotations(entgql.Skip()),
		field.String("messaging_limit_tier").Default(""),
		field.UUID("created_by_id", uuid.UUID{}).Optional().Nillable(),
		field.UUID("updated_by_id", uuid.UUID{}).Optional().Nillable(),
	}
}

// Indexes of the Account.
func (Account) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "name").Unique(),
		index.Fields("phone_id"),
		index.Fields("webhook_verify_token"),
	}
}
