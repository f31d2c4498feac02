package providertest

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// The WhatsApp Flows endpoints of the fake: create (POST /{waba}/flows),
// the Flow JSON asset upload (POST /{flow}/assets), publish, deprecate,
// read (GET /{flow}) and the paged list (GET /{waba}/flows), answering like
// the platform documents them.

// Flow is a flow the fake holds.
type Flow struct {
	ID         string
	WABA       string
	Name       string
	Status     string // DRAFT, PUBLISHED, DEPRECATED
	Categories []string
	// JSON is the last uploaded Flow JSON asset.
	JSON []byte
	// Errors are the validation errors the last upload answered with.
	Errors []map[string]any
}

type flowStore struct {
	byID  map[string]*Flow
	order []string
	// uploadErrors, when set, is what the next asset upload answers as
	// validation_errors.
	uploadErrors []map[string]any
}

func (f *Fake) flowRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /{waba}/flows", f.createFlow)
	mux.HandleFunc("GET /{waba}/flows", f.listFlows)
	mux.HandleFunc("POST /{flow}/assets", f.uploadFlowAsset)
	mux.HandleFunc("POST /{flow}/publish", f.flowTransition("PUBLISHED"))
	mux.HandleFunc("POST /{flow}/deprecate", f.flowTransition("DEPRECATED"))
}

// AddFlow stores a flow as if created on the platform (for list and sync
// tests); ID is assigned when empty, WABA defaults to BusinessID and
// Status to DRAFT. It returns the id.
func (f *Fake) AddFlow(fl Flow) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fl.WABA == "" {
		fl.WABA = BusinessID
	}
	if fl.Status == "" {
		fl.Status = "DRAFT"
	}
	if fl.ID == "" {
		f.nextID++
		fl.ID = strconv.Itoa(700000000000000 + f.nextID)
	}
	f.putFlow(&fl)
	return fl.ID
}

// putFlow stores fl; f.mu is held.
func (f *Fake) putFlow(fl *Flow) {
	if f.flows.byID == nil {
		f.flows.byID = map[string]*Flow{}
	}
	if _, ok := f.flows.byID[fl.ID]; !ok {
		f.flows.order = append(f.flows.order, fl.ID)
	}
	f.flows.byID[fl.ID] = fl
}

// Flows returns the flows the fake holds, in creation order.
func (f *Fake) Flows() []Flow {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Flow
	for _, id := range f.flows.order {
		out = append(out, *f.flows.byID[id])
	}
	return out
}

// FailNextFlowUpload makes the next asset upload answer success false with
// these validation errors (objects in the platform's shape: error,
// error_type, message, line_start, line_end, column_start, column_end,
// pointers), as the platform does for a Flow JSON it cannot accept.
func (f *Fake) FailNextFlowUpload(errs ...map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flows.uploadErrors = errs
}

func (f *Fake) flowByID(id string) (*Flow, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fl, ok := f.flows.byID[id]
	return fl, ok
}

func flowNotFound(w http.ResponseWriter, id string) {
	GraphError(http.StatusBadRequest, 100, "Unsupported post request. Object with ID '"+id+
		"' does not exist, cannot be loaded due to missing permissions, or does not support this operation.", "").write(w)
}

// createFlow answers POST /{waba}/flows {name, categories}: {id, success}.
// A name the account already uses is refused as the platform does.
func (f *Fake) createFlow(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Name       string   `json:"name"`
		Categories []string `json:"categories"`
	}
	if err := json.Unmarshal(readBody(r), &in); err != nil || in.Name == "" || len(in.Categories) == 0 {
		InvalidParameter("name and categories are required").write(w)
		return
	}
	waba := r.PathValue("waba")
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fl := range f.flows.byID {
		if fl.WABA == waba && fl.Name == in.Name {
			GraphError(http.StatusBadRequest, 100, "Invalid parameter", "Flow with the same name already exists in this account.").write(w)
			return
		}
	}
	f.nextID++
	fl := &Flow{ID: strconv.Itoa(700000000000000 + f.nextID), WABA: waba, Name: in.Name, Status: "DRAFT", Categories: in.Categories}
	f.putFlow(fl)
	JSON(http.StatusOK, map[string]any{"id": fl.ID, "success": true}).write(w)
}

