package inbound

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// rawMessage is one message of a delivery. Every type's content is
// stored, including types this code does not know yet, so a message is
// kept whole: as the map of its JSON object (fields). The common shape,
// a plain text message (from, id, timestamp, type "text" and a text
// object, nothing else), is read without that map by parseTextMessage:
// decoding every message into a map[string]any was a tenth of the
// server's CPU under load. Both give the same stored content; any other
// shape, or anything unusual in this one, takes the map.
type rawMessage struct {
	// fields is the whole object, unless plain: then the message is a
	// plain text message, read into text.
	fields map[string]any
	plain  bool
	text   textMessage
}

// textMessage is what a plain text message holds.
type textMessage struct {
	from, id, timestamp, typ, body string
}

// UnmarshalJSON keeps a message: a plain text message in text, any other
// in fields.
func (m *rawMessage) UnmarshalJSON(data []byte) error {
	if t, ok := parseTextMessage(data); ok {
		*m = rawMessage{plain: true, text: t}
		return nil
	}
	var fields map[string]any
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	*m = rawMessage{fields: fields}
	return nil
}

// str is a top-level string field of the message ("" when absent or not
// a string).
func (m rawMessage) str(key string) string {
	if m.plain {
		switch key {
		case "from":
			return m.text.from
		case "id":
			return m.text.id
		case "timestamp":
			return m.text.timestamp
		case "type":
			return m.text.typ
		}
		return ""
	}
	s, _ := m.fields[key].(string)
	return s
}

// obj is a top-level object field of the message (nil when absent or not
// an object). A plain text message has only its text.
func (m rawMessage) obj(key string) map[string]any {
	if m.plain {
		if key == "text" {
			return map[string]any{"body": m.text.body}
		}
		return nil
	}
	o, _ := m.fields[key].(map[string]any)
	return o
}

// parseTextMessage reads a plain text message from data, a JSON object
// that json.Unmarshal has already found valid: keys from, id, timestamp
// and type with string values, type "text", and a text object whose body,
// if given, is a string. Keys are matched exactly (as the map's lookups
// do), a repeated key keeps its last value (as the map does), and strings
// are decoded as json.Unmarshal decodes them. ok is false for anything
// else (another key, a value of another kind, a key with an escape): the
// caller then decodes the map.
func parseTextMessage(data []byte) (t textMessage, ok bool) {
	s := jsonCursor{data: data}
	hasText := false
	if !s.object(func(key []byte) bool {
		switch string(key) {
		case "from":
			return s.string(&t.from)
		case "id":
			return s.string(&t.id)
		case "timestamp":
			return s.string(&t.timestamp)
		case "type":
			return s.string(&t.typ)
		case "text":
			hasText, t.body = true, ""
			return s.object(func(key []byte) bool {
				if string(key) == "body" {
					return s.string(&t.body)
				}
				return s.skipValue()
			})
		}
		return false
	}) {
		return textMessage{}, false
	}
	s.space()
	return t, hasText && t.typ == "text" && s.i == len(data)
}

// jsonCursor walks JSON text that is known to be valid.
type jsonCursor struct {
	data []byte
	i    int
}

func (s *jsonCursor) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// next skips white space and returns the next byte (0 at the end).
func (s *jsonCursor) next() byte {
	s.space()
	if s.i >= len(s.data) {
		return 0
	}
	return s.data[s.i]
}

