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
)

// WebhookDelivery holds the schema definition for the WebhookDelivery
// entity: one event to be posted to one subscription, retried until it
// succeeds or fails for good. payload is the exact body that is signed and
// sent.
type WebhookDelivery struct {
	ent.Schema
}

// Mixin of the WebhookDelivery.
func (WebhookDelivery) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{Keyed: true}, TimeMixin{}}
}

// Fields of the WebhookDelivery.
func (WebhookDelivery) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.UUID("subscription_id", uuid.UUID{}).Immutable(),
		field.UUID("event_id", uuid.UUID{}).Immutable().
			Comment("Identifier of the event; the same for every subscription it goes to."),
		field.String("event").NotEmpty().Immutable(),
		field.Bytes("payload").Immutable().
			Comment("Raw JSON body posted to the subscriber.").
			Annotations(entgql.Skip()),
		field.Enum("status").
			Values("pending", "succeeded", "failed", "retrying").
			Default("pending"),
		field.Int("attempts").Default(0).NonNegative(),
		field.Time("next_attempt_at").Optional().Nillable().
			Comment("When the next attempt is due; set while the delivery is waiting (pending or retrying)."),
		field.Time("leased_until").Optional().Nillable().
			Comment("While an attempt is in flight, when a drain may take the delivery again (its worker died). Not indexed, so that claiming a delivery can be a HOT update.").
			Annotations(entgql.Skip()),
		field.Int("last_status_code").Optional().Nillable(),
		field.String("last_error").Default(""),
		field.Time("completed_at").Optional().Nillable(),
	}
}

// Edges of the WebhookDelivery.
func (WebhookDelivery) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("subscription", WebhookSubscription.Type).
			Ref("deliveries").
			Field("subscription_id").
			Unique().
			Required().
			Immutable(),
		edge.To("delivery_attempts", WebhookDeliveryAttempt.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the WebhookDelivery.
func (WebhookDelivery) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("subscription_id", "created_at"),
		// A drain's claim (the due deliveries of one subscription) and the
		// recovery sweeps: only the waiting deliveries are in it.
		index.Fields("subscription_id", "next_attempt_at").
			StorageKey("webhookdelivery_waiting_subscription_due").
			Annotations(entsql.IndexWhere("(((status)::text = 'pending'::text) OR ((status)::text = 'retrying'::text))")),
	}
}

// Annotations of the WebhookDelivery.
func (WebhookDelivery) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.RelayConnection()}
}
