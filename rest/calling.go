package rest

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/calling"
	"switchboard/ent"
	"switchboard/graph"
)

// callingRoutes: voice calling's data (package calling). The permission
// of each operation, and why, is in access/operations.go. Live call
// control (hold, resume, transfers' initiate, connect and hangup,
// outgoing calls) has its own routes.
func (a *API) callingRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/ivr-flows", Op: "ivrFlows", Query: paged(calling.DefaultPageSize, accountQuery{}), Out: list("ivr_flows", ivrFlowJSON{}), Handle: a.listIVRFlows},
		{Method: get, Path: "/api/ivr-flows/:id", Op: "ivrFlow", Out: ivrFlowJSON{}, Handle: a.getIVRFlow},
		{Method: post, Path: "/api/ivr-flows", Op: "createIVRFlow", Status: http.StatusCreated, In: createIVRFlowBody{}, Out: ivrFlowJSON{}, Handle: a.createIVRFlow},
		{Method: put, Path: "/api/ivr-flows/:id", Op: "updateIVRFlow", In: updateIVRFlowBody{}, Out: ivrFlowJSON{}, Handle: a.updateIVRFlow},
		{Method: del, Path: "/api/ivr-flows/:id", Op: "deleteIVRFlow", Out: messageData{},
			Handle: idAction(a.deleteIVRFlow, messageData{Message: "IVR flow deleted"})},
		{Method: get, Path: "/api/call-logs", Op: "callLogs", Query: paged(calling.DefaultPageSize, callLogsQuery{}), Out: list("call_logs", calling.CallLogView{}), Handle: a.listCallLogs},
		{Method: get, Path: "/api/call-logs/:id", Op: "callLog", Out: callLogData{}, Handle: a.getCallLog},
		{Method: get, Path: "/api/call-logs/:id/recording", Op: "callLogRecording", Out: recordingData{}, Handle: a.getCallRecording},
		{Method: get, Path: "/api/call-transfers", Op: "callTransfers", Query: paged(calling.DefaultPageSize, statusQuery{}), Out: list("call_transfers", calling.CallTransferView{}), Handle: a.listCallTransfers},
		{Method: get, Path: "/api/call-transfers/:id", Op: "callTransfer", Out: calling.CallTransferView{}, Handle: a.getCallTransfer},
		{Method: get, Path: "/api/calls/ice-servers", Op: "iceServers", Out: iceServersData{}, Handle: a.getICEServers},
		{Method: post, Path: "/api/calls/permission-request", Op: "requestCallPermission", In: requestCallPermissionBody{}, Out: permissionRequestData{}, Handle: a.requestCallPermission},
		{Method: get, Path: "/api/calls/permission/:contactId", Op: "callPermission", Query: chatAccountQuery{}, Out: statusData{}, Handle: a.getCallPermission},
		{Method: get, Path: calling.RecordingPathPrefix + "*key", Op: "callRecordingFile", Errors: []int{http.StatusForbidden}, Query: signedLinkQuery{}, Out: rawBody{ContentType: "audio/ogg", Format: "binary", Description: "The recording."}, Handle: a.serveRecording},
	}
}

// ivrFlowJSON is the spec's IVR flow.
type ivrFlowJSON struct {
	ID              uuid.UUID      `json:"id"`
	OrganizationID  uuid.UUID      `json:"organization_id"`
	ChatAccount     string         `json:"chat_account"`
	Name            string         `json:"name"`
	Description     string         `json:"description"`
	IsActive        bool           `json:"is_active"`
	IsCallStart     bool           `json:"is_call_start"`
	IsOutgoingEnd   bool           `json:"is_outgoing_end"`
	Menu            map[string]any `json:"menu"`
	WelcomeAudioURL string         `json:"welcome_audio_url"`
	CreatedByID     *uuid.UUID     `json:"created_by_id"`
	UpdatedByID     *uuid.UUID     `json:"updated_by_id"`
	CreatedAt       time.Time      `json:"created_at"`
	UpdatedAt       time.Time      `json:"updated_at"`
}

