package main

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"switchboard/bench/internal/benchkit"
)

// latency is a distribution summary in milliseconds.
type latency = benchkit.Latency

// windows groups latency samples by the window of the run they fall in.
type windows = benchkit.Windows

func newWindows(start time.Time, width time.Duration) *windows {
	return benchkit.NewWindows(start, width)
}

// inbound is what became of the acknowledged messages.
type inbound struct {
	Acked         int `json:"acked"`
	Stored        int `json:"stored"`
	Lost          int `json:"lost"`           // acked, not stored
	Duplicated    int `json:"duplicated"`     // rows beyond one per message
	StoredUnacked int `json:"stored_unacked"` // stored, never acked (a POST answered after the run gave up on it)
}

// compareInbound checks the stored rows (by seq) against the first-ack
// times (by seq, 0: never acked).
func compareInbound(acks []int64, stored map[int]storedMsg) inbound {
	var r inbound
	for seq, at := range acks {
		if at == 0 {
			continue
		}
		r.Acked++
		if stored[seq].rows == 0 {
			r.Lost++
		}
	}
	for seq, m := range stored {
		r.Stored++
		r.Duplicated += m.rows - 1
		if seq >= len(acks) || acks[seq] == 0 {
			r.StoredUnacked++
		}
	}
	return r
}

// outboundResult compares the subscription's deliveries with the stored
// messages and with what the receiver got.
type outboundResult struct {
	Expected       int            `json:"expected"`       // stored messages: one message:incoming delivery each
	Rows           int            `json:"delivery_rows"`  // webhook_deliveries rows of the subscription
	RowsByStatus   map[string]int `json:"rows_by_status"` // their status at the end
	NoRow          int            `json:"messages_without_delivery"`
	ExtraRows      int            `json:"extra_rows"`    // rows beyond one per message (the event recorded twice)
	Requests       int            `json:"requests"`      // POSTs the receiver got, 503s included
	Delivered      int            `json:"delivered"`     // answered 200
	DistinctIDs    int            `json:"distinct_ids"`  // distinct webhook-id answered 200
	Deduped        int            `json:"deduped"`       // 200s of an id already answered 200: the receiver's dedupe
	Forced503      int            `json:"forced_503"`    // first attempts refused on purpose
	Missing        int            `json:"missing"`       // rows whose event id was never answered 200
	UnknownIDs     int            `json:"unknown_ids"`   // ids received that no row has
	BadSignature   int            `json:"bad_signature"` // Standard Webhooks signature did not verify
	IDMismatch     int            `json:"id_mismatch"`   // webhook-id header not the body's id
	Malformed      int            `json:"malformed"`
	DrainedSeconds float64        `json:"drained_s"` // load end → every row final and received
	Drained        bool           `json:"drained"`
}

func compareDeliveries(stored map[int]storedMsg, rows []deliveryRow, rc receiverCounts) outboundResult {
	r := outboundResult{Expected: len(stored), Rows: len(rows), RowsByStatus: map[string]int{},
		Forced503: rc.Forced503, BadSignature: rc.BadSignature, IDMismatch: rc.IDMismatch, Malformed: rc.Malformed}
	perSeq := map[int]int{}
	known := make(map[[16]byte]bool, len(rows))
	for _, d := range rows {
		r.RowsByStatus[d.Status]++
		perSeq[d.Seq]++
		known[d.EventID] = true
		if rc.Events[d.EventID].ok == 0 {
			r.Missing++
		}
	}
	for seq := range stored {
		if perSeq[seq] == 0 {
			r.NoRow++
		}
	}
	for _, n := range perSeq {
		r.ExtraRows += max(n-1, 0)
	}
	for id, ev := range rc.Events {
		r.Requests += ev.attempts
		if ev.ok > 0 {
			r.DistinctIDs++
			r.Delivered += ev.ok
			r.Deduped += ev.ok - 1
		}
		if !known[id] {
			r.UnknownIDs++
		}
	}
	return r
}

// coverage is what /ws clients saw of the stored, acknowledged messages.
type coverage struct {
	Clients  int `json:"clients"`
	Expected int `json:"expected"` // messages × clients
	Received int `json:"received"`
	// A missed event is covered when the client reconnected after the
	// message was stored: a client refetches on every reconnect, so the
	// refetch holds it. By resync: the close before that reconnect was the
	// server's resync close (1012 "resync..."); by reconnect: any other
	// close (the node died, the connection broke). A client disconnected
	// at the end counts as about to reconnect. Silent: the client stayed
	// connected from the message's store to the end and the event never
	// came.
	CoveredResync    int            `json:"missed_covered_by_resync"`
	CoveredReconnect int            `json:"missed_covered_by_reconnect"`
	Silent           int            `json:"missed_silently"`
	SilentFrom       float64        `json:"silent_stored_from_s,omitempty"` // store times of the silent misses, since the load started
	SilentTo         float64        `json:"silent_stored_to_s,omitempty"`
	Closes           map[string]int `json:"closes"` // by close code (and reason, for a resync)
	Reconnects       int            `json:"reconnects"`
	Events           int            `json:"events"` // message:new frames of the run received, repeats included
}

