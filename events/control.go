package events

import (
	"bytes"
	"context"
	"sync"
)

// Control messages share the events channel and this node's subscription
// to it, so they reach every node the way events do: access/ ends the
// sockets of a revoked credential with them. A control message is
// "<name>:<body>"; an event starts with its organization id instead, whose
// first 36 characters hold no colon.

// controls holds the handlers of control messages by name and the
// functions to run whenever the subscription is restored.
type controls struct {
	mu          sync.RWMutex
	handlers    map[string]func(body []byte)
	resubscribe []func()
}

// OnControl hands the body of every control message named name, published
// by any node (this one included), to fn. fn runs on the bus's receiving
// goroutine: it must not block.
func (b *Bus) OnControl(name string, fn func(body []byte)) {
	b.controls.mu.Lock()
	defer b.controls.mu.Unlock()
	if b.controls.handlers == nil {
		b.controls.handlers = map[string]func([]byte){}
	}
	b.controls.handlers[name] = fn
}

// OnResubscribe runs fn whenever this node subscribes again after losing
// its subscription: control messages published meanwhile were missed.
func (b *Bus) OnResubscribe(fn func()) {
	b.controls.mu.Lock()
	defer b.controls.mu.Unlock()
	b.controls.resubscribe = append(b.controls.resubscribe, fn)
}

// PublishControl sends a control message to every node now. Pub/sub
// delivers at most once: a node whose subscription is down misses it (its
// OnResubscribe functions run when it is back). A failure is logged.
func (b *Bus) PublishControl(ctx context.Context, name string, body []byte) {
	msg := make([]byte, 0, len(name)+1+len(body))
	msg = append(append(append(msg, name...), ':'), body...)
	b.publish(ctx, [][]byte{msg})
}

// handleControl hands msg to its handler and reports whether it was a
// control message.
func (b *Bus) handleControl(msg []byte) bool {
	i := bytes.IndexByte(msg[:min(len(msg), orgIDLen)], ':')
	if i <= 0 {
		return false
	}
	b.controls.mu.RLock()
	fn := b.controls.handlers[string(msg[:i])]
	b.controls.mu.RUnlock()
	if fn == nil {
		b.log.Warn("events: control message nobody handles", "name", string(msg[:i]))
		return true
	}
	fn(msg[i+1:])
	return true
}

// resubscribed runs the OnResubscribe functions.
func (b *Bus) resubscribed() {
	b.controls.mu.RLock()
	fns := b.controls.resubscribe
	b.controls.mu.RUnlock()
	for _, fn := range fns {
		fn()
	}
}
