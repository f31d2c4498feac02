package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent"
	"switchboard/ent/callpermission"
	"switchboard/ent/message"
)

// TestCallPermissionOutsideWindow: a contact who has not written in 24
// hours can be asked for call permission with an approved template (one
// with a call permission request component) named in the request, by name
// or id, its body variables filled; inside the window the interactive
// request goes whatever is named; outside it without a template, or with
// one that cannot be sent, the request is refused with 400 and nothing is
// recorded.
func TestCallPermissionOutsideWindow(t *testing.T) {
	e := newSendEnv(t)
	agent := e.NewUser(e.OrgID, access.RoleAgent)
	withName := e.newTemplate(t, "call_permission", func(c *ent.TemplateCreate) {
		c.SetBodyContent("Hi {{1}}, may we call you about your order?")
	})
	plain := e.newTemplate(t, "call_permission_plain", func(c *ent.TemplateCreate) {
		c.SetBodyContent("May we call you on WhatsApp?")
	})
	e.newTemplate(t, "call_permission_pending", func(c *ent.TemplateCreate) { c.SetStatus("PENDING") })

	tests := []struct {
		name string
		open bool
		body map[string]any
		// want is the message sent (type and, for a template, its name and
		// body parameters); empty: refused with 400.
		want string
	}{
		{"TemplateByName", false, map[string]any{"template_name": withName.Name, "template_params": map[string]any{"1": "Ann"}},
			`{"name":"call_permission","language":{"code":"en_US"},"components":[{"type":"body","parameters":[{"type":"text","text":"Ann"}]}]}`},
		{"TemplateByID", false, map[string]any{"template_id": plain.ID}, `{"name":"call_permission_plain","language":{"code":"en_US"}}`},
		{"WindowOpenSendsInteractive", true, map[string]any{"template_name": plain.Name}, "interactive"},
		{"ErrNoTemplate", false, nil, ""},
		{"ErrTemplateNotApproved", false, map[string]any{"template_name": "call_permission_pending"}, ""},
		{"ErrMissingParam", false, map[string]any{"template_name": withName.Name}, ""},
		{"ErrTemplateID", false, map[string]any{"template_id": "x"}, ""},
		{"ErrParams", false, map[string]any{"template_name": withName.Name, "template_params": "Ann"}, ""},
		{"ErrUnknownParam", false, map[string]any{"template_name": withName.Name, "template_params": map[string]any{"1": "Ann", "2": "x"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := e.newContact(t, tt.open)
			body := map[string]any{"contact_id": c.ID, "chat_account": "Main"}
			for k, v := range tt.body {
				body[k] = v
			}
			res := agent.Do(http.MethodPost, "/api/calls/permission-request", body)
			if tt.want == "" {
				res.ExpectError(t, http.StatusBadRequest)
				if n, _ := e.Client().CallPermission.Query().Where(callpermission.ContactID(c.ID)).Count(e.ctx); n != 0 {
					t.Fatalf("%d permissions recorded for a refused request", n)
				}
				return
			}
			res.ExpectStatus(t, http.StatusOK)
			p, err := e.Client().CallPermission.Get(e.ctx, uuid.MustParse(res.String("data.permission_id")))
			if err != nil || p.Status != callpermission.StatusPending || p.MessageID == nil {
				t.Fatalf("permission %+v, %v", p, err)
			}
			e.waitStatus(t, p.MessageID.String(), message.StatusSent)
			sent := e.sentTo(t, c.PhoneNumber)
			if tt.want == "interactive" {
				if sent["type"] != "interactive" {
					t.Fatalf("inside the window the interactive request goes, not %v", sent["type"])
				}
				return
			}
			expectBody(t, sent, `{"messaging_product":"whatsapp","recipient_type":"individual","to":"`+c.PhoneNumber+
				`","type":"template","template":`+tt.want+`}`)
		})
	}

	t.Run("ErrNoTemplateSaysWhatToDo", func(t *testing.T) {
		c := e.newContact(t, false)
		res := agent.Do(http.MethodPost, "/api/calls/permission-request", map[string]any{"contact_id": c.ID, "chat_account": "Main"}).
			ExpectError(t, http.StatusBadRequest)
		if msg := res.String("message"); !strings.Contains(msg, "template_name") {
			t.Fatalf("message %q does not say how to ask outside the window", msg)
		}
	})
	t.Run("GraphQL", func(t *testing.T) {
		c := e.newContact(t, false)
		res := agent.GraphQL(`mutation($c: ID!, $t: CallPermissionTemplateInput) {
			requestCallPermission(contactId: $c, chatAccount: "Main", template: $t) { status messageID } }`,
			map[string]any{"c": c.ID, "t": map[string]any{"templateName": withName.Name, "templateParams": map[string]any{"1": "Bo"}}})
		if res.String("data.requestCallPermission.status") != "pending" {
			t.Fatalf("requestCallPermission: %s", res.Raw)
		}
		if code := agent.GraphQL(`mutation($c: ID!) { requestCallPermission(contactId: $c, chatAccount: "Main") { status } }`,
			map[string]any{"c": e.newContact(t, false).ID}).GraphQLErrorCode(); code != "invalid" {
			t.Fatalf("without a template outside the window: code %q", code)
		}
	})
}
