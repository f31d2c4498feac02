package schema

import (
	"context"

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
			Comment("Platform phone number id."),
		field.String("held_phone_id").Optional().Nillable().
			Annotations(entgql.Skip()).
			Comment("The phone_id this account holds: set from phone_id on every write, unique, so a phone number id belongs to one account of one organization, and the inbound webhook finds the account by it. NULL only for an account the uniqueness migration set aside (suspended) because an older account held its phone_id."),
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
		index.Fields("held_phone_id").Unique(),
		index.Fields("webhook_verify_token"),
	}
}

// Hooks of the Account.
func (Account) Hooks() []ent.Hook {
	return []ent.Hook{holdPhoneID}
}

// phoneMutation is the part of an account mutation holdPhoneID uses.
type phoneMutation interface {
	PhoneID() (string, bool)
	SetHeldPhoneID(string)
}

// holdPhoneID claims the phone_id written by a create or an update: its
// unique index refuses a phone number id another account holds, in any
// organization, whatever the entry point.
func holdPhoneID(next ent.Mutator) ent.Mutator {
	return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
		if pm, ok := m.(phoneMutation); ok {
			if id, set := pm.PhoneID(); set {
				pm.SetHeldPhoneID(id)
			}
		}
		return next.Mutate(ctx, m)
	})
}
