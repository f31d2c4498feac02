package outbound_test

import (
	"encoding/json"
	"testing"
	"time"

	"switchboard/outbound"
)

func TestEnvelope(t *testing.T) {
	ts := time.Date(2025, 3, 1, 13, 30, 45, 123_456_789, time.FixedZone("CET", 3600))

	t.Run("OK", func(t *testing.T) {
		got, err := outbound.Envelope(testEventID, "message:new", ts, testOrgID, map[string]any{"text": "<b>hi</b> & bye", "n": 1})
		if err != nil {
			t.Fatal(err)
		}
		want := `{"id":"` + testEventID + `","event":"message:new","timestamp":"2025-03-01T12:30:45.123Z",` +
			`"organization_id":"` + testOrgID + `","data":{"n":1,"text":"<b>hi</b> & bye"}}`
		if string(got) != want {
			t.Errorf("Envelope =\n%s\nwant\n%s", got, want)
		}
		var parsed struct {
			Timestamp string `json:"timestamp"`
		}
		if err := json.Unmarshal(got, &parsed); err != nil {
			t.Fatal(err)
		}
		if pt, err := time.Parse(time.RFC3339, parsed.Timestamp); err != nil || !pt.Equal(ts.Truncate(time.Millisecond)) {
			t.Errorf("timestamp %q parses as %v, %v; want RFC 3339 of %v", parsed.Timestamp, pt, err, ts)
		}
	})

	t.Run("StructData", func(t *testing.T) {
		type contact struct {
			ID    string `json:"id"`
			Phone string `json:"phone_number"`
		}
		got, err := outbound.Envelope(testEventID, "contact:new", ts, testOrgID, contact{ID: "c1", Phone: "+15550100"})
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(got, &m); err != nil {
			t.Fatal(err)
		}
		if string(m["data"]) != `{"id":"c1","phone_number":"+15550100"}` {
			t.Errorf("data = %s", m["data"])
		}
		if len(m) != 5 {
			t.Errorf("envelope has %d keys, want 5: %s", len(m), got)
		}
	})

	t.Run("RawData", func(t *testing.T) {
		got, err := outbound.Envelope(testEventID, "message:status", ts, testOrgID, json.RawMessage(` {"status": "read"} `))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(got, &m); err != nil {
			t.Fatal(err)
		}
		if string(m["data"]) != `{"status":"read"}` {
			t.Errorf("data = %s", m["data"])
		}
	})

	t.Run("NilDataIsEmptyObject", func(t *testing.T) {
		for _, data := range []any{nil, map[string]any(nil)} {
			got, err := outbound.Envelope(testEventID, "ping", ts, testOrgID, data)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(got, &m); err != nil {
				t.Fatal(err)
			}
			if string(m["data"]) != `{}` {
				t.Errorf("data(%#v) = %s, want {}", data, m["data"])
			}
		}
	})

	errs := []struct {
		name    string
		eventID string
		event   string
		orgID   string
		data    any
	}{
		{name: "ErrEventIDNotUUID", eventID: "evt_123", event: "ping", orgID: testOrgID},
		{name: "ErrEventIDBadHex", eventID: "0b8f6f3c-3b1e-4d8a-9c59-6a1f3f0f2d1g", event: "ping", orgID: testOrgID},
		{name: "ErrEventIDNoDashes", eventID: "0b8f6f3c3b1e4d8a9c596a1f3f0f2d11abcd", event: "ping", orgID: testOrgID},
		{name: "ErrOrgIDNotUUID", eventID: testEventID, event: "ping", orgID: "org-1"},
		{name: "ErrEmptyEvent", eventID: testEventID, event: "", orgID: testOrgID},
		{name: "ErrDataArray", eventID: testEventID, event: "ping", orgID: testOrgID, data: []int{1}},
		{name: "ErrDataString", eventID: testEventID, event: "ping", orgID: testOrgID, data: "x"},
		{name: "ErrDataUnencodable", eventID: testEventID, event: "ping", orgID: testOrgID, data: map[string]any{"c": make(chan int)}},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := outbound.Envelope(tc.eventID, tc.event, ts, tc.orgID, tc.data); err == nil {
				t.Fatalf("Envelope = %s, want an error", got)
			}
		})
	}
}
