package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"github.com/google/uuid"
)

// AnalyticsDay is the rollup of one organization's closed UTC day for the
// analytics dashboard: the messages, contacts and chatbot sessions created
// that day. The row also says whether the day's rollups (this row and the
// day's AnalyticsAgentDay rows) are valid: every change to a past day's
// rows bumps version, and a build stores only if version has not moved
// since it started (built_version = version then).
type AnalyticsDay struct{ ent.Schema }

// Mixin of the AnalyticsDay.
func (AnalyticsDay) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{Covered: true}, TimeMixin{}}
}

// Fields of the AnalyticsDay.
func (AnalyticsDay) Fields() []ent.Field {
	return []ent.Field{
		// Midnight UTC starting the day.
		field.Time("day").Immutable(),
		field.Int64("version").Default(0),
		// The version the numbers were computed at; nil: never built.
		field.Int64("built_version").Optional().Nillable(),
		field.Time("built_at").Optional().Nillable(),
		field.Int64("messages").Default(0),
		field.Int64("contacts").Default(0),
		field.Int64("chatbot_sessions").Default(0),
	}
}

// Indexes of the AnalyticsDay.
func (AnalyticsDay) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "day").Unique()}
}

// Annotations of the AnalyticsDay.
func (AnalyticsDay) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// AnalyticsAgentDay is the rollup of one organization's closed UTC day for
// the agents' analytics, per agent and transfer source: the resumed
// transfers created that day (their count, the handled ones, and the sums
// and counts of their queue, first response and resolution times, in
// microseconds, so that means stay exact) and the messages the agent sent
// that day. Active transfers are never rolled up (they still change); the
// reports read them live. Valid only while its day's AnalyticsDay is.
type AnalyticsAgentDay struct{ ent.Schema }

// Mixin of the AnalyticsAgentDay.
func (AnalyticsAgentDay) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{Covered: true}, TimeMixin{}}
}

// Fields of the AnalyticsAgentDay.
func (AnalyticsAgentDay) Fields() []ent.Field {
	return []ent.Field{
		field.Time("day").Immutable(),
		// The nil UUID: transfers without an agent.
		field.UUID("agent_id", uuid.UUID{}).Immutable(),
		field.String("source").Default("").Immutable(),
		field.Int64("transfers").Default(0),
		field.Int64("handled").Default(0),
		field.Int64("queue_us").Default(0),
		field.Int64("queue_n").Default(0),
		field.Int64("first_response_us").Default(0),
		field.Int64("first_response_n").Default(0),
		field.Int64("resolution_us").Default(0),
		field.Int64("resolution_n").Default(0),
		field.Int64("messages_sent").Default(0),
	}
}

// Indexes of the AnalyticsAgentDay.
func (AnalyticsAgentDay) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "day", "agent_id", "source").Unique()}
}

// Annotations of the AnalyticsAgentDay.
func (AnalyticsAgentDay) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}
