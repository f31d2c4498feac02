package main

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"switchboard/bench/internal/benchkit"
)

// latency is a distribution summary in milliseconds.
type latency = benchkit.Latency

func summarize(d []time.Duration) latency { return benchkit.Summarize(d) }

// report is everything a run measured.
type report struct {
	RunID  string `json:"run_id"`
	Target struct {
		URL         string  `json:"url"`
		Duration    float64 `json:"duration_s"`
		Rate        float64 `json:"rate_per_s"`
		Concurrency int     `json:"concurrency"`
		Senders     int     `json:"senders"`
		Bursts      float64 `json:"bursts"`
		Dup         float64 `json:"dup"`
	} `json:"config"`

	LoadSeconds  float64        `json:"load_s"`
	PostsSent    int            `json:"posts_sent"`
	PostsAcked   int            `json:"posts_acked"`
	PostsFailed  int            `json:"posts_failed"`
	PostsRefused int            `json:"posts_refused"`
	Retries      int            `json:"retries"`
	DupPosts     int            `json:"dup_posts"`
	GaveUp       int            `json:"gave_up"`
	Failures     map[string]int `json:"failures"`
	OfferedRate  float64        `json:"offered_posts_per_s"`

	AckLatency     latency `json:"ack_latency"`     // from the POST's due time
	ServiceLatency latency `json:"service_latency"` // from the POST's send time

	UniqueAcked      int     `json:"unique_acked"`
	UniqueStored     int64   `json:"unique_stored"`
	StoredUnacked    int     `json:"stored_unacked"`
	StoredPerSecLoad float64 `json:"stored_per_s_load"`
	StoredPerSecAll  float64 `json:"stored_per_s_overall"`
	DrainSeconds     float64 `json:"drain_s"`
	Drained          bool    `json:"drained"`
	WSLatency        latency `json:"ws_latency"`
	WSEventsMissed   int     `json:"ws_events_missed"`
	WSDisconnects    int     `json:"ws_disconnects"`
	MaxRSSMiB        float64 `json:"max_rss_mib"`
	RSSSamples       int     `json:"rss_samples"`
	ServerCPU        float64 `json:"server_cpu_s"` // whole run, all server processes
	ClientCPU        float64 `json:"client_cpu_s"` // this tool
	// MachineBusy is the whole machine's CPU during the load (every
	// process: the server, PostgreSQL, Redis, this tool, the rest).
	MachineBusy        *machineLoad `json:"machine_busy,omitempty"`
	WallSeconds        float64      `json:"wall_s"`
	Lost               int          `json:"lost"`
	DuplicatedMessages int64        `json:"duplicated_messages"`
	ContactsExpected   int          `json:"contacts_expected"`
	ContactsStored     int64        `json:"contacts_stored"`
	DuplicatedContacts int64        `json:"duplicated_contacts"`
	PollErrors         int          `json:"poll_errors"`

	// p99 of the ack and /ws latencies of the POSTs due (sent) in each
	// tailWindow of the run: shows whether the tail is spread or comes
	// from a few bad moments.
	AckP99ByWindow []float64 `json:"ack_p99_by_window_ms"`
	WSP99ByWindow  []float64 `json:"ws_p99_by_window_ms"`

	Bot    *botResult   `json:"bot_reply,omitempty"`
	Fault  *faultResult `json:"fault,omitempty"`
	Series []counts     `json:"series"`
}

// faultResult describes the command run mid-load.
type faultResult struct {
	Cmd   string  `json:"cmd"`
	At    float64 `json:"at_s"`
	Took  float64 `json:"took_s"`
	Error string  `json:"error,omitempty"`
}

func (r *report) print(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	lat := func(l latency) string {
		return fmt.Sprintf("p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms (n=%d)", l.P50, l.P95, l.P99, l.Max, l.N)
	}
	p("run %s: %.0f s at %.0f POST/s target against %s", r.RunID, r.Target.Duration, r.Target.Rate, r.Target.URL)
	p("POSTs          sent %d (%.0f/s offered), acked %d, failed %d, refused %d, retries %d, redeliveries %d, given up %d",
		r.PostsSent, r.OfferedRate, r.PostsAcked, r.PostsFailed, r.PostsRefused, r.Retries, r.DupPosts, r.GaveUp)
	if len(r.Failures) > 0 {
		p("failures       %s", formatCounts(r.Failures))
	}
	p("ack latency    %s   (from due time)", lat(r.AckLatency))
	p("service time   %s   (from send)", lat(r.ServiceLatency))
	p("messages       unique acked %d, stored %d (stored but never acked: %d)", r.UniqueAcked, r.UniqueStored, r.StoredUnacked)
	p("stored/s       %.0f during the load window, %.0f overall (load start to drained)", r.StoredPerSecLoad, r.StoredPerSecAll)
	if r.Drained {
		p("drain          %.2f s after the load stopped", r.DrainSeconds)
	} else {
		p("drain          NOT drained within the drain timeout")
	}
	p("/ws latency    %s   (POST sent to message:new)", lat(r.WSLatency))
	p("/ws            events missed %d, reconnects %d", r.WSEventsMissed, r.WSDisconnects)
	p("ack p99 /%s   %s ms", tailWindow, formatSeries(r.AckP99ByWindow))
	p("/ws p99 /%s   %s ms", tailWindow, formatSeries(r.WSP99ByWindow))
	if r.RSSSamples > 0 {
		p("server RSS     max %.1f MiB (%d samples)", r.MaxRSSMiB, r.RSSSamples)
		perMsg := 0.0
		if r.UniqueStored > 0 {
			perMsg = r.ServerCPU * 1000 / float64(r.UniqueStored)
		}
		p("server CPU     %.1f s over %.1f s (%.2f cores; %.3f ms per stored message)",
			r.ServerCPU, r.WallSeconds, r.ServerCPU/r.WallSeconds, perMsg)
	}
	p("client CPU     %.1f s (%.2f cores; it shares the machine)", r.ClientCPU, r.ClientCPU/r.WallSeconds)
	if m := r.MachineBusy; m != nil {
		p("machine CPU    %.2f of %d cores busy during the load (%.0f%% user, %.0f%% system, %.0f%% I/O wait)",
			m.BusyCores, m.Cores, m.UserPct, m.SystemPct, m.IOWaitPct)
	}
	p("lost           %d acked messages not stored by the drain deadline", r.Lost)
	p("duplicated     %d message rows, %d contact rows", r.DuplicatedMessages, r.DuplicatedContacts)
	p("contacts       expected %d, stored %d", r.ContactsExpected, r.ContactsStored)
	if b := r.Bot; b != nil {
		p("bot reply      %s   (probe acked to the reply's send at the fake)", lat(b.Latency))
		p("bot probes     %.0f/s: posted %d, acked %d, replied %d, missing %d, replied twice %d",
			b.Rate, b.Posted, b.Acked, b.Replied, b.Missing, b.Twice)
	}
	if r.Fault != nil {
		p("fault          %q at %.1f s, took %.1f s %s", r.Fault.Cmd, r.Fault.At, r.Fault.Took, r.Fault.Error)
	}
	if r.PollErrors > 0 {
		p("db polls       %d failed", r.PollErrors)
	}
}

func formatCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// tailWindow is the width of the windows of the p99 series.
const tailWindow = 5 * time.Second

// windows groups latency samples by the window of the run they fall in.
type windows = benchkit.Windows

func newWindows(start time.Time, width time.Duration) *windows {
	return benchkit.NewWindows(start, width)
}

func formatSeries(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strings.Join(parts, " ")
}
