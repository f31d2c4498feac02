package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"switchboard/bench/internal/benchkit"
	"switchboard/bench/internal/fakeplatform"
)

// rate is a number of sends over a time.
type rate struct {
	Sends   int     `json:"sends"`
	Seconds float64 `json:"seconds"`
	PerSec  float64 `json:"per_sec"`
	// MinSecond and MaxSecond are the fewest and most sends in one whole
	// second of the span.
	MinSecond int `json:"min_second"`
	MaxSecond int `json:"max_second"`
}

func (r rate) String() string {
	if r.Sends == 0 {
		return "no sends"
	}
	return fmt.Sprintf("%d sends in %.1f s = %.2f/s (whole seconds: %d..%d)", r.Sends, r.Seconds, r.PerSec, r.MinSecond, r.MaxSecond)
}

// windowRate counts the sends in [from, to).
func windowRate(sends []fakeplatform.Send, from, to time.Time) rate {
	secs := to.Sub(from).Seconds()
	buckets := make([]int, int(math.Max(secs, 0)))
	r := rate{Seconds: secs}
	for _, s := range sends {
		if s.At.Before(from) || !s.At.Before(to) {
			continue
		}
		r.Sends++
		if i := int(s.At.Sub(from).Seconds()); i < len(buckets) {
			buckets[i]++
		}
	}
	if secs > 0 {
		r.PerSec = math.Round(float64(r.Sends)/secs*100) / 100
	}
	if len(buckets) > 0 {
		r.MinSecond, r.MaxSecond = buckets[0], buckets[0]
		for _, b := range buckets {
			r.MinSecond, r.MaxSecond = min(r.MinSecond, b), max(r.MaxSecond, b)
		}
	}
	return r
}

// overallRate is the first to the last send, and the sustained rate: the
// sends between the 5th and the 95th percentile of their times (the
// start's ramp and the tail's stragglers left out).
func overallRate(sends []fakeplatform.Send) (overall, sustained rate) {
	if len(sends) < 2 {
		return rate{Sends: len(sends)}, rate{Sends: len(sends)}
	}
	first, last := sends[0].At, sends[len(sends)-1].At
	overall = windowRate(sends, first, last.Add(time.Nanosecond))
	lo, hi := len(sends)*5/100, len(sends)*95/100
	if hi > lo {
		sustained = windowRate(sends, sends[lo].At, sends[hi].At)
	}
	return overall, sustained
}

// kill is one -kill-cmd run.
type kill struct {
	AtAccepted           int     `json:"at_accepted"`
	AtSeconds            float64 `json:"at_seconds"`
	TookSeconds          float64 `json:"took_seconds"`
	AcceptedAfterRestart int     `json:"accepted_after_restart"`
}

// report is the run's outcome.
type report struct {
	RunID       string   `json:"run_id"`
	Tier        string   `json:"tier"`
	Recipients  int      `json:"recipients"`
	Campaigns   int      `json:"campaigns"`
	CampaignIDs []string `json:"campaign_ids"`
	LoadBefore  string   `json:"load_before"`
	LoadAfter   string   `json:"load_after"`
	WallSeconds float64  `json:"wall_seconds"`

	Accepted         int    `json:"accepted"`
	Received         int    `json:"received"`
	Overall          rate   `json:"overall"`
	Sustained        rate   `json:"sustained"`
	Window           *rate  `json:"window,omitempty"`
	WindowByCampaign []rate `json:"window_by_campaign,omitempty"`
	// WindowByProcess splits the window's sends by the server process
	// whose connection carried them; UnattributedSends were not matched.
	WindowByProcess   []rate  `json:"window_by_process,omitempty"`
	UnattributedSends int     `json:"unattributed_sends,omitempty"`
	Kills             []kill  `json:"kills,omitempty"`
	PeakRSSMiB        float64 `json:"peak_rss_mib"`

	DistinctRecipients       int              `json:"distinct_recipients"`
	RecipientsSentTwice      int              `json:"recipients_sent_twice"`
	SentTwiceSample          []string         `json:"sent_twice_sample,omitempty"`
	RecipientsRequestedTwice int              `json:"recipients_requested_twice"`
	ByStatus                 map[string]int64 `json:"by_status"`
	CampaignStatus           []string         `json:"campaign_status"`
	SendingButAccepted       int              `json:"sending_but_accepted"`
	SendingNeverReached      int              `json:"sending_never_reached"`
	FailReasons              map[string]int64 `json:"fail_reasons,omitempty"`

	EchoAcked       int64    `json:"echo_acked,omitempty"`
	EchoFailedPosts int64    `json:"echo_failed_posts,omitempty"`
	EchoDropped     int64    `json:"echo_dropped,omitempty"`
	Errors          []string `json:"errors,omitempty"`
}