func presentIVRFlow(f *ent.IVRFlow) ivrFlowJSON {
	menu := f.Menu
	if menu == nil {
		menu = map[string]any{}
	}
	return ivrFlowJSON{
		ID: f.ID, OrganizationID: f.OrganizationID, ChatAccount: f.ChatAccount, Name: f.Name,
		Description: f.Description, IsActive: f.IsActive, IsCallStart: f.IsCallStart, IsOutgoingEnd: f.IsOutgoingEnd,
		Menu: menu, WelcomeAudioURL: f.WelcomeAudioURL, CreatedByID: f.CreatedByID, UpdatedByID: f.UpdatedByID,
		CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt,
	}
}

// createIVRFlowBody is the JSON of createIVRFlow; the bounds are
// calling's (TestBodyTagsMatchTheDomain).
type createIVRFlowBody struct {
	ChatAccount     *string        `json:"chat_account" required:"true" nullable:"false" minLength:"1" maxLength:"100" example:"Main" description:"The name of an account of the organization."`
	Name            *string        `json:"name" required:"true" nullable:"false" minLength:"1" maxLength:"100" example:"Main menu"`
	Description     *string        `json:"description" maxLength:"1000"`
	IsActive        *bool          `json:"is_active" description:"Default true."`
	IsCallStart     *bool          `json:"is_call_start"`
	IsOutgoingEnd   *bool          `json:"is_outgoing_end"`
	Menu            map[string]any `json:"menu"`
	WelcomeAudioURL *string        `json:"welcome_audio_url" maxLength:"2000"`
}

func (b createIVRFlowBody) input() calling.IVRFlowInput { return updateIVRFlowBody(b).input() }

// updateIVRFlowBody is the JSON of updateIVRFlow: absent or null fields
// keep their value.
type updateIVRFlowBody struct {
	ChatAccount     *string        `json:"chat_account" minLength:"1" maxLength:"100" description:"The name of an account of the organization."`
	Name            *string        `json:"name" minLength:"1" maxLength:"100"`
	Description     *string        `json:"description" maxLength:"1000"`
	IsActive        *bool          `json:"is_active"`
	IsCallStart     *bool          `json:"is_call_start"`
	IsOutgoingEnd   *bool          `json:"is_outgoing_end"`
	Menu            map[string]any `json:"menu"`
	WelcomeAudioURL *string        `json:"welcome_audio_url" maxLength:"2000"`
}

func (b updateIVRFlowBody) input() calling.IVRFlowInput {
	return calling.IVRFlowInput{
		ChatAccount: b.ChatAccount, Name: b.Name, Description: b.Description, IsActive: b.IsActive,
		IsCallStart: b.IsCallStart, IsOutgoingEnd: b.IsOutgoingEnd, Menu: b.Menu, WelcomeAudioURL: b.WelcomeAudioURL,
	}
}

func (a *API) listIVRFlows(c *gin.Context) (int, any, error) {
	p := pageOf(c)
	pg, err := a.R.Calling.IVRFlows(ctx(c), queryOf[accountQuery](c).Account, p.Offset(), p.Limit)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, listPayload("ivr_flows", presentAll(pg.IVRFlows, presentIVRFlow), pg.Total, p), nil
}

func (a *API) getIVRFlow(c *gin.Context) (int, any, error) {
	return byID(c, a.R.Calling.IVRFlow, presentIVRFlow)
}

func (a *API) createIVRFlow(c *gin.Context) (int, any, error) {
	return created(c, a.R.Calling.CreateIVRFlow, createIVRFlowBody.input, presentIVRFlow)
}

func (a *API) updateIVRFlow(c *gin.Context) (int, any, error) {
	return updated(c, a.R.Calling.UpdateIVRFlow, updateIVRFlowBody.input, presentIVRFlow)
}

func (a *API) deleteIVRFlow(ctx context.Context, id uuid.UUID) error {
	return a.R.Calling.DeleteIVRFlow(ctx, id)
}

func (a *API) listCallLogs(c *gin.Context) (int, any, error) {
	p, q := pageOf(c), queryOf[callLogsQuery](c)
	f := calling.CallLogFilter{
		Status: q.Status, Account: q.Account, Direction: q.Direction,
		Phone: q.Phone, StartDate: q.StartDate, EndDate: q.EndDate,
		ContactID: q.ContactID, IVRFlowID: q.IVRFlowID,
	}
	pg, err := a.R.Calling.CallLogs(ctx(c), f, p.Offset(), p.Limit)
	if err != nil {
		return 0, nil, err
	}
	out := presentAll(pg.CallLogs, func(l *ent.CallLog) calling.CallLogView { return calling.ViewCallLog(l, pg.Names) })
	return http.StatusOK, listPayload("call_logs", out, pg.Total, p), nil
}

