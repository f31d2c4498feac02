// Package events is the one publisher of domain events (message:new,
// message:status, contact:new, contact:updated, ...). An event is published
// once to Redis pub/sub; every node subscribes and fans it out to its own
// WebSocket clients and GraphQL subscribers of that organization, so any
// number of nodes see every event.
package events

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// Event types.
const (
	MessageNew     = "message:new"
	MessageStatus  = "message:status"
	ContactNew     = "contact:new"
	ContactUpdated = "contact:updated"
)

// Event is one domain event of an organization.
type Event struct {
	Type  string
	OrgID uuid.UUID
	// Frame is the event as /ws clients receive it, {"type":...,
	// "payload":...}, built once by the publisher; Payload is the payload
	// within it.
	Frame   []byte
	Payload json.RawMessage
}

// The wire form of an event on the Redis channel is its organization id
// (36 characters) followed by its frame. The frame always starts with
// framePrefix, the type, and typeEnd, so a receiver takes it apart
// without decoding any JSON.
const (
	framePrefix = `{"type":"`
	typeEnd     = `","payload":`
	orgIDLen    = 36
)

// encode builds the wire form of an event whose payload is already JSON.
// Event types are constants without characters JSON would escape.
func encode(orgID uuid.UUID, typ string, payload []byte) []byte {
	msg := make([]byte, 0, orgIDLen+len(framePrefix)+len(typ)+len(typeEnd)+len(payload)+1)
	msg = append(msg, orgID.String()...)
	msg = append(msg, framePrefix...)
	msg = append(msg, typ...)
	msg = append(msg, typeEnd...)
	msg = append(msg, payload...)
	return append(msg, '}')
}

// decode takes a wire message apart. It checks the frame's shape, not its
// JSON: only this package's publishers write the channel.
func decode(msg []byte) (Event, error) {
	if len(msg) < orgIDLen+len(framePrefix)+len(typeEnd)+2 {
		return Event{}, errors.New("events: message too short")
	}
	org, err := uuid.ParseBytes(msg[:orgIDLen])
	if err != nil {
		return Event{}, fmt.Errorf("events: organization id: %w", err)
	}
	frame := msg[orgIDLen:]
	rest, ok := bytes.CutPrefix(frame, []byte(framePrefix))
	end := bytes.Index(rest, []byte(typeEnd))
	if !ok || end <= 0 || frame[len(frame)-1] != '}' {
		return Event{}, errors.New("events: malformed frame")
	}
	payload := rest[end+len(typeEnd) : len(rest)-1]
	return Event{Type: string(rest[:end]), OrgID: org, Frame: frame, Payload: payload}, nil
}

// Bus publishes events through Redis and delivers them to local
// subscribers.
type Bus struct {
	rdb     *redis.Client
	channel string
	log     *slog.Logger

	mu   sync.RWMutex
	subs map[uuid.UUID]map[*Subscription]struct{}
}

// New returns a bus on channel (namespaced per deployment).
func New(rdb *redis.Client, channel string, log *slog.Logger) *Bus {
	return &Bus{rdb: rdb, channel: channel, log: log, subs: map[uuid.UUID]map[*Subscription]struct{}{}}
}

// Publish sends an event of orgID to every node. payload is marshalled to
// JSON.
func (b *Bus) Publish(ctx context.Context, orgID uuid.UUID, typ string, payload any) error {
	raw, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	return b.rdb.Publish(ctx, b.channel, encode(orgID, typ, raw)).Err()
}

// Outgoing is one event to publish with PublishBatch.
type Outgoing struct {
	OrgID   uuid.UUID
	Type    string
	Payload any
}

// PublishBatch publishes events in one round trip, in order.
func (b *Bus) PublishBatch(ctx context.Context, evs []Outgoing) error {
	if len(evs) == 0 {
		return nil
	}
	pipe := b.rdb.Pipeline()
	for _, e := range evs {
		raw, err := json.Marshal(e.Payload)
		if err != nil {
			return err
		}
		pipe.Publish(ctx, b.channel, encode(e.OrgID, e.Type, raw))
	}
	_, err := pipe.Exec(ctx)
	return err
}

// Run receives the events of every node and hands them to local
// subscribers until ctx is done. ready is closed once subscribed.
func (b *Bus) Run(ctx context.Context, ready chan<- struct{}) {
	ps := b.rdb.Subscribe(ctx, b.channel)
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		b.log.Error("events: subscribing", "err", err)
	}
	if ready != nil {
		close(ready)
	}
	ch := ps.Channel(redis.WithChannelSize(1024))
	for {
		select {
		case <-ctx.Done():
			return
		case m, ok := <-ch:
			if !ok {
				return
			}
			ev, err := decode([]byte(m.Payload))
			if err != nil {
				b.log.Warn("events: undecodable event", "err", err)
				continue
			}
			b.deliver(ev)
		}
	}
}

// deliver hands ev to the subscribers of its organization without ever
// blocking: a subscriber whose buffer is full is dropped.
func (b *Bus) deliver(ev Event) {
	b.mu.RLock()
	var slow []*Subscription
	for s := range b.subs[ev.OrgID] {
		select {
		case s.c <- ev:
		default:
			slow = append(slow, s)
		}
	}
	b.mu.RUnlock()
	for _, s := range slow {
		b.log.Warn("events: dropping a slow subscriber", "organization_id", ev.OrgID)
		s.Close()
	}
}

// Subscription receives the events of one organization.
type Subscription struct {
	bus  *Bus
	org  uuid.UUID
	c    chan Event
	once sync.Once
}

// Subscribe registers a local subscriber of orgID with a buffer of n
// events. The channel is closed when the subscription ends (Close, or the
// subscriber was too slow).
func (b *Bus) Subscribe(orgID uuid.UUID, n int) *Subscription {
	s := &Subscription{bus: b, org: orgID, c: make(chan Event, n)}
	b.mu.Lock()
	if b.subs[orgID] == nil {
		b.subs[orgID] = map[*Subscription]struct{}{}
	}
	b.subs[orgID][s] = struct{}{}
	b.mu.Unlock()
	return s
}

// C is the subscription's event channel.
func (s *Subscription) C() <-chan Event { return s.c }

// Close ends the subscription; it is safe to call more than once.
func (s *Subscription) Close() {
	s.once.Do(func() {
		b := s.bus
		b.mu.Lock()
		delete(b.subs[s.org], s)
		if len(b.subs[s.org]) == 0 {
			delete(b.subs, s.org)
		}
		b.mu.Unlock()
		close(s.c)
	})
}
