package main

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"time"

	"switchboard/bench/internal/benchkit"
)

// Targets of issue 31.
const (
	targetCores    = 1.0
	targetAcceptMs = 1000.0
)

// report is the benchmark's result; times in milliseconds.
type report struct {
	Calls         int      `json:"calls"`
	Bridged       int      `json:"bridged"`
	SetupFailures []string `json:"setup_failures"`
	Duration      string   `json:"duration"`

	// Setup: from the connect webhook's POST to the action at the
	// platform, and to the caller's peer connected.
	AcceptMs    benchkit.Latency `json:"webhook_to_accept_ms"`
	PreAcceptMs benchkit.Latency `json:"webhook_to_pre_accept_ms"`
	ConnectedMs benchkit.Latency `json:"webhook_to_media_connected_ms"`

	Sent       int     `json:"packets_sent"`
	Received   int     `json:"packets_received"`
	Lost       int     `json:"packets_lost"`
	Duplicates int     `json:"packets_duplicated"`
	LossPct    float64 `json:"loss_percent"`
	// Transit is sender to receiver through the server (both peers in
	// this process, one clock); Jitter the RFC 3550 interarrival jitter of
	// each stream from those transit times, so what the path adds.
	TransitMs    benchkit.Latency `json:"transit_ms"`
	JitterMeanMs float64          `json:"jitter_mean_ms"`
	JitterMaxMs  float64          `json:"jitter_max_ms"`

	ServerCores float64 `json:"server_cores"`
	LoadCores   float64 `json:"load_tool_cores"`
	CPUs        int     `json:"cpus"`

	// Hangup is how long the agent's hangup requests (all at once) took
	// to be answered.
	HangupMs       benchkit.Latency `json:"hangup_answered_ms"`
	HangupFailures []string         `json:"hangup_failures"`
	// Terminates maps a number of terminate requests to how many calls
	// got that many at the platform (want every call at 1).
	Terminates map[int]int `json:"terminates_per_call"`

	Met    bool     `json:"targets_met"`
	Missed []string `json:"targets_missed"`
}

func (r *report) setupFigures(calls []*call) {
	var acc, pre, conn []time.Duration
	for _, c := range calls {
		acc = append(acc, c.accepted.Sub(c.rang))
		pre = append(pre, c.preAccepted.Sub(c.rang))
		conn = append(conn, c.connected.Sub(c.rang))
	}
	r.AcceptMs, r.PreAcceptMs, r.ConnectedMs = benchkit.Summarize(acc), benchkit.Summarize(pre), benchkit.Summarize(conn)
}

func (r *report) loadFigures(res *loadResult) {
	r.Sent, r.Received, r.Duplicates = res.sent, res.received, res.duplicates
	r.Lost = res.sent - res.received
	if res.sent > 0 {
		r.LossPct = 100 * float64(r.Lost) / float64(res.sent)
	}
	r.TransitMs = benchkit.Summarize(res.transit)
	var sum time.Duration
	for _, j := range res.jitters {
		sum += j
	}
	if len(res.jitters) > 0 {
		r.JitterMeanMs = ms3(sum / time.Duration(len(res.jitters)))
		r.JitterMaxMs = ms3(quantile(sorted(res.jitters), 1))
	}
	r.ServerCores = round3(res.serverCPU.Seconds() / res.wall.Seconds())
	r.LoadCores = round3(res.loadCPU.Seconds() / res.wall.Seconds())
	r.CPUs = runtime.NumCPU()
}

func (r *report) hangupFigures(h hangUps) {
	r.HangupMs, r.HangupFailures, r.Terminates = benchkit.Summarize(h.took), h.failures, h.terminates
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// ms3 is d in milliseconds to the microsecond.
func ms3(d time.Duration) float64 { return round3(float64(d) / 1e6) }

// judge checks the targets: every call bridged, under one core, no
// packet lost, accept p99 under a second, one terminate per call.
func (r *report) judge() {
	miss := func(ok bool, what string) {
		if !ok {
			r.Missed = append(r.Missed, what)
		}
	}
	miss(r.Bridged == r.Calls, fmt.Sprintf("%d of %d calls bridged", r.Bridged, r.Calls))
	miss(r.ServerCores < targetCores, fmt.Sprintf("server used %.3f cores (target < %.0f)", r.ServerCores, targetCores))
	miss(r.Lost == 0, fmt.Sprintf("%d packets lost (target 0)", r.Lost))
	miss(r.AcceptMs.P99 < targetAcceptMs, fmt.Sprintf("accept p99 %.1f ms (target < %.0f)", r.AcceptMs.P99, targetAcceptMs))
	miss(r.Terminates[1] == r.Bridged, fmt.Sprintf("terminates per call %v (want every call at 1)", r.Terminates))
	r.Met = len(r.Missed) == 0
}

func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "calls: %d rung at once, %d bridged", r.Calls, r.Bridged)
	if len(r.SetupFailures) > 0 {
		fmt.Fprintf(w, "; failures: %s", strings.Join(r.SetupFailures, "; "))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "setup: webhook → pre_accept %s; → accept %s; → caller's media connected %s\n",
		lat(r.PreAcceptMs), lat(r.AcceptMs), lat(r.ConnectedMs))
	fmt.Fprintf(w, "audio both ways for %s: sent %d, received %d, lost %d (%.3f%%), duplicated %d\n",
		r.Duration, r.Sent, r.Received, r.Lost, r.LossPct, r.Duplicates)
	fmt.Fprintf(w, "transit peer → server → peer %s; jitter (RFC 3550) mean %.3f ms, max %.3f ms\n",
		lat(r.TransitMs), r.JitterMeanMs, r.JitterMaxMs)
	fmt.Fprintf(w, "server CPU %.3f cores (load tool %.3f cores, %d CPUs)\n", r.ServerCores, r.LoadCores, r.CPUs)
	fmt.Fprintf(w, "hangups (all at once) answered %s", lat(r.HangupMs))
	if len(r.HangupFailures) > 0 {
		fmt.Fprintf(w, "; %d failed: %s", len(r.HangupFailures), strings.Join(r.HangupFailures, "; "))
	}
	fmt.Fprintf(w, "\nterminates per call at the platform: %v\n", r.Terminates)
	if r.Met {
		fmt.Fprintln(w, "targets met: < 1 core, 0 loss, accept p99 < 1 s")
	} else {
		fmt.Fprintf(w, "targets MISSED: %s\n", strings.Join(r.Missed, "; "))
	}
}

func lat(l benchkit.Latency) string {
	return fmt.Sprintf("p50 %.2f ms, p99 %.2f ms, max %.2f ms", l.P50, l.P99, l.Max)
}