// add classifies one client's view of the messages that are acked
// (acks[seq] != 0) and stored. opens are the client's connection times
// (the first before the load), closes the ends of its connections: close
// i ends the connection opened at opens[i].
func (c *coverage) add(start time.Time, acks []int64, stored map[int]storedMsg, got bitset, opens []time.Time, closes []closeEvent) {
	c.Clients++
	if c.Closes == nil {
		c.Closes = map[string]int{}
	}
	for seq, at := range acks {
		m := stored[seq]
		if at == 0 || m.rows == 0 {
			continue
		}
		c.Expected++
		if got.has(seq) {
			c.Received++
			continue
		}
		switch covered, resync := refetched(opens, closes, m.at); {
		case !covered:
			c.Silent++
			s := float64(m.at-start.UnixNano()) / 1e9
			if c.SilentFrom == 0 || s < c.SilentFrom {
				c.SilentFrom = math.Round(s*10) / 10
			}
			c.SilentTo = max(c.SilentTo, math.Round(s*10)/10)
		case resync:
			c.CoveredResync++
		default:
			c.CoveredReconnect++
		}
	}
	for _, cl := range closes {
		key := strconv.Itoa(cl.Code)
		if cl.resync() {
			key += " " + strconv.Quote(cl.Reason)
		}
		c.Closes[key]++
	}
}

// refetched reports whether the client reconnected (and so refetched)
// after unix-nano time storedAt, or is disconnected at the end, and
// whether the close before that reconnect was a resync.
func refetched(opens []time.Time, closes []closeEvent, storedAt int64) (covered, resync bool) {
	for k := 1; k < len(opens) && k <= len(closes); k++ {
		if opens[k].UnixNano() >= storedAt {
			return true, closes[k-1].resync()
		}
	}
	if n := len(closes); n > 0 && n >= len(opens) {
		return true, closes[n-1].resync()
	}
	return false, false
}

// rssGrowth compares a node's mean RSS in the first and the last minute of
// [from, to): the growth in percent (0 without samples in both).
func rssGrowth(samples []rssSample, from, to time.Time) (first, last, pct float64) {
	first, last = meanRSS(samples, from, from.Add(time.Minute), rssTotal), meanRSS(samples, to.Add(-time.Minute), to, rssTotal)
	if first > 0 && last > 0 {
		pct = math.Round((last-first)/first*1000) / 10
	}
	return math.Round(first*10) / 10, math.Round(last*10) / 10, pct
}

// rssByMinute is a node's mean RSS (MiB), the part part picks, in each
// whole minute from from to to, so that a plateau shows apart from a
// steady climb.
func rssByMinute(samples []rssSample, from, to time.Time, part func(rssSample) int64) []float64 {
	var out []float64
	for a := from; !a.Add(time.Minute).After(to); a = a.Add(time.Minute) {
		out = append(out, math.Round(meanRSS(samples, a, a.Add(time.Minute), part)*10)/10)
	}
	return out
}

// The parts of a sample rssByMinute and meanRSS read.
func rssTotal(s rssSample) int64 { return s.RSSKiB }
func rssAnon(s rssSample) int64  { return s.AnonKiB }
func rssFile(s rssSample) int64  { return s.FileKiB }