func (a *API) getCallLog(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	d, err := a.R.Calling.CallLog(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	ts := presentAll(d.Transfers, calling.ViewCallTransfer)
	return http.StatusOK, callLogData{CallLog: calling.ViewCallLog(d.CallLog, d.Names), Transfers: ts}, nil
}

func (a *API) getCallRecording(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	r, err := a.R.Calling.RecordingLink(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, recordingData{URL: r.URL, Duration: r.Duration}, nil
}

// serveRecording answers a signed recording link with the file, with
// Range requests; a bad signature is 403, an expired link too, an unknown
// recording 404.
func (a *API) serveRecording(c *gin.Context) (int, any, error) {
	q := queryOf[signedLinkQuery](c)
	f, err := a.R.Calling.OpenRecording(c.Request.URL.Path, q.Expires, q.Signature)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, nil, err
	}
	h := c.Writer.Header()
	h.Set("Content-Type", "audio/ogg")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Content-Disposition", "inline")
	h.Set("Cache-Control", "private, max-age=900")
	http.ServeContent(c.Writer, c.Request, "recording.ogg", info.ModTime(), f)
	c.Writer.WriteHeaderNow()
	return http.StatusOK, nil, nil
}

func (a *API) listCallTransfers(c *gin.Context) (int, any, error) {
	p := pageOf(c)
	pg, err := a.R.Calling.CallTransfers(ctx(c), queryOf[statusQuery](c).Status, p.Offset(), p.Limit)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, listPayload("call_transfers", presentAll(pg.CallTransfers, calling.ViewCallTransfer), pg.Total, p), nil
}

func (a *API) getCallTransfer(c *gin.Context) (int, any, error) {
	return byID(c, a.R.Calling.CallTransfer, calling.ViewCallTransfer)
}

func (a *API) getICEServers(c *gin.Context) (int, any, error) {
	servers, err := a.R.Calling.ICEServers(ctx(c))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, iceServersData{ICEServers: servers}, nil
}

// requestCallPermissionBody is the JSON body of requestCallPermission:
// the spec's contact_id and chat_account, and the template sent when the
// contact's 24-hour service window is closed (template_name or
// template_id, with template_params filling its body variables).
type requestCallPermissionBody struct {
	ContactID      string         `json:"contact_id" required:"true" format:"uuid"`
	ChatAccount    string         `json:"chat_account" required:"true" minLength:"1" maxLength:"100" example:"Main" description:"The name of an account of the organization."`
	TemplateName   string         `json:"template_name" description:"Outside the contact's 24-hour service window, template_name or template_id is required: an approved template of the account with a call permission request component."`
	TemplateID     string         `json:"template_id" format:"uuid"`
	TemplateParams map[string]any `json:"template_params" description:"The template's body variables; values are strings, numbers or booleans."`
}

// template is the body's template for a closed service window.
func (b requestCallPermissionBody) template() (calling.PermissionTemplate, error) {
	t := calling.PermissionTemplate{TemplateName: b.TemplateName}
	var err error
	if t.TemplateID, err = optionalUUID("template_id", strings.TrimSpace(b.TemplateID)); err != nil {
		return t, err
	}
	t.TemplateParams, err = graph.StringValues("template_params", b.TemplateParams)
	return t, err
}

func (a *API) requestCallPermission(c *gin.Context) (int, any, error) {
	var b requestCallPermissionBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	contactID, err := optionalUUID("contact_id", b.ContactID)
	if err != nil {
		return 0, nil, err
	}
	if contactID == nil {
		return 0, nil, apperr.Invalidf("contact_id is required")
	}
	tmpl, err := b.template()
	if err != nil {
		return 0, nil, err
	}
	p, err := a.R.Calling.RequestCallPermission(ctx(c), *contactID, b.ChatAccount, tmpl)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, permissionRequestData{PermissionID: p.ID}, nil
}

func (a *API) getCallPermission(c *gin.Context) (int, any, error) {
	contactID, err := pathUUID(c, "contactId")
	if err != nil {
		return 0, nil, err
	}
	status, err := a.R.Calling.CallPermissionStatus(ctx(c), contactID, queryOf[chatAccountQuery](c).ChatAccount)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, statusData{Status: status}, nil
}
