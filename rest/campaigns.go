package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/campaigns"
	"switchboard/ent"
)

// campaignJSON is the spec's Campaign with its live counters.
type campaignJSON struct {
	ID              uuid.UUID  `json:"id"`
	Name            string     `json:"name"`
	ChatAccount     string     `json:"chat_account"`
	TemplateID      *uuid.UUID `json:"template_id"`
	TemplateName    string     `json:"template_name"`
	Status          string     `json:"status"`
	TotalRecipients int        `json:"total_recipients"`
	SentCount       int        `json:"sent_count"`
	DeliveredCount  int        `json:"delivered_count"`
	ReadCount       int        `json:"read_count"`
	FailedCount     int        `json:"failed_count"`
	HeaderMediaID   string     `json:"header_media_id"`
	ErrorMessage    string     `json:"error_message"`
	ScheduledAt     *time.Time `json:"scheduled_at"`
	StartedAt       *time.Time `json:"started_at"`
	CompletedAt     *time.Time `json:"completed_at"`
	CreatedAt       time.Time  `json:"created_at"`
	UpdatedAt       time.Time  `json:"updated_at"`
}

func presentCampaign(c *ent.Campaign) campaignJSON {
	return campaignJSON{
		ID: c.ID, Name: c.Name, ChatAccount: c.ChatAccount, TemplateID: c.TemplateID, TemplateName: campaigns.TemplateName(c),
		Status: string(c.Status), TotalRecipients: c.TotalRecipients, SentCount: c.SentCount,
		DeliveredCount: c.DeliveredCount, ReadCount: c.ReadCount, FailedCount: c.FailedCount,
		HeaderMediaID: c.HeaderMediaID, ErrorMessage: c.ErrorMessage, ScheduledAt: c.ScheduledAt,
		StartedAt: c.StartedAt, CompletedAt: c.CompletedAt, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
	}
}

// recipientJSON is the spec's Campaign recipient, with its parameters,
// platform id and failure reason.
type recipientJSON struct {
	ID             uuid.UUID      `json:"id"`
	PhoneNumber    string         `json:"phone_number"`
	RecipientName  string         `json:"recipient_name"`
	Status         string         `json:"status"`
	TemplateParams map[string]any `json:"template_params"`
	HeaderParams   map[string]any `json:"header_params"`
	ChatMessageID  *string        `json:"chat_message_id"`
	ErrorMessage   string         `json:"error_message"`
	SentAt         *time.Time     `json:"sent_at"`
	DeliveredAt    *time.Time     `json:"delivered_at"`
	ReadAt         *time.Time     `json:"read_at"`
}

func presentRecipient(r *ent.CampaignRecipient) recipientJSON {
	return recipientJSON{
		ID: r.ID, PhoneNumber: r.PhoneNumber, RecipientName: r.RecipientName, Status: string(r.Status),
		TemplateParams: r.TemplateParams, HeaderParams: r.HeaderParams, ChatMessageID: r.ChatMessageID,
		ErrorMessage: r.ErrorMessage, SentAt: r.SentAt, DeliveredAt: r.DeliveredAt, ReadAt: r.ReadAt,
	}
}

// createCampaignBody is the JSON of createCampaign; the bounds are
// campaigns' (TestBodyTagsMatchTheDomain).
type createCampaignBody struct {
	Name          *string         `json:"name" required:"true" nullable:"false" minLength:"1" maxLength:"255" example:"Spring sale"`
	ChatAccount   *string         `json:"chat_account" required:"true" nullable:"false" minLength:"1" maxLength:"255" example:"Main" description:"The name of an account of the organization."`
	TemplateID    *string         `json:"template_id" required:"true" nullable:"false" format:"uuid" description:"A template of the account."`
	HeaderMediaID *string         `json:"header_media_id" maxLength:"512"`
	ScheduledAt   json.RawMessage `json:"scheduled_at" description:"An RFC 3339 date-time in the future; null or empty: not scheduled."`
}

func (b createCampaignBody) input() (campaigns.Input, error) { return updateCampaignBody(b).input() }

// updateCampaignBody is the JSON of updateCampaign: absent fields keep their
// value. scheduled_at is kept raw so that null (clear it) and absent
// differ.
type updateCampaignBody struct {
	Name          *string         `json:"name" minLength:"1" maxLength:"255"`
	ChatAccount   *string         `json:"chat_account" minLength:"1" maxLength:"255" description:"The name of an account of the organization."`
	TemplateID    *string         `json:"template_id" format:"uuid" description:"A template of the account."`
	HeaderMediaID *string         `json:"header_media_id" maxLength:"512"`
	ScheduledAt   json.RawMessage `json:"scheduled_at" description:"An RFC 3339 date-time in the future; null or empty: not scheduled."`
}

