package schema

import (
	"context"
	"fmt"
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"entgo.io/ent/schema/mixin"
	"github.com/google/uuid"

	"switchboard/ent/privacy"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
)

// TimeMixin adds created_at (immutable) and updated_at (touched on update).
type TimeMixin struct{ mixin.Schema }

// Fields of the TimeMixin.
func (TimeMixin) Fields() []ent.Field {
	return []ent.Field{
		field.Time("created_at").Default(timeNow).Immutable().
			Annotations(entgql.OrderField("CREATED_AT")),
		field.Time("updated_at").Default(timeNow).UpdateDefault(timeNow).
			Annotations(entgql.OrderField("UPDATED_AT")),
	}
}

func timeNow() time.Time { return time.Now().UTC() }

// NewID returns a new primary key: a UUIDv7, whose leading timestamp keeps
// the inserts of a table at the right edge of its primary key index (a
// random UUID dirties a random index page on every insert).
func NewID() uuid.UUID { return uuid.Must(uuid.NewV7()) }

// IDMixin gives an entity a UUIDv7 primary key.
type IDMixin struct{ mixin.Schema }

// Fields of the IDMixin.
func (IDMixin) Fields() []ent.Field {
	return []ent.Field{field.UUID("id", uuid.UUID{}).Default(NewID).Immutable()}
}

// TenantMixin makes an entity tenant-owned: an immutable organization_id,
// a privacy policy that filters every query and mutation by the viewer's
// organization, and a create hook that stamps that organization.
// BackRef, when set, names the Organization edge this entity is the inverse
// of; otherwise the edge to the organization has no back-reference.
type TenantMixin struct {
	mixin.Schema
	BackRef string
	// Covered tells that the entity has an index led by organization_id
	// already; the mixin then adds none of its own.
	Covered bool
	// Keyed tells that the entity is only ever read or written through a
	// more selective key (its id, its parent's id), the organization being
	// an extra filter; organizations are never deleted. An index on
	// organization_id would then serve no query and cost every write, and
	// while the statistics of a fast-growing table lag, the planner takes
	// it for selective and scans it whole beside the primary key. The
	// mixin then adds none.
	Keyed bool
}

// Fields of the TenantMixin.
func (TenantMixin) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("organization_id", uuid.UUID{}).Immutable().
			Annotations(entgql.Skip(entgql.SkipMutationCreateInput, entgql.SkipMutationUpdateInput)),
	}
}

// Edges of the TenantMixin.
func (m TenantMixin) Edges() []ent.Edge {
	if m.BackRef != "" {
		return []ent.Edge{
			edge.From("organization", Organization.Type).Ref(m.BackRef).
				Field("organization_id").Unique().Required().Immutable(),
		}
	}
	return []ent.Edge{
		edge.To("organization", Organization.Type).
			Field("organization_id").Unique().Required().Immutable(),
	}
}

// Indexes of the TenantMixin.
func (m TenantMixin) Indexes() []ent.Index {
	if m.Covered || m.Keyed {
		return nil
	}
	return []ent.Index{index.Fields("organization_id")}
}

// Policy of the TenantMixin: no viewer, no data; otherwise only the
// viewer's organization.
func (TenantMixin) Policy() ent.Policy {
	return privacy.Policy{
		Query:    privacy.QueryPolicy{rule.DenyIfNoViewer(), rule.FilterOrganization()},
		Mutation: privacy.MutationPolicy{rule.DenyIfNoViewer(), rule.FilterOrganization()},
	}
}

// Hooks of the TenantMixin.
func (TenantMixin) Hooks() []ent.Hook {
	return []ent.Hook{stampOrganization}
}

type orgMutation interface {
	OrganizationID() (uuid.UUID, bool)
	SetOrganizationID(uuid.UUID)
}

// stampOrganization sets organization_id on create from the viewer, and
// refuses a create aimed at another organization.
func stampOrganization(next ent.Mutator) ent.Mutator {
	return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
		if !m.Op().Is(ent.OpCreate) {
			return next.Mutate(ctx, m)
		}
		om, ok := m.(orgMutation)
		if !ok {
			return nil, fmt.Errorf("tenant mixin: unexpected mutation %T", m)
		}
		set, hasSet := om.OrganizationID()
		v := viewer.FromContext(ctx)
		switch {
		case v.HasOrg() && hasSet && set != v.OrgID:
			return nil, privacy.Denyf("create in another organization")
		case v.HasOrg():
			om.SetOrganizationID(v.OrgID)
		case !hasSet:
			return nil, fmt.Errorf("tenant mixin: %s created without organization", m.Type())
		}
		return next.Mutate(ctx, m)
	})
}
