package provider

// CallPermissionRequest is the interactive message that asks a WhatsApp
// user to allow calls from the business: the platform shows Body and its
// own allow/decline controls (the action cannot be customised). The
// user's answer arrives as an interactive call_permission_reply.
type CallPermissionRequest struct {
	Body string
}

func buildCallPermission(c *CallPermissionRequest) (*wireInteractive, error) {
	if c.Body == "" {
		return nil, invalid("call permission request needs a body")
	}
	return &wireInteractive{
		Type: "call_permission_request", Body: wireBodyText{Text: c.Body},
		Action: wireAction{Name: "call_permission_request"},
	}, nil
}
