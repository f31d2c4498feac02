package chatbot

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/chatbotsession"
	"switchboard/ent/message"
	"switchboard/ent/organizationmember"
	"switchboard/ent/viewer"
	"switchboard/internal/valid"
)

// AI providers a settings row may name (Whatomate's values).
var AIProviders = []string{"openai", "anthropic", "google"}

// Bounds of the settings.
const (
	MaxMessageLength     = 4096
	MaxSystemPrompt      = 20000
	MaxModelLength       = 100
	MaxAIAPIKeyLength    = 512
	MaxAITokens          = 32000
	MaxMinutes           = 60 * 24 * 30 // 30 days
	MaxHours             = 24 * 30
	MaxEscalationNotify  = 50
	aiAPIKeyField        = "ai_api_key"
	botSourceAI          = message.BotSourceAi
	settingsWhat         = "chatbot settings"
	minimumSessionMinute = 1
)

// SettingsChanges are the settings a PUT changes: nil fields keep their
// value. AIAPIKey is write-only: a non-empty value replaces the stored key
// (encrypted), an empty string removes it.
type SettingsChanges struct {
	Enabled                      *bool
	BusinessHoursEnabled         *bool
	AllowAutomatedOutsideHours   *bool
	AllowAgentQueuePickup        *bool
	AssignToSameAgent            *bool
	AgentCurrentConversationOnly *bool
	AIEnabled                    *bool
	SLAEnabled                   *bool
	ClientReminderEnabled        *bool

	GreetingMessage        *string
	FallbackMessage        *string
	OutOfHoursMessage      *string
	AIProvider             *string
	AIModel                *string
	AISystemPrompt         *string
	AIAPIKey               *string
	SLAAutoCloseMessage    *string
	SLAWarningMessage      *string
	ClientReminderMessage  *string
	ClientAutoCloseMessage *string

	GreetingButtons        []Button
	FallbackButtons        []Button
	BusinessHours          []ScheduleDay
	SLAEscalationNotifyIDs []string

	SessionTimeoutMinutes  *int
	AIMaxTokens            *int
	SLAResponseMinutes     *int
	SLAResolutionMinutes   *int
	SLAEscalationMinutes   *int
	SLAAutoCloseHours      *int
	ClientReminderMinutes  *int
	ClientAutoCloseMinutes *int
}

// Stats are the settings page's figures, counted from the rows each
// time: sessions, active sessions, outgoing messages the bot sent
// (messages.bot_source set) and those of them the AI wrote, agent
// transfers, keyword rules, flows and AI contexts.
type Stats struct {
	TotalSessions   int `json:"total_sessions"`
	ActiveSessions  int `json:"active_sessions"`
	MessagesHandled int `json:"messages_handled"`
	AIResponses     int `json:"ai_responses"`
	AgentTransfers  int `json:"agent_transfers"`
	KeywordsCount   int `json:"keywords_count"`
	FlowsCount      int `json:"flows_count"`
	AIContextsCount int `json:"ai_contexts_count"`
}

// HasAIAPIKey tells whether an AI API key is stored (the key itself is
// never returned).
func HasAIAPIKey(s *ent.ChatbotSettings) bool { return len(s.AiAPIKeyEncrypted) > 0 }

// Buttons reads stored buttons ({id, title} objects).
func Buttons(stored []map[string]any) []Button {
	var out []Button
	b, _ := json.Marshal(stored)
	_ = json.Unmarshal(b, &out)
	return out
}

// Schedule reads a stored weekly schedule.
func Schedule(stored []map[string]any) []ScheduleDay {
	var out []ScheduleDay
	b, _ := json.Marshal(stored)
	_ = json.Unmarshal(b, &out)
	return out
}

func toMaps(v any) []map[string]any {
	out := []map[string]any{}
	b, _ := json.Marshal(v)
	_ = json.Unmarshal(b, &out)
	return out
}

