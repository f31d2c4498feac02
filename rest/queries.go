package rest

import (
	"mime/multipart"

	"github.com/google/uuid"
)

// Query parameters and multipart bodies of the route table, for the
// OpenAPI document (Route.Query, Route.In).

type searchQuery struct {
	Search string `query:"search" maxLength:"200" description:"Text to look for."`
}

type contactsQuery struct {
	Search string `query:"search" maxLength:"200" description:"Text to look for in name and phone number."`
	Tags   string `query:"tags" description:"Comma-separated tag names, at most 50 once repeats are dropped; a contact carrying any of them matches." example:"vip,new"`
}

type accountQuery struct {
	Account string `query:"account" description:"Only this chat account (its name)."`
}

type chatAccountQuery struct {
	ChatAccount string `query:"chat_account" description:"The chat account (its name)."`
}

type statusQuery struct {
	Status string `query:"status" description:"Only items in this status."`
}

type callLogsQuery struct {
	Status    string     `query:"status"`
	Account   string     `query:"account"`
	Direction string     `query:"direction" enum:"incoming,outgoing"`
	Phone     string     `query:"phone"`
	StartDate string     `query:"start_date" example:"2026-01-01"`
	EndDate   string     `query:"end_date" example:"2026-01-31"`
	ContactID *uuid.UUID `query:"contact_id" format:"uuid"`
	IVRFlowID *uuid.UUID `query:"ivr_flow_id" format:"uuid"`
}

type campaignsQuery struct {
	Status      string `query:"status"`
	ChatAccount string `query:"chat_account"`
	Search      string `query:"search" maxLength:"200"`
	From        string `query:"from" example:"2026-11-01" description:"Only campaigns created at or after this ISO date (from its start) or date-time."`
	To          string `query:"to" example:"2026-11-30" description:"Only campaigns created at or before this ISO date (to its end) or date-time."`
}

type cannedQuery struct {
	Category   string `query:"category"`
	Search     string `query:"search" maxLength:"200"`
	ActiveOnly bool   `query:"active_only" description:"Only active responses."`
}

type flowsQuery struct {
	Account string `query:"account"`
	Status  string `query:"status"`
	Search  string `query:"search" maxLength:"200"`
}

type templatesQuery struct {
	Account  string `query:"account"`
	Status   string `query:"status"`
	Category string `query:"category"`
	Search   string `query:"search" maxLength:"200"`
}

type usersQuery struct {
	Search string     `query:"search" maxLength:"200"`
	RoleID *uuid.UUID `query:"role_id" format:"uuid"`
}

type messagesQuery struct {
	Limit    int        `query:"limit" minimum:"1" default:"50" description:"Messages to return."`
	BeforeID *uuid.UUID `query:"before_id" format:"uuid" description:"Read the messages before this one (the answer then has has_more, not total)."`
	Account  string     `query:"account"`
}

type notesQuery struct {
	Limit  int        `query:"limit" minimum:"1" default:"30"`
	Before *uuid.UUID `query:"before" format:"uuid" description:"Read the notes before this one."`
}

type transfersQuery struct {
	Status  string `query:"status"`
	TeamID  string `query:"team_id" description:"A team id, or \"general\" for the general queue."`
	Include string `query:"include"`
	Limit   int    `query:"limit" minimum:"1" default:"20"`
	Offset  int    `query:"offset" minimum:"0" maximum:"1000000" default:"0"`
}

type teamQueueQuery struct {
	TeamID string `query:"team_id" description:"A team id, or \"general\" for the general queue."`
}

type periodQuery struct {
	From string `query:"from" example:"2026-01-01" description:"Start of the period (date or RFC 3339 time)."`
	To   string `query:"to" example:"2026-01-31" description:"End of the period."`
}

type agentsQuery struct {
	From    string     `query:"from" example:"2026-01-01"`
	To      string     `query:"to" example:"2026-01-31"`
	GroupBy string     `query:"group_by" example:"day"`
	AgentID *uuid.UUID `query:"agent_id" format:"uuid"`
}

type agentDetailQuery struct {
	From    string `query:"from" example:"2026-01-01"`
	To      string `query:"to" example:"2026-01-31"`
	GroupBy string `query:"group_by" example:"day"`
}

type platformAnalyticsQuery struct {
	AnalyticsType string `query:"analytics_type"`
	Start         string `query:"start"`
	End           string `query:"end"`
	AccountID     string `query:"account_id"`
	Granularity   string `query:"granularity"`
	TemplateIDs   string `query:"template_ids" description:"Comma-separated template ids."`
}

type orgAudioQuery struct {
	Type string `query:"type" description:"What the audio is for (hold music or ringback)."`
}

type ssoQuery struct {
	OrganizationID *uuid.UUID `query:"organization_id" format:"uuid"`
}

type ssoCallbackQuery struct {
	State            string `query:"state"`
	Code             string `query:"code"`
	Error            string `query:"error"`
	ErrorDescription string `query:"error_description"`
}

type signedLinkQuery struct {
	Expires   string `query:"expires" required:"true" description:"Unix time the link expires."`
	Signature string `query:"signature" required:"true"`
}

type verifyWebhookQuery struct {
	Mode        string `query:"hub.mode" example:"subscribe"`
	VerifyToken string `query:"hub.verify_token"`
	Challenge   string `query:"hub.challenge"`
}

// fileForm is a multipart/form-data body with one file part.
type fileForm struct {
	File multipart.File `formData:"file" required:"true"`
}

type templateMediaForm struct {
	Account string         `formData:"account" description:"The chat account whose platform app keeps the media."`
	File    multipart.File `formData:"file" required:"true"`
}

type mediaMessageForm struct {
	ContactID   string         `formData:"contact_id" required:"true" format:"uuid"`
	Type        string         `formData:"type" enum:"image,video,audio,document"`
	Caption     string         `formData:"caption"`
	ChatAccount string         `formData:"chat_account"`
	File        multipart.File `formData:"file" required:"true"`
}

// templateMessageForm is the multipart form of a template message: the
// JSON body's fields as form values (parameter objects as JSON text)
// plus the header file.
type templateMessageForm struct {
	ContactID           string         `formData:"contact_id" format:"uuid"`
	PhoneNumber         string         `formData:"phone_number"`
	TemplateName        string         `formData:"template_name"`
	TemplateID          string         `formData:"template_id"`
	TemplateParams      string         `formData:"template_params" description:"A JSON object of strings."`
	HeaderParams        string         `formData:"header_params" description:"A JSON object of strings."`
	ButtonParams        string         `formData:"button_params" description:"A JSON object of strings."`
	AccountName         string         `formData:"account_name"`
	HeaderMediaID       string         `formData:"header_media_id"`
	HeaderMediaURL      string         `formData:"header_media_url"`
	HeaderMediaFilename string         `formData:"header_media_filename"`
	HeaderFile          multipart.File `formData:"header_file"`
}
