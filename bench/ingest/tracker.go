package main

import (
	"sync"
	"time"
)

// tracker records every POST and, per message id, whether and when a POST
// carrying it was acknowledged, and when its /ws event arrived.
type tracker struct {
	mu   sync.Mutex
	msgs map[string]*msgState
	// order is every started message id, in start order: the poller
	// reads it from where it left off.
	order []string

	ackLatency     []time.Duration // scheduled → 200, every acknowledged POST
	ackDue         []time.Time     // the due time of each ackLatency sample
	serviceLatency []time.Duration // sent → 200
	posts          int             // POSTs sent, retries included
	acked          int
	failed         int // transport errors, 5xx, 429: retried
	rejected       int // other answers: not retried
	retries        int
	dupPosts       int
	outstanding    int // deliveries neither acknowledged nor given up
	gaveUp         int
	statuses       map[string]int // non-200 answers and errors, by kind

	// The /ws reader has its own lock, so that it never waits for the
	// posting goroutines.
	evMu        sync.Mutex
	events      map[string]time.Time // first message:new per message id
	disconnects int
}

type msgState struct {
	phone   string
	acked   bool
	ackSent time.Time // send time of the earliest acknowledged POST
}

// newTracker sizes its tables for about expected POSTs, so that they do
// not grow (and copy) while the load runs.
func newTracker(expected int) *tracker {
	return &tracker{
		msgs: make(map[string]*msgState, expected), order: make([]string, 0, expected), statuses: map[string]int{},
		events:     make(map[string]time.Time, expected),
		ackLatency: make([]time.Duration, 0, expected), serviceLatency: make([]time.Duration, 0, expected),
		ackDue: make([]time.Time, 0, expected),
	}
}

// started notes a new delivery (not a retry) before it is posted.
func (t *tracker) started(d *delivery) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.outstanding++
	if d.dup {
		t.dupPosts++
		return
	}
	t.msgs[d.wamid] = &msgState{phone: d.phone}
	t.order = append(t.order, d.wamid)
}

// startedSince returns the message ids started after the first i.
func (t *tracker) startedSince(i int) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.order[i:]...)
}

// result records the outcome of one POST of d.
func (t *tracker) result(d *delivery, scheduled, sent, done time.Time, ok bool, kind string, retry bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.posts++
	switch {
	case ok:
		t.acked++
		t.ackLatency = append(t.ackLatency, done.Sub(scheduled))
		t.ackDue = append(t.ackDue, scheduled)
		t.serviceLatency = append(t.serviceLatency, done.Sub(sent))
		if m := t.msgs[d.wamid]; m != nil && (!m.acked || sent.Before(m.ackSent)) {
			m.acked, m.ackSent = true, sent
		}
		t.outstanding--
	case retry:
		t.failed++
		t.statuses[kind]++
	default:
		t.rejected++
		t.statuses[kind]++
		t.outstanding--
	}
}

func (t *tracker) retried() {
	t.mu.Lock()
	t.retries++
	t.mu.Unlock()
}

func (t *tracker) abandoned() {
	t.mu.Lock()
	t.gaveUp++
	t.outstanding--
	t.mu.Unlock()
}

// pending is the number of deliveries still being posted or retried.
func (t *tracker) pending() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.outstanding
}

// ackedIDs returns the acknowledged message ids.
func (t *tracker) ackedIDs() map[string]*msgState {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]*msgState, len(t.msgs))
	for id, m := range t.msgs {
		if m.acked {
			c := *m
			out[id] = &c
		}
	}
	return out
}

func (t *tracker) ackedCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, m := range t.msgs {
		if m.acked {
			n++
		}
	}
	return n
}

// event records the arrival of a message:new event for wamid.
func (t *tracker) event(wamid string, at time.Time) {
	t.evMu.Lock()
	if _, seen := t.events[wamid]; !seen {
		t.events[wamid] = at
	}
	t.evMu.Unlock()
}

func (t *tracker) disconnected() {
	t.evMu.Lock()
	t.disconnects++
	t.evMu.Unlock()
}

// eventTimes returns a copy of the event arrival times.
func (t *tracker) eventTimes() map[string]time.Time {
	t.evMu.Lock()
	defer t.evMu.Unlock()
	out := make(map[string]time.Time, len(t.events))
	for k, v := range t.events {
		out[k] = v
	}
	return out
}
