package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"switchboard/bench/internal/benchkit"
)

// recentPayloads is how many earlier deliveries a redelivery may repeat.
const recentPayloads = 10_000

// delivery is one webhook body as the platform would POST it, with its
// signature; a redelivery reuses it byte for byte.
type delivery struct {
	body []byte
	sig  string
	seq  int // the message's number in the run (its wamid is prefix+seq)
	dup  bool
}

// payloads builds the run's signed webhooks in Meta's shape: one text
// message each, from senders sharing a run-unique number prefix.
type payloads struct {
	acc         *account
	wamidPrefix string
	phonePrefix string
}

func (p *payloads) wamid(seq int) string { return p.wamidPrefix + strconv.Itoa(seq) }

// seqOf is the inverse of wamid; ok is false for another run's id.
func (p *payloads) seqOf(wamid string) (int, bool) {
	if len(wamid) <= len(p.wamidPrefix) || wamid[:len(p.wamidPrefix)] != p.wamidPrefix {
		return 0, false
	}
	n, err := strconv.Atoi(wamid[len(p.wamidPrefix):])
	return n, err == nil && n > 0
}

func (p *payloads) text(seq, sender int, now time.Time) *delivery {
	phone := p.phonePrefix + strconv.Itoa(10_000_000+sender)
	body, _ := json.Marshal(map[string]any{
		"object": "whatsapp_business_account",
		"entry": []any{map[string]any{"id": p.acc.BusinessID, "changes": []any{map[string]any{
			"field": "messages",
			"value": map[string]any{
				"messaging_product": "whatsapp",
				"metadata":          map[string]any{"display_phone_number": "15550000000", "phone_number_id": p.acc.PhoneID},
				"contacts":          []any{map[string]any{"wa_id": phone, "profile": map[string]any{"name": "Fault " + strconv.Itoa(sender)}}},
				"messages": []any{map[string]any{"from": phone, "id": p.wamid(seq), "timestamp": strconv.FormatInt(now.Unix(), 10),
					"type": "text", "text": map[string]any{"body": "fault message " + strconv.Itoa(seq)}}},
			},
		}}}},
	})
	mac := hmac.New(sha256.New, []byte(p.acc.Secret))
	mac.Write(body)
	return &delivery{body: body, sig: "sha256=" + hex.EncodeToString(mac.Sum(nil)), seq: seq}
}

// loader posts the run's webhooks on an open-loop schedule (POST i is due
// at start + i/rate, whatever the servers do) round-robin over the nodes.
// A POST that is not acknowledged is sent again, to the next node, with
// backoff until it is, as the platform redelivers behind a load balancer.
type loader struct {
	rate     float64
	duration time.Duration
	dup      float64
	senders  int
	nodes    []string
	p        *payloads
	t        *tracker
	client   *http.Client
	slots    chan struct{}
	next     atomic.Int64 // round-robin counter
	// retryUntil is the unix-nano time after which unacknowledged
	// deliveries are given up (0: no limit yet).
	retryUntil atomic.Int64
	wg         sync.WaitGroup
}

func newLoader(cfg config, p *payloads, t *tracker) *loader {
	transport := &http.Transport{
		MaxIdleConnsPerHost: cfg.concurrency, MaxConnsPerHost: cfg.concurrency,
		IdleConnTimeout: 90 * time.Second, DisableCompression: true,
		DialContext: (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
	}
	return &loader{
		rate: cfg.rate, duration: cfg.duration, dup: cfg.dup, senders: 1_000_000, nodes: cfg.nodes, p: p, t: t,
		client: &http.Client{Transport: transport, Timeout: 15 * time.Second},
		slots:  make(chan struct{}, cfg.concurrency),
	}
}

// run follows the schedule for the duration and returns when the last
// POST is launched (not answered).
func (l *loader) run(ctx context.Context, start time.Time) {
	rnd := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0xfa17))
	step := float64(time.Second) / l.rate
	recent := make([]*delivery, 0, recentPayloads)
	seq := 0
	for i := 0; ; i++ {
		due := start.Add(time.Duration(float64(i) * step))
		if due.Sub(start) >= l.duration || ctx.Err() != nil {
			return
		}
		if wait := time.Until(due); wait > 0 {
			time.Sleep(wait)
		}
		var d *delivery
		if len(recent) > 0 && rnd.Float64() < l.dup {
			c := *recent[rnd.IntN(len(recent))]
			c.dup = true
			d = &c
		} else {
			seq++
			d = l.p.text(seq, rnd.IntN(l.senders), due)
			if len(recent) < recentPayloads {
				recent = append(recent, d)
			} else {
				recent[seq%recentPayloads] = d
			}
		}
		l.t.started(d)
		l.slots <- struct{}{}
		l.wg.Add(1)
		go l.deliver(d, due)
	}
}

