package schema

import (
	"context"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"

	gen "switchboard/ent"
	"switchboard/ent/rule"
)

// CustomAction holds the schema definition for the CustomAction entity: a
// button shown next to a conversation that calls a webhook, opens a URL or
// runs JavaScript in the client. config depends on action_type.
type CustomAction struct {
	ent.Schema
}

// Mixin of the CustomAction.
func (CustomAction) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the CustomAction.
func (CustomAction) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.String("name").NotEmpty().
			Annotations(entgql.OrderField("NAME")),
		// Some icon names contain '-', which is not valid in a GraphQL enum
		// value: GraphQL exposes the icon as a String instead of an enum.
		field.Enum("icon").
			NamedValues(
				"Ticket", "ticket",
				"User", "user",
				"BarChart", "bar-chart",
				"Link", "link",
				"Phone", "phone",
				"Mail", "mail",
				"FileText", "file-text",
				"ExternalLink", "external-link",
				"Zap", "zap",
				"Globe", "globe",
				"Code", "code",
			).
			Default("zap").
			Annotations(
				entgql.Type("String"),
				entgql.Skip(entgql.SkipEnumField, entgql.SkipWhereInput),
			),
		field.Enum("action_type").Values("webhook", "url", "javascript"),
		field.JSON("config", map[string]any{}).Default(emptyJSONMap).
			Annotations(entgql.Type("Map")),
		field.Bool("is_active").Default(true),
		field.Int("display_order").Default(0).
			Annotations(entgql.OrderField("DISPLAY_ORDER")),
	}
}

// Indexes of the CustomAction.
func (CustomAction) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "display_order"),
	}
}

// Interceptors of the CustomAction: a webhook action's header values (a
// CRM's bearer token) are write-only to members who cannot define
// actions (settings:update): they read the header names with empty
// values, whatever reads the action (REST, GraphQL, node(id:)).
// Executing an action reads it with rule.RevealHeaders.
func (CustomAction) Interceptors() []ent.Interceptor {
	return []ent.Interceptor{redactHeaders("settings:update", func(v ent.Value) {
		as, _ := v.([]*gen.CustomAction)
		for _, a := range as {
			if h, ok := a.Config["headers"].(map[string]any); ok {
				out := make(map[string]any, len(h))
				for k := range h {
					out[k] = ""
				}
				a.Config["headers"] = out
			}
		}
	})}
}

// redactHeaders is an interceptor that passes the rows a query read to
// redact unless rule.HeaderValuesVisible for editPermission.
func redactHeaders(editPermission string, redact func(ent.Value)) ent.Interceptor {
	return ent.InterceptFunc(func(next ent.Querier) ent.Querier {
		return ent.QuerierFunc(func(ctx context.Context, q ent.Query) (ent.Value, error) {
			v, err := next.Query(ctx, q)
			if err == nil && !rule.HeaderValuesVisible(ctx, editPermission) {
				redact(v)
			}
			return v, err
		})
	})
}
