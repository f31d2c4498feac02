package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"

	"switchboard/ent/privacy"
)

// RefreshToken records an issued refresh token (by its JWT id) so that it
// can be rotated, revoked, and its reuse detected. Tokens of one login form a
// family; reuse of a rotated token revokes the whole family.
type RefreshToken struct{ ent.Schema }

// Mixin of the RefreshToken.
func (RefreshToken) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the RefreshToken. The id is the token's JWT id.
func (RefreshToken) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("user_id", uuid.UUID{}).Immutable(),
		field.UUID("organization_id", uuid.UUID{}).Immutable(),
		field.UUID("family_id", uuid.UUID{}).Immutable(),
		field.Time("expires_at").Immutable(),
		field.Time("used_at").Optional().Nillable(),
		field.Time("revoked_at").Optional().Nillable(),
	}
}

// Indexes of the RefreshToken.
func (RefreshToken) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("family_id"), index.Fields("user_id"),
		// The sweep deletes the expired tokens (access.PruneExpired).
		index.Fields("expires_at"),
	}
}

// Annotations of the RefreshToken.
func (RefreshToken) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip()}
}

// Policy of the RefreshToken: only the token service touches it, through
// a named privacy bypass.
func (RefreshToken) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{privacy.AlwaysDenyRule()},
		Mutation: privacy.MutationPolicy{privacy.AlwaysDenyRule()},
	}
}