func (b updateCampaignBody) input() (campaigns.Input, error) {
	in := campaigns.Input{Name: b.Name, ChatAccount: b.ChatAccount, HeaderMediaID: b.HeaderMediaID}
	if b.TemplateID != nil {
		id, err := uuid.Parse(strings.TrimSpace(*b.TemplateID))
		if err != nil {
			return in, apperr.Invalidf("template_id must be a valid UUID")
		}
		in.TemplateID = &id
	}
	raw := bytes.TrimSpace(b.ScheduledAt)
	switch {
	case len(raw) == 0:
	case string(raw) == "null" || string(raw) == `""`:
		in.ClearSchedule = true
	default:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return in, apperr.Invalidf("scheduled_at must be an ISO 8601 date-time string")
		}
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(s))
		if err != nil {
			return in, apperr.Invalidf("scheduled_at must be an ISO 8601 date-time with a time zone (2026-12-01T09:00:00Z)")
		}
		in.ScheduledAt = &t
	}
	return in, nil
}

// dateParam reads an ISO date (2026-11-25) or date-time query parameter;
// endOfDay makes a bare date cover its whole day.
func dateParam(name, s string, endOfDay bool) (*time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return &t, nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return nil, apperr.Invalidf("%s must be an ISO date (2026-11-25) or date-time", name)
	}
	if endOfDay {
		t = t.Add(24*time.Hour - time.Nanosecond)
	}
	return &t, nil
}

func (a *API) listCampaigns(c *gin.Context) (int, any, error) {
	p, q := pageOf(c), queryOf[campaignsQuery](c)
	f := campaigns.Filter{Status: q.Status, ChatAccount: q.ChatAccount, Search: q.Search}
	var err error
	if f.From, err = dateParam("from", q.From, false); err != nil {
		return 0, nil, err
	}
	if f.To, err = dateParam("to", q.To, true); err != nil {
		return 0, nil, err
	}
	cs, total, err := a.R.Campaigns.List(ctx(c), f, p.Offset(), p.Limit)
	if err != nil {
		return 0, nil, err
	}
	out := make([]campaignJSON, len(cs))
	for i, cm := range cs {
		out[i] = presentCampaign(cm)
	}
	return http.StatusOK, listPayload("campaigns", out, total, p), nil
}

