package inbound

import (
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
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

// NewMessageEvent is the message:new and message:status payload of m, for
// the other publishers of message events (the send path).
func NewMessageEvent(m *ent.Message) MessageEvent { return messageEvent(m) }

// NewContactEvent is the contact:new and contact:updated payload of c.
func NewContactEvent(c *ent.Contact) ContactEvent { return contactEvent(c) }
