package messaging

import (
	"context"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/internal/valid"
	"switchboard/provider"
)

// InteractiveCallPermission is the interactive type of a call permission
// request: the platform shows the body with its own allow/decline
// controls, and the contact's answer comes back as a
// call_permission_reply.
const InteractiveCallPermission = "call_permission_request"

// SendCallPermissionRequest stores a call permission request for a contact
// from accountName and queues it. The caller (package calling) records
// the permission and decides when a request may be sent; the generic send
// refuses this type. Errors: invalid (empty or too long body, a closed
// service window, no account), not_found (contact).
func (s *Service) SendCallPermissionRequest(ctx context.Context, contactID uuid.UUID, accountName, body string) (*ent.Message, error) {
	body, err := valid.RequiredText("body", body, maxInteractiveBody)
	if err != nil {
		return nil, err
	}
	in := Interactive{Type: InteractiveCallPermission, Body: body}
	return s.sendFreeForm(ctx, contactID, accountName, draft{
		kind: TypeInteractive, content: map[string]any{"body": body}, interactive: toMap(in), preview: body,
	})
}

func callPermissionOutgoing(in Interactive) *provider.CallPermissionRequest {
	return &provider.CallPermissionRequest{Body: in.Body}
}