// Settings returns the organization's chatbot settings, creating the
// default row when the organization has none yet. Errors: internal.
func (s *Service) Settings(ctx context.Context) (*ent.ChatbotSettings, error) {
	db := s.db(ctx)
	st, err := db.ChatbotSettings.Query().Only(ctx)
	if ent.IsNotFound(err) {
		if err := db.ChatbotSettings.Create().Exec(ctx); err != nil && !ent.IsConstraintError(err) {
			return nil, apperr.Wrap(err, settingsWhat)
		}
		st, err = db.ChatbotSettings.Query().Only(ctx)
	}
	return st, apperr.Wrap(err, settingsWhat)
}

// AIAPIKey returns the decrypted AI API key of the settings ("" when
// none). For the runtime's AI calls only; never shown.
func (s *Service) AIAPIKey(st *ent.ChatbotSettings) (string, error) {
	if !HasAIAPIKey(st) {
		return "", nil
	}
	if s.Secrets == nil {
		return "", apperr.New(apperr.Internal, "encryption is not configured")
	}
	b, err := s.Secrets.Open(st.AiAPIKeyEncrypted)
	if err != nil {
		return "", apperr.New(apperr.Internal, "the stored AI API key cannot be decrypted")
	}
	return string(b), nil
}

// Stats counts the organization's chatbot figures. Errors: internal.
func (s *Service) Stats(ctx context.Context) (*Stats, error) {
	db := s.db(ctx)
	var st Stats
	counts := []struct {
		dst *int
		f   func() (int, error)
	}{
		{&st.TotalSessions, func() (int, error) { return db.ChatbotSession.Query().Count(ctx) }},
		{&st.ActiveSessions, func() (int, error) {
			return db.ChatbotSession.Query().Where(chatbotsession.StatusEQ(chatbotsession.StatusActive)).Count(ctx)
		}},
		{&st.MessagesHandled, func() (int, error) { return db.Message.Query().Where(message.BotSourceNotNil()).Count(ctx) }},
		{&st.AIResponses, func() (int, error) { return db.Message.Query().Where(message.BotSourceEQ(botSourceAI)).Count(ctx) }},
		{&st.AgentTransfers, func() (int, error) { return db.AgentTransfer.Query().Count(ctx) }},
		{&st.KeywordsCount, func() (int, error) { return db.KeywordRule.Query().Count(ctx) }},
		{&st.FlowsCount, func() (int, error) { return db.ChatbotFlow.Query().Count(ctx) }},
		{&st.AIContextsCount, func() (int, error) { return db.AIContext.Query().Count(ctx) }},
	}
	for _, c := range counts {
		n, err := c.f()
		if err != nil {
			return nil, apperr.Wrap(err, settingsWhat)
		}
		*c.dst = n
	}
	return &st, nil
}

func minutes(name string, v *int, min, max int) error {
	if v != nil && (*v < min || *v > max) {
		return apperr.Invalidf("%s must be from %d to %d", name, min, max)
	}
	return nil
}

func optText(name string, v *string, max int) (*string, error) {
	if v == nil {
		return nil, nil
	}
	t, err := valid.Text(name, *v, max)
	return &t, err
}

