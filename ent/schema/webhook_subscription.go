package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"

	gen "switchboard/ent"
	"switchboard/ent/rule"
)

// WebhookSubscription holds the schema definition for the
// WebhookSubscription entity: an outbound webhook that receives the
// organization's events it subscribes to, signed with its secret. Deleting
// a subscription deletes its deliveries.
type WebhookSubscription struct {
	ent.Schema
}

// Mixin of the WebhookSubscription.
func (WebhookSubscription) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the WebhookSubscription.
func (WebhookSubscription) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.String("name").NotEmpty().
			Annotations(entgql.OrderField("NAME")),
		field.String("url").NotEmpty(),
		field.Strings("events").Default([]string{}).
			Comment("Subscribed event names, e.g. message:incoming."),
		// map[string]string has no GraphQL mapping (Map is map[string]any);
		// the headers may also carry credentials of the receiver.
		field.JSON("headers", map[string]string{}).Default(emptyStringMap).
			Annotations(entgql.Skip()),
		field.Bool("is_active").Default(true),
		field.Bytes("secret_encrypted").Optional().Sensitive().
			Annotations(entgql.Skip()),
		field.UUID("created_by_id", uuid.UUID{}).Optional().Nillable(),
		field.String("disabled_reason").Default(""),
	}
}

// Edges of the WebhookSubscription.
func (WebhookSubscription) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("deliveries", WebhookDelivery.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the WebhookSubscription.
func (WebhookSubscription) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "is_active"),
	}
}

// Annotations of the WebhookSubscription.
func (WebhookSubscription) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}

// Interceptors of the WebhookSubscription: header values (credentials of
// the receiver) are write-only to members who cannot edit subscriptions
// (webhooks:update): they read the names with empty values. Deliveries
// run as the system actor and send them.
func (WebhookSubscription) Interceptors() []ent.Interceptor {
	return []ent.Interceptor{redactHeaders("webhooks:update", func(v ent.Value) {
		ws, _ := v.([]*gen.WebhookSubscription)
		for _, w := range ws {
			w.Headers = rule.RedactHeaders(w.Headers)
		}
	})}
}
