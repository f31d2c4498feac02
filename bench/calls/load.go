package main

import (
	"context"
	"encoding/binary"
	"sort"
	"sync"
	"syscall"
	"time"

	"switchboard/bench/internal/benchkit"
	"switchboard/calling/media/mediatest"
)

// stampTOC is an Opus TOC byte (CELT fullband 20 ms, one frame): the
// payload is Opus-shaped; the server forwards it without decoding.
const stampTOC = 0xf8

// stampLen is TOC, send time (8 bytes), packet index (4 bytes), padding:
// 80 bytes, 32 kb/s at 50 packets a second.
const stampLen = 80

// stream is one direction of one call.
type stream struct {
	from, to *mediatest.Peer
	sent     int
}

// loadResult is what the receivers saw and what the server used.
type loadResult struct {
	sent, received, duplicates int
	transit                    []time.Duration // after the warm-up
	jitters                    []time.Duration // RFC 3550 interarrival jitter per stream, at its end
	serverCPU, loadCPU         time.Duration
	wall                       time.Duration
}

// loadCalls makes both peers of every call send stamped 20 ms packets for
// d, reading the server's CPU time before and after, then reads the
// stamps back out of what each peer received.
func loadCalls(ctx context.Context, pid int, calls []*call, d, warmup time.Duration) (*loadResult, error) {
	streams := make([]*stream, 0, 2*len(calls))
	for _, c := range calls {
		c.caller.Reset()
		c.agent.Reset()
		streams = append(streams, &stream{from: c.caller, to: c.agent}, &stream{from: c.agent, to: c.caller})
	}
	cpu0, err := benchkit.CPUTime(pid)
	if err != nil {
		return nil, err
	}
	self0 := selfCPU()
	start := time.Now()
	ctx, cancel := context.WithDeadline(ctx, start.Add(d))
	defer cancel()
	var wg sync.WaitGroup
	for i, s := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first := start.Add(time.Duration(i) * 20 * time.Millisecond / time.Duration(len(streams)))
			s.sent = sendStamped(ctx, s.from, first)
		}()
	}
	wg.Wait()
	res := &loadResult{wall: time.Since(start)}
	cpu1, err := benchkit.CPUTime(pid)
	if err != nil {
		return nil, err
	}
	res.serverCPU, res.loadCPU = cpu1-cpu0, selfCPU()-self0
	time.Sleep(500 * time.Millisecond) // the last packets in flight
	for _, s := range streams {
		res.add(s, start.Add(warmup))
	}
	return res, nil
}

// add reads one stream's packets: distinct indexes for loss, transit
// times and the RFC 3550 jitter of those sent after warm.
func (r *loadResult) add(s *stream, warm time.Time) {
	r.sent += s.sent
	seen := map[uint32]bool{}
	var jitter float64
	var lastTransit time.Duration
	first := true
	for _, p := range s.to.Received() {
		if len(p.Payload) != stampLen || p.Payload[0] != stampTOC {
			continue
		}
		idx := binary.BigEndian.Uint32(p.Payload[9:13])
		if seen[idx] {
			r.duplicates++
			continue
		}
		seen[idx] = true
		r.received++
		sentAt := time.Unix(0, int64(binary.BigEndian.Uint64(p.Payload[1:9])))
		if sentAt.Before(warm) {
			continue // a track's first packets wait for pion to set up the receiver
		}
		transit := p.At.Sub(sentAt)
		r.transit = append(r.transit, transit)
		if !first {
			dd := transit - lastTransit
			if dd < 0 {
				dd = -dd
			}
			jitter += (float64(dd) - jitter) / 16
		}
		first, lastTransit = false, transit
	}
	r.jitters = append(r.jitters, time.Duration(jitter))
}

// sendStamped sends a stamped packet every 20 ms from first until ctx
// ends; it returns how many it sent.
func sendStamped(ctx context.Context, p *mediatest.Peer, first time.Time) int {
	payload := make([]byte, stampLen)
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
		binary.BigEndian.PutUint32(payload[9:13], uint32(sent))
		if p.SendPayload(payload, 960) == nil {
			sent++
		}
	}
}

// selfCPU is this process's user and system CPU time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// quantile of sorted durations.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(q*float64(len(sorted)-1))]
}

func sorted(d []time.Duration) []time.Duration {
	out := append([]time.Duration(nil), d...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
