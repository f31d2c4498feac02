package outbound

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// TimestampLayout is the envelope's timestamp: RFC 3339 in UTC with
// milliseconds, which every JSON consumer parses.
const TimestampLayout = "2006-01-02T15:04:05.000Z07:00"

// envelope is the body of every delivery; the field order is the contract's.
type envelope struct {
	ID             string          `json:"id"`
	Event          string          `json:"event"`
	Timestamp      string          `json:"timestamp"`
	OrganizationID string          `json:"organization_id"`
	Data           json.RawMessage `json:"data"`
}

// Envelope returns the JSON body of a delivery:
//
//	{"id":"<event uuid>","event":"<name>","timestamp":"<RFC 3339>","organization_id":"<uuid>","data":{...}}
//
// eventID and orgID must be UUIDs and event must not be empty. data must
// encode to a JSON object; nil gives {}. ts is when the event happened, not
// when it is delivered, so the body (and its signature input) is the same
// on every retry.
func Envelope(eventID, event string, ts time.Time, orgID string, data any) ([]byte, error) {
	if !isUUID(eventID) {
		return nil, fmt.Errorf("outbound: event id %q is not a UUID", eventID)
	}
	if !isUUID(orgID) {
		return nil, fmt.Errorf("outbound: organization id %q is not a UUID", orgID)
	}
	if event == "" {
		return nil, errors.New("outbound: event name is empty")
	}
	raw, err := marshal(data)
	if err != nil {
		return nil, fmt.Errorf("outbound: encode data: %w", err)
	}
	switch {
	case bytes.Equal(raw, []byte("null")):
		raw = []byte("{}")
	case raw[0] != '{':
		return nil, fmt.Errorf("outbound: data must be a JSON object, not %T", data)
	}
	return marshal(envelope{
		ID:             eventID,
		Event:          event,
		Timestamp:      ts.UTC().Format(TimestampLayout),
		OrganizationID: orgID,
		Data:           raw,
	})
}

// marshal is json.Marshal without HTML escaping, which receivers do not
// need, and without the encoder's trailing newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// isUUID reports whether s has the textual form of a UUID
// (8-4-4-4-12 hexadecimal digits).
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
