package inbound

import (
	"context"
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/ent/message"
	"switchboard/ent/viewer"
	"switchboard/events"
)

// MessageEvent is the payload of message:new and message:status.
type MessageEvent struct {
	ID            uuid.UUID      `json:"id"`
	ContactID     uuid.UUID      `json:"contact_id"`
	Direction     string         `json:"direction"`
	Type          string         `json:"type"`
	Content       map[string]any `json:"content"`
	Status        string         `json:"status"`
	ChatMessageID string         `json:"chat_message_id"`
	ErrorMessage  string         `json:"error_message,omitempty"`
	Timestamp     time.Time      `json:"timestamp"`
}

// ContactEvent is the payload of contact:new and contact:updated.
type ContactEvent struct {
	ID                 uuid.UUID  `json:"id"`
	PhoneNumber        string     `json:"phone_number"`
	ProfileName        string     `json:"profile_name"`
	LastMessageAt      *time.Time `json:"last_message_at"`
	LastMessagePreview string     `json:"last_message_preview"`
	UnreadCount        int        `json:"unread_count"`
	LastInboundAt      *time.Time `json:"last_inbound_at"`
}

func messageEvent(m *ent.Message) MessageEvent {
	ev := MessageEvent{
		ID: m.ID, ContactID: m.ContactID, Direction: string(m.Direction), Type: m.MessageType,
		Content: m.Content, Status: string(m.Status), ErrorMessage: m.ErrorMessage, Timestamp: m.CreatedAt,
	}
	if m.ChatMessageID != nil {
		ev.ChatMessageID = *m.ChatMessageID
	}
	return ev
}

func contactEvent(c *ent.Contact) ContactEvent {
	return ContactEvent{
		ID: c.ID, PhoneNumber: c.PhoneNumber, ProfileName: c.ProfileName, LastMessageAt: c.LastMessageAt,
		LastMessagePreview: c.LastMessagePreview, UnreadCount: c.UnreadCount, LastInboundAt: c.LastInboundAt,
	}
}

// publish sends an event; a failure is logged (the data is stored; only
// the live notification is lost).
func (s *Service) publish(ctx context.Context, org uuid.UUID, typ string, payload any) {
	if s.Events == nil {
		return
	}
	if err := s.Events.Publish(ctx, org, typ, payload); err != nil {
		s.Log.Warn("publishing event", "type", typ, "err", err)
	}
}

func (s *Service) publishMessage(ctx context.Context, org uuid.UUID, m *ent.Message, newContact bool) {
	s.publish(ctx, org, events.MessageNew, messageEvent(m))
	c, err := s.Client.Contact.Get(viewer.SystemContext(ctx, org), m.ContactID)
	if err != nil {
		return
	}
	typ := events.ContactUpdated
	if newContact {
		typ = events.ContactNew
	}
	s.publish(ctx, org, typ, contactEvent(c))
}

func (s *Service) publishStatus(ctx context.Context, chatMessageID string) {
	m, err := s.Client.Message.Query().Where(message.ChatMessageID(chatMessageID)).Only(ctx)
	if err != nil {
		return
	}
	s.publish(ctx, viewer.FromContext(ctx).OrgID, events.MessageStatus, messageEvent(m))
}
