package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// The message template endpoints of the fake: create, list (paged with
// the after cursor), edit and delete, answering like the platform
// documents them.

// Template is a message template the fake holds.
type Template struct {
	ID         string           `json:"id"`
	WABA       string           `json:"-"`
	Name       string           `json:"name"`
	Language   string           `json:"language"`
	Status     string           `json:"status"`
	Category   string           `json:"category"`
	Components []map[string]any `json:"components"`
	Quality    string           `json:"-"`
	Edits      int              `json:"-"`
}

type templateStore struct {
	byID  map[string]*Template
	order []string
}

func (f *Fake) templateRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /{waba}/message_templates", f.createTemplate)
	mux.HandleFunc("GET /{waba}/message_templates", f.listTemplates)
	mux.HandleFunc("DELETE /{waba}/message_templates", f.deleteTemplate)
}

// AddTemplate stores a template as if created and reviewed, for list and
// sync tests; ID is assigned when empty. It returns the id.
func (f *Fake) AddTemplate(t Template) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.WABA == "" {
		t.WABA = BusinessID
	}
	if t.ID == "" {
		f.nextID++
		t.ID = strconv.Itoa(900000000000000 + f.nextID)
	}
	f.putTemplate(&t)
	return t.ID
}

// putTemplate stores t; f.mu is held.
func (f *Fake) putTemplate(t *Template) {
	if f.templates.byID == nil {
		f.templates.byID = map[string]*Template{}
	}
	if _, ok := f.templates.byID[t.ID]; !ok {
		f.templates.order = append(f.templates.order, t.ID)
	}
	f.templates.byID[t.ID] = t
}

// Templates returns the templates the fake holds, in creation order.
func (f *Fake) Templates() []Template {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Template
	for _, id := range f.templates.order {
		if t, ok := f.templates.byID[id]; ok {
			out = append(out, *t)
		}
	}
	return out
}

func templateError(w http.ResponseWriter, subcode int, title, msg string) {
	JSON(http.StatusBadRequest, map[string]any{"error": map[string]any{
		"message": "Invalid parameter", "type": "OAuthException", "code": 100, "error_subcode": subcode,
		"is_transient": false, "error_user_title": title, "error_user_msg": msg, "fbtrace_id": "AFakeTraceIdForTests0002",
	}}).write(w)
}

// createTemplate answers POST /{waba}/message_templates: {id, status
// PENDING, category}. A template of the same name and language, a missing
// name, language, category or components, or a non-AUTHENTICATION
// template without a BODY text is refused with the platform's error.
func (f *Fake) createTemplate(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Name       string           `json:"name"`
		Language   string           `json:"language"`
		Category   string           `json:"category"`
		Components []map[string]any `json:"components"`
	}
	if err := json.Unmarshal(readBody(r), &in); err != nil || in.Name == "" || in.Language == "" || in.Category == "" || len(in.Components) == 0 {
		InvalidParameter("name, language, category and components are required").write(w)
		return
	}
	hasBody := false
	for _, c := range in.Components {
		if c["type"] == "BODY" && (c["text"] != nil || in.Category == "AUTHENTICATION") {
			hasBody = true
		}
	}
	if !hasBody {
		templateError(w, 2388043, "Message template body is missing", "The template must have a body component.")
		return
	}
	waba := r.PathValue("waba")
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, t := range f.templates.byID {
		if t.WABA == waba && t.Name == in.Name && t.Language == in.Language {
			templateError(w, 2388024, "Content in this language already exists",
				fmt.Sprintf("There is already %s content for this template. You can create a new template and try again.", in.Language))
			return
		}
	}
	f.nextID++
	t := &Template{ID: strconv.Itoa(900000000000000 + f.nextID), WABA: waba, Name: in.Name, Language: in.Language,
		Status: "PENDING", Category: in.Category, Components: in.Components}
	f.putTemplate(t)
	JSON(http.StatusOK, map[string]any{"id": t.ID, "status": t.Status, "category": t.Category}).write(w)
}

// listTemplates answers GET /{waba}/message_templates?limit=&after=, one
// page at a time (paging.go).
func (f *Fake) listTemplates(w http.ResponseWriter, r *http.Request) {
	waba := r.PathValue("waba")
	f.mu.Lock()
	var all []map[string]any
	for _, id := range f.templates.order {
		t, ok := f.templates.byID[id]
		if !ok || t.WABA != waba {
			continue
		}
		m := map[string]any{"id": t.ID, "name": t.Name, "language": t.Language, "status": t.Status,
			"category": t.Category, "components": t.Components}
		if t.Quality != "" {
			m["quality_score"] = map[string]any{"score": t.Quality, "date": 1700000000}
		}
		all = append(all, cloneMap(m))
	}
	f.mu.Unlock()
	f.writePage(w, r, all)
}

// deleteTemplate answers DELETE /{waba}/message_templates?name=&hsm_id=.
func (f *Fake) deleteTemplate(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	name, id := q.Get("name"), q.Get("hsm_id")
	if name == "" {
		InvalidParameter("Param name is required").write(w)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var ids []string
	for _, t := range f.templates.byID {
		if t.WABA == r.PathValue("waba") && t.Name == name && (id == "" || t.ID == id) {
			ids = append(ids, t.ID)
		}
	}
	if len(ids) == 0 {
		templateError(w, 2593002, "Message template not found", "The message template "+name+" was not found.")
		return
	}
	sort.Strings(ids)
	for _, id := range ids {
		delete(f.templates.byID, id)
	}
	JSON(http.StatusOK, map[string]any{"success": true}).write(w)
}

// postNode answers POST /{id}: a product update (catalogs.go), a flow's
// metadata (flows.go) or a
// template edit when id is theirs, else the bytes of a Resumable Upload API session.
func (f *Fake) postNode(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if f.isProduct(id) {
		f.updateProduct(w, r, id)
		return
	}
	if _, ok := f.flowByID(id); ok {
		f.updateFlowMetadata(w, r, id)
		return
	}
	f.mu.Lock()
	t, ok := f.templates.byID[id]
	f.mu.Unlock()
	if !ok || strings.HasPrefix(id, "upload:") {
		f.uploadData(w, r)
		return
	}
	var in struct {
		Category   string           `json:"category"`
		Components []map[string]any `json:"components"`
	}
	if err := json.Unmarshal(readBody(r), &in); err != nil || len(in.Components) == 0 {
		InvalidParameter("components are required").write(w)
		return
	}
	f.mu.Lock()
	t.Components, t.Status = in.Components, "PENDING"
	if in.Category != "" {
		t.Category = in.Category
	}
	t.Edits++
	f.mu.Unlock()
	JSON(http.StatusOK, map[string]any{"success": true}).write(w)
}