func (a *API) getCampaign(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	cm, err := a.R.Campaigns.Get(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentCampaign(cm), nil
}

func (a *API) createCampaign(c *gin.Context) (int, any, error) {
	var b createCampaignBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	in, err := b.input()
	if err != nil {
		return 0, nil, err
	}
	cm, err := a.R.Campaigns.Create(ctx(c), in)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, presentCampaign(cm), nil
}

func (a *API) updateCampaign(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b updateCampaignBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	in, err := b.input()
	if err != nil {
		return 0, nil, err
	}
	cm, err := a.R.Campaigns.Update(ctx(c), id, in)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentCampaign(cm), nil
}

// campaignAction adapts a state change answering the campaign.
func (a *API) campaignAction(op func(*campaigns.Service) func(context.Context, uuid.UUID) (*ent.Campaign, error)) handlerFunc {
	return func(c *gin.Context) (int, any, error) {
		id, err := pathUUID(c, "id")
		if err != nil {
			return 0, nil, err
		}
		cm, err := op(a.R.Campaigns)(ctx(c), id)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, presentCampaign(cm), nil
	}
}

func (a *API) retryFailedCampaign(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	n, _, err := a.R.Campaigns.RetryFailed(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, retryData{Message: "Failed recipients are being sent again", RetryCount: n, Status: "processing"}, nil
}

func (a *API) uploadCampaignMedia(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	form, err := readMultipart(c)
	if err != nil {
		return 0, nil, err
	}
	defer form.RemoveAll()
	file, err := formFile(form, "file")
	if err != nil {
		return 0, nil, err
	}
	if file == nil {
		return 0, nil, apperr.Invalidf("file is required")
	}
	defer closeUpload(file)
	res, err := a.R.Campaigns.UploadMedia(ctx(c), id, *file)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, res, nil
}

// maxImportBody bounds an import body: MaxImport recipients of a few
// hundred bytes each.
const maxImportBody = 32 << 20

// importBody is the JSON of a recipient import.
type importBody struct {
	Recipients []campaigns.RecipientInput `json:"recipients" required:"true" nullable:"false" minItems:"1" maxItems:"50000" description:"Rows that are not valid (phone number, parameters) or repeat a phone number are counted and reported, not imported."`
}

func (a *API) importRecipients(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	body, err := io.ReadAll(io.LimitReader(c.Request.Body, maxImportBody+1))
	if err != nil {
		return 0, nil, apperr.Invalidf("could not read request body")
	}
	if len(body) > maxImportBody {
		return 0, nil, apperr.Invalidf("request body too large (max %d MB; at most %d recipients per call)", maxImportBody>>20, campaigns.MaxImport)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return 0, nil, apperr.Invalidf("request body is required")
	}
	var b importBody
	if err := decodeJSON(body, &b); err != nil {
		return 0, nil, err
	}
	res, err := a.R.Campaigns.Import(ctx(c), id, b.Recipients)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, res, nil
}

func (a *API) listRecipients(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	p := pageOf(c)
	rs, total, err := a.R.Campaigns.Recipients(ctx(c), id, queryOf[statusQuery](c).Status, p.Offset(), p.Limit)
	if err != nil {
		return 0, nil, err
	}
	out := make([]recipientJSON, len(rs))
	for i, r := range rs {
		out[i] = presentRecipient(r)
	}
	return http.StatusOK, listPayload("recipients", out, total, p), nil
}

func (a *API) deleteRecipient(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	rid, err := pathUUID(c, "recipient_id")
	if err != nil {
		return 0, nil, err
	}
	if err := a.R.Campaigns.DeleteRecipient(ctx(c), id, rid); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, messageData{Message: "Recipient deleted"}, nil
}

// campaignRoutes are the spec's campaign endpoints.
func (a *API) campaignRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/campaigns", Op: "campaigns", Query: paged(campaigns.DefaultPageSize, campaignsQuery{}), Out: list("campaigns", campaignJSON{}), Handle: a.listCampaigns},
		{Method: get, Path: "/api/campaigns/:id", Op: "campaign", Out: campaignJSON{}, Handle: a.getCampaign},
		{Method: post, Path: "/api/campaigns", Op: "createCampaign", Status: http.StatusCreated, In: createCampaignBody{}, Out: campaignJSON{}, Handle: a.createCampaign},
		{Method: put, Path: "/api/campaigns/:id", Op: "updateCampaign", In: updateCampaignBody{}, Out: campaignJSON{}, Handle: a.updateCampaign},
		{Method: del, Path: "/api/campaigns/:id", Op: "deleteCampaign", Out: messageData{},
			Handle: idAction(func(c context.Context, id uuid.UUID) error { return a.R.Campaigns.Delete(c, id) }, messageData{Message: "Campaign deleted"})},
		{Method: post, Path: "/api/campaigns/:id/media", Op: "uploadCampaignMedia", In: fileForm{}, Out: campaigns.MediaResult{}, Handle: a.uploadCampaignMedia},
		{Method: post, Path: "/api/campaigns/:id/recipients/import", Op: "importCampaignRecipients", In: importBody{}, Out: campaigns.ImportResult{}, Handle: a.importRecipients},
		{Method: get, Path: "/api/campaigns/:id/recipients", Op: "campaignRecipients", Query: paged(campaigns.DefaultRecipientsPage, statusQuery{}), Out: list("recipients", recipientJSON{}), Handle: a.listRecipients},
		{Method: del, Path: "/api/campaigns/:id/recipients/:recipient_id", Op: "deleteCampaignRecipient", Out: messageData{}, Handle: a.deleteRecipient},
		{Method: post, Path: "/api/campaigns/:id/start", Op: "startCampaign", Out: campaignJSON{},
			Handle: a.campaignAction(func(s *campaigns.Service) func(context.Context, uuid.UUID) (*ent.Campaign, error) { return s.Start })},
		{Method: post, Path: "/api/campaigns/:id/pause", Op: "pauseCampaign", Out: campaignJSON{},
			Handle: a.campaignAction(func(s *campaigns.Service) func(context.Context, uuid.UUID) (*ent.Campaign, error) { return s.Pause })},
		{Method: post, Path: "/api/campaigns/:id/cancel", Op: "cancelCampaign", Out: campaignJSON{},
			Handle: a.campaignAction(func(s *campaigns.Service) func(context.Context, uuid.UUID) (*ent.Campaign, error) { return s.Cancel })},
		{Method: post, Path: "/api/campaigns/:id/retry-failed", Op: "retryFailedCampaign", Out: retryData{}, Handle: a.retryFailedCampaign},
	}
}
