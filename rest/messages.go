package rest

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/ent"
)

// messageJSON is the spec's Message.
type messageJSON struct {
	ID              uuid.UUID      `json:"id"`
	ContactID       uuid.UUID      `json:"contact_id"`
	Direction       string         `json:"direction"`
	MessageType     string         `json:"message_type"`
	Content         map[string]any `json:"content"`
	Status          string         `json:"status"`
	ChatMessageID   *string        `json:"chat_message_id"`
	ChatAccount     string         `json:"chat_account"`
	MediaURL        string         `json:"media_url,omitempty"`
	MediaMimeType   string         `json:"media_mime_type,omitempty"`
	MediaFilename   string         `json:"media_filename,omitempty"`
	InteractiveData map[string]any `json:"interactive_data,omitempty"`
	ErrorMessage    string         `json:"error_message,omitempty"`
	CreatedAt       time.Time      `json:"created_at"`
	UpdatedAt       time.Time      `json:"updated_at"`
}

func presentMessage(m *ent.Message) messageJSON {
	out := messageJSON{
		ID: m.ID, ContactID: m.ContactID, Direction: string(m.Direction), MessageType: m.MessageType,
		Content: m.Content, Status: string(m.Status), ChatMessageID: m.ChatMessageID, ChatAccount: m.ChatAccount,
		MediaURL: m.MediaURL, MediaMimeType: m.MediaMimeType, MediaFilename: m.MediaFilename,
		ErrorMessage: m.ErrorMessage, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
	}
	if m.Content == nil {
		out.Content = map[string]any{}
	}
	if m.MessageType == "interactive" {
		out.InteractiveData = m.InteractiveData
	}
	return out
}

// messagePageSize is the spec's default and maximum page of messages.
const (
	messagePageSize    = 50
	maxMessagePageSize = 100
)

func (a *API) messageRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/contacts/:id/messages", Perm: "messages:read", Handle: a.listMessages},
	}
}

// listMessages answers {messages, total} for the newest page and
// {messages, has_more} for a page before a cursor.
func (a *API) listMessages(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	limit, err := queryInt(c, "limit", messagePageSize)
	if err != nil {
		return 0, nil, err
	}
	limit = min(limit, maxMessagePageSize)
	before, err := optionalUUID("before_id", c.Query("before_id"))
	if err != nil {
		return 0, nil, err
	}
	page, err := a.R.ListMessages(ctx(c), id, before, c.Query("account"), limit)
	if err != nil {
		return 0, nil, err
	}
	out := make([]messageJSON, len(page.Messages))
	for i, m := range page.Messages {
		out[i] = presentMessage(m)
	}
	if before != nil {
		return http.StatusOK, gin.H{"messages": out, "has_more": page.HasMore}, nil
	}
	return http.StatusOK, gin.H{"messages": out, "total": page.Total}, nil
}