// uploadFlowAsset answers POST /{flow}/assets (multipart file, name,
// asset_type FLOW_JSON): {success, validation_errors}.
func (f *Fake) uploadFlowAsset(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("flow")
	fl, ok := f.flowByID(id)
	if !ok {
		flowNotFound(w, id)
		return
	}
	form, files := parseMultipart(r.Header.Get("Content-Type"), readBody(r))
	if form["asset_type"] != "FLOW_JSON" || form["name"] == "" || len(files) != 1 || files[0].Field != "file" {
		InvalidParameter("file, name and asset_type FLOW_JSON are required").write(w)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if fl.Status != "DRAFT" {
		GraphError(http.StatusBadRequest, 139001, "Flow can't be updated", "Only draft flows can be updated.").write(w)
		return
	}
	errs := f.flows.uploadErrors
	f.flows.uploadErrors = nil
	if errs == nil {
		errs = []map[string]any{}
	}
	fl.JSON, fl.Errors = files[0].Data, errs
	JSON(http.StatusOK, map[string]any{"success": len(errs) == 0, "validation_errors": errs}).write(w)
}

// flowTransition answers POST /{flow}/publish and /deprecate: publishing
// needs a DRAFT with a valid asset, deprecating a PUBLISHED flow.
func (f *Fake) flowTransition(to string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("flow")
		fl, ok := f.flowByID(id)
		if !ok {
			flowNotFound(w, id)
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		switch {
		case to == "PUBLISHED" && (fl.Status != "DRAFT" || len(fl.JSON) == 0 || len(fl.Errors) > 0):
			GraphError(http.StatusBadRequest, 139002, "Publishing failed", "The flow has no valid Flow JSON or is not a draft.").write(w)
			return
		case to == "DEPRECATED" && fl.Status != "PUBLISHED":
			GraphError(http.StatusBadRequest, 139003, "Deprecation failed", "Only published flows can be deprecated.").write(w)
			return
		}
		fl.Status = to
		JSON(http.StatusOK, map[string]any{"success": true}).write(w)
	}
}

// flowNode is GET /{flow}: the flow's fields with a preview link.
func (f *Fake) flowNode(w http.ResponseWriter, fl *Flow) {
	f.mu.Lock()
	out := map[string]any{"id": fl.ID, "name": fl.Name, "status": fl.Status, "categories": fl.Categories,
		"validation_errors": fl.Errors, "json_version": "6.0",
		"preview": map[string]any{"preview_url": "https://business.facebook.com/wa/manage/flows/" + fl.ID + "/preview/?token=fake",
			"expires_at": "2030-01-01T00:00:00+0000"}}
	f.mu.Unlock()
	JSON(http.StatusOK, out).write(w)
}

// listFlows answers GET /{waba}/flows?limit=&after=, one page at a time
// (paging.go).
func (f *Fake) listFlows(w http.ResponseWriter, r *http.Request) {
	waba := r.PathValue("waba")
	f.mu.Lock()
	var all []map[string]any
	for _, id := range f.flows.order {
		fl := f.flows.byID[id]
		if fl.WABA != waba {
			continue
		}
		errs := fl.Errors
		if errs == nil {
			errs = []map[string]any{}
		}
		all = append(all, map[string]any{"id": fl.ID, "name": fl.Name, "status": fl.Status,
			"categories": fl.Categories, "validation_errors": errs})
	}
	f.mu.Unlock()
	f.writePage(w, r, all)
}

// updateFlowMetadata answers POST /{flow} {name, categories}: {success}.
// A name another flow of the account uses is refused as on create.
func (f *Fake) updateFlowMetadata(w http.ResponseWriter, r *http.Request, id string) {
	var in struct {
		Name       string   `json:"name"`
		Categories []string `json:"categories"`
	}
	if err := json.Unmarshal(readBody(r), &in); err != nil {
		InvalidParameter("invalid JSON body").write(w)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	fl := f.flows.byID[id]
	if in.Name != "" {
		for _, other := range f.flows.byID {
			if other.ID != id && other.WABA == fl.WABA && other.Name == in.Name {
				GraphError(http.StatusBadRequest, 100, "Invalid parameter", "Flow with the same name already exists in this account.").write(w)
				return
			}
		}
		fl.Name = in.Name
	}
	if len(in.Categories) > 0 {
		fl.Categories = in.Categories
	}
	JSON(http.StatusOK, map[string]any{"success": true}).write(w)
}
