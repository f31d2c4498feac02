package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// CallPermission holds the schema definition for the CallPermission entity:
// a request asking a contact to allow outgoing calls from an account, which
// the platform requires before calling.
type CallPermission struct {
	ent.Schema
}

// Mixin of the CallPermission.
func (CallPermission) Mixin() []ent.Mixin {
	return []ent.Mixin{TenantMixin{}, TimeMixin{}}
}

// Fields of the CallPermission.
func (CallPermission) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID),
		field.UUID("contact_id", uuid.UUID{}).Immutable(),
		field.String("chat_account").NotEmpty(),
		field.Enum("status").
			Values("pending", "accepted", "declined", "expired").
			Default("pending"),
		field.Time("requested_at").Default(nowUTC).
			Annotations(entgql.OrderField("REQUESTED_AT")),
		field.Time("responded_at").Optional().Nillable(),
		field.Time("expires_at").Optional().Nillable(),
		field.UUID("message_id", uuid.UUID{}).Optional().Nillable().
			Comment("The permission request message sent to the contact."),
	}
}

// Edges of the CallPermission.
func (CallPermission) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("contact", Contact.Type).
			Ref("call_permissions").
			Field("contact_id").
			Unique().
			Required().
			Immutable(),
	}
}

// Indexes of the CallPermission.
func (CallPermission) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("contact_id", "chat_account"),
	}
}
