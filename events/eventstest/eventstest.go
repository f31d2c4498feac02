// Package eventstest runs an event bus for the tests of the packages that
// record domain events, and reads what one organization receives from it,
// as /ws clients and GraphQL subscribers do. It is for tests only.
package eventstest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"switchboard/events"
	"switchboard/internal/testkit"
)

// NewBus returns a bus on an embedded Redis of its own, subscribed and
// running until the test ends. It writes no webhook deliveries.
func NewBus(tb testing.TB) *events.Bus {
	tb.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: miniredis.RunT(tb).Addr()})
	bus := events.New(events.Options{Redis: rdb, Channel: "eventstest", Log: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan struct{})
	go func() { defer close(done); bus.Run(ctx, ready) }()
	tb.Cleanup(func() { cancel(); <-done; _ = rdb.Close() })
	<-ready
	return bus
}

// Frames receives the frames of one organization's events.
type Frames struct {
	bus *events.Bus
	sub *events.Subscription
	org uuid.UUID
}

// Watch subscribes to the events of org on bus until the test ends.
func Watch(tb testing.TB, bus *events.Bus, org uuid.UUID) *Frames {
	tb.Helper()
	sub := bus.Subscribe(org, 1000)
	tb.Cleanup(sub.Close)
	return &Frames{bus: bus, sub: sub, org: org}
}

// marker closes a Take: recorded after the operations under test, it
// arrives after their frames (one publisher's messages reach a subscriber
// in order, and an operation publishes before it returns).
var marker = events.Type{Frame: "eventstest:marker"}

// Take returns the frames received since the last Take, in order.
func (f *Frames) Take(tb testing.TB) []events.Received {
	tb.Helper()
	if err := f.bus.Record(context.Background(), events.Event{Type: marker, OrgID: f.org, Payload: struct{}{}}); err != nil {
		tb.Fatal(err)
	}
	var out []events.Received
	timeout := time.After(testkit.Deadline)
	for {
		select {
		case ev, ok := <-f.sub.C():
			if !ok {
				tb.Fatalf("the subscription ended (%v) after %d frames", f.sub.Err(), len(out))
			}
			if ev.Type == marker.Frame {
				return out
			}
			out = append(out, ev)
		case <-timeout:
			tb.Fatalf("no marker frame within %s, after %d frames", testkit.Deadline, len(out))
		}
	}
}

// Types returns the types of the frames received since the last Take.
func (f *Frames) Types(tb testing.TB) []string {
	tb.Helper()
	var types []string
	for _, ev := range f.Take(tb) {
		types = append(types, ev.Type)
	}
	return types
}
