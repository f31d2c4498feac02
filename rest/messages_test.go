package rest_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/ent/message"
)

func TestListMessages(t *testing.T) {
	e := newWebhookEnv(t)
	c, err := e.Client().Contact.Create().SetPhoneNumber("15553334444").Save(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Hour).UTC()
	for i := 0; i < 7; i++ {
		account := "Main"
		if i == 3 {
			account = "Other"
		}
		err := e.Client().Message.Create().SetContactID(c.ID).SetDirection(message.DirectionIncoming).
			SetMessageType("text").SetContent(map[string]any{"body": fmt.Sprint(i)}).SetChatAccount(account).
			SetChatMessageID(fmt.Sprintf("wamid.l%d", i)).SetCreatedAt(base.Add(time.Duration(i) * time.Minute)).Exec(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
	}
	path := "/api/contacts/" + c.ID.String() + "/messages"
	first := e.Admin.Do(http.MethodGet, path+"?limit=3", nil).ExpectStatus(t, http.StatusOK)
	if first.Number("data.total") != 7 || first.Len("data.messages") != 3 || first.Get("data.has_more") != nil {
		t.Fatalf("first page: %s", first.Raw)
	}
	if first.String("data.messages.0.content.body") != "4" || first.String("data.messages.2.content.body") != "6" {
		t.Fatalf("first page is not the newest, oldest first: %s", first.Raw)
	}
	for _, f := range []string{"id", "contact_id", "direction", "message_type", "content", "status", "chat_message_id", "chat_account", "created_at", "updated_at"} {
		if _, ok := first.Get("data.messages.0").(map[string]any)[f]; !ok {
			t.Errorf("message field %s missing", f)
		}
	}
	oldest := first.String("data.messages.0.id")
	next := e.Admin.Do(http.MethodGet, path+"?limit=3&before_id="+oldest, nil).ExpectStatus(t, http.StatusOK)
	if next.Get("data.has_more") != true || next.Get("data.total") != nil || next.String("data.messages.2.content.body") != "3" {
		t.Fatalf("second page: %s", next.Raw)
	}
	last := e.Admin.Do(http.MethodGet, path+"?limit=3&before_id="+next.String("data.messages.0.id"), nil).ExpectStatus(t, http.StatusOK)
	if last.Get("data.has_more") != false || last.Len("data.messages") != 1 {
		t.Fatalf("last page: %s", last.Raw)
	}
	other := e.Admin.Do(http.MethodGet, path+"?account=Other", nil).ExpectStatus(t, http.StatusOK)
	if other.Number("data.total") != 1 || other.String("data.messages.0.content.body") != "3" {
		t.Fatalf("account filter: %s", other.Raw)
	}
	capped := e.Admin.Do(http.MethodGet, path+"?limit=500", nil).ExpectStatus(t, http.StatusOK)
	if capped.Len("data.messages") != 7 {
		t.Fatalf("limit 500: %s", capped.Raw)
	}

	foreign := e.NewOrg("Elsewhere")
	for name, tc := range map[string]struct {
		path string
		want int
	}{
		"BadContactID":    {"/api/contacts/nope/messages", http.StatusBadRequest},
		"BadBeforeID":     {path + "?before_id=nope", http.StatusBadRequest},
		"BadLimit":        {path + "?limit=zero", http.StatusBadRequest},
		"UnknownContact":  {"/api/contacts/" + uuid.NewString() + "/messages", http.StatusNotFound},
		"UnknownBeforeID": {path + "?before_id=" + uuid.NewString(), http.StatusNotFound},
	} {
		t.Run(name, func(t *testing.T) {
			e.Admin.Do(http.MethodGet, tc.path, nil).ExpectError(t, tc.want)
		})
	}
	t.Run("CrossTenant", func(t *testing.T) {
		foreign.Do(http.MethodGet, path, nil).ExpectError(t, http.StatusNotFound)
	})
	t.Run("Anonymous", func(t *testing.T) {
		e.Anonymous().Do(http.MethodGet, path, nil).ExpectError(t, http.StatusUnauthorized)
	})
}
