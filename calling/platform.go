package calling

import (
	"time"

	"switchboard/ent"
)

// Kinds of the platform's call events (the calls webhook field).
const (
	// EventConnect: a user calls (SDP offer), or a user answered the
	// business's call (SDP answer).
	EventConnect = "connect"
	// EventTerminate: the call ended (status Completed or Failed).
	EventTerminate = "terminate"
	// EventStatus: a business-initiated call's progress (RINGING,
	// ACCEPTED, REJECTED).
	EventStatus = "status"
)

// Directions of the platform's calls.
const (
	UserInitiated     = "USER_INITIATED"
	BusinessInitiated = "BUSINESS_INITIATED"
)

// PlatformEvent is one call event of the platform's calls webhook, routed
// to the account whose phone number it names.
type PlatformEvent struct {
	Account   *ent.Account
	CallID    string
	Kind      string // EventConnect, EventTerminate or EventStatus
	Direction string // UserInitiated or BusinessInitiated ("" on statuses)
	// From and To are phone numbers (WhatsApp ids); the contact is From on
	// a user's call and To on the business's.
	From, To    string
	ProfileName string
	Timestamp   time.Time
	// SDPType ("offer" or "answer") and SDP come with EventConnect.
	SDPType, SDP string
	// Status: Completed or Failed on EventTerminate; RINGING, ACCEPTED or
	// REJECTED on EventStatus.
	Status string
	// Duration in seconds (EventTerminate), as the platform counts it.
	Duration int
	// CallbackData echoes biz_opaque_callback_data of the business's call.
	CallbackData string
}

// Contact is the user's side of the call.
func (e PlatformEvent) Contact() string {
	if e.Direction == BusinessInitiated {
		return e.To
	}
	return e.From
}

// PermissionReply is a user's answer to a call permission request (an
// interactive call_permission_reply message).
type PermissionReply struct {
	Account   *ent.Account
	From      string
	Accepted  bool
	Permanent bool
	// ExpiresAt is when a temporary permission ends (nil: permanent or
	// declined).
	ExpiresAt *time.Time
}
