package inbound

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"switchboard/messaging"
	"switchboard/templates"
)

// payload is the platform's webhook body: entries of changes.
// parsePayload reads the platform's shapes with decodePayload and
// anything else with encoding/json, to the same result.
type payload struct {
	Object string  `json:"object"`
	Entry  []entry `json:"entry"`
}

type entry struct {
	ID      string   `json:"id"`
	Changes []change `json:"changes"`
}

type change struct {
	Field string      `json:"field"`
	Value changeValue `json:"value"`
}

type changeValue struct {
	MessagingProduct string          `json:"messaging_product"`
	Metadata         changeMetadata  `json:"metadata"`
	Contacts         []changeContact `json:"contacts"`
	Messages         []rawMessage    `json:"messages"`
	Statuses         []statusUpdate  `json:"statuses"`
	// Template changes (fields message_template_status_update,
	// message_template_quality_update, template_category_update).
	Event                   string   `json:"event"`
	MessageTemplateID       flexID   `json:"message_template_id"`
	MessageTemplateName     string   `json:"message_template_name"`
	MessageTemplateLanguage string   `json:"message_template_language"`
	Reason                  flexText `json:"reason"`
	NewQualityScore         string   `json:"new_quality_score"`
	NewCategory             string   `json:"new_category"`
	// Calls are the calls field's call events (calls.go).
	Calls []callEvent `json:"calls"`
}

// flexID is an id the platform sends as a number or a string.
type flexID string

// UnmarshalJSON accepts a JSON number or string; anything else is empty.
func (f *flexID) UnmarshalJSON(b []byte) error {
	var n json.Number
	if json.Unmarshal(b, &n) == nil {
		*f = flexID(n.String())
		return nil
	}
	var s string
	if json.Unmarshal(b, &s) == nil {
		*f = flexID(s)
		return nil
	}
	*f = ""
	return nil
}

// flexText is a text the platform may send as a string or as null (or,
// for a reason, not at all); anything else is empty.
type flexText string

// UnmarshalJSON accepts a JSON string; anything else is empty.
func (f *flexText) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*f = flexText(s)
	} else {
		*f = ""
	}
	return nil
}

type changeMetadata struct {
	DisplayPhoneNumber string `json:"display_phone_number"`
	PhoneNumberID      string `json:"phone_number_id"`
}

type changeContact struct {
	Profile struct {
		Name string `json:"name"`
	} `json:"profile"`
	WaID string `json:"wa_id"`
}

type statusUpdate struct {
	ID          string `json:"id"`
	Status      string `json:"status"`
	Timestamp   string `json:"timestamp"`
	RecipientID string `json:"recipient_id"`
	// CallbackData echoes the send's biz_opaque_callback_data.
	CallbackData string        `json:"biz_opaque_callback_data"`
	Errors       []statusError `json:"errors"`
}

type statusError struct {
	Code      int    `json:"code"`
	Title     string `json:"title"`
	Message   string `json:"message"`
	ErrorData struct {
		Details string `json:"details"`
	} `json:"error_data"`
}

// errorText is the platform's reason for a failed status.
func (s statusUpdate) errorText() string {
	if len(s.Errors) == 0 {
		return ""
	}
	e := s.Errors[0]
	msg := e.Message
	if msg == "" {
		msg = e.Title
	}
	if e.ErrorData.Details != "" {
		msg += ": " + e.ErrorData.Details
	}
	return fmt.Sprintf("(#%d) %s", e.Code, msg)
}

// parseTimestamp reads the platform's epoch-seconds string.
func parseTimestamp(s string) (time.Time, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}, false
	}
	return time.Unix(n, 0).UTC(), true
}