// UpdateSettings changes the given settings. Errors: invalid (a text too
// long, buttons (at most 3, titles at most 20 characters, unique ids),
// business hours (days 0-6 once each, HH:MM, start before end; read in
// the organization's time zone), minutes and hours out of range,
// ai_provider not one of AIProviders, ai_max_tokens out of range,
// escalation ids that are not members of the organization).
func (s *Service) UpdateSettings(ctx context.Context, in SettingsChanges) (*ent.ChatbotSettings, error) {
	cur, err := s.Settings(ctx)
	if err != nil {
		return nil, err
	}
	u := s.db(ctx).ChatbotSettings.UpdateOne(cur).
		SetNillableEnabled(in.Enabled).
		SetNillableBusinessHoursEnabled(in.BusinessHoursEnabled).
		SetNillableAllowAutomatedOutsideHours(in.AllowAutomatedOutsideHours).
		SetNillableAllowAgentQueuePickup(in.AllowAgentQueuePickup).
		SetNillableAssignToSameAgent(in.AssignToSameAgent).
		SetNillableAgentCurrentConversationOnly(in.AgentCurrentConversationOnly).
		SetNillableAiEnabled(in.AIEnabled).
		SetNillableSLAEnabled(in.SLAEnabled).
		SetNillableClientReminderEnabled(in.ClientReminderEnabled)

	texts := []struct {
		name string
		v    *string
		max  int
		set  func(*string) *ent.ChatbotSettingsUpdateOne
	}{
		{"greeting_message", in.GreetingMessage, MaxMessageLength, u.SetNillableGreetingMessage},
		{"fallback_message", in.FallbackMessage, MaxMessageLength, u.SetNillableFallbackMessage},
		{"out_of_hours_message", in.OutOfHoursMessage, MaxMessageLength, u.SetNillableOutOfHoursMessage},
		{"ai_model", in.AIModel, MaxModelLength, u.SetNillableAiModel},
		{"ai_system_prompt", in.AISystemPrompt, MaxSystemPrompt, u.SetNillableAiSystemPrompt},
		{"sla_auto_close_message", in.SLAAutoCloseMessage, MaxMessageLength, u.SetNillableSLAAutoCloseMessage},
		{"sla_warning_message", in.SLAWarningMessage, MaxMessageLength, u.SetNillableSLAWarningMessage},
		{"client_reminder_message", in.ClientReminderMessage, MaxMessageLength, u.SetNillableClientReminderMessage},
		{"client_auto_close_message", in.ClientAutoCloseMessage, MaxMessageLength, u.SetNillableClientAutoCloseMessage},
	}
	for _, t := range texts {
		v, err := optText(t.name, t.v, t.max)
		if err != nil {
			return nil, err
		}
		t.set(v)
	}
	if in.AIProvider != nil {
		p := strings.ToLower(strings.TrimSpace(*in.AIProvider))
		if p != "" && !slices.Contains(AIProviders, p) {
			return nil, apperr.Invalidf("ai_provider must be one of %s", strings.Join(AIProviders, ", "))
		}
		u.SetAiProvider(p)
	}
	if in.AIAPIKey != nil {
		key := strings.TrimSpace(*in.AIAPIKey)
		if key == "" {
			u.ClearAiAPIKeyEncrypted()
		} else {
			sealed, err := s.Secrets.SealField(aiAPIKeyField, key, MaxAIAPIKeyLength)
			if err != nil {
				return nil, err
			}
			u.SetAiAPIKeyEncrypted(sealed)
		}
	}
	for name, bs := range map[string][]Button{"greeting_buttons": in.GreetingButtons, "fallback_buttons": in.FallbackButtons} {
		if bs == nil {
			continue
		}
		if err := CheckButtons(bs); err != nil {
			return nil, apperr.Invalidf("%s: %s", name, err.Error())
		}
	}
	if in.GreetingButtons != nil {
		u.SetGreetingButtons(toMaps(in.GreetingButtons))
	}
	if in.FallbackButtons != nil {
		u.SetFallbackButtons(toMaps(in.FallbackButtons))
	}
	if in.BusinessHours != nil {
		if err := CheckSchedule(in.BusinessHours); err != nil {
			return nil, apperr.Invalidf("business_hours: %s", err.Error())
		}
		u.SetBusinessHours(toMaps(in.BusinessHours))
	}
	if in.SLAEscalationNotifyIDs != nil {
		ids, err := s.members(ctx, in.SLAEscalationNotifyIDs)
		if err != nil {
			return nil, err
		}
		u.SetSLAEscalationNotifyIds(ids)
	}
	for _, m := range []struct {
		name     string
		v        *int
		min, max int
	}{
		{"session_timeout_minutes", in.SessionTimeoutMinutes, minimumSessionMinute, MaxMinutes},
		{"ai_max_tokens", in.AIMaxTokens, 1, MaxAITokens},
		{"sla_response_minutes", in.SLAResponseMinutes, 0, MaxMinutes},
		{"sla_resolution_minutes", in.SLAResolutionMinutes, 0, MaxMinutes},
		{"sla_escalation_minutes", in.SLAEscalationMinutes, 0, MaxMinutes},
		{"sla_auto_close_hours", in.SLAAutoCloseHours, 0, MaxHours},
		{"client_reminder_minutes", in.ClientReminderMinutes, 0, MaxMinutes},
		{"client_auto_close_minutes", in.ClientAutoCloseMinutes, 0, MaxMinutes},
	} {
		if err := minutes(m.name, m.v, m.min, m.max); err != nil {
			return nil, err
		}
	}
	u.SetNillableSessionTimeoutMinutes(in.SessionTimeoutMinutes).
		SetNillableAiMaxTokens(in.AIMaxTokens).
		SetNillableSLAResponseMinutes(in.SLAResponseMinutes).
		SetNillableSLAResolutionMinutes(in.SLAResolutionMinutes).
		SetNillableSLAEscalationMinutes(in.SLAEscalationMinutes).
		SetNillableSLAAutoCloseHours(in.SLAAutoCloseHours).
		SetNillableClientReminderMinutes(in.ClientReminderMinutes).
		SetNillableClientAutoCloseMinutes(in.ClientAutoCloseMinutes)
	out, err := u.Save(ctx)
	return out, apperr.Wrap(err, settingsWhat)
}

