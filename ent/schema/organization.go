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

// Organization is a tenant. Its settings are typed columns.
type Organization struct{ ent.Schema }

// Mixin of the Organization.
func (Organization) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the Organization.
func (Organization) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").NotEmpty().MaxLen(200).Annotations(entgql.OrderField("NAME")),
		field.String("slug").Unique().Immutable(),
		field.Bool("mask_phone_numbers").Default(false),
		field.String("timezone").Default("UTC"),
		field.String("date_format").Default("DD/MM/YYYY"),
		field.Bool("calling_enabled").Default(false),
		field.Int("max_call_duration").Default(3600).NonNegative(),
		field.Int("transfer_timeout_secs").Default(120).NonNegative(),
		field.String("hold_music_file").Default(""),
		field.String("ringback_file").Default(""),
		field.Bool("allow_open_registration").Default(false).
			Comment("lets anyone register into this organization without an invitation"),
		// contact_count is kept by database triggers in the transaction of
		// every contact insert or delete (database/counters.go): the
		// unfiltered contacts list's total without counting.
		field.Int("contact_count").Default(0).
			Annotations(entgql.Skip()),
	}
}

// Edges of the Organization.
func (Organization) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("members", OrganizationMember.Type).Annotations(entgql.RelayConnection()),
		edge.To("roles", Role.Type),
		edge.To("teams", Team.Type),
	}
}

// Annotations of the Organization.
func (Organization) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}

// Policy of the Organization: a super admin sees every organization, a
// system actor its own, anyone else the organizations they belong to.
// Only the viewer's current organization can be changed.
func (Organization) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{
			rule.DenyIfNoViewer(),
			privacy.FilterFunc(func(ctx context.Context, f privacy.Filter) error {
				v := viewer.FromContext(ctx)
				switch {
				case v.SuperAdmin:
					return privacy.Allow
				case v.System:
					f.Where(entql.FieldEQ("id", v.OrgID))
				default:
					f.Where(entql.HasEdgeWith("members", entql.FieldEQ("user_id", v.UserID)))
				}
				return privacy.Skip
			}),
		},
		Mutation: privacy.MutationPolicy{
			rule.DenyIfNoViewer(),
			privacy.OnMutationOperation(privacy.MutationRuleFunc(func(context.Context, ent.Mutation) error {
				return privacy.Allow
			}), ent.OpCreate),
			privacy.FilterFunc(func(ctx context.Context, f privacy.Filter) error {
				f.Where(entql.FieldEQ("id", viewer.FromContext(ctx).OrgID))
				return privacy.Skip
			}),
		},
	}
}
