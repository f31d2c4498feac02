package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"switchboard/bench/internal/benchkit"
	"switchboard/bench/internal/fakeplatform"
)

// probeKeyword is the keyword rule's word; the load's messages never
// contain it, so only the probes are answered.
const probeKeyword = "price"

// enableKeywordBot turns the organization's chatbot on with one keyword
// rule and no greeting or fallback: every message of the load goes
// through the bot (a task per contact, the rules matched) but only the
// probes get a reply.
func (s *server) enableKeywordBot(ctx context.Context) error {
	err := s.api.Call(ctx, http.MethodPut, "/api/chatbot/settings", map[string]any{
		"enabled": true, "greeting_message": "", "fallback_message": "",
	}, http.StatusOK, nil)
	if err != nil {
		return fmt.Errorf("enabling the chatbot: %w", err)
	}
	err = s.api.Call(ctx, http.MethodPost, "/api/chatbot/keywords", map[string]any{
		"name": "Bench price", "keywords": []string{probeKeyword}, "match_type": "contains",
		"response_type": "text", "response_content": map[string]any{"body": "See our prices"},
	}, http.StatusCreated, nil)
	if err != nil {
		return fmt.Errorf("creating the keyword rule: %w", err)
	}
	return nil
}

// botProbes posts, beside the load, messages that match the keyword rule,
// each from a new sender, and measures the time from each one's
// acknowledgement to the reply's send reaching the platform fake.
type botProbes struct {
	rate   float64
	p      *payloads
	fake   *fakeplatform.Platform
	prefix string // the probes' sender numbers start with it
	client *http.Client

	mu     sync.Mutex
	posted int
	acked  map[string]time.Time // sender -> when its POST was acknowledged
	wg     sync.WaitGroup
}

func newBotProbes(rate float64, p *payloads, fake *fakeplatform.Platform) *botProbes {
	return &botProbes{rate: rate, p: p, fake: fake, prefix: benchkit.RandomDigits(7), acked: map[string]time.Time{},
		client: &http.Client{Timeout: 15 * time.Second}}
}

// run posts probes at b.rate until ctx ends or d passes, then waits for
// their answers.
func (b *botProbes) run(ctx context.Context, d time.Duration) {
	tick := time.NewTicker(time.Duration(float64(time.Second) / b.rate))
	defer tick.Stop()
	end := time.After(d)
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			b.wg.Wait()
			return
		case <-end:
			b.wg.Wait()
			return
		case <-tick.C:
		}
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			b.post(i)
		}()
	}
}

// post sends probe i once; a probe that is not acknowledged is left out.
func (b *botProbes) post(i int) {
	phone := b.prefix + fmt.Sprintf("%08d", i)
	wamid := "wamid.probe-" + b.p.srv.runID + "-" + strconv.Itoa(i)
	d := b.p.textFrom(phone, "Probe "+strconv.Itoa(i), wamid, "what is the "+probeKeyword+"?", time.Now())
	req, _ := http.NewRequest(http.MethodPost, b.p.srv.api.Base+"/api/webhook", bytes.NewReader(d.body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Hub-Signature-256", d.sig)
	b.mu.Lock()
	b.posted++
	b.mu.Unlock()
	resp, err := b.client.Do(req)
	if err != nil {
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		at := time.Now()
		b.mu.Lock()
		b.acked[phone] = at
		b.mu.Unlock()
	}
}

// botResult is what the probes measured.
type botResult struct {
	Rate    float64 `json:"probes_per_s"`
	Posted  int     `json:"posted"`
	Acked   int     `json:"acked"`
	Replied int     `json:"replied"`
	// Missing probes got no reply by the deadline; Twice got more than
	// one (a redelivered message must never be answered twice).
	Missing int     `json:"missing"`
	Twice   int     `json:"replied_twice"`
	Latency latency `json:"latency"` // the probe's ack to the reply's send at the fake
}

// result waits until every acknowledged probe is answered or deadline
// passes, and summarizes.
func (b *botProbes) result(ctx context.Context, deadline time.Time) *botResult {
	b.mu.Lock()
	acked := make(map[string]time.Time, len(b.acked))
	for k, v := range b.acked {
		acked[k] = v
	}
	r := &botResult{Rate: b.rate, Posted: b.posted, Acked: len(acked)}
	b.mu.Unlock()
	var replies map[string][]time.Time
	for {
		replies = map[string][]time.Time{}
		for _, s := range b.fake.Sends() {
			to := strings.TrimPrefix(s.To, "+")
			if _, ok := acked[to]; ok {
				replies[to] = append(replies[to], s.At)
			}
		}
		if len(replies) == len(acked) || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	var lat []time.Duration
	for phone, at := range acked {
		got := replies[phone]
		if len(got) == 0 {
			r.Missing++
			continue
		}
		r.Replied++
		if len(got) > 1 {
			r.Twice++
		}
		lat = append(lat, max(got[0].Sub(at), 0))
	}
	r.Latency = summarize(lat)
	return r
}
