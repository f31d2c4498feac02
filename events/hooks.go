package events

import (
	"context"

	"github.com/google/uuid"
)

// Outbound webhook subscription events (the names subscribers choose).
const (
	HookMessageIncoming = "message:incoming"
	HookMessageSent     = "message:sent"
	HookContactCreated  = "contact:created"
)

// Hooks emits an event to the organization's outbound webhook
// subscriptions. When ctx carries an ent transaction, the deliveries are
// written in it and only queued once it commits, so a rolled-back
// operation emits nothing and a committed one loses nothing. A nil Hooks
// emits nothing.
type Hooks interface {
	Emit(ctx context.Context, orgID uuid.UUID, event string, data any) error
}