// members checks that every id is a user who is a member of the viewer's
// organization, and returns them deduplicated.
func (s *Service) members(ctx context.Context, raw []string) ([]string, error) {
	if len(raw) > MaxEscalationNotify {
		return nil, apperr.Invalidf("sla_escalation_notify_ids has at most %d entries", MaxEscalationNotify)
	}
	ids := make([]uuid.UUID, 0, len(raw))
	out := make([]string, 0, len(raw))
	seen := map[uuid.UUID]bool{}
	for _, r := range raw {
		id, err := uuid.Parse(strings.TrimSpace(r))
		if err != nil {
			return nil, apperr.Invalidf("sla_escalation_notify_ids: %q is not a user id", r)
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
			out = append(out, id.String())
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	n, err := s.db(ctx).OrganizationMember.Query().Where(organizationmember.UserIDIn(ids...)).Count(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, settingsWhat)
	}
	if n != len(ids) {
		return nil, apperr.Invalidf("sla_escalation_notify_ids: every id must be a member of the organization")
	}
	return out, nil
}

// OrganizationLocation returns the viewer's organization's time zone, in
// which business hours and timing nodes are read.
func (s *Service) OrganizationLocation(ctx context.Context) (*time.Location, error) {
	v := viewer.FromContext(ctx)
	if v == nil {
		return nil, apperr.New(apperr.Unauthenticated, "no organization")
	}
	o, err := s.db(ctx).Organization.Get(ctx, v.OrgID)
	if err != nil {
		return nil, apperr.Wrap(err, "organization")
	}
	return Location(o.Timezone), nil
}

// SettingsWithStats is the settings read: the row and its figures.
type SettingsWithStats struct {
	Settings *ent.ChatbotSettings
	Stats    *Stats
}

// SettingsAndStats returns the settings with their stats. Errors:
// internal.
func (s *Service) SettingsAndStats(ctx context.Context) (*SettingsWithStats, error) {
	st, err := s.Settings(ctx)
	if err != nil {
		return nil, err
	}
	stats, err := s.Stats(ctx)
	if err != nil {
		return nil, err
	}
	return &SettingsWithStats{Settings: st, Stats: stats}, nil
}
