package rest

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/templates"
)

// templateJSON is the spec's Template.
type templateJSON struct {
	ID                        uuid.UUID        `json:"id"`
	ChatAccount               string           `json:"chat_account"`
	ProviderTemplateID        string           `json:"provider_template_id"`
	Name                      string           `json:"name"`
	DisplayName               string           `json:"display_name"`
	Language                  string           `json:"language"`
	Category                  string           `json:"category"`
	Status                    string           `json:"status"`
	HeaderType                string           `json:"header_type"`
	HeaderContent             string           `json:"header_content"`
	BodyContent               string           `json:"body_content"`
	FooterContent             string           `json:"footer_content"`
	Buttons                   []map[string]any `json:"buttons"`
	SampleValues              []string         `json:"sample_values"`
	AddSecurityRecommendation bool             `json:"add_security_recommendation"`
	CodeExpirationMinutes     *int             `json:"code_expiration_minutes"`
	QualityRating             string           `json:"quality_rating"`
	CreatedByID               *uuid.UUID       `json:"created_by_id"`
	CreatedByName             string           `json:"created_by_name"`
	UpdatedByID               *uuid.UUID       `json:"updated_by_id"`
	UpdatedByName             string           `json:"updated_by_name"`
	CreatedAt                 time.Time        `json:"created_at"`
	UpdatedAt                 time.Time        `json:"updated_at"`
}

func presentTemplate(v *templates.View) templateJSON {
	t := v.Template
	buttons, samples := t.Buttons, t.SampleValues
	if buttons == nil {
		buttons = []map[string]any{}
	}
	if samples == nil {
		samples = []string{}
	}
	return templateJSON{
		ID: t.ID, ChatAccount: t.ChatAccount, ProviderTemplateID: t.ProviderTemplateID, Name: t.Name,
		DisplayName: t.DisplayName, Language: t.Language, Category: string(t.Category), Status: t.Status,
		HeaderType: string(t.HeaderType), HeaderContent: t.HeaderContent, BodyContent: t.BodyContent,
		FooterContent: t.FooterContent, Buttons: buttons, SampleValues: samples,
		AddSecurityRecommendation: t.AddSecurityRecommendation, CodeExpirationMinutes: t.CodeExpirationMinutes,
		QualityRating: t.QualityRating, CreatedByID: t.CreatedByID, CreatedByName: v.CreatedByName,
		UpdatedByID: t.UpdatedByID, UpdatedByName: v.UpdatedByName, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
	}
}

// templateDraftBody is the JSON of template create and update (an update
// replaces the draft whole): the flat fields of the spec. The bounds are
// templates' (TestBodyTagsMatchTheDomain).
type templateDraftBody struct {
	ChatAccount               string           `json:"chat_account" required:"true" minLength:"1" maxLength:"200" example:"Main" description:"The name of an account of the organization."`
	Name                      string           `json:"name" required:"true" minLength:"1" maxLength:"512" pattern:"^[a-z0-9_]+$" example:"order_update" description:"Lowercase letters, digits and underscores; with language, unique in the account."`
	DisplayName               *string          `json:"display_name" maxLength:"512" description:"Empty or absent: the name."`
	Language                  string           `json:"language" required:"true" minLength:"1" maxLength:"15" pattern:"^[a-z]{2,3}(_[A-Za-z]{2,4})?$" example:"en_US"`
	Category                  string           `json:"category" required:"true" enum:"MARKETING,UTILITY,AUTHENTICATION" description:"Case-insensitive."`
	HeaderType                *string          `json:"header_type" enum:"[\"\",\"TEXT\",\"IMAGE\",\"VIDEO\",\"DOCUMENT\",\"NONE\"]" description:"Case-insensitive; empty or absent: NONE. AUTHENTICATION templates take none."`
	HeaderContent             string           `json:"header_content" maxLength:"4096" description:"The header text of a TEXT header (required, at most 60 characters, at most one variable {{1}}), or a media header's sample handle from upload-media; empty for NONE."`
	BodyContent               string           `json:"body_content" maxLength:"1024" description:"The body text with {{1}} or {{name}} variables: required, except for AUTHENTICATION templates (whose text the platform writes)."`
	FooterContent             string           `json:"footer_content" maxLength:"60" description:"Without variables; AUTHENTICATION templates take none."`
	Buttons                   []map[string]any `json:"buttons" maxItems:"10" description:"The platform's buttons: {type, text, url, phone_number, example}; AUTHENTICATION templates take at most one OTP button."`
	SampleValues              json.RawMessage  `json:"sample_values" description:"Sample values of the variables: an array of strings, or of {component, index or name, value} objects."`
	AddSecurityRecommendation bool             `json:"add_security_recommendation" description:"AUTHENTICATION templates only."`
	CodeExpirationMinutes     *int             `json:"code_expiration_minutes" minimum:"1" maximum:"90" description:"AUTHENTICATION templates only."`
}

