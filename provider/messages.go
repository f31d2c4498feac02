package provider

import (
	"context"
	"fmt"
	"net/http"
)

// OutgoingMessage is one message to a WhatsApp user. Exactly one content
// field is set; the others are nil.
type OutgoingMessage struct {
	// To is the recipient's phone number (international format) or WhatsApp id.
	To string
	// ReplyTo optionally quotes an earlier message (context.message_id).
	ReplyTo string
	// CallbackData is sent as biz_opaque_callback_data: the platform
	// echoes it in the message's status webhooks (at most 512
	// characters).
	CallbackData string

	Text    *Text
	Buttons *ReplyButtons // interactive "button"
	CTAURL  *CTAURL       // interactive "cta_url"
	List    *List         // interactive "list"
	Flow    *Flow         // interactive "flow"
	// Product and ProductList are the catalog's product messages
	// (products_wire.go).
	Product     *ProductMessage // interactive "product"
	ProductList *ProductList    // interactive "product_list"
	// CallPermission asks the user to allow calls from the business
	// (callpermission.go).
	CallPermission *CallPermissionRequest // interactive "call_permission_request"
	Template       *Template
	Media          *Media // image, video, audio, document or sticker
	Reaction       *Reaction
	Location       *Location
}

// maxCallbackData is the platform's limit of biz_opaque_callback_data.
const maxCallbackData = 512

// Text is a text message.
type Text struct {
	Body string
	// PreviewURL asks WhatsApp to render a preview of the first URL in Body.
	PreviewURL bool
}

// Header is the optional header of an interactive message: either Text or
// Media (an image, video or document).
type Header struct {
	Text  string
	Media *Media
}

// ReplyButtons is an interactive message with up to three quick-reply buttons.
type ReplyButtons struct {
	Header  *Header
	Body    string
	Footer  string
	Buttons []ReplyButton
}

// ReplyButton is one quick-reply button; ID comes back in the user's reply.
type ReplyButton struct {
	ID    string
	Title string
}

// CTAURL is an interactive message with one button that opens URL.
type CTAURL struct {
	Header      *Header
	Body        string
	Footer      string
	DisplayText string
	URL         string
}

// List is an interactive list message: a button that opens sections of rows.
type List struct {
	Header     string // text only: lists take no media header
	Body       string
	Footer     string
	ButtonText string
	Sections   []ListSection
}

// ListSection groups rows of a List; Title is required when there are
// several sections.
type ListSection struct {
	Title string
	Rows  []ListRow
}

// ListRow is one choice of a List; ID comes back in the user's reply.
type ListRow struct {
	ID          string
	Title       string
	Description string
}

// Template is an approved message template with its parameters.
type Template struct {
	Name     string
	Language string // language code such as "en_US"
	// HeaderText fills the variable of a TEXT header.
	HeaderText []TemplateParam
	// HeaderMedia fills an IMAGE, VIDEO or DOCUMENT header (Filename for
	// documents); Caption is not allowed.
	HeaderMedia *Media
	// Body fills the body variables, in order.
	Body []TemplateParam
	// Buttons fill dynamic buttons (URL suffixes, quick-reply payloads).
	Buttons []TemplateButton
}

// TemplateParam is one text parameter. Name is set for templates that use
// named parameters ({{first_name}}) and left empty for positional ones ({{1}}).
type TemplateParam struct {
	Name string
	Text string
}

// Template button sub-types.
const (
	ButtonURL        = "url"         // Value is appended to the button's URL
	ButtonQuickReply = "quick_reply" // Value is the payload sent back on tap
)

// TemplateButton is the parameter of the template button at Index (0-based).
type TemplateButton struct {
	Index   int
	SubType string // ButtonURL or ButtonQuickReply
	Value   string
}

// MediaKind names a media message type.
type MediaKind string

// Media kinds.
const (
	MediaImage    MediaKind = "image"
	MediaVideo    MediaKind = "video"
	MediaAudio    MediaKind = "audio"
	MediaDocument MediaKind = "document"
	MediaSticker  MediaKind = "sticker"
)