// meanRSS is the mean of part of the samples taken in [a, b), in MiB (0:
// none).
func meanRSS(samples []rssSample, a, b time.Time, part func(rssSample) int64) float64 {
	var sum, n float64
	for _, s := range samples {
		if !s.At.Before(a) && s.At.Before(b) {
			sum += float64(part(s))
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / n / 1024
}

// faultRun is one fault action as it ran.
type faultRun struct {
	Name  string  `json:"name"`
	At    float64 `json:"at_s"`   // since the load started
	Clock string  `json:"clock"`  // when, UTC
	Took  float64 `json:"took_s"` // until the action's command returned
	Error string  `json:"error,omitempty"`
}

// nodeReport is one server process (restarts included).
type nodeReport struct {
	URL              string    `json:"url"`
	MaxRSSMiB        float64   `json:"max_rss_mib"`
	CPUSeconds       float64   `json:"cpu_s"`
	Posts            nodePosts `json:"posts"`
	RSSFirstMinute   float64   `json:"rss_first_minute_mib,omitempty"`
	RSSLastMinute    float64   `json:"rss_last_minute_mib,omitempty"`
	RSSGrowthPct     float64   `json:"rss_growth_pct,omitempty"`
	RSSByMinute      []float64 `json:"rss_by_minute_mib,omitempty"`
	AnonByMinute     []float64 `json:"rss_anon_by_minute_mib,omitempty"`
	FileByMinute     []float64 `json:"rss_file_by_minute_mib,omitempty"`
	GoroutinesBefore int       `json:"goroutines_before,omitempty"`
	GoroutinesAfter  int       `json:"goroutines_after,omitempty"`
	GoroutinesLoad   int       `json:"goroutines_under_load,omitempty"`
	WS               coverage  `json:"ws"`
}

// report is everything a run measured.
type report struct {
	RunID       string  `json:"run_id"`
	Mode        string  `json:"mode"`
	Rate        float64 `json:"rate_per_s"`
	Duration    float64 `json:"duration_s"`
	LoadSeconds float64 `json:"load_s"`

	OfferedRate  float64        `json:"offered_per_s"` // new POSTs (retries left out) over the load's time
	ClientCPU    float64        `json:"client_cpu_s"`  // this tool's CPU: it shares the machine
	PostsSent    int            `json:"posts_sent"`
	PostsAcked   int            `json:"posts_acked"`
	PostsFailed  int            `json:"posts_failed"`
	PostsRefused int            `json:"posts_refused"`
	Retries      int            `json:"retries"`
	DupPosts     int            `json:"redeliveries"`
	GaveUp       int            `json:"gave_up"`
	Failures     map[string]int `json:"failures,omitempty"`
	AckLatency   latency        `json:"ack_latency"`
	AckWindow    float64        `json:"ack_window_s"`
	AckP99ByWin  []float64      `json:"ack_p99_by_window_ms"`

	Inbound      inbound         `json:"inbound"`
	InboundDrain float64         `json:"inbound_drain_s"`
	Drained      bool            `json:"inbound_drained"`
	Outbound     outboundResult  `json:"outbound"`
	OutboundOff  bool            `json:"outbound_off,omitempty"`
	Campaign     *campaignResult `json:"campaign,omitempty"`
	Nodes        []nodeReport    `json:"nodes"`
	Faults       []faultRun      `json:"faults,omitempty"`
	Errors       []string        `json:"errors,omitempty"`
	RSSLimitPct  float64         `json:"rss_limit_pct,omitempty"`
	GoroutineMax int             `json:"goroutine_slack,omitempty"`
}

// defects lists what makes the run fail.
func (r *report) defects() []string {
	var bad []string
	add := func(n int, what string) {
		if n > 0 {
			bad = append(bad, fmt.Sprintf("%d %s", n, what))
		}
	}
	in, out := r.Inbound, r.Outbound
	add(in.Lost, "acked messages lost")
	add(in.Duplicated, "duplicated message rows")
	add(r.GaveUp, "POSTs given up (never acked)")
	add(out.NoRow, "stored messages without an outbound delivery")
	add(out.ExtraRows, "extra outbound delivery rows (event recorded twice)")
	add(out.Missing, "outbound deliveries never received")
	add(out.UnknownIDs, "outbound event ids received that no delivery row has (an id changed between attempts)")
	add(out.BadSignature, "outbound deliveries with a bad signature")
	add(out.IDMismatch, "outbound deliveries whose webhook-id is not the body's id")
	if c := r.Campaign; c != nil {
		add(c.SentTwice, "campaign recipients sent twice")
		add(c.Pending, "campaign recipients left pending")
		if !c.Cancelled {
			add(c.Never, "campaign recipients never sent")
		}
		add(c.SendingAccepted, "campaign recipients sent but left sending")
	}
	for _, n := range r.Nodes {
		add(n.WS.Silent, "/ws events missed silently on "+n.URL)
		if r.RSSLimitPct > 0 && n.RSSGrowthPct > r.RSSLimitPct {
			bad = append(bad, fmt.Sprintf("RSS of %s grew %.1f%% (limit %.0f%%)", n.URL, n.RSSGrowthPct, r.RSSLimitPct))
		}
		if r.GoroutineMax > 0 && n.GoroutinesBefore > 0 && n.GoroutinesAfter-n.GoroutinesBefore > r.GoroutineMax {
			bad = append(bad, fmt.Sprintf("goroutines of %s grew from %d to %d", n.URL, n.GoroutinesBefore, n.GoroutinesAfter))
		}
	}
	return bad
}

func (r *report) print(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	lat := func(l latency) string {
		return fmt.Sprintf("p50 %.1f ms, p99 %.1f ms, max %.1f ms (n=%d)", l.P50, l.P99, l.Max, l.N)
	}
	p("run %s (%s): %.0f s at %.0f POST/s round-robin over %d nodes", r.RunID, r.Mode, r.Duration, r.Rate, len(r.Nodes))
	for _, f := range r.Faults {
		p("fault          %-18s at %5.1f s (%s UTC), took %.1f s %s", f.Name, f.At, f.Clock, f.Took, f.Error)
	}
	p("POSTs          sent %d (%.0f/s offered), acked %d, failed %d (retried), refused %d, retries %d, redeliveries %d, given up %d",
		r.PostsSent, r.OfferedRate, r.PostsAcked, r.PostsFailed, r.PostsRefused, r.Retries, r.DupPosts, r.GaveUp)
	if len(r.Failures) > 0 {
		p("failures       %s", formatCounts(r.Failures))
	}
	p("ack latency    %s (from due time)", lat(r.AckLatency))
	p("ack p99 /%-5s %s ms", strconv.FormatFloat(r.AckWindow, 'f', -1, 64)+"s", formatSeries(r.AckP99ByWin))
	in := r.Inbound
	drain := "NOT drained"
	if r.Drained {
		drain = fmt.Sprintf("drained %.1f s after the load", r.InboundDrain)
	}
	p("inbound        acked %d, stored %d, lost %d, duplicated %d, stored unacked %d; %s",
		in.Acked, in.Stored, in.Lost, in.Duplicated, in.StoredUnacked, drain)
	o := r.Outbound
	if r.OutboundOff {
		p("outbound       off (-outbound=false: no webhook subscription)")
	}
	odrain := "NOT drained"
	if o.Drained {
		odrain = fmt.Sprintf("drained %.1f s after the load", o.DrainedSeconds)
	}
	if !r.OutboundOff {
		p("outbound       expected %d, rows %d (%s), no row %d, extra rows %d; %s",
			o.Expected, o.Rows, formatCounts(o.RowsByStatus), o.NoRow, o.ExtraRows, odrain)
		p("receiver       requests %d, delivered %d, distinct ids %d, duplicates deduped %d, forced 503 %d, missing %d, unknown ids %d, bad signature %d, id mismatch %d",
			o.Requests, o.Delivered, o.DistinctIDs, o.Deduped, o.Forced503, o.Missing, o.UnknownIDs, o.BadSignature, o.IDMismatch)
	}
	if c := r.Campaign; c != nil {
		p("campaign       %d recipients (%s): sent once %d, twice %d, never %d, left pending %d, sending (accepted %d, never sent %d); by status %s; statuses echoed %d",
			c.Recipients, c.Status, c.SentOnce, c.SentTwice, c.Never, c.Pending, c.SendingAccepted, c.SendingNeverSent,
			formatCounts(c.ByStatus), c.Echoed)
	}
	for i, n := range r.Nodes {
		name := string(rune('A' + i))
		ws := n.WS
		silent := strconv.Itoa(ws.Silent)
		if ws.Silent > 0 {
			silent += fmt.Sprintf(" (stored %.1f-%.1f s into the load)", ws.SilentFrom, ws.SilentTo)
		}
		p("/ws node %s     %d clients: expected %d, received %d, missed covered by resync %d, by reconnect %d, silently %s; closes %s, reconnects %d",
			name, ws.Clients, ws.Expected, ws.Received, ws.CoveredResync, ws.CoveredReconnect, silent, formatCounts(ws.Closes), ws.Reconnects)
		p("node %s         %s: POSTs %d (acked %d), max RSS %.1f MiB, CPU %.1f s", name, n.URL, n.Posts.Posts, n.Posts.Acked, n.MaxRSSMiB, n.CPUSeconds)
		if n.RSSFirstMinute > 0 {
			p("node %s soak    RSS first minute %.1f MiB, last minute %.1f MiB (%+.1f%%); goroutines idle before %d, under load %d, idle after %d",
				name, n.RSSFirstMinute, n.RSSLastMinute, n.RSSGrowthPct, n.GoroutinesBefore, n.GoroutinesLoad, n.GoroutinesAfter)
			p("node %s RSS /60s %s MiB (anon %s; file %s)", name, formatSeries(n.RSSByMinute),
				formatSeries(n.AnonByMinute), formatSeries(n.FileByMinute))
		}
	}
	p("client CPU     %.1f s (this tool, on the same machine)", r.ClientCPU)
	for _, e := range r.Errors {
		p("error          %s", e)
	}
	if bad := r.defects(); len(bad) > 0 {
		p("DEFECTS        %s", strings.Join(bad, "; "))
	} else {
		p("result         no defect")
	}
}

func formatCounts[V int | int64](m map[string]V) string {
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

func formatSeries(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strings.Join(parts, " ")
}
