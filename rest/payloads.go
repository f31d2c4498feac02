package rest

import (
	"github.com/google/uuid"

	"switchboard/analytics"
	"switchboard/calling"
	"switchboard/chatbot"
	"switchboard/customactions"
	"switchboard/transfers"
)

// Typed payloads of answers that are not one presented entity. The route
// table names them (Out), so the OpenAPI document and the handler cannot
// disagree.

// messageData is an action's confirmation.
type messageData struct {
	Message string `json:"message" example:"Contact deleted"`
}

// statusData is an action's new state.
type statusData struct {
	Status string `json:"status" example:"ok"`
}

type accountsData struct {
	Accounts []accountJSON `json:"accounts"`
}

type subscribedData struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
}

type profilePhotoData struct {
	Message string `json:"message"`
	Handle  string `json:"handle"`
}

type agentComparisonData struct {
	Agents []*analytics.AgentStats `json:"agents"`
}

type platformAccountsData struct {
	Accounts []*analytics.AccountRef `json:"accounts"`
}

// audioData is a stored audio file.
type audioData struct {
	Filename string `json:"filename"`
	Type     string `json:"type,omitempty"`
	MimeType string `json:"mime_type" example:"audio/ogg"`
	Size     int64  `json:"size"`
}

type wsTokenData struct {
	Token string `json:"token"`
}

type callLogData struct {
	CallLog   calling.CallLogView        `json:"call_log"`
	Transfers []calling.CallTransferView `json:"transfers"`
}

type recordingData struct {
	URL      string `json:"url"`
	Duration int    `json:"duration"`
}

type iceServersData struct {
	ICEServers []calling.ICEServer `json:"ice_servers"`
}

type permissionRequestData struct {
	PermissionID uuid.UUID `json:"permission_id"`
}

type sdpAnswerData struct {
	SDPAnswer string `json:"sdp_answer"`
}

type outgoingCallData struct {
	CallLogID uuid.UUID `json:"call_log_id"`
	SDPAnswer string    `json:"sdp_answer"`
}

type retryData struct {
	Message    string `json:"message"`
	RetryCount int    `json:"retry_count"`
	Status     string `json:"status" example:"processing"`
}

type cannedUseData struct {
	Message string `json:"message"`
	Content string `json:"content"`
}

type catalogsData struct {
	Catalogs []catalogJSON `json:"catalogs"`
}

type catalogSyncData struct {
	Message string `json:"message"`
	Synced  int    `json:"synced"`
	Total   int    `json:"total"`
}

type productsData struct {
	Products []productJSON `json:"products"`
}

type assignedData struct {
	Message        string     `json:"message"`
	AssignedUserID *uuid.UUID `json:"assigned_user_id"`
}

type formFlowData struct {
	Flow formFlowJSON `json:"flow"`
}

type formFlowResultData struct {
	Flow    formFlowJSON `json:"flow"`
	Message string       `json:"message"`
}

type formFlowSyncData struct {
	Message string `json:"message"`
	Synced  int    `json:"synced"`
	Created int    `json:"created"`
	Updated int    `json:"updated"`
}

type invitationsData struct {
	Invitations []pendingInvitationJSON `json:"invitations"`
}

type joinedData struct {
	Message      string           `json:"message"`
	Organization organizationJSON `json:"organization"`
}

type myOrganizationsData struct {
	Organizations []myOrganizationJSON `json:"organizations"`
}

type organizationsData struct {
	Organizations []organizationJSON `json:"organizations"`
}

type permissionsData struct {
	Permissions []permissionJSON `json:"permissions"`
}

type ssoProviderData struct {
	Provider string `json:"provider" example:"google"`
	Name     string `json:"name" example:"Google"`
}

type teamData struct {
	Team teamJSON `json:"team"`
}

type teamMembersData struct {
	Members []teamMemberJSON `json:"members"`
}

type teamMemberData struct {
	Member teamMemberJSON `json:"member"`
}

type templatePublishData struct {
	Message            string       `json:"message"`
	ProviderTemplateID string       `json:"provider_template_id"`
	Status             string       `json:"status"`
	Template           templateJSON `json:"template"`
}

