package schema

import (
	"context"

	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"

	gen "switchboard/ent"
	"switchboard/ent/intercept"
	"switchboard/ent/webhookdeliveryattempt"
)

// WebhookDeliveryAttempt holds the schema definition for the
// WebhookDeliveryAttempt entity: the outcome of one HTTP attempt of a
// webhook delivery. Rows are written once and never updated.
type WebhookDeliveryAttempt struct {
	ent.Schema
}

// Mixin of the WebhookDeliveryAttempt.
func (WebhookDeliveryAttempt) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{Keyed: true}, TimeMixin{}}
}

// Fields of the WebhookDeliveryAttempt.
func (WebhookDeliveryAttempt) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.UUID("delivery_id", uuid.UUID{}).Immutable(),
		field.Int("attempt").Positive().Immutable().
			Comment("1-based attempt number."),
		field.Int("status_code").Default(0).Immutable().
			Comment("HTTP status of the response; 0 when no response was received."),
		field.Int("duration_ms").Default(0).NonNegative().Immutable(),
		field.String("error").Default("").Immutable(),
	}
}

// Edges of the WebhookDeliveryAttempt.
func (WebhookDeliveryAttempt) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("delivery", WebhookDelivery.Type).
			Ref("delivery_attempts").
			Field("delivery_id").
			Unique().
			Required().
			Immutable(),
	}
}

// Indexes of the WebhookDeliveryAttempt: a delivery's attempts, in order.
func (WebhookDeliveryAttempt) Indexes() []ent.Index {
	return []ent.Index{index.Fields("delivery_id", "attempt")}
}

// Interceptors of the WebhookDeliveryAttempt: attempts are read in
// attempt order however they are loaded (as the edge of a delivery
// included, which GraphQL collects without an order).
func (WebhookDeliveryAttempt) Interceptors() []ent.Interceptor {
	return []ent.Interceptor{
		intercept.TraverseWebhookDeliveryAttempt(func(_ context.Context, q *gen.WebhookDeliveryAttemptQuery) error {
			q.Order(webhookdeliveryattempt.ByAttempt())
			return nil
		}),
	}
}
