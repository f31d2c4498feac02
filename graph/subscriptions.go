package graph

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/viewer"
	"switchboard/events"
)

// subscriptionBuffer is how many events a GraphQL subscriber may lag.
const subscriptionBuffer = 128

// eventRef is the part of an event payload subscriptions need.
type eventRef struct {
	ID        uuid.UUID `json:"id"`
	ContactID uuid.UUID `json:"contact_id"`
}

// subscribe streams the events of the viewer's organization whose type is
// in types, loading each one's entity with load under the viewer's privacy
// rules. It ends when ctx ends or the subscriber falls too far behind.
func subscribe[T any](ctx context.Context, bus *events.Bus, types []string, keep func(eventRef) bool,
	load func(context.Context, uuid.UUID) (T, error)) (<-chan T, error) {
	v := viewer.FromContext(ctx)
	if v == nil || bus == nil {
		return nil, apperr.New(apperr.Unauthenticated, "authentication required")
	}
	sub := bus.Subscribe(v.OrgID, subscriptionBuffer)
	out := make(chan T, 1)
	go func() {
		defer close(out)
		defer sub.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-sub.C():
				if !ok {
					return
				}
				if !contains(types, ev.Type) {
					continue
				}
				var ref eventRef
				if json.Unmarshal(ev.Payload, &ref) != nil || !keep(ref) {
					continue
				}
				item, err := load(ctx, ref.ID)
				if err != nil {
					continue // deleted since, or not visible to this viewer
				}
				select {
				case out <- item:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// MessagesOf streams messages of the given event types, of one contact
// when contactID is set.
func (r *Resolver) MessagesOf(ctx context.Context, typ string, contactID *uuid.UUID) (<-chan *ent.Message, error) {
	keep := func(ref eventRef) bool { return contactID == nil || ref.ContactID == *contactID }
	return subscribe(ctx, r.Events, []string{typ}, keep, r.Messaging.Message)
}

// ContactChanges streams contacts as they are created or changed.
func (r *Resolver) ContactChanges(ctx context.Context) (<-chan *ent.Contact, error) {
	keep := func(eventRef) bool { return true }
	return subscribe(ctx, r.Events, []string{events.FrameContactNew, events.FrameContactUpdated}, keep, r.Contacts.Get)
}