// envelope is what the ack path reads of a delivery: the phone number
// ids it is for and the first sender or recipient (its lane). Decoding
// only these is cheaper than the whole payload, and still rejects a body
// that is not JSON.
type envelope struct {
	Object string `json:"object"`
	Entry  []struct {
		ID      string `json:"id"`
		Changes []struct {
			Field string `json:"field"`
			Value struct {
				Metadata struct {
					PhoneNumberID string `json:"phone_number_id"`
				} `json:"metadata"`
				Messages []struct {
					From string `json:"from"`
				} `json:"messages"`
				Statuses []struct {
					RecipientID string `json:"recipient_id"`
				} `json:"statuses"`
			} `json:"value"`
		} `json:"changes"`
	} `json:"entry"`
}

func parseEnvelope(body []byte) (*envelope, error) {
	var e envelope
	if err := json.Unmarshal(replaceNULEscapes(body), &e); err != nil {
		return nil, err
	}
	return &e, nil
}

// phoneIDs lists the distinct phone number ids of the delivery's changes.
func (p *envelope) phoneIDs() []string {
	seen := map[string]bool{}
	var ids []string
	for _, e := range p.Entry {
		for _, c := range e.Changes {
			id := c.Value.Metadata.PhoneNumberID
			if id != "" && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// businessIDs lists the distinct business account ids (entry ids) of the
// delivery's template changes, which carry no phone number id.
func (p *envelope) businessIDs() []string {
	var ids []string
	for _, e := range p.Entry {
		for _, c := range e.Changes {
			if templates.IsWebhookField(c.Field) && e.ID != "" && !slices.Contains(ids, e.ID) {
				ids = append(ids, e.ID)
			}
		}
	}
	return ids
}

// route is what the ack path reads of a delivery: the phone number ids
// it is for (or the business account ids of template changes) and its
// lane.
type route interface {
	phoneIDs() []string
	businessIDs() []string
	lane() int
	object() string
}

// parseDelivery parses a delivery on the ack path. The whole payload is
// parsed here, once (full; the drainers of this node take it from
// parsedCache). A body whose messages or statuses do not have the
// platform's shape is still stored when its envelope parses, as before
// (the drainer then skips what it cannot read): only a body that is not
// JSON is refused.
func parseDelivery(body []byte) (r route, full *payload, err error) {
	if p, err := parsePayload(body); err == nil {
		return p, p, nil
	}
	e, err := parseEnvelope(body)
	if err != nil {
		return nil, nil, err
	}
	return e, nil, nil
}

func (p *envelope) object() string { return p.Object }

func (p *payload) object() string { return p.Object }

// phoneIDs lists the distinct phone number ids of the delivery's changes.
func (p *payload) phoneIDs() []string {
	var ids []string
	for _, e := range p.Entry {
		for _, c := range e.Changes {
			if id := c.Value.Metadata.PhoneNumberID; id != "" && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// businessIDs lists the distinct business account ids (entry ids) of the
// delivery's template changes.
func (p *payload) businessIDs() []string {
	var ids []string
	for _, e := range p.Entry {
		for _, c := range e.Changes {
			if templates.IsWebhookField(c.Field) && e.ID != "" && !slices.Contains(ids, e.ID) {
				ids = append(ids, e.ID)
			}
		}
	}
	return ids
}

// lane is the processing lane of a delivery (see envelope.lane).
func (p *payload) lane() int {
	for _, e := range p.Entry {
		for _, c := range e.Changes {
			for _, m := range c.Value.Messages {
				if from := m.str("from"); from != "" {
					return hashLane(from)
				}
			}
			for _, st := range c.Value.Statuses {
				if st.RecipientID != "" {
					return hashLane(st.RecipientID)
				}
			}
		}
	}
	return 0
}

func parsePayload(body []byte) (*payload, error) {
	body = replaceNULEscapes(body)
	if json.Valid(body) {
		if p, ok := decodePayload(body); ok {
			return p, nil
		}
	}
	var p payload
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// replaceNULEscapes turns the JSON escape \u0000 into \ufffd: PostgreSQL
// cannot store NUL in text or JSON, and a message must not be lost for it.
// Escapes are read in pairs, so an escaped backslash followed by "u0000"
// is left alone.
func replaceNULEscapes(body []byte) []byte {
	if !bytes.Contains(body, []byte(`\u0000`)) {
		return body
	}
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' || i+1 >= len(body) {
			out = append(out, body[i])
			continue
		}
		if bytes.HasPrefix(body[i+1:], []byte("u0000")) {
			out = append(out, `\ufffd`...)
			i += 5
			continue
		}
		out = append(out, body[i], body[i+1])
		i++
	}
	return out
}

// extractContent maps every platform message type to what we store. Types
// not known here keep their raw object under content.raw.
func extractContent(m rawMessage) messaging.Content {
	if m.fields == nil {
		return messaging.Content{Type: "text", Body: map[string]any{"body": m.text.body}, Preview: truncate(m.text.body, 200)}
	}
	typ := m.str("type")
	c := messaging.Content{Type: typ, Body: map[string]any{}}
	switch typ {
	case "text":
		body, _ := m.obj("text")["body"].(string)
		c.Body["body"] = body
		c.Preview = body
	case "image", "video", "audio", "document", "sticker":
		media := m.obj(typ)
		c.Body = copyMap(media)
		c.MediaID, _ = media["id"].(string)
		c.MimeType, _ = media["mime_type"].(string)
		c.Filename, _ = media["filename"].(string)
		caption, _ := media["caption"].(string)
		c.Preview = "[" + typ + "]"
		if caption != "" {
			c.Body["body"] = caption
			c.Preview = caption
		}
	case "location":
		c.Body = copyMap(m.obj("location"))
		c.Preview = "[location]"
		if name, _ := c.Body["name"].(string); name != "" {
			c.Preview = "[location] " + name
		}
	case "contacts":
		c.Body["contacts"] = m.fields["contacts"]
		c.Preview = "[contact card]"
	case "interactive":
		in := m.obj("interactive")
		c.Interactive = copyMap(in)
		itype, _ := in["type"].(string)
		reply, _ := in[itype].(map[string]any)
		c.Body = copyMap(reply)
		if itype == "nfm_reply" {
			formReply(&c, reply)
			break
		}
		title, _ := reply["title"].(string)
		if title == "" {
			title, _ = reply["body"].(string)
		}
		c.Body["body"] = title
		c.Preview = title
	case "button":
		b := m.obj("button")
		c.Body = copyMap(b)
		text, _ := b["text"].(string)
		c.Body["body"] = text
		c.Preview = text
	case "reaction":
		c.Body = copyMap(m.obj("reaction"))
		emoji, _ := c.Body["emoji"].(string)
		c.Preview = "reacted " + emoji
	case "order":
		c.Body = copyMap(m.obj("order"))
		c.Preview = "[order]"
	default:
		c.Body["raw"] = m.fields
		c.Preview = "[" + typ + "]"
	}
	if ctx := m.obj("context"); ctx != nil {
		c.Body["context"] = ctx
	}
	c.Preview = truncate(c.Preview, 200)
	return c
}

// formReply stores a form flow's answer (interactive nfm_reply): the
// response_json string the platform sends is parsed, and the answer
// object is kept as interactive_data.flow_response (with its flow_token
// as interactive_data.flow_token) and in the content. A response_json
// that is not a JSON object is kept as text only.
func formReply(c *messaging.Content, reply map[string]any) {
	body, _ := reply["body"].(string)
	if body == "" {
		body = "[form response]"
	}
	c.Body["body"] = body
	c.Preview = body
	raw, _ := reply["response_json"].(string)
	var resp map[string]any
	if raw == "" || json.Unmarshal([]byte(raw), &resp) != nil || resp == nil {
		return
	}
	c.Interactive["flow_response"] = resp
	c.Body["flow_response"] = resp
	if tok, ok := resp["flow_token"].(string); ok {
		c.Interactive["flow_token"] = tok
	}
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
