package rest

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/customactions"
	"switchboard/ent"
)

// customActionJSON is the spec's Custom action. A webhook action's
// header values are shown only to members with settings:update (the data
// layer empties them for the others); has_headers tells whether it has
// any.
type customActionJSON struct {
	ID           uuid.UUID      `json:"id"`
	Name         string         `json:"name"`
	Icon         string         `json:"icon"`
	ActionType   string         `json:"action_type"`
	Config       map[string]any `json:"config"`
	HasHeaders   bool           `json:"has_headers"`
	IsActive     bool           `json:"is_active"`
	DisplayOrder int            `json:"display_order"`
	CreatedAt    time.Time      `json:"created_at"`
	UpdatedAt    time.Time      `json:"updated_at"`
}

func presentCustomAction(a *ent.CustomAction) customActionJSON {
	cfg := a.Config
	if cfg == nil {
		cfg = map[string]any{}
	}
	headers, _ := cfg["headers"].(map[string]any)
	return customActionJSON{
		ID: a.ID, Name: a.Name, Icon: string(a.Icon), ActionType: string(a.ActionType), Config: cfg,
		HasHeaders: len(headers) > 0, IsActive: a.IsActive, DisplayOrder: a.DisplayOrder, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
	}
}

// createCustomActionBody is the JSON of createCustomAction; the bounds
// are customactions' (TestBodyTagsMatchTheDomain).
type createCustomActionBody struct {
	Name         *string        `json:"name" required:"true" nullable:"false" minLength:"1" maxLength:"100" example:"Open ticket"`
	Icon         *string        `json:"icon" enum:"[\"\",\"ticket\",\"user\",\"bar-chart\",\"link\",\"phone\",\"mail\",\"file-text\",\"external-link\",\"zap\",\"globe\",\"code\"]"`
	ActionType   *string        `json:"action_type" required:"true" nullable:"false" enum:"webhook,url,javascript"`
	Config       map[string]any `json:"config" required:"true" nullable:"false" description:"The action's settings by action_type: webhook {url (required), method (POST, GET, PUT or PATCH), headers, body}; url {url (required), open_in_new_tab}; javascript {code (required)}. At most 96 KB."`
	IsActive     *bool          `json:"is_active"`
	DisplayOrder *int           `json:"display_order" minimum:"-1000000" maximum:"1000000"`
}

func (b createCustomActionBody) input() customactions.Input { return updateCustomActionBody(b).input() }

// updateCustomActionBody is the JSON of updateCustomAction: absent or null
// fields keep their value; a config given replaces the stored one whole.
type updateCustomActionBody struct {
	Name         *string        `json:"name" minLength:"1" maxLength:"100"`
	Icon         *string        `json:"icon" enum:"[\"\",\"ticket\",\"user\",\"bar-chart\",\"link\",\"phone\",\"mail\",\"file-text\",\"external-link\",\"zap\",\"globe\",\"code\"]"`
	ActionType   *string        `json:"action_type" enum:"webhook,url,javascript"`
	Config       map[string]any `json:"config" description:"The action's settings by action_type: webhook {url (required), method (POST, GET, PUT or PATCH), headers, body}; url {url (required), open_in_new_tab}; javascript {code (required)}. At most 96 KB."`
	IsActive     *bool          `json:"is_active"`
	DisplayOrder *int           `json:"display_order" minimum:"-1000000" maximum:"1000000"`
}

func (b updateCustomActionBody) input() customactions.Input {
	return customactions.Input{
		Name: b.Name, Icon: b.Icon, ActionType: b.ActionType, Config: b.Config,
		IsActive: b.IsActive, DisplayOrder: b.DisplayOrder,
	}
}

func (a *API) listCustomActions(c *gin.Context) (int, any, error) {
	p := pageOf(c)
	pg, err := a.R.CustomActions.List(ctx(c), queryOf[searchQuery](c).Search, p.Offset(), p.Limit)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, listPayload("custom_actions", presentAll(pg.CustomActions, presentCustomAction), pg.Total, p), nil
}

func (a *API) getCustomAction(c *gin.Context) (int, any, error) {
	return byID(c, a.R.CustomActions.Get, presentCustomAction)
}

func (a *API) createCustomAction(c *gin.Context) (int, any, error) {
	return created(c, a.R.CustomActions.Create, createCustomActionBody.input, presentCustomAction)
}

func (a *API) updateCustomAction(c *gin.Context) (int, any, error) {
	return updated(c, a.R.CustomActions.Update, updateCustomActionBody.input, presentCustomAction)
}

// executeCustomActionBody is the JSON body of executeCustomAction.
type executeCustomActionBody struct {
	ContactID string `json:"contact_id" required:"true" format:"uuid"`
}

func (a *API) executeCustomAction(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b executeCustomActionBody
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
	r, err := a.R.CustomActions.Execute(ctx(c), id, *contactID)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, executeData{Success: r.Success, Message: r.Message, RedirectURL: r.RedirectURL, Data: r.Data, Toast: r.Toast}, nil
}

func (a *API) deleteCustomAction(ctx context.Context, id uuid.UUID) error {
	return a.R.CustomActions.Delete(ctx, id)
}

// redirectCustomAction answers 302 to the URL of a redirect token, once.
func (a *API) redirectCustomAction(c *gin.Context) (int, any, error) {
	target, err := a.R.CustomActions.Redeem(ctx(c), c.Param("token"))
	if err != nil {
		return 0, nil, err
	}
	c.Redirect(http.StatusFound, target)
	return http.StatusFound, nil, nil
}

// customActionRoutes. Every member lists and reads the actions (the inbox
// shows them as buttons to Agents too); executing one reads the contact's
// data and sends it to the action's target, so it needs contacts:read;
// defining actions (a webhook URL, headers, code every member's browser
// receives) is organization configuration: settings:update, as SSO and
// organization settings.
//
// The redirect is public: the browser opens it in a new tab, where a
// bearer-token client has no credentials. The token is the capability:
// 256 random bits, valid 30 seconds, spent on first use, and it only
// reveals a URL that the member who executed the action was shown anyway.
func (a *API) customActionRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/custom-actions", Op: "customActions", Query: paged(customactions.DefaultPageSize, searchQuery{}), Out: list("custom_actions", customActionJSON{}), Handle: a.listCustomActions},
		{Method: get, Path: "/api/custom-actions/:id", Op: "customAction", Out: customActionJSON{}, Handle: a.getCustomAction},
		{Method: post, Path: "/api/custom-actions", Op: "createCustomAction", Status: http.StatusCreated, In: createCustomActionBody{}, Out: customActionJSON{}, Handle: a.createCustomAction},
		{Method: put, Path: "/api/custom-actions/:id", Op: "updateCustomAction", In: updateCustomActionBody{}, Out: customActionJSON{}, Handle: a.updateCustomAction},
		{Method: del, Path: "/api/custom-actions/:id", Op: "deleteCustomAction", Out: statusData{},
			Handle: idAction(a.deleteCustomAction, statusData{Status: "deleted"})},
		{Method: post, Path: "/api/custom-actions/:id/execute", Op: "executeCustomAction", In: executeCustomActionBody{}, Out: executeData{}, Handle: a.executeCustomAction},
		{Method: get, Path: "/api/custom-actions/redirect/:token", Op: "customActionRedirect", Errors: []int{http.StatusGone}, Status: http.StatusFound, Out: rawBody{Description: "A redirect to the action's URL."}, Handle: a.redirectCustomAction},
	}
}
