package rest

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/flows"
)

// formFlowJSON is the spec's Form flow.
type formFlowJSON struct {
	ID              uuid.UUID        `json:"id"`
	ChatAccount     string           `json:"chat_account"`
	ProviderFlowID  string           `json:"provider_flow_id"`
	Name            string           `json:"name"`
	Status          string           `json:"status"`
	Category        string           `json:"category"`
	JSONVersion     string           `json:"json_version"`
	FlowJSON        map[string]any   `json:"flow_json"`
	Screens         []map[string]any `json:"screens"`
	PreviewURL      string           `json:"preview_url"`
	HasLocalChanges bool             `json:"has_local_changes"`
	CreatedAt       time.Time        `json:"created_at"`
	UpdatedAt       time.Time        `json:"updated_at"`
}

func presentFormFlow(f *ent.FormFlow) formFlowJSON {
	doc, screens := f.FlowJSON, f.Screens
	if doc == nil {
		doc = map[string]any{}
	}
	if screens == nil {
		screens = []map[string]any{}
	}
	return formFlowJSON{
		ID: f.ID, ChatAccount: f.ChatAccount, ProviderFlowID: f.ProviderFlowID, Name: f.Name, Status: string(f.Status),
		Category: f.Category, JSONVersion: f.JSONVersion, FlowJSON: doc, Screens: screens, PreviewURL: f.PreviewURL,
		HasLocalChanges: f.HasLocalChanges, CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt,
	}
}

// createFormFlowBody is the JSON of createFormFlow.
type createFormFlowBody struct {
	ChatAccount *string          `json:"chat_account" required:"true" nullable:"false" minLength:"1" maxLength:"200" example:"Main" description:"The name of an account of the organization."`
	Name        *string          `json:"name" required:"true" nullable:"false" minLength:"1" maxLength:"200" example:"Sign up"`
	Category    *string          `json:"category" enum:"[\"\",\"SIGN_UP\",\"SIGN_IN\",\"APPOINTMENT_BOOKING\",\"LEAD_GENERATION\",\"CONTACT_US\",\"CUSTOMER_SUPPORT\",\"SURVEY\",\"SHOPPING\",\"OTHER\",\"UTILITY\"]" description:"Empty: none."`
	JSONVersion *string          `json:"json_version" pattern:"^([0-9]{1,2}\\.[0-9]{1,2})?$" example:"6.0" description:"The Flow JSON version; empty: the default, or flow_json's version."`
	FlowJSON    map[string]any   `json:"flow_json" description:"The Flow JSON document (at most 1 MB)."`
	Screens     []map[string]any `json:"screens" description:"The screens of the Flow JSON, when flow_json is not given."`
}

// updateFormFlowBody is the JSON of updateFormFlow: absent fields keep their
// value.
type updateFormFlowBody struct {
	ChatAccount *string          `json:"chat_account" description:"Cannot be changed: absent, or the flow's own."`
	Name        *string          `json:"name" minLength:"1" maxLength:"200"`
	Category    *string          `json:"category" enum:"[\"\",\"SIGN_UP\",\"SIGN_IN\",\"APPOINTMENT_BOOKING\",\"LEAD_GENERATION\",\"CONTACT_US\",\"CUSTOMER_SUPPORT\",\"SURVEY\",\"SHOPPING\",\"OTHER\",\"UTILITY\"]" description:"Empty: none."`
	JSONVersion *string          `json:"json_version" pattern:"^([0-9]{1,2}\\.[0-9]{1,2})?$" example:"6.0" description:"The Flow JSON version; empty: kept, or flow_json's version."`
	FlowJSON    map[string]any   `json:"flow_json" description:"The Flow JSON document (at most 1 MB)."`
	Screens     []map[string]any `json:"screens" description:"The screens of the Flow JSON, when flow_json is not given."`
}

func bindFormFlow[B createFormFlowBody | updateFormFlowBody](c *gin.Context) (flows.Input, error) {
	var raw B
	if err := bindJSON(c, &raw, false); err != nil {
		return flows.Input{}, err
	}
	b := updateFormFlowBody(raw)
	return flows.Input{ChatAccount: b.ChatAccount, Name: b.Name, Category: b.Category, JSONVersion: b.JSONVersion,
		FlowJSON: b.FlowJSON, Screens: b.Screens}, nil
}

func (a *API) listFormFlows(c *gin.Context) (int, any, error) {
	p, q := pageOf(c), queryOf[flowsQuery](c)
	pg, err := a.R.Flows.List(ctx(c), flows.Filter{Account: q.Account, Status: q.Status,
		Search: q.Search, Page: p.Page, Limit: p.Limit})
	if err != nil {
		return 0, nil, err
	}
	out := make([]formFlowJSON, len(pg.Flows))
	for i, f := range pg.Flows {
		out[i] = presentFormFlow(f)
	}
	return http.StatusOK, formFlowsData{Flows: out, Total: pg.Total, Page: pg.Page, Limit: pg.Limit}, nil
}

// withFlowID runs op on the path's flow id and answers {flow}.
func withFlowID(c *gin.Context, status int, op func(uuid.UUID) (*ent.FormFlow, error)) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	f, err := op(id)
	if err != nil {
		return 0, nil, err
	}
	return status, formFlowData{Flow: presentFormFlow(f)}, nil
}

