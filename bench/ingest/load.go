package main

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"switchboard/bench/internal/benchkit"
)

// recentPayloads is how many earlier deliveries a redelivery may repeat.
const recentPayloads = 10_000

// loader posts the run's webhooks on an open-loop schedule: POST i is due
// at start + i/rate whatever the server does, so a slow server shows up as
// latency (measured from the due time), not as a lower offered rate. At
// most concurrency POSTs are in flight. A POST that is not acknowledged is
// sent again with backoff until it is, as the platform redelivers.
type loader struct {
	cfg    config
	p      *payloads
	t      *tracker
	url    string
	client *http.Client
	slots  chan struct{}
	seq    atomic.Int64
	// retryUntil is the unix-nano time after which un-acknowledged
	// deliveries are given up (0: no limit yet).
	retryUntil atomic.Int64
	wg         sync.WaitGroup

	// Only the scheduler goroutine touches these.
	recent    []*delivery
	nextSlot  int
	nextBurst int
}

func newLoader(cfg config, p *payloads, t *tracker) *loader {
	transport := &http.Transport{
		MaxIdleConns:        cfg.concurrency,
		MaxIdleConnsPerHost: cfg.concurrency,
		MaxConnsPerHost:     cfg.concurrency,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		DialContext:         (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
	}
	return &loader{
		cfg: cfg, p: p, t: t,
		url:    p.srv.api.Base + "/api/webhook",
		client: &http.Client{Transport: transport, Timeout: 15 * time.Second},
		slots:  make(chan struct{}, cfg.concurrency),
	}
}

// run follows the schedule for cfg.duration and returns when the last POST
// is launched (not answered).
func (l *loader) run(ctx context.Context) {
	rnd := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x5eed))
	start := time.Now()
	step := float64(time.Second) / l.cfg.rate
	for i := 0; ; {
		due := start.Add(time.Duration(float64(i) * step))
		if due.Sub(start) >= l.cfg.duration || ctx.Err() != nil {
			return
		}
		if wait := time.Until(due); wait > 0 {
			time.Sleep(wait)
		}
		batch := l.next(rnd, due)
		l.launch(batch, due)
		i += len(batch)
	}
}

// next picks what is due: a byte-identical redelivery of an earlier
// payload, a burst of 2-3 messages of a brand-new sender (posted at the
// same instant, so that their contact is created by racing requests), or
// one message of a sender drawn from cfg.senders numbers.
func (l *loader) next(rnd *rand.Rand, now time.Time) []*delivery {
	if len(l.recent) > 0 && rnd.Float64() < l.cfg.dup {
		d := *l.recent[rnd.IntN(len(l.recent))]
		d.dup = true
		return []*delivery{&d}
	}
	if rnd.Float64() < l.cfg.bursts {
		sender := l.cfg.senders + l.nextBurst // never drawn at random
		l.nextBurst++
		batch := make([]*delivery, 2+rnd.IntN(2))
		for k := range batch {
			batch[k] = l.p.text(l.seq.Add(1), sender, now)
			l.remember(batch[k])
		}
		return batch
	}
	d := l.p.text(l.seq.Add(1), rnd.IntN(l.cfg.senders), now)
	l.remember(d)
	return []*delivery{d}
}

func (l *loader) remember(d *delivery) {
	if len(l.recent) < recentPayloads {
		l.recent = append(l.recent, d)
		return
	}
	l.recent[l.nextSlot] = d
	l.nextSlot = (l.nextSlot + 1) % recentPayloads
}

// launch posts batch concurrently: every POST takes its in-flight slot
// first, then all start together.
func (l *loader) launch(batch []*delivery, due time.Time) {
	gate := make(chan struct{})
	for _, d := range batch {
		l.t.started(d)
		l.slots <- struct{}{}
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			<-gate
			l.deliver(d, due)
		}()
	}
	close(gate)
}

// deliver posts d (holding a slot) until it is acknowledged, refused for
// good, or the retry limit passes.
func (l *loader) deliver(d *delivery, due time.Time) {
	for attempt := 0; ; attempt++ {
		retry := l.post(d, due)
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
		due = time.Now()
		l.slots <- struct{}{}
	}
}

// post sends d once and records the outcome. It reports whether d must be
// sent again.
func (l *loader) post(d *delivery, due time.Time) (retry bool) {
	req, _ := http.NewRequest(http.MethodPost, l.url, bytes.NewReader(d.body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Hub-Signature-256", d.sig)
	sent := time.Now()
	resp, err := l.client.Do(req)
	if err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	done := time.Now()
	ok, kind, retry := benchkit.Classify(resp, err)
	l.t.result(d, due, sent, done, ok, kind, retry)
	return retry
}
