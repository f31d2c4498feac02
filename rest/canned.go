package rest

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/canned"
	"switchboard/ent"
)

// cannedResponseJSON is the spec's Canned response.
type cannedResponseJSON struct {
	ID         uuid.UUID        `json:"id"`
	Name       string           `json:"name"`
	Shortcut   string           `json:"shortcut"`
	Content    string           `json:"content"`
	Category   string           `json:"category"`
	IsActive   bool             `json:"is_active"`
	UsageCount int              `json:"usage_count"`
	Buttons    []map[string]any `json:"buttons"`
	CreatedAt  time.Time        `json:"created_at"`
	UpdatedAt  time.Time        `json:"updated_at"`
}

func presentCannedResponse(r *ent.CannedResponse) cannedResponseJSON {
	out := cannedResponseJSON{
		ID: r.ID, Name: r.Name, Shortcut: r.Shortcut, Content: r.Content, Category: r.Category,
		IsActive: r.IsActive, UsageCount: r.UsageCount, Buttons: r.Buttons,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
	if out.Buttons == nil {
		out.Buttons = []map[string]any{}
	}
	return out
}

// cannedButtonBody is one button of a canned response body.
// The bounds are canned's (TestBodyTagsMatchTheDomain).
type cannedButtonBody struct {
	ID          string `json:"id" required:"true" minLength:"1" maxLength:"256" description:"Unique among the response's buttons."`
	Title       string `json:"title" required:"true" minLength:"1" maxLength:"64" description:"At most 20 characters for a reply button."`
	Type        string `json:"type" enum:"[\"\",\"reply\",\"url\",\"phone\",\"voice_call\"]" description:"Default reply; at most 3 reply buttons."`
	URL         string `json:"url" description:"An http or https URL; required for a url button."`
	PhoneNumber string `json:"phone_number" description:"7 to 15 digits; required for a phone button."`
	TTLMinutes  *int   `json:"ttl_minutes" description:"A voice_call button's validity, 1 to 43200 minutes."`
}

// createCannedBody is the JSON of createCannedResponse; the bounds are
// canned's (TestBodyTagsMatchTheDomain).
type createCannedBody struct {
	Name     *string            `json:"name" required:"true" nullable:"false" minLength:"1" maxLength:"255" example:"Greeting"`
	Content  *string            `json:"content" required:"true" nullable:"false" minLength:"1" maxLength:"4096" example:"Hello {{contact_name}}, how can we help?"`
	Shortcut *string            `json:"shortcut" maxLength:"50" description:"Unique (case-insensitive) among the organization's canned responses; empty: none."`
	Category *string            `json:"category" maxLength:"100"`
	IsActive *bool              `json:"is_active" description:"Ignored: a new response is active."`
	Buttons  []cannedButtonBody `json:"buttons" maxItems:"10"`
}

func (b createCannedBody) buttons() []canned.Button { return updateCannedBody(b).buttons() }

// updateCannedBody is the JSON of updateCannedResponse: absent or null fields
// keep their value. Buttons stays nil when absent, so an update can tell
// "keep" from "none".
type updateCannedBody struct {
	Name     *string            `json:"name" minLength:"1" maxLength:"255"`
	Content  *string            `json:"content" minLength:"1" maxLength:"4096"`
	Shortcut *string            `json:"shortcut" maxLength:"50" description:"Unique (case-insensitive) among the organization's canned responses; empty: none."`
	Category *string            `json:"category" maxLength:"100"`
	IsActive *bool              `json:"is_active"`
	Buttons  []cannedButtonBody `json:"buttons" maxItems:"10" description:"Replaces the buttons; absent or null: kept."`
}

func (b updateCannedBody) buttons() []canned.Button {
	if b.Buttons == nil {
		return nil
	}
	out := make([]canned.Button, len(b.Buttons))
	for i, x := range b.Buttons {
		out[i] = canned.Button{
			ID: x.ID, Title: x.Title, Type: x.Type, URL: x.URL, PhoneNumber: x.PhoneNumber, TTLMinutes: x.TTLMinutes,
		}
	}
	return out
}

func (a *API) listCannedResponses(c *gin.Context) (int, any, error) {
	p, q := pageOf(c), queryOf[cannedQuery](c)
	f := canned.Filter{Category: q.Category, Search: q.Search, ActiveOnly: q.ActiveOnly}
	pg, err := a.R.Canned.List(ctx(c), f, p.Offset(), p.Limit)
	if err != nil {
		return 0, nil, err
	}
	out := make([]cannedResponseJSON, len(pg.CannedResponses))
	for i, r := range pg.CannedResponses {
		out[i] = presentCannedResponse(r)
	}
	return http.StatusOK, listPayload("canned_responses", out, pg.Total, p), nil
}

func (a *API) getCannedResponse(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	r, err := a.R.Canned.Get(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentCannedResponse(r), nil
}

func (a *API) createCannedResponse(c *gin.Context) (int, any, error) {
	var b createCannedBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	if b.Name == nil {
		return 0, nil, apperr.Invalidf("name is required")
	}
	if b.Content == nil {
		return 0, nil, apperr.Invalidf("content is required")
	}
	r, err := a.R.Canned.Create(ctx(c), canned.CreateInput{
		Name: *b.Name, Content: *b.Content, Shortcut: b.Shortcut, Category: b.Category, Buttons: b.buttons(),
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, presentCannedResponse(r), nil
}

func (a *API) updateCannedResponse(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b updateCannedBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	r, err := a.R.Canned.Update(ctx(c), id, canned.UpdateInput{
		Name: b.Name, Content: b.Content, Shortcut: b.Shortcut, Category: b.Category,
		IsActive: b.IsActive, Buttons: b.buttons(),
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentCannedResponse(r), nil
}

func (a *API) deleteCannedResponse(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	if err := a.R.Canned.Delete(ctx(c), id); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, messageData{Message: "Canned response deleted"}, nil
}

// useCannedResponseBody is the JSON body of useCannedResponse.
type useCannedResponseBody struct {
	ContactID string `json:"contact_id" format:"uuid" description:"The contact the content is filled for ({{contact_name}}, {{phone_number}}); optional."`
}

func (a *API) useCannedResponse(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b useCannedResponseBody
	if err := bindJSON(c, &b, true); err != nil {
		return 0, nil, err
	}
	contactID, err := optionalUUID("contact_id", b.ContactID)
	if err != nil {
		return 0, nil, err
	}
	content, err := a.R.Canned.Use(ctx(c), id, contactID)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, cannedUseData{Message: "Usage recorded", Content: content}, nil
}

// cannedResponseRoutes: whoever holds canned_responses:read (every system
// role) lists and uses canned responses; writes need
// canned_responses:create, :update or :delete (Admin and Manager hold
// them, Agent does not).
func (a *API) cannedResponseRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/canned-responses", Op: "cannedResponses", Query: paged(20, cannedQuery{}), Out: list("canned_responses", cannedResponseJSON{}), Handle: a.listCannedResponses},
		{Method: post, Path: "/api/canned-responses", Op: "createCannedResponse", Status: http.StatusCreated, In: createCannedBody{}, Out: cannedResponseJSON{}, Handle: a.createCannedResponse},
		{Method: get, Path: "/api/canned-responses/:id", Op: "cannedResponse", Out: cannedResponseJSON{}, Handle: a.getCannedResponse},
		{Method: put, Path: "/api/canned-responses/:id", Op: "updateCannedResponse", In: updateCannedBody{}, Out: cannedResponseJSON{}, Handle: a.updateCannedResponse},
		{Method: del, Path: "/api/canned-responses/:id", Op: "deleteCannedResponse", Out: messageData{}, Handle: a.deleteCannedResponse},
		{Method: post, Path: "/api/canned-responses/:id/use", Op: "useCannedResponse", In: useCannedResponseBody{}, Out: cannedUseData{}, Handle: a.useCannedResponse},
	}
}
