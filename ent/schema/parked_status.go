package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ParkedStatus is a platform status update that arrived before the message
// it is about (the platform may report "sent" before our send call has
// stored the message id). It is applied when the message appears; one
// whose message never appears (sent by another client of the same number)
// is deleted after ParkedRetention (messaging.PruneParked).
type ParkedStatus struct{ ent.Schema }

// Mixin of the ParkedStatus.
func (ParkedStatus) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}, TimeMixin{}}
}

// Fields of the ParkedStatus.
func (ParkedStatus) Fields() []ent.Field {
	return []ent.Field{
		field.String("chat_message_id").NotEmpty().Immutable(),
		field.Enum("status").Values("sent", "delivered", "read", "failed").Immutable(),
		field.String("error_message").Default("").Immutable(),
		field.Time("platform_timestamp").Optional().Nillable().Immutable(),
	}
}

// Indexes of the ParkedStatus.
func (ParkedStatus) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("chat_message_id", "status").Unique(),
		// The sweep deletes what waited too long (messaging.PruneParked).
		index.Fields("created_at"),
	}
}

// Annotations of the ParkedStatus.
func (ParkedStatus) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
