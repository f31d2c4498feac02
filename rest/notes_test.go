package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"switchboard/access"
	"switchboard/events"
	"switchboard/internal/apitest"
	"switchboard/notes"
)

var noteKeys = []string{"id", "contact_id", "created_by_id", "created_by_name", "content", "created_at", "updated_at"}

func TestContactNotes(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	author := env.NewUser(env.OrgID, access.RoleAgent)
	colleague := env.NewUser(env.OrgID, access.RoleAgent)
	manager := env.NewUser(env.OrgID, access.RoleManager)
	other := env.NewOrg("Elsewhere")
	contactID := newContact(t, admin, "+15550002001")
	otherContact := newContact(t, admin, "+15550002002")
	theirContact := newContact(t, other, "+15550002003")
	live := wsDial(t, env.Server.URL, admin, false)
	foreign := wsDial(t, env.Server.URL, other, true)
	path := "/api/contacts/" + contactID + "/notes"

	var noteID string
	t.Run("Create", func(t *testing.T) {
		res := author.Do(http.MethodPost, path, map[string]any{"content": "  Called back, wants a refund  "}).
			ExpectStatus(t, http.StatusCreated)
		expectKeys(t, res, "data", noteKeys...)
		noteID = res.String("data.id")
		if res.String("data.content") != "Called back, wants a refund" || res.String("data.contact_id") != contactID ||
			res.String("data.created_by_id") != author.UserID.String() || res.String("data.created_by_name") != "Agent User" {
			t.Fatalf("note: %s", res.Raw)
		}
		ev := wsWaitFor(t, live, events.FrameContactNoteCreated)
		if ev.Payload["id"] != noteID || ev.Payload["contact_id"] != contactID || ev.Payload["content"] != "Called back, wants a refund" {
			t.Errorf("event: %+v", ev)
		}
		badRequests(t, author, http.MethodPost, path, map[string]any{
			"ErrMalformedJSON": "{",
			"ErrEmptyBody":     "",
			"ErrMissing":       `{}`,
			"ErrEmpty":         `{"content": "   "}`,
			"ErrWrongType":     `{"content": 5}`,
			"ErrNUL":           `{"content": "a\u0000b"}`,
			"ErrTooLong":       map[string]any{"content": strings.Repeat("é", notes.MaxContentLength+1)},
		})
		author.Do(http.MethodPost, "/api/contacts/not-a-uuid/notes", map[string]any{"content": "x"}).ExpectError(t, http.StatusBadRequest)
		t.Run("ErrUnknownContact", func(t *testing.T) {
			author.Do(http.MethodPost, "/api/contacts/"+otherContact[:24]+"000000000000/notes", map[string]any{"content": "x"}).
				ExpectError(t, http.StatusNotFound)
		})
		t.Run("ErrAnotherOrganizationsContact", func(t *testing.T) {
			author.Do(http.MethodPost, "/api/contacts/"+theirContact+"/notes", map[string]any{"content": "x"}).
				ExpectError(t, http.StatusNotFound)
		})
		env.Anonymous().Do(http.MethodPost, path, map[string]any{"content": "x"}).ExpectError(t, http.StatusUnauthorized)
	})

	t.Run("ListPages", func(t *testing.T) {
		for _, text := range []string{"second", "third", "fourth"} {
			colleague.Do(http.MethodPost, path, map[string]any{"content": text}).ExpectStatus(t, http.StatusCreated)
		}
		res := colleague.Do(http.MethodGet, path, nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.notes") != 4 || res.Number("data.total") != 4 || res.Get("data.has_more") != false ||
			res.String("data.notes.0.id") != noteID || res.String("data.notes.3.content") != "fourth" {
			t.Fatalf("notes: %s", res.Raw)
		}
		expectKeys(t, res, "data.notes.0", noteKeys...)
		page := colleague.Do(http.MethodGet, path+"?limit=2", nil).ExpectStatus(t, http.StatusOK)
		if page.Len("data.notes") != 2 || page.Get("data.has_more") != true || page.String("data.notes.0.content") != "third" {
			t.Fatalf("newest page: %s", page.Raw)
		}
		older := colleague.Do(http.MethodGet, path+"?limit=2&before="+page.String("data.notes.0.id"), nil).ExpectStatus(t, http.StatusOK)
		if older.Len("data.notes") != 2 || older.Get("data.has_more") != false || older.String("data.notes.0.id") != noteID ||
			older.String("data.notes.1.content") != "second" {
			t.Fatalf("older page: %s", older.Raw)
		}
		if n := colleague.Do(http.MethodGet, "/api/contacts/"+otherContact+"/notes", nil).ExpectStatus(t, http.StatusOK); n.Len("data.notes") != 0 {
			t.Errorf("another contact's notes: %s", n.Raw)
		}
		colleague.Do(http.MethodGet, path+"?limit=0", nil).ExpectError(t, http.StatusBadRequest)
		colleague.Do(http.MethodGet, path+"?limit=x", nil).ExpectError(t, http.StatusBadRequest)
		colleague.Do(http.MethodGet, path+"?before=nope", nil).ExpectError(t, http.StatusBadRequest)
		// A cursor that is not one of this contact's notes.
		colleague.Do(http.MethodGet, "/api/contacts/"+otherContact+"/notes?before="+noteID, nil).ExpectError(t, http.StatusNotFound)
		other.Do(http.MethodGet, path, nil).ExpectError(t, http.StatusNotFound)
		env.Anonymous().Do(http.MethodGet, path, nil).ExpectError(t, http.StatusUnauthorized)
	})

	t.Run("Update", func(t *testing.T) {
		res := author.Do(http.MethodPut, path+"/"+noteID, map[string]any{"content": "Refund sent"}).ExpectStatus(t, http.StatusOK)
		if res.String("data.content") != "Refund sent" || res.String("data.created_by_id") != author.UserID.String() {
			t.Fatalf("note: %s", res.Raw)
		}
		if ev := wsWaitFor(t, live, events.FrameContactNoteUpdated); ev.Payload["id"] != noteID || ev.Payload["content"] != "Refund sent" {
			t.Errorf("event: %+v", ev)
		}
		t.Run("ErrNotTheAuthor", func(t *testing.T) {
			colleague.Do(http.MethodPut, path+"/"+noteID, map[string]any{"content": "mine now"}).ExpectError(t, http.StatusForbidden)
		})
		t.Run("MemberWhoMayUpdateContacts", func(t *testing.T) {
			res := manager.Do(http.MethodPut, path+"/"+noteID, map[string]any{"content": "Refund sent (checked)"}).
				ExpectStatus(t, http.StatusOK)
			if res.String("data.created_by_id") != author.UserID.String() {
				t.Errorf("the author changed: %s", res.Raw)
			}
		})
		t.Run("ErrNoteOfAnotherContact", func(t *testing.T) {
			author.Do(http.MethodPut, "/api/contacts/"+otherContact+"/notes/"+noteID, map[string]any{"content": "x"}).
				ExpectError(t, http.StatusNotFound)
		})
		other.Do(http.MethodPut, path+"/"+noteID, map[string]any{"content": "x"}).ExpectError(t, http.StatusNotFound)
		author.Do(http.MethodPut, path+"/not-a-uuid", map[string]any{"content": "x"}).ExpectError(t, http.StatusBadRequest)
		badRequests(t, author, http.MethodPut, path+"/"+noteID, map[string]any{
			"ErrMissing": `{}`, "ErrEmpty": `{"content": ""}`, "ErrMalformedJSON": "{",
		})
	})

	t.Run("Delete", func(t *testing.T) {
		colleague.Do(http.MethodDelete, path+"/"+noteID, nil).ExpectError(t, http.StatusForbidden)
		res := author.Do(http.MethodDelete, path+"/"+noteID, nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.message") == "" {
			t.Errorf("delete: %s", res.Raw)
		}
		if ev := wsWaitFor(t, live, events.FrameContactNoteDeleted); ev.Payload["id"] != noteID || ev.Payload["contact_id"] != contactID {
			t.Errorf("event: %+v", ev)
		}
		author.Do(http.MethodDelete, path+"/"+noteID, nil).ExpectError(t, http.StatusNotFound)
	})

	t.Run("EventsStayInTheirOrganization", func(t *testing.T) {
		// The bus keeps order: had any of the events above reached the
		// other organization, it would come before this one.
		other.Do(http.MethodPost, "/api/contacts/"+theirContact+"/notes", map[string]any{"content": "theirs"}).
			ExpectStatus(t, http.StatusCreated)
		if ev := wsRead(t, foreign); ev.Type != events.FrameContactNoteCreated || ev.Payload["content"] != "theirs" {
			t.Fatalf("first event of the other organization: %+v", ev)
		}
	})

	t.Run("GraphQL", func(t *testing.T) {
		res := author.GraphQL(`mutation($c: ID!) { createContactNote(contactId: $c, content: "via graphql") {
			id content author { id fullName } } }`, map[string]any{"c": contactID})
		id := res.String("data.createContactNote.id")
		if res.Get("errors") != nil || res.String("data.createContactNote.author.id") != author.UserID.String() {
			t.Fatalf("createContactNote: %s", res.Raw)
		}
		res = colleague.GraphQL(`query($c: ID!) { contactNotes(contactId: $c, limit: 1) { total hasMore notes { id content } } }`,
			map[string]any{"c": contactID})
		if res.Get("errors") != nil || res.String("data.contactNotes.notes.0.id") != id || res.Get("data.contactNotes.hasMore") != true {
			t.Fatalf("contactNotes: %s", res.Raw)
		}
		res = colleague.GraphQL(`mutation($c: ID!, $id: ID!) { deleteContactNote(contactId: $c, id: $id) }`,
			map[string]any{"c": contactID, "id": id})
		if res.GraphQLErrorCode() != "forbidden" {
			t.Errorf("colleague deleteContactNote: %s", res.Raw)
		}
		res = author.GraphQL(`mutation($c: ID!, $id: ID!) { updateContactNote(contactId: $c, id: $id, content: "") { id } }`,
			map[string]any{"c": contactID, "id": id})
		if res.GraphQLErrorCode() != "invalid" {
			t.Errorf("empty content: %s", res.Raw)
		}
		res = other.GraphQL(`query($c: ID!) { contactNotes(contactId: $c) { total } }`, map[string]any{"c": contactID})
		if res.GraphQLErrorCode() != "not_found" {
			t.Errorf("another organization's contact: %s", res.Raw)
		}
	})

	t.Run("DeletingTheContactDeletesItsNotes", func(t *testing.T) {
		admin.Do(http.MethodDelete, "/api/contacts/"+contactID, nil).ExpectStatus(t, http.StatusOK)
		admin.Do(http.MethodGet, path, nil).ExpectError(t, http.StatusNotFound)
	})
}
