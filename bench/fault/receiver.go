package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"

	"switchboard/outbound"
)

// receiver is the outbound webhook endpoint the run subscribes: it
// counts every delivery, deduplicates them by event id (the webhook-id
// header, the same on every retry) and answers a fraction of first
// attempts 503 with Retry-After: 1, so that the servers' retries are
// exercised. A first attempt is one signed within firstAttempt of the
// event's time: a later one (a delivery recovered after a fault) is never
// refused, as its next retry would be minutes away.
type receiver struct {
	secret  string
	p       *payloads
	fail503 float64
	srv     *http.Server

	mu         sync.Mutex
	byEvent    map[uuid.UUID]*received
	deliveries int // requests answered 200
	forced503  int
	badSig     int // signature did not verify
	idMismatch int // webhook-id header is not the body's id
	malformed  int // body not the contract's envelope
	otherRun   int // a message of another run (not ours)
}

// received is what the receiver knows of one event id.
type received struct {
	seq      int // the message the event is about (0: unknown)
	attempts int // requests carrying it, 503s included
	ok       int // of them answered 200
}

func newReceiver(secret string, p *payloads, fail503 float64) *receiver {
	return &receiver{secret: secret, p: p, fail503: fail503, byEvent: map[uuid.UUID]*received{}}
}

// serve listens on addr until ctx ends.
func (r *receiver) serve(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("receiver: %w", err)
	}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	context.AfterFunc(ctx, func() { _ = r.srv.Close() })
	return nil
}

// closeIdle closes the keep-alive connections the servers hold to the
// receiver (and keeps new ones from being kept), so that a node's idle
// goroutine count does not include its pooled connections' readers.
func (r *receiver) closeIdle() {
	if r.srv != nil {
		r.srv.SetKeepAlivesEnabled(false)
	}
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	if err != nil {
		http.Error(w, "read", http.StatusBadRequest)
		return
	}
	var env struct {
		ID        string    `json:"id"`
		Event     string    `json:"event"`
		Timestamp time.Time `json:"timestamp"`
		Data      struct {
			ChatMessageID string `json:"chat_message_id"`
		} `json:"data"`
	}
	hid := req.Header.Get(outbound.HeaderWebhookID)
	id, perr := uuid.Parse(hid)
	jerr := json.Unmarshal(body, &env)
	r.mu.Lock()
	defer r.mu.Unlock()
	if perr != nil || jerr != nil {
		r.malformed++
		w.WriteHeader(http.StatusOK) // nothing a retry would fix
		return
	}
	if env.ID != hid {
		r.idMismatch++
	}
	if outbound.Verify(outbound.SecretBytes(r.secret), req.Header, body, 0) != nil {
		r.badSig++
	}
	ev := r.byEvent[id]
	if ev == nil {
		seq, ok := r.p.seqOf(env.Data.ChatMessageID)
		if !ok {
			r.otherRun++
		}
		ev = &received{seq: seq}
		r.byEvent[id] = ev
	}
	ev.attempts++
	if ev.attempts == 1 && forceRetry(id, r.fail503) && firstAttempt(env.Timestamp, req.Header.Get(outbound.HeaderWebhookTimestamp)) {
		r.forced503++
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	ev.ok++
	r.deliveries++
	w.WriteHeader(http.StatusOK)
}

// forceRetry picks, from the event id alone, the fraction of events whose
// first attempt is refused.
func forceRetry(id uuid.UUID, fraction float64) bool {
	return float64(uint16(id[14])<<8|uint16(id[15])) < fraction*65536
}

// firstAttempt reports whether an attempt signed at signedUnix (the
// webhook-timestamp header) is the event's first: within 2 s of the
// event's time.
func firstAttempt(event time.Time, signedUnix string) bool {
	signed, err := strconv.ParseInt(signedUnix, 10, 64)
	return err == nil && signed-event.Unix() <= 2
}

// snapshot copies what was received.
func (r *receiver) snapshot() receiverCounts {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := receiverCounts{Deliveries: r.deliveries, Forced503: r.forced503, BadSignature: r.badSig,
		IDMismatch: r.idMismatch, Malformed: r.malformed, OtherRun: r.otherRun,
		Events: make(map[uuid.UUID]received, len(r.byEvent))}
	for id, ev := range r.byEvent {
		c.Events[id] = *ev
	}
	return c
}

// receiverCounts is a copy of the receiver's counts.
type receiverCounts struct {
	Deliveries, Forced503, BadSignature, IDMismatch, Malformed, OtherRun int
	Events                                                               map[uuid.UUID]received
}
