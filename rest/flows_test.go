package rest_test

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"

	"switchboard/access"
)

var formFlowKeys = []string{"id", "chat_account", "provider_flow_id", "name", "status", "category", "json_version",
	"flow_json", "screens", "preview_url", "has_local_changes", "created_at", "updated_at"}

// flowDoc is a valid two-screen Flow JSON; WELCOME's title is title.
func flowDoc(t *testing.T, title string) map[string]any {
	t.Helper()
	var doc map[string]any
	err := json.Unmarshal([]byte(`{"version":"6.0","screens":[
 {"id":"WELCOME","title":"`+title+`","layout":{"type":"SingleColumnLayout","children":[
  {"type":"TextInput","name":"first_name","label":"First name"},
  {"type":"Footer","label":"Next","on-click-action":{"name":"navigate","next":{"type":"screen","name":"DONE"},"payload":{}}}]}},
 {"id":"DONE","title":"Done","terminal":true,"layout":{"type":"SingleColumnLayout","children":[
  {"type":"Footer","label":"Send","on-click-action":{"name":"complete","payload":{"first_name":"${form.first_name}"}}}]}}]}`), &doc)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func flowBody(t *testing.T, name string, overrides map[string]any) map[string]any {
	b := map[string]any{"chat_account": "Main", "name": name, "category": "CUSTOMER_SUPPORT", "flow_json": flowDoc(t, "Welcome")}
	for k, v := range overrides {
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
	}
	return b
}

func TestFormFlowsCRUD(t *testing.T) {
	e := newSendEnv(t)
	admin := e.Admin
	agent := e.NewUser(e.OrgID, access.RoleAgent)
	other := e.NewOrg("Elsewhere")

	var id string
	t.Run("Create", func(t *testing.T) {
		agent.Do(http.MethodPost, "/api/flows", flowBody(t, "Signup", nil)).ExpectError(t, http.StatusForbidden)
		res := admin.Do(http.MethodPost, "/api/flows", flowBody(t, "Signup", map[string]any{"json_version": nil})).
			ExpectStatus(t, http.StatusCreated)
		f, _ := res.Get("data.flow").(map[string]any)
		keys := make([]string, 0, len(f))
		for k := range f {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		want := append([]string(nil), formFlowKeys...)
		sort.Strings(want)
		if strings.Join(keys, ",") != strings.Join(want, ",") {
			t.Fatalf("keys %v, want %v", keys, want)
		}
		id = res.String("data.flow.id")
		if res.String("data.flow.status") != "DRAFT" || res.String("data.flow.json_version") != "6.0" ||
			res.String("data.flow.provider_flow_id") != "" || res.Get("data.flow.has_local_changes") != true ||
			res.Len("data.flow.screens") != 2 || res.String("data.flow.screens.0.id") != "WELCOME" {
			t.Fatalf("created: %s", res.Raw)
		}
		// Screens alone make the Flow JSON, with the default version.
		res = admin.Do(http.MethodPost, "/api/flows", map[string]any{"chat_account": "Main", "name": "From screens",
			"screens": flowDoc(t, "x")["screens"]}).ExpectStatus(t, http.StatusCreated)
		if res.String("data.flow.flow_json.version") != "6.0" || res.Len("data.flow.flow_json.screens") != 2 {
			t.Fatalf("from screens: %s", res.Raw)
		}
		// No content yet is a valid draft.
		admin.Do(http.MethodPost, "/api/flows", map[string]any{"chat_account": "Main", "name": "Empty"}).ExpectStatus(t, http.StatusCreated)
	})
	t.Run("CreateInvalid", func(t *testing.T) {
		noTerminal := flowDoc(t, "x")
		delete(noTerminal["screens"].([]any)[1].(map[string]any), "terminal")
		cases := map[string]struct {
			body any
			want string
		}{
			"ErrNoAccount":      {flowBody(t, "A", map[string]any{"chat_account": nil}), "chat_account is required"},
			"ErrUnknownAccount": {flowBody(t, "A", map[string]any{"chat_account": "Nope"}), "not found"},
			"ErrNoName":         {flowBody(t, "", nil), "name is required"},
			"ErrCategory":       {flowBody(t, "A", map[string]any{"category": "GAMES"}), "category must be one of"},
			"ErrNoTerminal":     {flowBody(t, "A", map[string]any{"flow_json": noTerminal}), "no terminal screen"},
			"ErrVersion":        {flowBody(t, "A", map[string]any{"json_version": "7.0"}), "differs from flow_json.version"},
			"ErrBadVersion":     {flowBody(t, "A", map[string]any{"json_version": "latest", "flow_json": nil}), "json_version"},
			"ErrFlowJSONType":   {flowBody(t, "A", map[string]any{"flow_json": "text"}), ""},
			"ErrNotJSON":        {"{", ""},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				res := admin.Do(http.MethodPost, "/api/flows", tc.body).ExpectError(t, http.StatusBadRequest)
				if !strings.Contains(res.String("message"), tc.want) {
					t.Errorf("message %q, want %q", res.String("message"), tc.want)
				}
			})
		}
	})
	t.Run("ListAndGet", func(t *testing.T) {
		res := admin.Do(http.MethodGet, "/api/flows?status=DRAFT&search=sign&account=Main", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.total") != 1 || res.String("data.flows.0.id") != id || res.Number("data.limit") != 20 {
			t.Fatalf("list: %s", res.Raw)
		}
		if n := agent.Do(http.MethodGet, "/api/flows", nil).ExpectStatus(t, http.StatusOK).Number("data.total"); n != 3 {
			t.Errorf("agent sees %v flows", n)
		}
		if n := other.Do(http.MethodGet, "/api/flows", nil).ExpectStatus(t, http.StatusOK).Number("data.total"); n != 0 {
			t.Errorf("another organization sees %v flows", n)
		}
		admin.Do(http.MethodGet, "/api/flows?status=LIVE", nil).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodGet, "/api/flows?page=0", nil).ExpectError(t, http.StatusBadRequest)
		if admin.Do(http.MethodGet, "/api/flows/"+id, nil).ExpectStatus(t, http.StatusOK).String("data.flow.name") != "Signup" {
			t.Error("get")
		}
		other.Do(http.MethodGet, "/api/flows/"+id, nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodGet, "/api/flows/not-a-uuid", nil).ExpectError(t, http.StatusBadRequest)
	})
	t.Run("Update", func(t *testing.T) {
		agent.Do(http.MethodPut, "/api/flows/"+id, map[string]any{"name": "x"}).ExpectError(t, http.StatusForbidden)
		other.Do(http.MethodPut, "/api/flows/"+id, map[string]any{"name": "x"}).ExpectError(t, http.StatusNotFound)
		res := admin.Do(http.MethodPut, "/api/flows/"+id, map[string]any{"name": "Sign up", "category": "SIGN_UP"}).
			ExpectStatus(t, http.StatusOK)
		if res.String("data.flow.name") != "Sign up" || res.String("data.flow.category") != "SIGN_UP" || res.Len("data.flow.screens") != 2 {
			t.Fatalf("update: %s", res.Raw)
		}
		screens := flowDoc(t, "Hello")["screens"]
		res = admin.Do(http.MethodPut, "/api/flows/"+id, map[string]any{"screens": screens}).ExpectStatus(t, http.StatusOK)
		if res.String("data.flow.flow_json.screens.0.title") != "Hello" || res.String("data.flow.screens.0.title") != "Hello" {
			t.Fatalf("screens update: %s", res.Raw)
		}
		admin.Do(http.MethodPut, "/api/flows/"+id, map[string]any{"chat_account": "Other"}).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodPut, "/api/flows/"+id, map[string]any{"screens": []any{}}).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodPut, "/api/flows/"+id, map[string]any{"name": " "}).ExpectError(t, http.StatusBadRequest)
	})
	t.Run("Duplicate", func(t *testing.T) {
		agent.Do(http.MethodPost, "/api/flows/"+id+"/duplicate", nil).ExpectError(t, http.StatusForbidden)
		other.Do(http.MethodPost, "/api/flows/"+id+"/duplicate", nil).ExpectError(t, http.StatusNotFound)
		res := admin.Do(http.MethodPost, "/api/flows/"+id+"/duplicate", nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.flow.name") != "Sign up (copy)" || res.String("data.flow.status") != "DRAFT" ||
			res.String("data.flow.id") == id || res.String("data.message") == "" ||
			res.String("data.flow.flow_json.screens.0.title") != "Hello" {
			t.Fatalf("duplicate: %s", res.Raw)
		}
		res = admin.Do(http.MethodPost, "/api/flows/"+id+"/duplicate", nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.flow.name") != "Sign up (copy 2)" {
			t.Fatalf("second duplicate: %s", res.Raw)
		}
	})
	t.Run("Delete", func(t *testing.T) {
		agent.Do(http.MethodDelete, "/api/flows/"+id, nil).ExpectError(t, http.StatusForbidden)
		other.Do(http.MethodDelete, "/api/flows/"+id, nil).ExpectError(t, http.StatusNotFound)
		res := admin.Do(http.MethodDelete, "/api/flows/"+id, nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.message") == "" {
			t.Errorf("delete: %s", res.Raw)
		}
		admin.Do(http.MethodGet, "/api/flows/"+id, nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodDelete, "/api/flows/"+id, nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodPut, "/api/flows/"+id, map[string]any{"name": "x"}).ExpectError(t, http.StatusNotFound)
		if n := admin.Do(http.MethodGet, "/api/flows?search=Sign%20up", nil).Number("data.total"); n != 2 {
			t.Errorf("%v flows named Sign up after the delete, want the 2 copies", n)
		}
	})
}