// object reads an object, calling field for every key (unescaped keys
// only) with the cursor on its value; field reads the value and returns
// false to give up.
func (s *jsonCursor) object(field func(key []byte) bool) bool {
	if s.next() != '{' {
		return false
	}
	s.i++
	if s.next() == '}' {
		s.i++
		return true
	}
	for {
		if s.next() != '"' {
			return false
		}
		key, escaped := s.stringToken()
		if escaped {
			return false
		}
		if s.next() != ':' {
			return false
		}
		s.i++
		s.space()
		if !field(key[1 : len(key)-1]) {
			return false
		}
		switch s.next() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// stringToken returns the string token at the cursor, quotes included,
// and whether it has escapes.
func (s *jsonCursor) stringToken() (tok []byte, escaped bool) {
	start := s.i
	for s.i++; s.i < len(s.data); s.i++ {
		switch s.data[s.i] {
		case '\\':
			escaped = true
			s.i++
		case '"':
			s.i++
			return s.data[start:s.i], escaped
		}
	}
	return s.data[start:], escaped
}

// string reads a string value into out; false when the value is not a
// string.
func (s *jsonCursor) string(out *string) bool {
	if s.next() != '"' {
		return false
	}
	tok, escaped := s.stringToken()
	if inner := tok[1 : len(tok)-1]; !escaped && utf8.Valid(inner) {
		*out = string(inner)
		return true
	}
	// Escapes and invalid UTF-8 (replaced by U+FFFD) as json.Unmarshal
	// reads them.
	return json.Unmarshal(tok, out) == nil
}

// skipValue moves past any value.
func (s *jsonCursor) skipValue() bool {
	switch s.next() {
	case '"':
		s.stringToken()
		return true
	case '{', '[':
		depth := 0
		for s.i < len(s.data) {
			switch s.data[s.i] {
			case '"':
				s.stringToken()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return true
				}
			}
			s.i++
		}
		return false
	case 0:
		return false
	default:
		for s.i < len(s.data) {
			switch s.data[s.i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return true
			}
			s.i++
		}
		return true
	}
}

// The platform's keys of each object decodePayload reads.
var (
	payloadKeys = []string{"object", "entry"}
	entryKeys   = []string{"id", "changes"}
	changeKeys  = []string{"field", "value"}
	// valueKeys after statuses are the template changes' and the calls
	// field's, which encoding/json reads (they are rare): the cursor gives
	// up on them.
	valueKeys = []string{"messaging_product", "metadata", "contacts", "messages", "statuses",
		"event", "message_template_id", "message_template_name", "message_template_language",
		"reason", "new_quality_score", "new_category", "calls"}
	metadataKeys = []string{"display_phone_number", "phone_number_id"}
	contactKeys  = []string{"profile", "wa_id"}
	profileKeys  = []string{"name"}
	statusKeys   = []string{"id", "status", "timestamp", "recipient_id", "errors", "biz_opaque_callback_data"}
)

// decodePayload reads a delivery, JSON that json.Valid accepted, to what
// json.Unmarshal into a payload gives, without its reflection: that was
// most of the ack path's CPU after the maps of the messages were gone.
// It reads the platform's shapes: keys matched exactly, each at most
// once per object, values of the field's kind (a status's errors are
// decoded by encoding/json), other keys skipped as encoding/json skips
// them. ok is false for anything else (a key that encoding/json would
// match case-insensitively or that has an escape, a repeated key, null,
// a value of another kind): the caller then decodes with encoding/json.
func decodePayload(data []byte) (*payload, bool) {
	s := &jsonCursor{data: data}
	p := &payload{}
	ok := s.fields(payloadKeys, func(k int) bool {
		if k == 0 {
			return s.string(&p.Object)
		}
		p.Entry = []entry{} // as encoding/json: an empty array is not nil
		return s.array(func() bool {
			p.Entry = append(p.Entry, entry{})
			return s.entry(&p.Entry[len(p.Entry)-1])
		})
	})
	s.space()
	return p, ok && s.i == len(data)
}

func (s *jsonCursor) entry(e *entry) bool {
	return s.fields(entryKeys, func(k int) bool {
		if k == 0 {
			return s.string(&e.ID)
		}
		e.Changes = []change{}
		return s.array(func() bool {
			e.Changes = append(e.Changes, change{})
			c := &e.Changes[len(e.Changes)-1]
			return s.fields(changeKeys, func(k int) bool {
				if k == 0 {
					return s.string(&c.Field)
				}
				return s.changeValue(&c.Value)
			})
		})
	})
}

func (s *jsonCursor) changeValue(v *changeValue) bool {
	return s.fields(valueKeys, func(k int) bool {
		switch k {
		case 0:
			return s.string(&v.MessagingProduct)
		case 1:
			return s.fields(metadataKeys, func(k int) bool {
				if k == 0 {
					return s.string(&v.Metadata.DisplayPhoneNumber)
				}
				return s.string(&v.Metadata.PhoneNumberID)
			})
		case 2:
			v.Contacts = []changeContact{}
			return s.array(func() bool {
				v.Contacts = append(v.Contacts, changeContact{})
				c := &v.Contacts[len(v.Contacts)-1]
				return s.fields(contactKeys, func(k int) bool {
					if k == 0 {
						return s.fields(profileKeys, func(int) bool { return s.string(&c.Profile.Name) })
					}
					return s.string(&c.WaID)
				})
			})
		case 3:
			v.Messages = []rawMessage{}
			return s.array(func() bool {
				start := s.i
				if !s.skipValue() {
					return false
				}
				v.Messages = append(v.Messages, rawMessage{})
				return v.Messages[len(v.Messages)-1].UnmarshalJSON(s.data[start:s.i]) == nil
			})
		case 4:
			v.Statuses = []statusUpdate{}
			return s.array(func() bool {
				v.Statuses = append(v.Statuses, statusUpdate{})
				return s.status(&v.Statuses[len(v.Statuses)-1])
			})
		default:
			return false
		}
	})
}

func (s *jsonCursor) status(st *statusUpdate) bool {
	return s.fields(statusKeys, func(k int) bool {
		switch k {
		case 0:
			return s.string(&st.ID)
		case 1:
			return s.string(&st.Status)
		case 2:
			return s.string(&st.Timestamp)
		case 3:
			return s.string(&st.RecipientID)
		case 5:
			return s.string(&st.CallbackData)
		default:
			start := s.i
			if s.next() != '[' || !s.skipValue() {
				return false
			}
			return json.Unmarshal(s.data[start:s.i], &st.Errors) == nil
		}
	})
}

// fields reads an object whose known keys are names, calling field with
// the index of each with the cursor on its value. Other keys' values are
// skipped, unless encoding/json would take the key for a known one (it
// matches names case-insensitively) or the key has an escape; a known
// key given twice also gives up (false), as does field.
func (s *jsonCursor) fields(names []string, field func(k int) bool) bool {
	var seen uint32
	return s.object(func(key []byte) bool {
		for k, name := range names {
			if string(key) == name {
				if seen&(1<<k) != 0 {
					return false
				}
				seen |= 1 << k
				return field(k)
			}
		}
		for _, name := range names {
			if bytes.EqualFold(key, []byte(name)) {
				return false
			}
		}
		return s.skipValue()
	})
}

// array reads an array, calling elem with the cursor on each element;
// false when the value is not an array or elem gives up.
func (s *jsonCursor) array(elem func() bool) bool {
	if s.next() != '[' {
		return false
	}
	s.i++
	if s.next() == ']' {
		s.i++
		return true
	}
	for {
		s.space()
		if !elem() {
			return false
		}
		switch s.next() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}