// Media is a media object, by uploaded media ID or by public Link (one of them).
type Media struct {
	Kind     MediaKind
	ID       string
	Link     string
	Caption  string // image, video and document only
	Filename string // document only
}

// Reaction reacts with Emoji to MessageID; an empty Emoji removes the reaction.
type Reaction struct {
	MessageID string
	Emoji     string
}

// Location is a map pin.
type Location struct {
	Latitude  float64
	Longitude float64
	Name      string
	Address   string
}

// Type is the platform's message type of m: "text", "interactive",
// "template", "image", "video", "audio", "document", "sticker", "reaction"
// or "location"; empty when no content is set.
func (m OutgoingMessage) Type() string {
	switch {
	case m.Text != nil:
		return "text"
	case m.Buttons != nil, m.CTAURL != nil, m.List != nil, m.Flow != nil, m.Product != nil, m.ProductList != nil,
		m.CallPermission != nil:
		return "interactive"
	case m.Template != nil:
		return "template"
	case m.Media != nil:
		return string(m.Media.Kind)
	case m.Reaction != nil:
		return "reaction"
	case m.Location != nil:
		return "location"
	}
	return ""
}

// SendResult is the platform's answer to a send.
type SendResult struct {
	MessageID string // messages[0].id, the wamid
	WaID      string // contacts[0].wa_id, the recipient's WhatsApp id
	// MessageStatus is messages[0].message_status when present ("accepted",
	// "held_for_quality_assessment").
	MessageStatus string
}

type sendAnswer struct {
	Contacts []struct {
		Input string `json:"input"`
		WaID  string `json:"wa_id"`
	} `json:"contacts"`
	Messages []struct {
		ID            string `json:"id"`
		MessageStatus string `json:"message_status"`
	} `json:"messages"`
}

// SendMessage sends msg from acc's phone number
// (POST /{phone_id}/messages).
//
// Errors: ErrInvalid when msg fails validation (nothing is sent); *Error
// for a Graph error answer; ErrUnexpectedResponse when the answer has no
// message id; a transport error otherwise. Sends are retried only when the
// answer shows the request was refused before doing work (see Error).
func (c *Client) SendMessage(ctx context.Context, acc Account, msg OutgoingMessage) (*SendResult, error) {
	payload, err := buildMessage(msg)
	if err != nil {
		return nil, err
	}
	u, err := c.endpoint(acc, nil, acc.PhoneID, "messages")
	if err != nil {
		return nil, err
	}
	r, err := jsonRequest(http.MethodPost, u, payload)
	if err != nil {
		return nil, err
	}
	var a sendAnswer
	if err := c.doJSON(ctx, acc, r, &a); err != nil {
		return nil, err
	}
	if len(a.Messages) == 0 || a.Messages[0].ID == "" {
		return nil, fmt.Errorf("%w: %s: no message id", ErrUnexpectedResponse, r.what)
	}
	res := &SendResult{MessageID: a.Messages[0].ID, MessageStatus: a.Messages[0].MessageStatus}
	if len(a.Contacts) > 0 {
		res.WaID = a.Contacts[0].WaID
	}
	return res, nil
}

// MarkRead marks an incoming message (and the ones before it) as read, which
// shows the blue ticks to the user (POST /{phone_id}/messages with status
// "read").
//
// Errors: ErrInvalid for an empty messageID; *Error for a Graph error
// answer (an unknown or too old message id); a transport error otherwise.
func (c *Client) MarkRead(ctx context.Context, acc Account, messageID string) error {
	if messageID == "" {
		return fmt.Errorf("%w: mark read needs a message id", ErrInvalid)
	}
	u, err := c.endpoint(acc, nil, acc.PhoneID, "messages")
	if err != nil {
		return err
	}
	r, err := jsonRequest(http.MethodPost, u, map[string]string{
		"messaging_product": "whatsapp",
		"status":            "read",
		"message_id":        messageID,
	})
	if err != nil {
		return err
	}
	// Marking read twice is harmless, so the call counts as idempotent.
	r.idempotent = true
	return c.doSuccess(ctx, acc, r)
}