func (a *API) getFormFlow(c *gin.Context) (int, any, error) {
	return withFlowID(c, http.StatusOK, func(id uuid.UUID) (*ent.FormFlow, error) { return a.R.Flows.Get(ctx(c), id) })
}

func (a *API) createFormFlow(c *gin.Context) (int, any, error) {
	in, err := bindFormFlow[createFormFlowBody](c)
	if err != nil {
		return 0, nil, err
	}
	f, err := a.R.Flows.Create(ctx(c), in)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, formFlowData{Flow: presentFormFlow(f)}, nil
}

func (a *API) updateFormFlow(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	in, err := bindFormFlow[updateFormFlowBody](c)
	if err != nil {
		return 0, nil, err
	}
	f, err := a.R.Flows.Update(ctx(c), id, in)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, formFlowData{Flow: presentFormFlow(f)}, nil
}

func (a *API) deleteFormFlow(c *gin.Context) (int, any, error) {
	return idAction(a.R.Flows.Delete, messageData{Message: "Flow deleted"})(c)
}

// flowResult runs a platform operation and answers {flow, message}.
func flowResult(c *gin.Context, op func(uuid.UUID) (*flows.Result, error)) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	r, err := op(id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, formFlowResultData{Flow: presentFormFlow(r.Flow), Message: r.Message}, nil
}

func (a *API) saveFormFlow(c *gin.Context) (int, any, error) {
	return flowResult(c, func(id uuid.UUID) (*flows.Result, error) { return a.R.Flows.SaveToProvider(ctx(c), id) })
}

func (a *API) publishFormFlow(c *gin.Context) (int, any, error) {
	return flowResult(c, func(id uuid.UUID) (*flows.Result, error) { return a.R.Flows.Publish(ctx(c), id) })
}

func (a *API) deprecateFormFlow(c *gin.Context) (int, any, error) {
	return flowResult(c, func(id uuid.UUID) (*flows.Result, error) { return a.R.Flows.Deprecate(ctx(c), id) })
}

func (a *API) duplicateFormFlow(c *gin.Context) (int, any, error) {
	return flowResult(c, func(id uuid.UUID) (*flows.Result, error) {
		f, err := a.R.Flows.Duplicate(ctx(c), id)
		if err != nil {
			return nil, err
		}
		return &flows.Result{Flow: f, Message: "Flow duplicated"}, nil
	})
}

// syncFormFlowsBody is the JSON body of syncFormFlows.
type syncFormFlowsBody struct {
	ChatAccount string `json:"chat_account" required:"true" minLength:"1" maxLength:"200" example:"Main" description:"The name of an account of the organization."`
}

func (a *API) syncFormFlows(c *gin.Context) (int, any, error) {
	var b syncFormFlowsBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	r, err := a.R.Flows.Sync(ctx(c), b.ChatAccount)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, formFlowSyncData{Message: syncMessage(r), Synced: r.Synced, Created: r.Created, Updated: r.Updated}, nil
}

func syncMessage(r *flows.SyncResult) string {
	if r.Skipped > 0 {
		return "Flows synced; some are held by another organization and were skipped"
	}
	return "Flows synced"
}

// formFlowRoutes: members with flows:read see flows; writes need
// flows:create/update/delete. Calls that reach the platform run without
// the request transaction.
func (a *API) formFlowRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/flows", Op: "formFlows", Query: paged(flows.DefaultPageSize, flowsQuery{}), Out: formFlowsData{}, Handle: a.listFormFlows},
		{Method: post, Path: "/api/flows", Op: "createFormFlow", Status: http.StatusCreated, In: createFormFlowBody{}, Out: formFlowData{}, Handle: a.createFormFlow},
		{Method: post, Path: "/api/flows/sync", Op: "syncFormFlows", In: syncFormFlowsBody{}, Out: formFlowSyncData{}, Handle: a.syncFormFlows},
		{Method: get, Path: "/api/flows/:id", Op: "formFlow", Out: formFlowData{}, Handle: a.getFormFlow},
		{Method: put, Path: "/api/flows/:id", Op: "updateFormFlow", In: updateFormFlowBody{}, Out: formFlowData{}, Handle: a.updateFormFlow},
		{Method: del, Path: "/api/flows/:id", Op: "deleteFormFlow", Out: messageData{}, Handle: a.deleteFormFlow},
		{Method: post, Path: "/api/flows/:id/save-to-provider", Op: "saveFormFlowToProvider", Out: formFlowResultData{}, Handle: a.saveFormFlow},
		{Method: post, Path: "/api/flows/:id/publish", Op: "publishFormFlow", Out: formFlowResultData{}, Handle: a.publishFormFlow},
		{Method: post, Path: "/api/flows/:id/deprecate", Op: "deprecateFormFlow", Out: formFlowResultData{}, Handle: a.deprecateFormFlow},
		{Method: post, Path: "/api/flows/:id/duplicate", Op: "duplicateFormFlow", Out: formFlowResultData{}, Handle: a.duplicateFormFlow},
	}
}
