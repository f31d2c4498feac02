package schema

import (
	"context"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/entql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"

	"switchboard/ent/privacy"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
)

// SSOIdentity links a person's account to their subject at an
// organization's identity provider: the issuer and the stable subject
// (`sub`) the provider vouches for, under one provider configuration. Single
// sign-on finds the person by it, never by e-mail; the person makes the link
// from their own session (or single sign-on makes it when it creates a new
// account).
type SSOIdentity struct{ ent.Schema }

// Mixin of the SSOIdentity.
func (SSOIdentity) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{Keyed: true}, TimeMixin{}}
}

// Fields of the SSOIdentity.
func (SSOIdentity) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("sso_config_id", uuid.UUID{}).Immutable().Annotations(entgql.Skip()),
		field.UUID("user_id", uuid.UUID{}).Immutable(),
		// Provider repeats the configuration's provider, for display.
		field.Enum("provider").Values("google", "microsoft", "github", "facebook", "custom").Immutable(),
		field.String("issuer").NotEmpty().MaxLen(1000).Immutable(),
		field.String("subject").NotEmpty().MaxLen(255).Immutable(),
		// Email is the address the provider gave when the link was made
		// (shown to the person; never used to find them).
		field.String("email").Default("").MaxLen(320),
		field.Time("last_login_at").Optional().Nillable(),
	}
}

// Edges of the SSOIdentity.
func (SSOIdentity) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("sso_config", SSOConfig.Type).Ref("identities").Field("sso_config_id").
			Unique().Required().Immutable().Annotations(entgql.Skip()),
		edge.To("user", User.Type).Field("user_id").Unique().Required().Immutable().Annotations(entgql.Skip()),
	}
}

// Indexes of the SSOIdentity: a subject of a provider is one person, and a
// person links one subject per provider configuration.
func (SSOIdentity) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("sso_config_id", "issuer", "subject").Unique(),
		index.Fields("sso_config_id", "user_id").Unique(),
		index.Fields("user_id"),
	}
}

// Policy of the SSOIdentity: besides the organization's filter, a person
// sees and removes only their own links; system actors (single sign-on
// itself) see those of their organization.
func (SSOIdentity) Policy() ent.Policy {
	ownOnly := privacy.FilterFunc(func(ctx context.Context, f privacy.Filter) error {
		v := viewer.FromContext(ctx)
		if v.System {
			return privacy.Skip
		}
		f.Where(entql.FieldEQ("user_id", v.UserID))
		return privacy.Skip
	})
	return privacy.Policy{
		Query:    privacy.QueryPolicy{rule.DenyIfNoViewer(), ownOnly},
		Mutation: privacy.MutationPolicy{rule.DenyIfNoViewer(), ownOnly},
	}
}
