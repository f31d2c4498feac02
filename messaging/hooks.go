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
	// Type and Content are the message's type and content object as
	// stored (text: {body}).
	Type    string
	Content map[string]any
	// BotHandled: stored already handled (see OnArrivalHandled).
	BotHandled bool
}

// ArrivalHandled reports whether an organization's received messages are
// stored already handled by the chatbot (bot_handled_at set on insert):
// the chatbot's answer when it is off. It runs in the store transaction.
type ArrivalHandled func(ctx context.Context, orgID uuid.UUID) (bool, error)

// OnArrivalHandled sets the ArrivalHandled check (the chatbot's; nil:
// every message waits for the chatbot). Set it before the inbound
// pipeline runs.
func (s *Service) OnArrivalHandled(f ArrivalHandled) { s.arrivalHandled = f }

// handledOnArrival is the bot_handled_at of an organization's batch: now
// when ArrivalHandled says so, else nil.
func (s *Service) handledOnArrival(ctx context.Context, orgID uuid.UUID) (*time.Time, error) {
	if s.arrivalHandled == nil {
		return nil, nil
	}
	handled, err := s.arrivalHandled(ctx, orgID)
	if err != nil || !handled {
		return nil, err
	}
	now := s.now()
	return &now, nil
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
func (s *Service) runReceivedHooks(ctx context.Context, orgID uuid.UUID, msgs []Received, ids []uuid.UUID, handled bool, contactOf func(Received) uuid.UUID) error {
	if len(s.receivedHooks) == 0 || len(msgs) == 0 {
		return nil
	}
	stored := make([]StoredMessage, len(msgs))
	for i, m := range msgs {
		stored[i] = StoredMessage{ID: ids[i], ContactID: contactOf(m), ChatAccount: m.Account.Name, Timestamp: m.Timestamp,
			Type: m.Content.Type, Content: m.Content.Body, BotHandled: handled}
	}
	for _, h := range s.receivedHooks {
		if err := h(ctx, orgID, stored); err != nil {
			return err
		}
	}
	return nil
}
