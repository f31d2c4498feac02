package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/privacy"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"github.com/google/uuid"
)

// BusinessAccountHold records which organization a WhatsApp Business
// Account id (an account's business_id) belongs to: its unique index lets
// one organization hold it, however many of its accounts (phone numbers)
// share it. Template changes arrive on the platform's webhook by business
// account id, so that id must name one organization. Accounts claim it on
// create and update (accounts package); the last account of the
// organization with that id releases it. Every query and mutation is
// denied unless the caller's context carries an allow decision (rule.Bypass).
type BusinessAccountHold struct {
	ent.Schema
}

// Mixin of the BusinessAccountHold.
func (BusinessAccountHold) Mixin() []ent.Mixin {
	return []ent.Mixin{TimeMixin{}}
}

// Fields of the BusinessAccountHold.
func (BusinessAccountHold) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.String("business_id").NotEmpty().Unique().Immutable(),
		field.UUID("organization_id", uuid.UUID{}).Immutable(),
	}
}

// Policy of the BusinessAccountHold: deny everything unless the context
// carries an allow decision.
func (BusinessAccountHold) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{privacy.AlwaysDenyRule()},
		Mutation: privacy.MutationPolicy{privacy.AlwaysDenyRule()},
	}
}

// Annotations of the BusinessAccountHold: internal, not exposed over
// GraphQL.
func (BusinessAccountHold) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.Skip(entgql.SkipAll),
	}
}
