package eventstest_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"

	"switchboard/events"
	"switchboard/events/eventstest"
)

func TestFramesTakeWhatTheOrganizationReceives(t *testing.T) {
	bus := eventstest.NewBus(t)
	org, other := uuid.New(), uuid.New()
	frames := eventstest.Watch(t, bus, org)
	record := func(org uuid.UUID, typ events.Type) {
		t.Helper()
		if err := bus.Record(context.Background(), events.Event{Type: typ, OrgID: org, Payload: map[string]string{"id": "x"}}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		record func()
		want   []string
	}{
		{"Nothing", func() {}, nil},
		{"InOrder", func() {
			record(org, events.ContactCreated)
			record(org, events.ContactUpdated)
		}, []string{events.ContactCreated.Frame, events.ContactUpdated.Frame}},
		{"NotAnotherOrganizations", func() { record(other, events.ContactCreated) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.record()
			if got := frames.Types(t); !slices.Equal(got, tt.want) {
				t.Errorf("frames %v, want %v", got, tt.want)
			}
		})
	}
}
