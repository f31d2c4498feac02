package rest

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/chatbot"
	"switchboard/ent"
)

// chatbotSettingsJSON is the spec's Chatbot settings; the AI API key is
// write-only (has_ai_api_key tells whether one is stored).
type chatbotSettingsJSON struct {
	ID                           uuid.UUID             `json:"id"`
	Enabled                      bool                  `json:"enabled"`
	BusinessHoursEnabled         bool                  `json:"business_hours_enabled"`
	AllowAutomatedOutsideHours   bool                  `json:"allow_automated_outside_hours"`
	AllowAgentQueuePickup        bool                  `json:"allow_agent_queue_pickup"`
	AssignToSameAgent            bool                  `json:"assign_to_same_agent"`
	AgentCurrentConversationOnly bool                  `json:"agent_current_conversation_only"`
	AIEnabled                    bool                  `json:"ai_enabled"`
	SLAEnabled                   bool                  `json:"sla_enabled"`
	ClientReminderEnabled        bool                  `json:"client_reminder_enabled"`
	GreetingMessage              string                `json:"greeting_message"`
	FallbackMessage              string                `json:"fallback_message"`
	OutOfHoursMessage            string                `json:"out_of_hours_message"`
	AIProvider                   string                `json:"ai_provider"`
	AIModel                      string                `json:"ai_model"`
	AISystemPrompt               string                `json:"ai_system_prompt"`
	HasAIAPIKey                  bool                  `json:"has_ai_api_key"`
	SLAAutoCloseMessage          string                `json:"sla_auto_close_message"`
	SLAWarningMessage            string                `json:"sla_warning_message"`
	ClientReminderMessage        string                `json:"client_reminder_message"`
	ClientAutoCloseMessage       string                `json:"client_auto_close_message"`
	GreetingButtons              []chatbot.Button      `json:"greeting_buttons"`
	FallbackButtons              []chatbot.Button      `json:"fallback_buttons"`
	BusinessHours                []chatbot.ScheduleDay `json:"business_hours"`
	SLAEscalationNotifyIDs       []string              `json:"sla_escalation_notify_ids"`
	SessionTimeoutMinutes        int                   `json:"session_timeout_minutes"`
	AIMaxTokens                  int                   `json:"ai_max_tokens"`
	SLAResponseMinutes           int                   `json:"sla_response_minutes"`
	SLAResolutionMinutes         int                   `json:"sla_resolution_minutes"`
	SLAEscalationMinutes         int                   `json:"sla_escalation_minutes"`
	SLAAutoCloseHours            int                   `json:"sla_auto_close_hours"`
	ClientReminderMinutes        int                   `json:"client_reminder_minutes"`
	ClientAutoCloseMinutes       int                   `json:"client_auto_close_minutes"`
	UpdatedAt                    time.Time             `json:"updated_at"`
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func presentChatbotSettings(s *ent.ChatbotSettings) chatbotSettingsJSON {
	return chatbotSettingsJSON{
		ID: s.ID, Enabled: s.Enabled, BusinessHoursEnabled: s.BusinessHoursEnabled,
		AllowAutomatedOutsideHours: s.AllowAutomatedOutsideHours, AllowAgentQueuePickup: s.AllowAgentQueuePickup,
		AssignToSameAgent: s.AssignToSameAgent, AgentCurrentConversationOnly: s.AgentCurrentConversationOnly,
		AIEnabled: s.AiEnabled, SLAEnabled: s.SLAEnabled, ClientReminderEnabled: s.ClientReminderEnabled,
		GreetingMessage: s.GreetingMessage, FallbackMessage: s.FallbackMessage, OutOfHoursMessage: s.OutOfHoursMessage,
		AIProvider: s.AiProvider, AIModel: s.AiModel, AISystemPrompt: s.AiSystemPrompt, HasAIAPIKey: chatbot.HasAIAPIKey(s),
		SLAAutoCloseMessage: s.SLAAutoCloseMessage, SLAWarningMessage: s.SLAWarningMessage,
		ClientReminderMessage: s.ClientReminderMessage, ClientAutoCloseMessage: s.ClientAutoCloseMessage,
		GreetingButtons: nonNil(chatbot.Buttons(s.GreetingButtons)), FallbackButtons: nonNil(chatbot.Buttons(s.FallbackButtons)),
		BusinessHours: nonNil(chatbot.Schedule(s.BusinessHours)), SLAEscalationNotifyIDs: nonNil(s.SLAEscalationNotifyIds),
		SessionTimeoutMinutes: s.SessionTimeoutMinutes, AIMaxTokens: s.AiMaxTokens,
		SLAResponseMinutes: s.SLAResponseMinutes, SLAResolutionMinutes: s.SLAResolutionMinutes,
		SLAEscalationMinutes: s.SLAEscalationMinutes, SLAAutoCloseHours: s.SLAAutoCloseHours,
		ClientReminderMinutes: s.ClientReminderMinutes, ClientAutoCloseMinutes: s.ClientAutoCloseMinutes,
		UpdatedAt: s.UpdatedAt,
	}
}

// chatbotSettingsBody is the JSON of the settings update: absent fields
// keep their value. The bounds are chatbot's (TestBodyTagsMatchTheDomain).
type chatbotSettingsBody struct {
	Enabled                      *bool                 `json:"enabled"`
	BusinessHoursEnabled         *bool                 `json:"business_hours_enabled"`
	AllowAutomatedOutsideHours   *bool                 `json:"allow_automated_outside_hours"`
	AllowAgentQueuePickup        *bool                 `json:"allow_agent_queue_pickup"`
	AssignToSameAgent            *bool                 `json:"assign_to_same_agent"`
	AgentCurrentConversationOnly *bool                 `json:"agent_current_conversation_only"`
	AIEnabled                    *bool                 `json:"ai_enabled"`
	SLAEnabled                   *bool                 `json:"sla_enabled"`
	ClientReminderEnabled        *bool                 `json:"client_reminder_enabled"`
	GreetingMessage              *string               `json:"greeting_message" maxLength:"4096"`
	FallbackMessage              *string               `json:"fallback_message" maxLength:"4096"`
	OutOfHoursMessage            *string               `json:"out_of_hours_message" maxLength:"4096"`
	AIProvider                   *string               `json:"ai_provider" enum:"[\"\",\"openai\",\"anthropic\",\"google\"]" description:"Empty: none."`
	AIModel                      *string               `json:"ai_model" maxLength:"100"`
	AISystemPrompt               *string               `json:"ai_system_prompt" maxLength:"20000"`
	AIAPIKey                     *string               `json:"ai_api_key" description:"At most 512 bytes; write-only. Empty: removed."`
	SLAAutoCloseMessage          *string               `json:"sla_auto_close_message" maxLength:"4096"`
	SLAWarningMessage            *string               `json:"sla_warning_message" maxLength:"4096"`
	ClientReminderMessage        *string               `json:"client_reminder_message" maxLength:"4096"`
	ClientAutoCloseMessage       *string               `json:"client_auto_close_message" maxLength:"4096"`
	GreetingButtons              []chatbot.Button      `json:"greeting_buttons" maxItems:"3" description:"Reply buttons: unique ids, titles of at most 20 characters."`
	FallbackButtons              []chatbot.Button      `json:"fallback_buttons" maxItems:"3" description:"Reply buttons: unique ids, titles of at most 20 characters."`
	BusinessHours                []chatbot.ScheduleDay `json:"business_hours" description:"Days 0 (Sunday) to 6, each once, with HH:MM times, start before end, in the organization's time zone."`
	SLAEscalationNotifyIDs       []string              `json:"sla_escalation_notify_ids" maxItems:"50" description:"Ids of users who are members of the organization."`
	SessionTimeoutMinutes        *int                  `json:"session_timeout_minutes" minimum:"1" maximum:"43200"`
	AIMaxTokens                  *int                  `json:"ai_max_tokens" minimum:"1" maximum:"32000"`
	SLAResponseMinutes           *int                  `json:"sla_response_minutes" minimum:"0" maximum:"43200"`
	SLAResolutionMinutes         *int                  `json:"sla_resolution_minutes" minimum:"0" maximum:"43200"`
	SLAEscalationMinutes         *int                  `json:"sla_escalation_minutes" minimum:"0" maximum:"43200"`
	SLAAutoCloseHours            *int                  `json:"sla_auto_close_hours" minimum:"0" maximum:"720"`
	ClientReminderMinutes        *int                  `json:"client_reminder_minutes" minimum:"0" maximum:"43200"`
	ClientAutoCloseMinutes       *int                  `json:"client_auto_close_minutes" minimum:"0" maximum:"43200"`
}

func (b chatbotSettingsBody) changes() chatbot.SettingsChanges {
	return chatbot.SettingsChanges(b)
}

func settingsPayload(v *chatbot.SettingsWithStats) chatbotSettingsData {
	return chatbotSettingsData{Settings: presentChatbotSettings(v.Settings), Stats: v.Stats}
}

func (a *API) getChatbotSettings(c *gin.Context) (int, any, error) {
	v, err := a.R.Chatbot.SettingsAndStats(ctx(c))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, settingsPayload(v), nil
}

func (a *API) updateChatbotSettings(c *gin.Context) (int, any, error) {
	var b chatbotSettingsBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	if _, err := a.R.Chatbot.UpdateSettings(ctx(c), b.changes()); err != nil {
		return 0, nil, err
	}
	v, err := a.R.Chatbot.SettingsAndStats(ctx(c))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, settingsPayload(v), nil
}

// keywordRuleJSON is the spec's Keyword rule.
type keywordRuleJSON struct {
	ID              uuid.UUID      `json:"id"`
	Name            string         `json:"name"`
	Keywords        []string       `json:"keywords"`
	MatchType       string         `json:"match_type"`
	ResponseType    string         `json:"response_type"`
	ResponseContent map[string]any `json:"response_content"`
	Priority        int            `json:"priority"`
	Enabled         bool           `json:"enabled"`
	CreatedAt       time.Time      `json:"created_at"`
	UpdatedAt       time.Time      `json:"updated_at"`
}

func presentKeywordRule(r *ent.KeywordRule) keywordRuleJSON {
	rc := r.ResponseContent
	if rc == nil {
		rc = map[string]any{}
	}
	return keywordRuleJSON{
		ID: r.ID, Name: r.Name, Keywords: nonNil(r.Keywords), MatchType: string(r.MatchType),
		ResponseType: r.ResponseType, ResponseContent: rc, Priority: r.Priority, Enabled: r.Enabled,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
}

// createKeywordRuleBody is the JSON of createKeywordRule; the bounds are
// chatbot's (TestBodyTagsMatchTheDomain).
type createKeywordRuleBody struct {
	Name            *string        `json:"name" maxLength:"255" description:"Empty or absent: the keywords joined."`
	Keywords        []string       `json:"keywords" required:"true" nullable:"false" minItems:"1" maxItems:"50" example:"[\"price\",\"cost\"]" description:"Keywords of at most 200 characters; blank ones and repeats are dropped, and one must remain. With match_type regex, RE2 patterns."`
	MatchType       *string        `json:"match_type" enum:"exact,contains,starts_with,regex" description:"Default contains."`
	ResponseType    *string        `json:"response_type" enum:"text,transfer" description:"Default text."`
	ResponseContent map[string]any `json:"response_content" description:"{body, buttons[{id, title}]}: body (at most 4096 characters) is required for response_type text; buttons only belong to text responses."`
	Priority        *int           `json:"priority" minimum:"-1000000" maximum:"1000000"`
	Enabled         *bool          `json:"enabled" description:"Default true."`
}

func (b createKeywordRuleBody) input() chatbot.KeywordInput { return chatbot.KeywordInput(b) }

// updateKeywordRuleBody is the JSON of updateKeywordRule: absent or null
// fields keep their value.
type updateKeywordRuleBody struct {
	Name            *string        `json:"name" maxLength:"255" description:"Empty: the keywords joined."`
	Keywords        []string       `json:"keywords" minItems:"1" maxItems:"50" description:"Keywords of at most 200 characters; blank ones and repeats are dropped, and one must remain."`
	MatchType       *string        `json:"match_type" enum:"exact,contains,starts_with,regex"`
	ResponseType    *string        `json:"response_type" enum:"text,transfer"`
	ResponseContent map[string]any `json:"response_content" description:"{body, buttons[{id, title}]}: body (at most 4096 characters) is required for response_type text; buttons only belong to text responses."`
	Priority        *int           `json:"priority" minimum:"-1000000" maximum:"1000000"`
	Enabled         *bool          `json:"enabled"`
}

func (b updateKeywordRuleBody) input() chatbot.KeywordInput { return chatbot.KeywordInput(b) }

func chatbotPage(p page) chatbot.Page { return chatbot.Page{Offset: p.Offset(), Limit: p.Limit} }

func (a *API) listKeywordRules(c *gin.Context) (int, any, error) {
	p := pageOf(c)
	pg, err := a.R.Chatbot.ListKeywords(ctx(c), queryOf[searchQuery](c).Search, chatbotPage(p))
	if err != nil {
		return 0, nil, err
	}
	out := make([]keywordRuleJSON, len(pg.Rules))
	for i, r := range pg.Rules {
		out[i] = presentKeywordRule(r)
	}
	return http.StatusOK, listPayload("rules", out, pg.Total, p), nil
}

func (a *API) createKeywordRule(c *gin.Context) (int, any, error) {
	var b createKeywordRuleBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	r, err := a.R.Chatbot.CreateKeyword(ctx(c), b.input())
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, presentKeywordRule(r), nil
}

func (a *API) updateKeywordRule(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b updateKeywordRuleBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	r, err := a.R.Chatbot.UpdateKeyword(ctx(c), id, b.input())
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentKeywordRule(r), nil
}

// aiContextJSON is the spec's AI context, with api_config for api
// contexts (as Whatomate's client reads it).
type aiContextJSON struct {
	ID              uuid.UUID      `json:"id"`
	Name            string         `json:"name"`
	ContextType     string         `json:"context_type"`
	TriggerKeywords []string       `json:"trigger_keywords"`
	StaticContent   string         `json:"static_content"`
	APIConfig       map[string]any `json:"api_config"`
	Enabled         bool           `json:"enabled"`
	Priority        int            `json:"priority"`
	CreatedAt       time.Time      `json:"created_at"`
	UpdatedAt       time.Time      `json:"updated_at"`
}

func presentAIContext(x *ent.AIContext) aiContextJSON {
	api := x.APIConfig
	if api == nil {
		api = map[string]any{}
	}
	return aiContextJSON{
		ID: x.ID, Name: x.Name, ContextType: string(x.ContextType), TriggerKeywords: nonNil(x.TriggerKeywords),
		StaticContent: x.StaticContent, APIConfig: api, Enabled: x.Enabled, Priority: x.Priority,
		CreatedAt: x.CreatedAt, UpdatedAt: x.UpdatedAt,
	}
}

// createAIContextBody is the JSON of createAIContext; the bounds are
// chatbot's (TestBodyTagsMatchTheDomain).
type createAIContextBody struct {
	Name            *string        `json:"name" required:"true" nullable:"false" minLength:"1" maxLength:"255" example:"Opening hours"`
	ContextType     *string        `json:"context_type" enum:"static,api" description:"Default static."`
	TriggerKeywords []string       `json:"trigger_keywords" maxItems:"50" description:"Keywords of at most 200 characters; blank ones and repeats are dropped."`
	StaticContent   *string        `json:"static_content" maxLength:"50000" description:"Required (not blank) for a static context."`
	APIConfig       map[string]any `json:"api_config" description:"Required for an api context: {url, method (GET or POST), headers{name: value}, body, response_path}."`
	Priority        *int           `json:"priority" minimum:"-1000000" maximum:"1000000"`
	Enabled         *bool          `json:"enabled" description:"Default true."`
}

func (b createAIContextBody) input() chatbot.ContextInput { return chatbot.ContextInput(b) }

// updateAIContextBody is the JSON of updateAIContext: absent or null
// fields keep their value.
type updateAIContextBody struct {
	Name            *string        `json:"name" minLength:"1" maxLength:"255"`
	ContextType     *string        `json:"context_type" enum:"static,api"`
	TriggerKeywords []string       `json:"trigger_keywords" maxItems:"50" description:"Keywords of at most 200 characters; blank ones and repeats are dropped."`
	StaticContent   *string        `json:"static_content" maxLength:"50000" description:"A static context's content must not be blank (it is required for a static context)."`
	APIConfig       map[string]any `json:"api_config" description:"Required for an api context: {url, method (GET or POST), headers{name: value}, body, response_path}."`
	Priority        *int           `json:"priority" minimum:"-1000000" maximum:"1000000"`
	Enabled         *bool          `json:"enabled"`
}

func (b updateAIContextBody) input() chatbot.ContextInput { return chatbot.ContextInput(b) }

func (a *API) listAIContexts(c *gin.Context) (int, any, error) {
	p := pageOf(c)
	pg, err := a.R.Chatbot.ListContexts(ctx(c), queryOf[searchQuery](c).Search, chatbotPage(p))
	if err != nil {
		return 0, nil, err
	}
	out := make([]aiContextJSON, len(pg.Contexts))
	for i, x := range pg.Contexts {
		out[i] = presentAIContext(x)
	}
	return http.StatusOK, listPayload("contexts", out, pg.Total, p), nil
}

func (a *API) createAIContext(c *gin.Context) (int, any, error) {
	var b createAIContextBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	x, err := a.R.Chatbot.CreateContext(ctx(c), b.input())
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, presentAIContext(x), nil
}

func (a *API) updateAIContext(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b updateAIContextBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	x, err := a.R.Chatbot.UpdateContext(ctx(c), id, b.input())
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentAIContext(x), nil
}

// chatbotFlowJSON is the spec's Chatbot flow.
type chatbotFlowJSON struct {
	ID              uuid.UUID      `json:"id"`
	Name            string         `json:"name"`
	Description     string         `json:"description"`
	TriggerKeywords []string       `json:"trigger_keywords"`
	Enabled         bool           `json:"enabled"`
	Graph           map[string]any `json:"graph"`
	ChatAccount     string         `json:"chat_account"`
	CreatedAt       time.Time      `json:"created_at"`
	UpdatedAt       time.Time      `json:"updated_at"`
}

func presentChatbotFlow(f *ent.ChatbotFlow) chatbotFlowJSON {
	g := f.Graph
	if g == nil {
		g = map[string]any{}
	}
	return chatbotFlowJSON{
		ID: f.ID, Name: f.Name, Description: f.Description, TriggerKeywords: nonNil(f.TriggerKeywords),
		Enabled: f.Enabled, Graph: g, ChatAccount: f.ChatAccount, CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt,
	}
}

// createChatbotFlowBody is the JSON of createChatbotFlow; the bounds are
// chatbot's (TestBodyTagsMatchTheDomain).
type createChatbotFlowBody struct {
	Name            *string        `json:"name" required:"true" nullable:"false" minLength:"1" maxLength:"255" example:"Order status"`
	Description     *string        `json:"description" maxLength:"2000"`
	TriggerKeywords []string       `json:"trigger_keywords" maxItems:"50" description:"Keywords of at most 200 characters; blank ones and repeats are dropped. An enabled flow's keywords are its own in the organization."`
	Enabled         *bool          `json:"enabled" description:"Default true."`
	Graph           map[string]any `json:"graph" description:"The flow's nodes and edges; {} while nothing is drawn."`
	ChatAccount     *string        `json:"chat_account" maxLength:"255" description:"The name of an account of the organization, or empty: any account."`
}

func (b createChatbotFlowBody) input() chatbot.FlowInput { return chatbot.FlowInput(b) }

// updateChatbotFlowBody is the JSON of updateChatbotFlow: absent or null
// fields keep their value.
type updateChatbotFlowBody struct {
	Name            *string        `json:"name" minLength:"1" maxLength:"255"`
	Description     *string        `json:"description" maxLength:"2000"`
	TriggerKeywords []string       `json:"trigger_keywords" maxItems:"50" description:"Keywords of at most 200 characters; blank ones and repeats are dropped. An enabled flow's keywords are its own in the organization."`
	Enabled         *bool          `json:"enabled"`
	Graph           map[string]any `json:"graph" description:"The flow's nodes and edges; {} while nothing is drawn."`
	ChatAccount     *string        `json:"chat_account" maxLength:"255" description:"The name of an account of the organization, or empty: any account."`
}

func (b updateChatbotFlowBody) input() chatbot.FlowInput { return chatbot.FlowInput(b) }

func (a *API) listChatbotFlows(c *gin.Context) (int, any, error) {
	p := pageOf(c)
	pg, err := a.R.Chatbot.ListFlows(ctx(c), queryOf[searchQuery](c).Search, chatbotPage(p))
	if err != nil {
		return 0, nil, err
	}
	out := make([]chatbotFlowJSON, len(pg.Flows))
	for i, f := range pg.Flows {
		out[i] = presentChatbotFlow(f)
	}
	return http.StatusOK, listPayload("flows", out, pg.Total, p), nil
}

func (a *API) getChatbotFlow(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	f, err := a.R.Chatbot.GetFlow(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentChatbotFlow(f), nil
}

func (a *API) createChatbotFlow(c *gin.Context) (int, any, error) {
	var b createChatbotFlowBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	f, err := a.R.Chatbot.CreateFlow(ctx(c), b.input())
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, presentChatbotFlow(f), nil
}

func (a *API) updateChatbotFlow(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b updateChatbotFlowBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	f, err := a.R.Chatbot.UpdateFlow(ctx(c), id, b.input())
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentChatbotFlow(f), nil
}

// chatbotSessionJSON is the spec's Chatbot session, with its status.
type chatbotSessionJSON struct {
	ID            uuid.UUID      `json:"id"`
	ContactID     uuid.UUID      `json:"contact_id"`
	ChatAccount   string         `json:"chat_account"`
	Status        string         `json:"status"`
	CurrentFlowID *uuid.UUID     `json:"current_flow_id"`
	CurrentStep   string         `json:"current_step"`
	Variables     map[string]any `json:"variables"`
	StartedAt     time.Time      `json:"started_at"`
	LastActivity  time.Time      `json:"last_activity"`
	CompletedAt   *time.Time     `json:"completed_at"`
}

func presentChatbotSession(s *ent.ChatbotSession) chatbotSessionJSON {
	v := s.Variables
	if v == nil {
		v = map[string]any{}
	}
	return chatbotSessionJSON{
		ID: s.ID, ContactID: s.ContactID, ChatAccount: s.ChatAccount, Status: string(s.Status),
		CurrentFlowID: s.CurrentFlowID, CurrentStep: s.CurrentStep, Variables: v,
		StartedAt: s.StartedAt, LastActivity: s.LastActivity, CompletedAt: s.CompletedAt,
	}
}

func (a *API) listChatbotSessions(c *gin.Context) (int, any, error) {
	p := pageOf(c)
	pg, err := a.R.Chatbot.ListSessions(ctx(c), queryOf[statusQuery](c).Status, chatbotPage(p))
	if err != nil {
		return 0, nil, err
	}
	out := make([]chatbotSessionJSON, len(pg.Sessions))
	for i, s := range pg.Sessions {
		out[i] = presentChatbotSession(s)
	}
	return http.StatusOK, listPayload("sessions", out, pg.Total, p), nil
}

func (a *API) getChatbotSession(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	s, err := a.R.Chatbot.GetSession(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentChatbotSession(s), nil
}

func (a *API) deleteKeywordRule(c *gin.Context) (int, any, error) {
	return idAction(a.R.Chatbot.DeleteKeyword, messageData{Message: "Keyword rule deleted"})(c)
}

func (a *API) deleteAIContext(c *gin.Context) (int, any, error) {
	return idAction(a.R.Chatbot.DeleteContext, messageData{Message: "AI context deleted"})(c)
}

func (a *API) deleteChatbotFlow(c *gin.Context) (int, any, error) {
	return idAction(a.R.Chatbot.DeleteFlow, messageData{Message: "Flow deleted"})(c)
}

// chatbotRoutes: members holding chatbot:read (Agents included) see the
// configuration; chatbot:update changes it.
func (a *API) chatbotRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/chatbot/settings", Op: "chatbotSettings", Out: chatbotSettingsData{}, Handle: a.getChatbotSettings},
		{Method: put, Path: "/api/chatbot/settings", Op: "updateChatbotSettings", In: chatbotSettingsBody{}, Out: chatbotSettingsData{}, Handle: a.updateChatbotSettings},
		{Method: get, Path: "/api/chatbot/keywords", Op: "keywordRules", Query: paged(20, searchQuery{}), Out: list("rules", keywordRuleJSON{}), Handle: a.listKeywordRules},
		{Method: post, Path: "/api/chatbot/keywords", Op: "createKeywordRule", Status: http.StatusCreated, In: createKeywordRuleBody{}, Out: keywordRuleJSON{}, Handle: a.createKeywordRule},
		{Method: put, Path: "/api/chatbot/keywords/:id", Op: "updateKeywordRule", In: updateKeywordRuleBody{}, Out: keywordRuleJSON{}, Handle: a.updateKeywordRule},
		{Method: del, Path: "/api/chatbot/keywords/:id", Op: "deleteKeywordRule", Out: messageData{}, Handle: a.deleteKeywordRule},
		{Method: get, Path: "/api/chatbot/ai-contexts", Op: "aiContexts", Query: paged(20, searchQuery{}), Out: list("contexts", aiContextJSON{}), Handle: a.listAIContexts},
		{Method: post, Path: "/api/chatbot/ai-contexts", Op: "createAIContext", Status: http.StatusCreated, In: createAIContextBody{}, Out: aiContextJSON{}, Handle: a.createAIContext},
		{Method: put, Path: "/api/chatbot/ai-contexts/:id", Op: "updateAIContext", In: updateAIContextBody{}, Out: aiContextJSON{}, Handle: a.updateAIContext},
		{Method: del, Path: "/api/chatbot/ai-contexts/:id", Op: "deleteAIContext", Out: messageData{}, Handle: a.deleteAIContext},
		{Method: get, Path: "/api/chatbot/flows", Op: "chatbotFlows", Query: paged(20, searchQuery{}), Out: list("flows", chatbotFlowJSON{}), Handle: a.listChatbotFlows},
		{Method: post, Path: "/api/chatbot/flows", Op: "createChatbotFlow", Status: http.StatusCreated, In: createChatbotFlowBody{}, Out: chatbotFlowJSON{}, Handle: a.createChatbotFlow},
		{Method: get, Path: "/api/chatbot/flows/:id", Op: "chatbotFlow", Out: chatbotFlowJSON{}, Handle: a.getChatbotFlow},
		{Method: put, Path: "/api/chatbot/flows/:id", Op: "updateChatbotFlow", In: updateChatbotFlowBody{}, Out: chatbotFlowJSON{}, Handle: a.updateChatbotFlow},
		{Method: del, Path: "/api/chatbot/flows/:id", Op: "deleteChatbotFlow", Out: messageData{}, Handle: a.deleteChatbotFlow},
		{Method: get, Path: "/api/chatbot/sessions", Op: "chatbotSessions", Query: paged(20, statusQuery{}), Out: list("sessions", chatbotSessionJSON{}), Handle: a.listChatbotSessions},
		{Method: get, Path: "/api/chatbot/sessions/:id", Op: "chatbotSession", Out: chatbotSessionJSON{}, Handle: a.getChatbotSession},
	}
}
