// Package events is the one path of domain events (message:new,
// message:status, contact:new, contact:updated, ...). An operation records
// each event once (Bus.Record): the outbound webhook deliveries it causes
// are written in the operation's transaction, and after the commit its
// /ws frame is published once to Redis pub/sub; every node subscribes and
// fans it out to its own WebSocket clients and GraphQL subscribers of that
// organization, so any number of nodes see every event. The same channel
// carries the nodes' control messages (resync, and access revocations:
// control.go).
package events

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"switchboard/ent"
	"switchboard/internal/sleep"
	"switchboard/kv"
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

	// node names this process; its lease is renewed every renew and
	// lapses after lease; idle is how long the subscription may stay
	// silent before it is pinged.
	node               string
	renew, lease, idle time.Duration
	watching           chan struct{} // closed when watchNodes returns
	watchOnce          sync.Once
	stopWatch          context.CancelFunc

	mu   sync.RWMutex
	subs map[uuid.UUID]map[*Subscription]struct{}
	// subscribed counts the Subscribe calls (Subscribed).
	subscribed atomic.Uint64

	// controls are the handlers of control messages (control.go).
	controls controls

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
	// NodeLease is how long a node that stopped renewing its lease is
	// taken for alive (default 10 s; renewed every third of it).
	NodeLease time.Duration
}

// New returns a bus.
func New(o Options) *Bus {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	lease := o.NodeLease
	if lease <= 0 {
		lease = 10 * time.Second
	}
	return &Bus{
		rdb: o.Redis, channel: o.Channel, log: log, hooks: o.Hooks,
		node: newNodeID(), lease: lease, renew: lease / 3, idle: 15 * time.Second, watching: make(chan struct{}),
		subs: map[uuid.UUID]map[*Subscription]struct{}{}, pending: map[*ent.Tx]*pendingFrames{},
	}
}

// Run receives the events of every node and hands them to local
// subscribers until ctx is done. ready is closed once subscribed. It also
// keeps this node's lease (watchNodes).
//
// Pub/sub delivers at most once: frames published while this node's
// subscription is down (a Redis restart, a dropped connection), or that a
// node which died took with it, are never seen. Whenever that may have
// happened, every local subscription is ended with ErrResync: its client
// reconnects and reloads what it shows (the documented resync path).
func (b *Bus) Run(ctx context.Context, ready chan<- struct{}) {
	lost, backoff := false, 100*time.Millisecond
	for ctx.Err() == nil {
		ps, err := kv.Subscribe(ctx, b.rdb, b.channel, b.idle)
		if ready != nil {
			close(ready) // after the first attempt, whatever its outcome
			ready = nil
			b.startWatch()
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if !lost {
				lost = true
				b.log.Warn("events: subscription lost; clients are told to resync", "err", err)
				b.Resync()
			}
			_ = sleep.For(ctx, backoff) // an ended ctx ends the loop
			backoff = min(2*backoff, 2*time.Second)
			continue
		}
		if lost {
			b.restored()
		}
		lost, backoff = false, 100*time.Millisecond
		err = kv.Receive(ctx, ps, b.idle, func(m *redis.Message) { b.handle([]byte(m.Payload)) })
		_ = ps.Close()
		if ctx.Err() != nil {
			return
		}
		lost = true
		b.log.Warn("events: subscription lost; clients are told to resync", "err", err)
		b.Resync()
	}
}

// restored: subscribed again after losing the subscription. Whoever
// connected during the outage may have missed frames too, and control
// messages published meanwhile were missed.
func (b *Bus) restored() {
	b.log.Info("events: subscription restored; clients are told to resync")
	b.Resync()
	b.resubscribed()
}

// handle decodes one message of the channel.
func (b *Bus) handle(msg []byte) {
	if bytes.HasPrefix(msg, resyncMessage) {
		b.log.Warn("events: " + string(msg))
		b.Resync()
		return
	}
	if b.handleControl(msg) {
		return
	}
	ev, err := decode(msg)
	if err != nil {
		b.log.Warn("events: undecodable event", "err", err)
		return
	}
	b.deliver(ev)
}

// Resync ends every local subscription with ErrResync.
func (b *Bus) Resync() {
	b.mu.RLock()
	var all []*Subscription
	for _, subs := range b.subs {
		for s := range subs {
			all = append(all, s)
		}
	}
	b.mu.RUnlock()
	for _, s := range all {
		s.end(ErrResync)
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
		s.end(ErrTooSlow)
	}
}

// Why a subscription ended before its subscriber closed it.
var (
	// ErrTooSlow: the subscriber's buffer was full.
	ErrTooSlow = errors.New("too slow")
	// ErrResync: events may have been missed; reconnect and reload.
	ErrResync = errors.New("resync: events may have been missed; reconnect and reload")
)

// Subscription receives the events of one organization.
type Subscription struct {
	bus    *Bus
	org    uuid.UUID
	c      chan Received
	once   sync.Once
	reason error
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
	b.subscribed.Add(1)
	return s
}

// Subscribed is how many subscriptions this bus has opened. It only grows,
// so that a test can wait for it to pass the count it read before
// subscribing over a transport that does not acknowledge a subscription
// (graphql-transport-ws): an event recorded before the subscription is
// open does not reach it.
func (b *Bus) Subscribed() uint64 { return b.subscribed.Load() }

// C is the subscription's event channel.
func (s *Subscription) C() <-chan Received { return s.c }

// Close ends the subscription; it is safe to call more than once.
func (s *Subscription) Close() { s.end(nil) }

// Err tells why the bus ended the subscription (ErrTooSlow, ErrResync);
// nil while it runs or when its subscriber closed it. Read it after C is
// closed.
func (s *Subscription) Err() error { return s.reason }

func (s *Subscription) end(reason error) {
	s.once.Do(func() {
		s.reason = reason
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
