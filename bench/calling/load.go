package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"time"

	"switchboard/calling/media/mediatest"
)

// result is what the receivers saw.
type result struct {
	sent, received int
	latencies      []time.Duration // after the warm-up
	warmup         []time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("sent %d, received %d; latency %s; warm-up %s",
		r.sent, r.received, quantiles(r.latencies), quantiles(r.warmup))
}

func quantiles(l []time.Duration) string {
	if len(l) == 0 {
		return "none"
	}
	slices.Sort(l)
	q := func(f float64) time.Duration { return l[int(f*float64(len(l)-1))].Round(time.Microsecond) }
	return fmt.Sprintf("p50 %v, p99 %v, max %v", q(0.50), q(0.99), q(1))
}

// load makes every peer send stamped 20 ms packets for d, then reads the
// send stamps back out of what each peer received.
func load(pairs []pair, d, warmup time.Duration) result {
	for _, pr := range pairs {
		pr[0].Reset()
		pr[1].Reset()
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var res result
	start := time.Now()
	for i, pr := range pairs {
		for _, p := range pr {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n := sendStamped(ctx, p, start.Add(time.Duration(i)*20*time.Millisecond/time.Duration(len(pairs))))
				mu.Lock()
				res.sent += n
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	time.Sleep(200 * time.Millisecond) // the last packets in flight
	for _, pr := range pairs {
		for _, p := range pr {
			for _, pkt := range p.Received() {
				if len(pkt.Payload) < 9 || pkt.Payload[0] != stampTOC {
					continue
				}
				sentAt := time.Unix(0, int64(binary.BigEndian.Uint64(pkt.Payload[1:9])))
				res.received++
				latency := pkt.At.Sub(sentAt)
				if sentAt.Sub(start) < warmup {
					// First packets: pion sets up each receiving track.
					res.warmup = append(res.warmup, latency)
					continue
				}
				res.latencies = append(res.latencies, latency)
			}
		}
	}
	return res
}

// stampTOC is an Opus TOC byte (CELT fullband 20 ms, one frame): the
// payload is Opus-shaped, and the engine does not decode it anyway.
const stampTOC = 0xf8

// sendStamped sends 80-byte packets (32 kb/s) every 20 ms from first until
// ctx ends, each carrying its send time; it returns how many it sent.
func sendStamped(ctx context.Context, p *mediatest.Peer, first time.Time) int {
	payload := make([]byte, 80)
	payload[0] = stampTOC
	timer := time.NewTimer(time.Until(first))
	defer timer.Stop()
	sent := 0
	for next := first; ; next = next.Add(20 * time.Millisecond) {
		timer.Reset(time.Until(next))
		select {
		case <-timer.C:
		case <-ctx.Done():
			return sent
		}
		binary.BigEndian.PutUint64(payload[1:9], uint64(time.Now().UnixNano()))
		if p.SendPayload(payload, 960) == nil {
			sent++
		}
	}
}
