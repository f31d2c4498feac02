package schema

import (
	"context"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/entql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"switchboard/ent/privacy"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
)

// User is a person who logs in. A user belongs to organizations through
// OrganizationMember rows, with a role in each.
type User struct{ ent.Schema }

// Mixin of the User.
func (User) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the User.
func (User) Fields() []ent.Field {
	return []ent.Field{
		field.String("email").Unique().NotEmpty().MaxLen(320).Annotations(entgql.OrderField("EMAIL")),
		field.String("password_hash").Optional().Sensitive().Annotations(entgql.Skip()),
		field.String("full_name").Default("").MaxLen(200).Annotations(entgql.OrderField("FULL_NAME")),
		field.Bool("is_active").Default(true),
		field.Bool("is_available").Default(true),
		field.Bool("is_super_admin").Default(false),
		field.Time("last_login_at").Optional().Nillable(),
		// The user's own preferences (usersettings): only what they chose;
		// private to them, so not a field of the GraphQL User.
		field.JSON("settings", map[string]any{}).Optional().Annotations(entgql.Skip()),
	}
}

// Edges of the User.
func (User) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("memberships", OrganizationMember.Type).Annotations(entgql.Skip()),
	}
}

// Annotations of the User.
func (User) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}

// Policy of the User: users are visible and changeable only as members of
// the viewer's organization, plus the viewer's own user. This holds for a
// super admin too: they act in one organization at a time.
func (User) Policy() ent.Policy {
	memberOfViewerOrg := privacy.FilterFunc(func(ctx context.Context, f privacy.Filter) error {
		v := viewer.FromContext(ctx)
		f.Where(entql.Or(
			entql.HasEdgeWith("memberships", entql.FieldEQ("organization_id", v.OrgID)),
			entql.FieldEQ("id", v.UserID),
		))
		return privacy.Skip
	})
	return privacy.Policy{
		Query: privacy.QueryPolicy{rule.DenyIfNoViewer(), memberOfViewerOrg},
		Mutation: privacy.MutationPolicy{
			rule.DenyIfNoViewer(),
			privacy.OnMutationOperation(privacy.MutationRuleFunc(func(context.Context, ent.Mutation) error {
				return privacy.Allow
			}), ent.OpCreate),
			memberOfViewerOrg,
		},
	}
}
