package messaging

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// StoredMessage is a received message as StoreReceived stored it.
type StoredMessage struct {
	ID, ContactID uuid.UUID
	ChatAccount   string
	Timestamp     time.Time
}

// ReceivedHook sees one organization's newly stored messages (never a
// redelivery), in platform-timestamp order, in the transaction that
// stores them: ctx carries the organization's viewer and that transaction
// (database.AfterCommit defers work until it commits). An error rolls the
// whole batch back, so a hook should only record or defer work.
type ReceivedHook func(ctx context.Context, orgID uuid.UUID, stored []StoredMessage) error

// OnReceived registers a hook for every batch of received messages (the
// chatbot queues its replies with one; messaging does not know the
// chatbot). Register hooks before the inbound pipeline runs.
func (s *Service) OnReceived(h ReceivedHook) { s.receivedHooks = append(s.receivedHooks, h) }

// runReceivedHooks gives the hooks the messages stored with ids.
func (s *Service) runReceivedHooks(ctx context.Context, orgID uuid.UUID, msgs []Received, ids []uuid.UUID, contactOf func(Received) uuid.UUID) error {
	if len(s.receivedHooks) == 0 || len(msgs) == 0 {
		return nil
	}
	stored := make([]StoredMessage, len(msgs))
	for i, m := range msgs {
		stored[i] = StoredMessage{ID: ids[i], ContactID: contactOf(m), ChatAccount: m.Account.Name, Timestamp: m.Timestamp}
	}
	for _, h := range s.receivedHooks {
		if err := h(ctx, orgID, stored); err != nil {
			return err
		}
	}
	return nil
}
