package rest_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"switchboard/access"
	"switchboard/internal/apitest"
)

var tagKeys = []string{"id", "name", "color", "created_at", "updated_at"}

// contactTags reads a contact's tags through the API.
func contactTags(t *testing.T, c *apitest.Client, id string) []string {
	t.Helper()
	res := c.Do(http.MethodGet, "/api/contacts/"+id, nil).ExpectStatus(t, http.StatusOK)
	var out []string
	for _, v := range res.Get("data.tags").([]any) {
		out = append(out, v.(string))
	}
	return out
}

func newContact(t *testing.T, c *apitest.Client, phone string, tags ...string) string {
	t.Helper()
	if tags == nil {
		tags = []string{}
	}
	return c.Do(http.MethodPost, "/api/contacts", map[string]any{"phone_number": phone, "tags": tags}).
		ExpectStatus(t, http.StatusCreated).String("data.id")
}

func TestTags(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")

	t.Run("Create", func(t *testing.T) {
		res := admin.Do(http.MethodPost, "/api/tags", map[string]any{"name": " vip ", "color": "purple"}).
			ExpectStatus(t, http.StatusCreated)
		expectKeys(t, res, "data", tagKeys...)
		if res.String("data.name") != "vip" || res.String("data.color") != "purple" {
			t.Fatalf("tag: %s", res.Raw)
		}
		res = admin.Do(http.MethodPost, "/api/tags", map[string]any{"name": "gold"}).ExpectStatus(t, http.StatusCreated)
		if res.String("data.color") != "gray" {
			t.Errorf("default color: %s", res.Raw)
		}
		t.Run("ErrDuplicate", func(t *testing.T) {
			admin.Do(http.MethodPost, "/api/tags", map[string]any{"name": "vip"}).ExpectError(t, http.StatusConflict)
		})
		t.Run("SameNameInAnotherOrganization", func(t *testing.T) {
			other.Do(http.MethodPost, "/api/tags", map[string]any{"name": "vip", "color": "red"}).ExpectStatus(t, http.StatusCreated)
		})
		badRequests(t, admin, http.MethodPost, "/api/tags", map[string]any{
			"ErrMalformedJSON": "{",
			"ErrEmptyBody":     "",
			"ErrNameRequired":  `{"color": "red"}`,
			"ErrEmptyName":     `{"name": "  "}`,
			"ErrLongName":      map[string]any{"name": strings.Repeat("x", 65)},
			"ErrNUL":           `{"name": "a\u0000b"}`,
			"ErrBadColor":      `{"name": "c", "color": "#ff0000"}`,
			"ErrWrongType":     `{"name": 5}`,
		})
		t.Run("ErrAgentForbidden", func(t *testing.T) {
			agent.Do(http.MethodPost, "/api/tags", map[string]any{"name": "agent-tag"}).ExpectError(t, http.StatusForbidden)
		})
	})

	t.Run("List", func(t *testing.T) {
		res := agent.Do(http.MethodGet, "/api/tags", nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.tags") != 2 || res.String("data.tags.0.name") != "gold" || res.String("data.tags.1.name") != "vip" ||
			res.Number("data.total") != 2 {
			t.Fatalf("tags: %s", res.Raw)
		}
		expectKeys(t, res, "data.tags.0", tagKeys...)
		res = agent.Do(http.MethodGet, "/api/tags?search=VI&limit=1", nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.tags") != 1 || res.String("data.tags.0.name") != "vip" || res.String("data.tags.0.color") != "purple" {
			t.Fatalf("search: %s", res.Raw)
		}
		agent.Do(http.MethodGet, "/api/tags?page=0", nil).ExpectError(t, http.StatusBadRequest)
		agent.Do(http.MethodGet, "/api/tags?search=a%00b", nil).ExpectError(t, http.StatusBadRequest)
		env.Anonymous().Do(http.MethodGet, "/api/tags", nil).ExpectError(t, http.StatusUnauthorized)
	})

	t.Run("RenameRewritesContacts", func(t *testing.T) {
		both := newContact(t, admin, "+15550001001", "vip", "new")
		only := newContact(t, admin, "+15550001002", "vip")
		already := newContact(t, admin, "+15550001003", "vip", "platinum")
		untouched := newContact(t, admin, "+15550001004", "other")
		theirs := newContact(t, other, "+15550001001", "vip")
		res := admin.Do(http.MethodPut, "/api/tags/vip", map[string]any{"name": "platinum"}).ExpectStatus(t, http.StatusOK)
		if res.String("data.name") != "platinum" || res.String("data.color") != "purple" {
			t.Fatalf("renamed: %s", res.Raw)
		}
		for id, want := range map[string][]string{
			both: {"platinum", "new"}, only: {"platinum"}, already: {"platinum"}, untouched: {"other"},
		} {
			if got := contactTags(t, admin, id); !slices.Equal(got, want) {
				t.Errorf("contact %s: tags %v, want %v", id, got, want)
			}
		}
		if got := contactTags(t, other, theirs); !slices.Equal(got, []string{"vip"}) {
			t.Errorf("another organization's contact changed: %v", got)
		}
		if got := admin.Do(http.MethodGet, "/api/contacts?tags=platinum", nil).Number("data.total"); got != 3 {
			t.Errorf("contacts with the new name: %v", got)
		}
	})
	t.Run("Recolor", func(t *testing.T) {
		res := admin.Do(http.MethodPut, "/api/tags/platinum", map[string]any{"color": "yellow"}).ExpectStatus(t, http.StatusOK)
		if res.String("data.name") != "platinum" || res.String("data.color") != "yellow" {
			t.Fatalf("recolored: %s", res.Raw)
		}
	})
	t.Run("ErrRenameToTakenNameChangesNothing", func(t *testing.T) {
		id := newContact(t, admin, "+15550001005", "platinum")
		admin.Do(http.MethodPut, "/api/tags/platinum", map[string]any{"name": "gold"}).ExpectError(t, http.StatusConflict)
		if got := contactTags(t, admin, id); !slices.Equal(got, []string{"platinum"}) {
			t.Errorf("contact tags after a refused rename: %v", got)
		}
		admin.Do(http.MethodGet, "/api/tags?search=platinum", nil).ExpectStatus(t, http.StatusOK)
	})
	t.Run("NameWithSlash", func(t *testing.T) {
		admin.Do(http.MethodPost, "/api/tags", map[string]any{"name": "a/b"}).ExpectStatus(t, http.StatusCreated)
		res := admin.Do(http.MethodPut, "/api/tags/a/b", map[string]any{"color": "green"}).ExpectStatus(t, http.StatusOK)
		if res.String("data.name") != "a/b" || res.String("data.color") != "green" {
			t.Fatalf("tag: %s", res.Raw)
		}
	})
	t.Run("UpdateErrors", func(t *testing.T) {
		admin.Do(http.MethodPut, "/api/tags/nope", map[string]any{"color": "red"}).ExpectError(t, http.StatusNotFound)
		// Another organization's tag is not found.
		other.Do(http.MethodPut, "/api/tags/gold", map[string]any{"color": "red"}).ExpectError(t, http.StatusNotFound)
		badRequests(t, admin, http.MethodPut, "/api/tags/gold", map[string]any{
			"ErrMalformedJSON": "{",
			"ErrBadColor":      `{"color": "pink"}`,
			"ErrEmptyName":     `{"name": ""}`,
			"ErrLongName":      map[string]any{"name": strings.Repeat("y", 65)},
		})
		agent.Do(http.MethodPut, "/api/tags/gold", map[string]any{"color": "red"}).ExpectError(t, http.StatusForbidden)
	})

	t.Run("DeleteRemovesFromContacts", func(t *testing.T) {
		id := newContact(t, admin, "+15550001006", "gold", "keep")
		theirs := newContact(t, other, "+15550001006", "gold")
		other.Do(http.MethodPost, "/api/tags", map[string]any{"name": "gold"}).ExpectStatus(t, http.StatusCreated)
		agent.Do(http.MethodDelete, "/api/tags/gold", nil).ExpectError(t, http.StatusForbidden)
		res := admin.Do(http.MethodDelete, "/api/tags/gold", nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.message") == "" {
			t.Errorf("delete: %s", res.Raw)
		}
		if got := contactTags(t, admin, id); !slices.Equal(got, []string{"keep"}) {
			t.Errorf("contact tags after delete: %v", got)
		}
		if got := contactTags(t, other, theirs); !slices.Equal(got, []string{"gold"}) {
			t.Errorf("another organization's contact changed: %v", got)
		}
		admin.Do(http.MethodDelete, "/api/tags/gold", nil).ExpectError(t, http.StatusNotFound)
		other.Do(http.MethodGet, "/api/tags?search=gold", nil).ExpectStatus(t, http.StatusOK)
	})

	t.Run("SetContactTags", func(t *testing.T) {
		id := newContact(t, admin, "+15550001007")
		res := admin.Do(http.MethodPut, "/api/contacts/"+id+"/tags", map[string]any{"tags": []string{" a ", "b", "a"}}).
			ExpectStatus(t, http.StatusOK)
		if res.String("data.id") != id || res.Len("data.tags") != 2 || res.String("data.tags.0") != "a" {
			t.Fatalf("contact: %s", res.Raw)
		}
		badRequests(t, admin, http.MethodPut, "/api/contacts/"+id+"/tags", map[string]any{
			"ErrMissing":   `{}`,
			"ErrWrongType": `{"tags": "a"}`,
			"ErrEmptyTag":  `{"tags": [""]}`,
		})
		admin.Do(http.MethodPut, "/api/contacts/not-a-uuid/tags", map[string]any{"tags": []string{}}).ExpectError(t, http.StatusBadRequest)
		other.Do(http.MethodPut, "/api/contacts/"+id+"/tags", map[string]any{"tags": []string{"x"}}).ExpectError(t, http.StatusNotFound)
		agent.Do(http.MethodPut, "/api/contacts/"+id+"/tags", map[string]any{"tags": []string{"x"}}).ExpectError(t, http.StatusForbidden)
	})

	t.Run("GraphQL", func(t *testing.T) {
		res := admin.GraphQL(`mutation { createTag(input: {name: "gql", color: "blue"}) { id name color } }`, nil)
		if res.Get("errors") != nil || res.String("data.createTag.color") != "blue" {
			t.Fatalf("createTag: %s", res.Raw)
		}
		id := newContact(t, admin, "+15550001008", "gql")
		res = admin.GraphQL(`mutation { updateTag(name: "gql", input: {name: "gql2"}) { name color } }`, nil)
		if res.Get("errors") != nil || res.String("data.updateTag.name") != "gql2" {
			t.Fatalf("updateTag: %s", res.Raw)
		}
		if got := contactTags(t, admin, id); !slices.Equal(got, []string{"gql2"}) {
			t.Errorf("contact tags after a GraphQL rename: %v", got)
		}
		res = agent.GraphQL(`{ tags(search: "gql") { totalCount edges { node { name color } } } }`, nil)
		if res.Get("errors") != nil || res.Number("data.tags.totalCount") != 1 || res.String("data.tags.edges.0.node.name") != "gql2" {
			t.Fatalf("tags: %s", res.Raw)
		}
		if res := agent.GraphQL(`mutation { deleteTag(name: "gql2") }`, nil); res.GraphQLErrorCode() != "forbidden" {
			t.Errorf("agent deleteTag: %s", res.Raw)
		}
		if res := admin.GraphQL(`mutation { createTag(input: {name: "x", color: "teal"}) { id } }`, nil); res.GraphQLErrorCode() != "invalid" {
			t.Errorf("bad color: %s", res.Raw)
		}
		if res := other.GraphQL(`mutation { deleteTag(name: "gql2") }`, nil); res.GraphQLErrorCode() != "not_found" {
			t.Errorf("another organization's tag: %s", res.Raw)
		}
		res = admin.GraphQL(`mutation { deleteTag(name: "gql2") }`, nil)
		if res.Get("errors") != nil || res.Get("data.deleteTag") != true {
			t.Fatalf("deleteTag: %s", res.Raw)
		}
		if got := contactTags(t, admin, id); len(got) != 0 {
			t.Errorf("contact tags after a GraphQL delete: %v", got)
		}
	})
}