// deliver posts d (holding a slot) until it is acknowledged, refused for
// good, or the retry limit passes; each retry goes to the next node.
func (l *loader) deliver(d *delivery, due time.Time) {
	defer l.wg.Done()
	node := int(l.next.Add(1)) % len(l.nodes)
	for attempt := 0; ; attempt++ {
		retry := l.post(d, node, due)
		<-l.slots
		if !retry {
			return
		}
		if until := l.retryUntil.Load(); until != 0 && time.Now().UnixNano() > until {
			l.t.abandoned()
			return
		}
		l.t.retried()
		time.Sleep(benchkit.Backoff(attempt))
		node = (node + 1) % len(l.nodes)
		l.slots <- struct{}{}
	}
}

// post sends d once to node and records the outcome; it reports whether
// d must be sent again.
func (l *loader) post(d *delivery, node int, due time.Time) (retry bool) {
	req, _ := http.NewRequest(http.MethodPost, l.nodes[node]+"/api/webhook", bytes.NewReader(d.body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Hub-Signature-256", d.sig)
	resp, err := l.client.Do(req)
	if err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	ok, kind, retry := benchkit.Classify(resp, err)
	l.t.result(d, node, due, time.Now(), ok, kind, retry)
	return retry
}

// tracker records every POST and, per message (by its seq), when a POST
// carrying it was first acknowledged.
type tracker struct {
	start time.Time

	mu          sync.Mutex
	ackAt       []int64 // by seq: unix nanos of the first 200, 0 while unacknowledged
	ackLatency  *windows
	posts       int
	acked       int
	failed      int
	refused     int
	retries     int
	dupPosts    int
	outstanding int
	gaveUp      int
	byNode      []nodePosts
	statuses    map[string]int
}

type nodePosts struct {
	Posts int `json:"posts"`
	Acked int `json:"acked"`
}

func newTracker(start time.Time, window time.Duration, nodes, expected int) *tracker {
	return &tracker{start: start, ackAt: make([]int64, 1, expected+1), ackLatency: newWindows(start, window),
		byNode: make([]nodePosts, nodes), statuses: map[string]int{}}
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
	for len(t.ackAt) <= d.seq {
		t.ackAt = append(t.ackAt, 0)
	}
}

func (t *tracker) result(d *delivery, node int, due, done time.Time, ok bool, kind string, retry bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.posts++
	t.byNode[node].Posts++
	switch {
	case ok:
		t.acked++
		t.byNode[node].Acked++
		t.ackLatency.Add(due, done.Sub(due))
		if t.ackAt[d.seq] == 0 {
			t.ackAt[d.seq] = done.UnixNano()
		}
		t.outstanding--
	case retry:
		t.failed++
		t.statuses[kind]++
	default:
		t.refused++
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

func (t *tracker) pending() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.outstanding
}

// acks returns a copy of the first-ack times by seq.
func (t *tracker) acks() []int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]int64(nil), t.ackAt...)
}

func (t *tracker) ackedCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, a := range t.ackAt {
		if a != 0 {
			n++
		}
	}
	return n
}