type templateSyncData struct {
	Message string `json:"message"`
	Count   int    `json:"count"`
}

type templateMediaData struct {
	Handle   string `json:"handle"`
	Filename string `json:"filename"`
	MimeType string `json:"mime_type"`
	Size     int    `json:"size"`
}

type transferPickData struct {
	Message  string          `json:"message"`
	Transfer *transfers.View `json:"transfer"`
}

type transferAssignData struct {
	Message string     `json:"message"`
	AgentID *uuid.UUID `json:"agent_id"`
}

type invitedUserData struct {
	Message    string         `json:"message"`
	Invitation invitationJSON `json:"invitation"`
}

type widgetsData struct {
	Widgets []widgetJSON `json:"widgets"`
}

type widgetsDataData struct {
	Data map[string]widgetDataJSON `json:"data"`
}

type layoutData struct {
	Message string `json:"message"`
	Updated int    `json:"updated"`
}

// sessionData is the spec's {expires_in, user}, plus the tokens for
// clients that use the Authorization header instead of cookies.
type sessionData struct {
	ExpiresIn    int      `json:"expires_in" example:"900"`
	User         userJSON `json:"user"`
	AccessToken  string   `json:"access_token"`
	RefreshToken string   `json:"refresh_token"`
	TokenType    string   `json:"token_type" example:"Bearer"`
}

type chatbotSettingsData struct {
	Settings chatbotSettingsJSON `json:"settings"`
	Stats    *chatbot.Stats      `json:"stats"`
}

// executeData is a custom action's result: redirect_url for a URL
// action, data and toast otherwise.
type executeData struct {
	Success     bool                 `json:"success"`
	Message     string               `json:"message"`
	RedirectURL string               `json:"redirect_url,omitempty"`
	Data        any                  `json:"data,omitempty"`
	Toast       *customactions.Toast `json:"toast,omitempty"`
}

type formFlowsData struct {
	Flows []formFlowJSON `json:"flows"`
	Total int            `json:"total"`
	Page  int            `json:"page"`
	Limit int            `json:"limit"`
}

// messagesData is a page of a conversation: has_more when reading before
// a message (before_id), total otherwise.
type messagesData struct {
	Messages []messageJSON `json:"messages"`
	HasMore  *bool         `json:"has_more,omitempty"`
	Total    *int          `json:"total,omitempty"`
}

type notesData struct {
	Notes   []noteJSON `json:"notes"`
	Total   int        `json:"total"`
	HasMore bool       `json:"has_more"`
}

type webhooksData struct {
	Webhooks        []webhookJSON      `json:"webhooks"`
	AvailableEvents []webhookEventJSON `json:"available_events"`
	Total           int                `json:"total"`
	Page            int                `json:"page"`
	Limit           int                `json:"limit"`
}

type deliveriesData struct {
	Deliveries []webhookDeliveryJSON `json:"deliveries"`
	Total      int                   `json:"total"`
	Page       int                   `json:"page"`
	Limit      int                   `json:"limit"`
}

type templatesData struct {
	Templates []templateJSON `json:"templates"`
	Total     int            `json:"total"`
	Page      int            `json:"page"`
	Limit     int            `json:"limit"`
}

type transfersData struct {
	Transfers         []*transfers.View `json:"transfers"`
	GeneralQueueCount int               `json:"general_queue_count"`
	// TeamQueueCounts maps a team id to its queue's length.
	TeamQueueCounts map[string]int `json:"team_queue_counts"`
	TotalCount      int            `json:"total_count"`
	Limit           int            `json:"limit"`
	Offset          int            `json:"offset"`
}

type widgetSourcesData struct {
	DataSources  []widgetSourceJSON   `json:"data_sources"`
	Metrics      []string             `json:"metrics"`
	DisplayTypes []string             `json:"display_types"`
	ChartTypes   []string             `json:"chart_types"`
	Operators    []widgetOperatorJSON `json:"operators"`
}

// createdUserData is the answer of POST /api/users: the new member, or
// the invitation sent when the person must accept first.
type createdUserData struct{}

// JSONSchemaOneOf implements jsonschema.OneOfExposer.
func (createdUserData) JSONSchemaOneOf() []any { return []any{userJSON{}, invitedUserData{}} }
