package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/privacy"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// InboundEvent holds the schema definition for the InboundEvent entity: a
// durable copy of one raw inbound platform webhook change, stored before it
// is processed. It is not tenant-owned through TenantMixin because it may
// arrive before its organization is known; organization_id is filled in
// once the account is resolved by phone id. Every query and mutation is
// denied unless the caller's context carries an allow decision
// (privacy.DecisionContext(ctx, privacy.Allow), e.g. rule.Bypass).
type InboundEvent struct {
	ent.Schema
}

// Mixin of the InboundEvent.
func (InboundEvent) Mixin() []ent.Mixin {
	return []ent.Mixin{TimeMixin{}}
}

// Fields of the InboundEvent.
func (InboundEvent) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.UUID("organization_id", uuid.UUID{}).Optional().Nillable(),
		field.Bytes("payload").Immutable().
			Comment("Raw JSON of the webhook change as received."),
		field.String("account_phone_id").Default("").
			Comment("metadata.phone_number_id of the change; resolves the account."),
		field.Int("lane").Default(0).Range(0, 63).Immutable().
			Comment("Processing lane, a hash of the sender: one lane's events are processed in order, lanes in parallel."),
		field.Enum("status").Values("pending", "processed", "failed").Default("pending"),
		field.Int("attempts").Default(0).NonNegative(),
		field.String("error").Default(""),
		field.String("dedupe_key").NotEmpty().Unique().Immutable().
			Comment("Hex SHA-256 of the payload; a duplicate delivery is stored once."),
		field.Time("processed_at").Optional().Nillable(),
	}
}

// Indexes of the InboundEvent.
func (InboundEvent) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("status", "lane", "created_at"),
	}
}

// Policy of the InboundEvent: deny everything unless the context carries an
// allow decision.
func (InboundEvent) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{privacy.AlwaysDenyRule()},
		Mutation: privacy.MutationPolicy{privacy.AlwaysDenyRule()},
	}
}

// Annotations of the InboundEvent: an internal queue, not exposed over
// GraphQL.
func (InboundEvent) Annotations() []schema.Annotation {
	return []schema.Annotation{
		entgql.Skip(entgql.SkipAll),
	}
}
