package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// SSOConfig is an organization's configuration of one identity provider.
// The client secret is encrypted at rest and never returned.
type SSOConfig struct{ ent.Schema }

// Mixin of the SSOConfig.
func (SSOConfig) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TenantMixin{}, TimeMixin{}} }

// Fields of the SSOConfig.
func (SSOConfig) Fields() []ent.Field {
	return []ent.Field{
		field.Enum("provider").Values("google", "microsoft", "github", "facebook", "custom"),
		field.String("client_id").NotEmpty(),
		field.Bytes("client_secret_encrypted").Optional().Sensitive().Annotations(entgql.Skip()),
		field.Bool("is_enabled").Default(false),
		field.Bool("allow_auto_create").Default(false),
		field.String("default_role").Default("agent"),
		field.String("allowed_domains").Default(""),
		field.String("auth_url").Default(""),
		field.String("token_url").Default(""),
		field.String("user_info_url").Default(""),
	}
}

// Edges of the SSOConfig: the people linked to it go with it.
func (SSOConfig) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("identities", SSOIdentity.Type).
			Annotations(entsql.OnDelete(entsql.Cascade), entgql.Skip()),
	}
}

// Indexes of the SSOConfig.
func (SSOConfig) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "provider").Unique()}
}
