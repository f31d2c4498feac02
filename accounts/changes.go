package accounts

import (
	"context"

	"github.com/google/uuid"

	"switchboard/database"
)

// Every node keeps what it reads of accounts on each platform webhook
// (inbound's signing secrets and the account a call event names) for a
// few seconds. A change of an account (calling switched on or off, new
// credentials, another phone number id) is announced to every node on the
// event bus's channel, like access's revocations, so that each drops what
// it cached at once instead of acting on the old account until its cache
// expires.

// ChangedMessage names the control message announcing that an account
// changed; its body is the account's id.
const ChangedMessage = "account_changed"

// ControlBus sends control messages to every node (events.Bus).
type ControlBus interface {
	PublishControl(ctx context.Context, name string, body []byte)
}

// announceChange tells every node that account id changed, once the
// transaction ctx carries commits (at once without one), so that no node
// reads the old row again after dropping its cache.
func (s *Service) announceChange(ctx context.Context, id uuid.UUID) {
	if s.Bus == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	database.AfterCommit(ctx, func() {
		s.Bus.PublishControl(ctx, ChangedMessage, []byte(id.String()))
	})
}
