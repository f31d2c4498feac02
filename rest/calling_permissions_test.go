package rest_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/ent/callpermission"
	"switchboard/ent/message"
)

func TestCallPermissions(t *testing.T) {
	e := newSendEnv(t)
	admin, agent := e.Admin, e.NewUser(e.OrgID, access.RoleAgent)
	other := e.NewOrg("Elsewhere")
	svc := e.App.Resolver.Calling
	contact := e.newContact(t, true)
	closed := e.newContact(t, false)
	statusOf := func(t *testing.T, contactID uuid.UUID) string {
		t.Helper()
		return agent.Do(http.MethodGet, "/api/calls/permission/"+contactID.String()+"?chat_account=Main", nil).
			ExpectStatus(t, http.StatusOK).String("data.status")
	}
	request := func(contactID uuid.UUID) map[string]any {
		return map[string]any{"contact_id": contactID, "chat_account": "Main"}
	}

	t.Run("NoneYet", func(t *testing.T) {
		if s := statusOf(t, contact.ID); s != "none" {
			t.Fatalf("status %q", s)
		}
	})
	var permissionID string
	t.Run("Request", func(t *testing.T) {
		res := agent.Do(http.MethodPost, "/api/calls/permission-request", request(contact.ID)).ExpectStatus(t, http.StatusOK)
		permissionID = res.String("data.permission_id")
		p, err := e.Client().CallPermission.Get(e.ctx, uuid.MustParse(permissionID))
		if err != nil || p.Status != callpermission.StatusPending || p.MessageID == nil || p.ChatAccount != "Main" || p.ContactID != contact.ID {
			t.Fatalf("permission %+v, %v", p, err)
		}
		e.waitStatus(t, p.MessageID.String(), message.StatusSent)
		expectBody(t, e.sentTo(t, contact.PhoneNumber), `{"messaging_product":"whatsapp","recipient_type":"individual",
			"to":"`+contact.PhoneNumber+`","type":"interactive","interactive":{"type":"call_permission_request",
			"body":{"text":"We would like to call you on WhatsApp. Do you allow us to call you?"},
			"action":{"name":"call_permission_request"}}}`)
		if s := statusOf(t, contact.ID); s != "pending" {
			t.Fatalf("status %q", s)
		}
	})
	t.Run("ErrPendingRequest", func(t *testing.T) {
		res := admin.Do(http.MethodPost, "/api/calls/permission-request", request(contact.ID)).ExpectError(t, http.StatusBadRequest)
		if n, _ := e.Client().CallPermission.Query().Where(callpermission.ContactID(contact.ID)).Count(e.ctx); n != 1 {
			t.Fatalf("%d permissions after a refused request: %s", n, res.Raw)
		}
	})
	t.Run("Errors", func(t *testing.T) {
		badRequests(t, admin, http.MethodPost, "/api/calls/permission-request", map[string]any{
			"ErrEmptyBody":      "",
			"ErrNoContact":      `{"chat_account":"Main"}`,
			"ErrContactID":      `{"contact_id":"x","chat_account":"Main"}`,
			"ErrNoAccount":      `{"contact_id":"` + contact.ID.String() + `"}`,
			"ErrUnknownAccount": `{"contact_id":"` + contact.ID.String() + `","chat_account":"Nope"}`,
			"ErrWindowClosed":   `{"contact_id":"` + closed.ID.String() + `","chat_account":"Main"}`,
		})
		admin.Do(http.MethodPost, "/api/calls/permission-request", request(uuid.New())).ExpectError(t, http.StatusNotFound)
		theirs := newContact(t, other, "+15550009999")
		admin.Do(http.MethodPost, "/api/calls/permission-request", request(uuid.MustParse(theirs))).ExpectError(t, http.StatusNotFound)
		other.Do(http.MethodGet, "/api/calls/permission/"+contact.ID.String()+"?chat_account=Main", nil).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodGet, "/api/calls/permission/"+theirs+"?chat_account=Main", nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodGet, "/api/calls/permission/"+contact.ID.String(), nil).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodGet, "/api/calls/permission/x?chat_account=Main", nil).ExpectError(t, http.StatusBadRequest)
		e.Anonymous().Do(http.MethodPost, "/api/calls/permission-request", request(contact.ID)).ExpectError(t, http.StatusUnauthorized)
	})
	t.Run("AcceptedBlocksRequests", func(t *testing.T) {
		until := time.Now().Add(7 * 24 * time.Hour).Truncate(time.Second)
		if err := svc.ApplyPermissionReply(context.Background(), e.OrgID, "Main", "+"+contact.PhoneNumber, true, false, &until); err != nil {
			t.Fatal(err)
		}
		p, _ := e.Client().CallPermission.Get(e.ctx, uuid.MustParse(permissionID))
		if p.Status != callpermission.StatusAccepted || p.RespondedAt == nil || p.ExpiresAt == nil || !p.ExpiresAt.Equal(until) {
			t.Fatalf("accepted: %+v", p)
		}
		// The same reply again changes nothing.
		responded := *p.RespondedAt
		if err := svc.ApplyPermissionReply(context.Background(), e.OrgID, "Main", contact.PhoneNumber, true, false, &until); err != nil {
			t.Fatal(err)
		}
		p, _ = e.Client().CallPermission.Get(e.ctx, p.ID)
		if !p.RespondedAt.Equal(responded) {
			t.Fatalf("a repeated reply moved responded_at")
		}
		if s := statusOf(t, contact.ID); s != "accepted" {
			t.Fatalf("status %q", s)
		}
		admin.Do(http.MethodPost, "/api/calls/permission-request", request(contact.ID)).ExpectError(t, http.StatusBadRequest)
	})
	t.Run("ExpiredAllowsRequests", func(t *testing.T) {
		past := time.Now().Add(-time.Minute)
		if err := e.Client().CallPermission.UpdateOneID(uuid.MustParse(permissionID)).SetExpiresAt(past).Exec(e.ctx); err != nil {
			t.Fatal(err)
		}
		if s := statusOf(t, contact.ID); s != "expired" {
			t.Fatalf("status %q", s)
		}
		res := admin.Do(http.MethodPost, "/api/calls/permission-request", request(contact.ID)).ExpectStatus(t, http.StatusOK)
		permissionID = res.String("data.permission_id")
	})
	t.Run("StalePendingAllowsRequests", func(t *testing.T) {
		old := time.Now().Add(-25 * time.Hour)
		err := e.Client().CallPermission.UpdateOneID(uuid.MustParse(permissionID)).SetRequestedAt(old).
			SetExpiresAt(old.Add(24 * time.Hour)).Exec(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s := statusOf(t, contact.ID); s != "expired" {
			t.Fatalf("status %q", s)
		}
		res := agent.Do(http.MethodPost, "/api/calls/permission-request", request(contact.ID)).ExpectStatus(t, http.StatusOK)
		permissionID = res.String("data.permission_id")
	})
	t.Run("DeclinedAllowsRequests", func(t *testing.T) {
		if err := svc.ApplyPermissionReply(context.Background(), e.OrgID, "Main", contact.PhoneNumber, false, false, nil); err != nil {
			t.Fatal(err)
		}
		if s := statusOf(t, contact.ID); s != "declined" {
			t.Fatalf("status %q", s)
		}
		p, _ := e.Client().CallPermission.Get(e.ctx, uuid.MustParse(permissionID))
		if p.Status != callpermission.StatusDeclined || p.RespondedAt == nil || p.ExpiresAt != nil {
			t.Fatalf("declined: %+v", p)
		}
		res := admin.GraphQL(`mutation($c: ID!) { requestCallPermission(contactId: $c, chatAccount: "Main") { id status messageID } }`,
			map[string]any{"c": contact.ID})
		if res.String("data.requestCallPermission.status") != "pending" || res.String("data.requestCallPermission.messageID") == "" {
			t.Fatalf("requestCallPermission: %s", res.Raw)
		}
		res = agent.GraphQL(`query($c: ID!) { callPermission(contactId: $c, chatAccount: "Main") }`, map[string]any{"c": contact.ID})
		if res.String("data.callPermission") != "pending" {
			t.Fatalf("callPermission: %s", res.Raw)
		}
	})
	t.Run("PermanentAcceptance", func(t *testing.T) {
		soon := time.Now().Add(time.Hour)
		if err := svc.ApplyPermissionReply(context.Background(), e.OrgID, "Main", contact.PhoneNumber, true, true, &soon); err != nil {
			t.Fatal(err)
		}
		p, err := e.Client().CallPermission.Query().Where(callpermission.ContactID(contact.ID)).
			Order(callpermission.ByRequestedAt(), callpermission.ByCreatedAt()).All(e.ctx)
		last := p[len(p)-1]
		if err != nil || last.Status != callpermission.StatusAccepted || last.ExpiresAt != nil {
			t.Fatalf("permanent: %+v, %v", last, err)
		}
		if s := statusOf(t, contact.ID); s != "accepted" {
			t.Fatalf("status %q", s)
		}
	})
	t.Run("ReplyWithoutRequest", func(t *testing.T) {
		c := e.newContact(t, true)
		until := time.Now().Add(time.Hour)
		if err := svc.ApplyPermissionReply(context.Background(), e.OrgID, "Main", c.PhoneNumber, true, false, &until); err != nil {
			t.Fatal(err)
		}
		if s := statusOf(t, c.ID); s != "accepted" {
			t.Fatalf("status %q", s)
		}
	})
	t.Run("ReplyErrors", func(t *testing.T) {
		err := svc.ApplyPermissionReply(context.Background(), e.OrgID, "Main", "15559998877", true, true, nil)
		if apperr.CodeOf(err) != apperr.NotFound {
			t.Fatalf("unknown phone: %v", err)
		}
		// Another organization's contact is not found from this one.
		err = svc.ApplyPermissionReply(context.Background(), other.OrgID, "Main", contact.PhoneNumber, true, true, nil)
		if apperr.CodeOf(err) != apperr.NotFound {
			t.Fatalf("another organization: %v", err)
		}
		err = svc.ApplyPermissionReply(context.Background(), e.OrgID, "Main", "not a phone", true, true, nil)
		if apperr.CodeOf(err) != apperr.Invalid {
			t.Fatalf("bad phone: %v", err)
		}
	})
}
