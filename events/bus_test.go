package events

import (
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/google/uuid"
)

func TestWireFormatRoundTrip(t *testing.T) {
	org := uuid.New()
	payload := []byte(`{"id":"x","content":{"body":"a \"quoted\" } brace"}}`)
	ev, err := decode(encode(org, FrameMessageNew, payload))
	if err != nil {
		t.Fatal(err)
	}
	if ev.OrgID != org || ev.Type != FrameMessageNew || string(ev.Payload) != string(payload) {
		t.Fatalf("decoded %+v", ev)
	}
	var frame struct {
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(ev.Frame, &frame); err != nil {
		t.Fatalf("frame %s is not JSON: %v", ev.Frame, err)
	}
	if frame.Type != FrameMessageNew || string(frame.Payload) != string(payload) {
		t.Fatalf("frame %s", ev.Frame)
	}
}

func TestDecodeRefusesMalformedMessages(t *testing.T) {
	org := uuid.New().String()
	for name, msg := range map[string]string{
		"empty":          "",
		"short":          org + `{"type":"`,
		"bad org":        "not-a-uuid-not-a-uuid-not-a-uuid-xx" + `{"type":"a","payload":{}}`,
		"old JSON shape": `{"type":"message:new","organization_id":"` + org + `","payload":{}}`,
		"no type end":    org + `{"type":"message:new","data":{}}`,
		"empty type":     org + `{"type":"","payload":{}}`,
	} {
		if ev, err := decode([]byte(msg)); err == nil {
			t.Errorf("%s: decoded %+v", name, ev)
		}
	}
}

// TestSlowSubscriberDropped: delivery never waits for a subscriber; one
// whose buffer is full is closed, the others keep receiving.
func TestSlowSubscriberDropped(t *testing.T) {
	b := New(Options{Channel: "test", Log: slog.New(slog.DiscardHandler)})
	org := uuid.New()
	slow, fast := b.Subscribe(org, 1), b.Subscribe(org, 4)
	defer fast.Close()
	for range 2 {
		b.deliver(Received{Type: FrameMessageNew, OrgID: org})
	}
	if _, ok := <-slow.C(); !ok {
		t.Fatal("the slow subscriber lost the event it had room for")
	}
	if _, ok := <-slow.C(); ok {
		t.Fatal("the slow subscriber was not closed")
	}
	for range 2 {
		if ev := <-fast.C(); ev.Type != FrameMessageNew {
			t.Fatalf("fast subscriber got %+v", ev)
		}
	}
	b.deliver(Received{Type: FrameMessageNew, OrgID: uuid.New()}) // another organization's: nobody here
	select {
	case ev := <-fast.C():
		t.Fatalf("received another organization's event %+v", ev)
	default:
	}
}

// TestSubscribedOnlyGrows: Subscribed counts the subscriptions opened,
// whichever organization and whether or not they ended since.
func TestSubscribedOnlyGrows(t *testing.T) {
	b := New(Options{Channel: "test", Log: slog.New(slog.DiscardHandler)})
	steps := []struct {
		name string
		do   func()
		want uint64
	}{
		{"New", func() {}, 0},
		{"Subscribe", func() { b.Subscribe(uuid.New(), 1) }, 1},
		{"AnotherOrganization", func() { b.Subscribe(uuid.New(), 1) }, 2},
		{"CloseKeepsTheCount", func() { b.Subscribe(uuid.New(), 1).Close() }, 3},
		{"Resync", b.Resync, 3},
	}
	for _, s := range steps {
		s.do()
		if got := b.Subscribed(); got != s.want {
			t.Errorf("%s: Subscribed() = %d, want %d", s.name, got, s.want)
		}
	}
}