// Failed names what the run found wrong (a recipient sent twice, a
// recipient the platform accepted left sending), or "".
func (r *report) Failed() string {
	var bad []string
	if r.RecipientsSentTwice > 0 {
		bad = append(bad, fmt.Sprintf("%d recipients sent twice", r.RecipientsSentTwice))
	}
	if r.SendingButAccepted > 0 {
		bad = append(bad, fmt.Sprintf("%d recipients the platform accepted are still sending (not reconciled)", r.SendingButAccepted))
	}
	if r.Window == nil && r.ByStatus["pending"] > 0 {
		bad = append(bad, fmt.Sprintf("%d recipients still pending", r.ByStatus["pending"]))
	}
	return strings.Join(bad, "; ")
}

func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "campaign bench %s: %s, %d recipients in %d campaign(s), %.1f s\n", r.RunID, r.Tier, r.Recipients, r.Campaigns, r.WallSeconds)
	fmt.Fprintf(w, "  load average before: %s; after: %s\n", r.LoadBefore, r.LoadAfter)
	fmt.Fprintf(w, "  sends accepted by the fake: %d (requests %d); first to last: %s\n", r.Accepted, r.Received, r.Overall)
	fmt.Fprintf(w, "  sustained (5th to 95th percentile of send times): %s\n", r.Sustained)
	if r.Window != nil {
		fmt.Fprintf(w, "  window: %s\n", *r.Window)
		if len(r.WindowByCampaign) > 1 {
			for i, pw := range r.WindowByCampaign {
				fmt.Fprintf(w, "    campaign %d: %s\n", i+1, pw)
			}
		}
		for i, pw := range r.WindowByProcess {
			fmt.Fprintf(w, "    server process %d: %s\n", i+1, pw)
		}
		if len(r.WindowByProcess) > 0 {
			fmt.Fprintf(w, "    sends not matched to a process (whole run): %d\n", r.UnattributedSends)
		}
	}
	for i, k := range r.Kills {
		fmt.Fprintf(w, "  kill %d at %d accepted (+%.1f s), restarted in %.1f s (%d accepted by then)\n", i+1, k.AtAccepted, k.AtSeconds, k.TookSeconds, k.AcceptedAfterRestart)
	}
	fmt.Fprintf(w, "  server peak RSS: %.1f MiB\n", r.PeakRSSMiB)
	fmt.Fprintf(w, "  recipients reached: %d; sent twice (accepted twice by the fake): %d %v; requested twice: %d\n",
		r.DistinctRecipients, r.RecipientsSentTwice, r.SentTwiceSample, r.RecipientsRequestedTwice)
	keys := make([]string, 0, len(r.ByStatus))
	for k := range r.ByStatus {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, r.ByStatus[k]))
	}
	fmt.Fprintf(w, "  recipients by status: %s; campaigns: %v\n", strings.Join(parts, ", "), r.CampaignStatus)
	fmt.Fprintf(w, "  left sending: %d the platform accepted (should have been reconciled), %d whose send never reached the platform (failed after the 10-minute bound)\n",
		r.SendingButAccepted, r.SendingNeverReached)
	for reason, n := range r.FailReasons {
		fmt.Fprintf(w, "  failed %d: %s\n", n, reason)
	}
	if r.EchoAcked+r.EchoFailedPosts+r.EchoDropped > 0 {
		fmt.Fprintf(w, "  status webhooks: %d statuses acknowledged, %d POSTs re-sent, %d statuses dropped\n", r.EchoAcked, r.EchoFailedPosts, r.EchoDropped)
	}
	for _, e := range r.Errors {
		fmt.Fprintf(w, "  error: %s\n", e)
	}
}

// rssSampler follows the servers' RSS (VmHWM and VmRSS) through their PID
// files, re-read on each sample (a restart changes the PID).
type rssSampler struct {
	files []string
	mu    sync.Mutex
	maxKB int64
}

func (s *rssSampler) run(ctx context.Context) {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		s.sample()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (s *rssSampler) sample() {
	for _, f := range s.files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			continue
		}
		kb, _ := benchkit.ProcStatusKB(pid, "VmHWM:")
		s.mu.Lock()
		s.maxKB = max(s.maxKB, kb)
		s.mu.Unlock()
	}
}

// peak is the highest RSS seen of one process, MiB.
func (s *rssSampler) peak() float64 {
	s.sample()
	s.mu.Lock()
	defer s.mu.Unlock()
	return math.Round(float64(s.maxKB)/1024*10) / 10
}

// loadAvg is the machine's load average (1, 5, 15 minutes).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