func TestFormFlowsGraphQL(t *testing.T) {
	e := newSendEnv(t)
	agent := e.NewUser(e.OrgID, access.RoleAgent)
	other := e.NewOrg("Elsewhere")
	res := e.Admin.GraphQL(`mutation($in: FormFlowInput!) { createFormFlow(input: $in) { id name status jsonVersion hasLocalChanges screens } }`,
		map[string]any{"in": map[string]any{"chatAccount": "Main", "name": "GQL", "flowJson": flowDoc(t, "Hi")}})
	id := res.String("data.createFormFlow.id")
	if id == "" || res.String("data.createFormFlow.status") != "DRAFT" || res.Len("data.createFormFlow.screens") != 2 {
		t.Fatalf("create: %s", res.Raw)
	}
	if code := agent.GraphQL(`mutation($in: FormFlowInput!) { createFormFlow(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"chatAccount": "Main", "name": "x"}}).GraphQLErrorCode(); code != "FORBIDDEN" && code != "forbidden" {
		t.Errorf("agent create: %s", code)
	}
	if code := e.Admin.GraphQL(`mutation($in: FormFlowInput!) { createFormFlow(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"chatAccount": "Main", "name": "x", "screens": []any{}}}).GraphQLErrorCode(); !strings.EqualFold(code, "invalid") {
		t.Errorf("invalid create: %s", code)
	}
	res = agent.GraphQL(`query { formFlows(search: "gql") { total flows { id name } } }`, nil)
	if res.Number("data.formFlows.total") != 1 || res.String("data.formFlows.flows.0.id") != id {
		t.Fatalf("list: %s", res.Raw)
	}
	if code := other.GraphQL(`query($id: ID!) { formFlow(id: $id) { id } }`, map[string]any{"id": id}).GraphQLErrorCode(); !strings.EqualFold(code, "not_found") {
		t.Errorf("other organization: %s", code)
	}
	res = e.Admin.GraphQL(`mutation($id: ID!) { duplicateFormFlow(id: $id) { message flow { name } } }`, map[string]any{"id": id})
	if res.String("data.duplicateFormFlow.flow.name") != "GQL (copy)" {
		t.Fatalf("duplicate: %s", res.Raw)
	}
	res = e.Admin.GraphQL(`mutation($id: ID!) { saveFormFlowToProvider(id: $id) { message flow { providerFlowID hasLocalChanges } } }`, map[string]any{"id": id})
	if res.String("data.saveFormFlowToProvider.flow.providerFlowID") == "" || res.Get("data.saveFormFlowToProvider.flow.hasLocalChanges") != false {
		t.Fatalf("save: %s", res.Raw)
	}
	res = e.Admin.GraphQL(`mutation { syncFormFlows(chatAccount: "Main") { synced created updated } }`, nil)
	if res.Number("data.syncFormFlows.synced") != 1 || res.Number("data.syncFormFlows.created") != 0 {
		t.Fatalf("sync: %s", res.Raw)
	}
	if e.Admin.GraphQL(`mutation($id: ID!) { deleteFormFlow(id: $id) }`, map[string]any{"id": id}).Get("data.deleteFormFlow") != true {
		t.Fatal("delete")
	}
}