func (b templateDraftBody) input() (templates.Input, error) {
	samples, err := templates.ParseSampleValues(b.SampleValues)
	if err != nil {
		return templates.Input{}, err
	}
	return templates.Input{
		ChatAccount: b.ChatAccount, Name: b.Name, DisplayName: b.DisplayName, Language: b.Language,
		Category: b.Category, HeaderType: b.HeaderType, HeaderContent: b.HeaderContent, BodyContent: b.BodyContent,
		FooterContent: b.FooterContent, Buttons: b.Buttons, SampleValues: samples,
		AddSecurityRecommendation: b.AddSecurityRecommendation, CodeExpirationMinutes: b.CodeExpirationMinutes,
	}, nil
}

func bindTemplateBody(c *gin.Context) (templates.Input, error) {
	var b templateDraftBody
	if err := bindJSON(c, &b, false); err != nil {
		return templates.Input{}, err
	}
	return b.input()
}

func (a *API) listTemplates(c *gin.Context) (int, any, error) {
	p, q := pageOf(c), queryOf[templatesQuery](c)
	pg, err := a.R.Templates.List(ctx(c), templates.Filter{
		Account: q.Account, Status: q.Status, Category: q.Category,
		Search: q.Search, Page: p.Page, Limit: p.Limit,
	})
	if err != nil {
		return 0, nil, err
	}
	out := make([]templateJSON, len(pg.Templates))
	for i, v := range pg.Templates {
		out[i] = presentTemplate(v)
	}
	return http.StatusOK, templatesData{Templates: out, Total: pg.Total, Page: pg.Page, Limit: pg.Limit}, nil
}

func (a *API) getTemplate(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	v, err := a.R.Templates.Get(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentTemplate(v), nil
}

func (a *API) createTemplate(c *gin.Context) (int, any, error) {
	in, err := bindTemplateBody(c)
	if err != nil {
		return 0, nil, err
	}
	v, err := a.R.Templates.Create(ctx(c), in)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, presentTemplate(v), nil
}

func (a *API) updateTemplate(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	in, err := bindTemplateBody(c)
	if err != nil {
		return 0, nil, err
	}
	v, err := a.R.Templates.Update(ctx(c), id, in)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentTemplate(v), nil
}

func (a *API) deleteTemplate(c *gin.Context) (int, any, error) {
	return idAction(a.R.Templates.Delete, messageData{Message: "Template deleted"})(c)
}

func (a *API) publishTemplate(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	p, err := a.R.Templates.Publish(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, templatePublishData{
		Message: p.Message, ProviderTemplateID: p.ProviderTemplateID, Status: p.Status,
		Template: presentTemplate(p.Template),
	}, nil
}

// syncTemplatesBody is the JSON body of syncTemplates.
type syncTemplatesBody struct {
	ChatAccount string `json:"chat_account" required:"true" minLength:"1" maxLength:"200" example:"Main" description:"The name of an account of the organization."`
}

func (a *API) syncTemplates(c *gin.Context) (int, any, error) {
	var b syncTemplatesBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	if strings.TrimSpace(b.ChatAccount) == "" {
		return 0, nil, apperr.Invalidf("chat_account is required")
	}
	n, err := a.R.Templates.Sync(ctx(c), b.ChatAccount)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, templateSyncData{Message: "Templates synced", Count: n}, nil
}

func (a *API) uploadTemplateMedia(c *gin.Context) (int, any, error) {
	name, data, fields, err := readUploadFields(c, "file", templates.MaxMediaBytes)
	if err != nil {
		return 0, nil, err
	}
	account := queryOf[accountQuery](c).Account
	if account == "" {
		account = fields["account"]
	}
	m, err := a.R.Templates.UploadMedia(ctx(c), account, name, data)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, templateMediaData{Handle: m.Handle, Filename: m.Filename, MimeType: m.MimeType, Size: m.Size}, nil
}

// templateRoutes: reading is for every member who may read templates
// (Agents included); writes need templates:create/update/delete. Calls
// that reach the platform run without the request transaction.
func (a *API) templateRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/templates", Op: "templates", Query: paged(templates.DefaultPageSize, templatesQuery{}), Out: templatesData{}, Handle: a.listTemplates},
		{Method: post, Path: "/api/templates", Op: "createTemplate", Status: http.StatusCreated, In: templateDraftBody{}, Out: templateJSON{}, Handle: a.createTemplate},
		{Method: post, Path: "/api/templates/sync", Op: "syncTemplates", In: syncTemplatesBody{}, Out: templateSyncData{}, Handle: a.syncTemplates},
		{Method: post, Path: "/api/templates/upload-media", Op: "uploadTemplateMedia", Query: accountQuery{}, In: templateMediaForm{}, Out: templateMediaData{}, Handle: a.uploadTemplateMedia},
		{Method: get, Path: "/api/templates/:id", Op: "template", Out: templateJSON{}, Handle: a.getTemplate},
		{Method: put, Path: "/api/templates/:id", Op: "updateTemplate", In: templateDraftBody{}, Out: templateJSON{}, Handle: a.updateTemplate},
		{Method: del, Path: "/api/templates/:id", Op: "deleteTemplate", Out: messageData{}, Handle: a.deleteTemplate},
		{Method: post, Path: "/api/templates/:id/publish", Op: "publishTemplate", Out: templatePublishData{}, Handle: a.publishTemplate},
	}
}
