package messaging

import (
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
)

// MessageEvent is the payload of a message's domain events (message:new,
// message:status, the message:incoming webhook).
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

// ContactEvent is the payload of a contact's domain events (contact:new,
// contact:updated, the contact:created webhook).
type ContactEvent struct {
	ID                 uuid.UUID  `json:"id"`
	PhoneNumber        string     `json:"phone_number"`
	Name               string     `json:"name"`
	ProfileName        string     `json:"profile_name"`
	LastMessageAt      *time.Time `json:"last_message_at"`
	LastMessagePreview string     `json:"last_message_preview"`
	UnreadCount        int        `json:"unread_count"`
	LastInboundAt      *time.Time `json:"last_inbound_at"`
}

// NewMessageEvent is the event payload of m.
func NewMessageEvent(m *ent.Message) MessageEvent {
	ev := MessageEvent{
		ID: m.ID, ContactID: m.ContactID, Direction: string(m.Direction), Type: m.MessageType,
		Content: m.Content, Status: string(m.Status), ErrorMessage: m.ErrorMessage, Timestamp: m.CreatedAt,
	}
	if m.ChatMessageID != nil {
		ev.ChatMessageID = *m.ChatMessageID
	}
	return ev
}

// NewContactEvent is the event payload of c.
func NewContactEvent(c *ent.Contact) ContactEvent {
	return ContactEvent{
		ID: c.ID, PhoneNumber: c.PhoneNumber, Name: c.Name, ProfileName: c.ProfileName, LastMessageAt: c.LastMessageAt,
		LastMessagePreview: c.LastMessagePreview, UnreadCount: c.UnreadCount, LastInboundAt: c.LastInboundAt,
	}
}

// sentEvent is the payload of MessageSent (the message:sent webhook and
// the message:status frame): the message event plus the account, the
// recipient and the sending user.
type sentEvent struct {
	MessageEvent
	ChatAccount  string     `json:"chat_account"`
	PhoneNumber  string     `json:"phone_number"`
	SentByUserID *uuid.UUID `json:"sent_by_user_id"`
}
