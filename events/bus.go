// Package events is the one path of domain events (message:new,
// message:status, contact:new, contact:updated, ...). An operation records
// each event once (Bus.Record): the outbound webhook deliveries it causes
// are written in the operation's transaction, and after the commit its
// /ws frame is published once to Redis pub/sub; every node subscribes and
// fans it out to its own WebSocket clients and GraphQL subscribers of that
// organization, so any number of nodes see every event.
package events

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"switchboard/ent"
)

// Received is an event as a subscriber receives it.
type Received struct {
	// Type is the /ws frame type.
	Type  string
	OrgID uuid.UUID
	// Frame is the event as /ws clients receive it, {"type":...,
	// "payload":...}, built once by the publisher; Payload is the payload
	// within it.
	Frame   []byte
	Payload []byte
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
// Frame types are constants without characters JSON would escape.
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
func decode(msg []byte) (Received, error) {
	if len(msg) < orgIDLen+len(framePrefix)+len(typeEnd)+2 {
		return Received{}, errors.New("events: message too short")
	}
	org, err := uuid.ParseBytes(msg[:orgIDLen])
	if err != nil {
		return Received{}, fmt.Errorf("events: organization id: %w", err)
	}
	frame := msg[orgIDLen:]
	rest, ok := bytes.CutPrefix(frame, []byte(framePrefix))
	end := bytes.Index(rest, []byte(typeEnd))
	if !ok || end <= 0 || frame[len(frame)-1] != '}' {
		return Received{}, errors.New("events: malformed frame")
	}
	payload := rest[end+len(typeEnd) : len(rest)-1]
	return Received{Type: string(rest[:end]), OrgID: org, Frame: frame, Payload: payload}, nil
}

// Bus records domain events, publishes their frames through Redis and
// delivers the frames of every node to local subscribers.
type Bus struct {
	rdb     *redis.Client
	channel string
	log     *slog.Logger
	hooks   HookWriter

	mu   sync.RWMutex
	subs map[uuid.UUID]map[*Subscription]struct{}

	// pending holds the frames of transactions not committed yet.
	txMu    sync.Mutex
	pending map[*ent.Tx]*pendingFrames
}

// Options configure a Bus.
type Options struct {
	Redis *redis.Client
	// Channel is the Redis channel (namespaced per deployment).
	Channel string
	// Hooks writes outbound webhook deliveries; nil writes none.
	Hooks HookWriter
	Log   *slog.Logger
}

// New returns a bus.
func New(o Options) *Bus {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Bus{
		rdb: o.Redis, channel: o.Channel, log: log, hooks: o.Hooks,
		subs: map[uuid.UUID]map[*Subscription]struct{}{}, pending: map[*ent.Tx]*pendingFrames{},
	}
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
func (b *Bus) deliver(ev Received) {
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
	c    chan Received
	once sync.Once
}

// Subscribe registers a local subscriber of orgID with a buffer of n
// events. The channel is closed when the subscription ends (Close, or the
// subscriber was too slow).
func (b *Bus) Subscribe(orgID uuid.UUID, n int) *Subscription {
	s := &Subscription{bus: b, org: orgID, c: make(chan Received, n)}
	b.mu.Lock()
	if b.subs[orgID] == nil {
		b.subs[orgID] = map[*Subscription]struct{}{}
	}
	b.subs[orgID][s] = struct{}{}
	b.mu.Unlock()
	return s
}

// C is the subscription's event channel.
func (s *Subscription) C() <-chan Received { return s.c }

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
