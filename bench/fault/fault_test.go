package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

var t0 = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// at is t0 plus s seconds, in unix nanos.
func at(s float64) int64 { return t0.Add(time.Duration(s * float64(time.Second))).UnixNano() }

func TestSeqOf(t *testing.T) {
	p := &payloads{wamidPrefix: "wamid.fault-ab12-"}
	tests := []struct {
		wamid string
		seq   int
		ok    bool
	}{
		{p.wamid(1), 1, true},
		{p.wamid(123456), 123456, true},
		{"wamid.fault-ab12-", 0, false},
		{"wamid.fault-ab12-x", 0, false},
		{"wamid.fault-ab13-5", 0, false},
		{"wamid.fault-ab12-0", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		seq, ok := p.seqOf(tt.wamid)
		if seq != tt.seq || ok != tt.ok {
			t.Errorf("seqOf(%q) = %d, %v; want %d, %v", tt.wamid, seq, ok, tt.seq, tt.ok)
		}
	}
}

func TestCompareInbound(t *testing.T) {
	tests := []struct {
		name   string
		acks   []int64
		stored map[int]storedMsg
		want   inbound
	}{
		{"all stored once", []int64{0, at(1), at(2)}, map[int]storedMsg{1: {rows: 1}, 2: {rows: 1}},
			inbound{Acked: 2, Stored: 2}},
		{"one lost", []int64{0, at(1), at(2)}, map[int]storedMsg{1: {rows: 1}},
			inbound{Acked: 2, Stored: 1, Lost: 1}},
		{"one stored twice", []int64{0, at(1)}, map[int]storedMsg{1: {rows: 2}},
			inbound{Acked: 1, Stored: 1, Duplicated: 1}},
		{"stored, never acked", []int64{0, at(1), 0}, map[int]storedMsg{1: {rows: 1}, 2: {rows: 1}, 5: {rows: 1}},
			inbound{Acked: 1, Stored: 3, StoredUnacked: 2}},
	}
	for _, tt := range tests {
		if got := compareInbound(tt.acks, tt.stored); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestCompareDeliveries(t *testing.T) {
	e1, e2, e3, stray := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	stored := map[int]storedMsg{1: {rows: 1}, 2: {rows: 1}, 3: {rows: 1}}
	tests := []struct {
		name   string
		rows   []deliveryRow
		events map[uuid.UUID]received
		check  func(outboundResult) bool
	}{
		{"every row received once",
			[]deliveryRow{{e1, 1, "succeeded", 1}, {e2, 2, "succeeded", 1}, {e3, 3, "succeeded", 2}},
			map[uuid.UUID]received{e1: {1, 1, 1}, e2: {2, 1, 1}, e3: {3, 2, 1}},
			func(r outboundResult) bool {
				return r.Expected == 3 && r.DistinctIDs == 3 && r.Delivered == 3 && r.Requests == 4 &&
					r.Deduped == 0 && r.Missing == 0 && r.NoRow == 0 && r.RowsByStatus["succeeded"] == 3
			}},
		{"a retry after a 200 is deduplicated",
			[]deliveryRow{{e1, 1, "succeeded", 2}, {e2, 2, "succeeded", 1}, {e3, 3, "succeeded", 1}},
			map[uuid.UUID]received{e1: {1, 2, 2}, e2: {2, 1, 1}, e3: {3, 1, 1}},
			func(r outboundResult) bool {
				return r.Delivered == 4 && r.DistinctIDs == 3 && r.Deduped == 1 && r.Missing == 0
			}},
		{"a message without a row, a row never received, a stray id",
			[]deliveryRow{{e1, 1, "succeeded", 1}, {e2, 2, "retrying", 2}},
			map[uuid.UUID]received{e1: {1, 1, 1}, e2: {2, 2, 0}, stray: {9, 1, 1}},
			func(r outboundResult) bool { return r.NoRow == 1 && r.Missing == 1 && r.UnknownIDs == 1 }},
		{"an event recorded twice",
			[]deliveryRow{{e1, 1, "succeeded", 1}, {e2, 1, "succeeded", 1}, {e3, 2, "succeeded", 1}, {stray, 3, "succeeded", 1}},
			map[uuid.UUID]received{e1: {1, 1, 1}, e2: {1, 1, 1}, e3: {2, 1, 1}, stray: {3, 1, 1}},
			func(r outboundResult) bool { return r.ExtraRows == 1 && r.NoRow == 0 }},
	}
	for _, tt := range tests {
		r := compareDeliveries(stored, tt.rows, receiverCounts{Events: tt.events})
		if !tt.check(r) {
			t.Errorf("%s: %+v", tt.name, r)
		}
	}
}

func TestCoverage(t *testing.T) {
	start := t0
	open := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	broke := func(s float64) closeEvent { return closeEvent{At: open(s), Code: 1006} }
	resync := func(s float64) closeEvent {
		return closeEvent{At: open(s), Code: 1012, Reason: "resync: redis subscription lost"}
	}
	// Messages 1..4 acked at 1, 2, 3, 4 s and stored 0.5 s later.
	acks := []int64{0, at(1), at(2), at(3), at(4)}
	stored := map[int]storedMsg{1: {1, at(1.5)}, 2: {1, at(2.5)}, 3: {1, at(3.5)}, 4: {1, at(4.5)}}
	var all bitset
	for i := 1; i <= 4; i++ {
		all.set(i)
	}
	tests := []struct {
		name   string
		got    []int
		opens  []time.Time
		closes []closeEvent
		want   [4]int // received, resync, reconnect, silent
	}{
		{"every event", []int{1, 2, 3, 4}, []time.Time{open(0)}, nil, [4]int{4, 0, 0, 0}},
		{"missed while connected: silent", []int{1, 2, 4}, []time.Time{open(0)}, nil, [4]int{3, 0, 0, 1}},
		{"node died at 2 s, back at 3 s", []int{1, 4}, []time.Time{open(0), open(3)}, []closeEvent{broke(2)}, [4]int{2, 0, 1, 1}},
		{"resync close at 3.6 s", []int{1, 2, 4}, []time.Time{open(0), open(3.7)}, []closeEvent{resync(3.6)}, [4]int{3, 1, 0, 0}},
		{"stored after the reconnect and missed: silent", []int{1, 2, 3}, []time.Time{open(0), open(4.2)}, []closeEvent{resync(4.1)}, [4]int{3, 0, 0, 1}},
		{"disconnected at the end", []int{1, 2}, []time.Time{open(0)}, []closeEvent{broke(2.6)}, [4]int{2, 0, 2, 0}},
	}
	for _, tt := range tests {
		var got bitset
		for _, s := range tt.got {
			got.set(s)
		}
		var c coverage
		c.add(start, acks, stored, got, tt.opens, tt.closes)
		closes := 0
		for _, n := range c.Closes {
			closes += n
		}
		if res := [4]int{c.Received, c.CoveredResync, c.CoveredReconnect, c.Silent}; res != tt.want || c.Expected != 4 || closes != len(tt.closes) {
			t.Errorf("%s: received, resync, reconnect, silent = %v (expected %d); want %v", tt.name, res, c.Expected, tt.want)
		}
	}
}

func TestRSSGrowth(t *testing.T) {
	series := func(first, last int64) []rssSample {
		var s []rssSample
		for i := range 300 { // 5 minutes, one a second
			kib := first
			if i >= 240 {
				kib = last
			}
			s = append(s, rssSample{At: t0.Add(time.Duration(i) * time.Second), RSSKiB: kib, AnonKiB: kib - 51200, FileKiB: 51200})
		}
		return s
	}
	tests := []struct {
		name             string
		samples          []rssSample
		first, last, pct float64
	}{
		{"flat", series(102400, 102400), 100, 100, 0},
		{"grew 25%", series(102400, 128000), 100, 125, 25},
		{"shrank", series(102400, 92160), 100, 90, -10},
		{"no samples", nil, 0, 0, 0},
	}
	for _, tt := range tests {
		first, last, pct := rssGrowth(tt.samples, t0, t0.Add(5*time.Minute))
		if first != tt.first || last != tt.last || pct != tt.pct {
			t.Errorf("%s: %.1f, %.1f, %.1f%%; want %.1f, %.1f, %.1f%%", tt.name, first, last, pct, tt.first, tt.last, tt.pct)
		}
	}
	// Per minute: four at the first level, the fifth at the last.
	for _, tt := range []struct {
		part func(rssSample) int64
		want []float64
	}{
		{rssTotal, []float64{100, 100, 100, 100, 125}},
		{rssAnon, []float64{50, 50, 50, 50, 75}},
		{rssFile, []float64{50, 50, 50, 50, 50}},
	} {
		if got := rssByMinute(series(102400, 128000), t0, t0.Add(5*time.Minute), tt.part); !slices.Equal(got, tt.want) {
			t.Errorf("rssByMinute = %v, want %v", got, tt.want)
		}
	}
}

func TestWindows(t *testing.T) {
	w := newWindows(t0, time.Minute)
	for i := range 100 {
		w.Add(t0.Add(time.Duration(i)*time.Second/2), time.Duration(i+1)*time.Millisecond) // minute 0: 1..100 ms
	}
	w.Add(t0.Add(150*time.Second), 7*time.Millisecond) // minute 2; minute 1 empty
	if got := w.P99s(); len(got) != 3 || got[0] != 99 || got[1] != 0 || got[2] != 7 {
		t.Fatalf("p99s %v", got)
	}
	if all := w.All(); all.N != 101 || all.Max != 100 {
		t.Fatalf("all %+v", all)
	}
}

func TestParseGoroutines(t *testing.T) {
	tests := []struct {
		text string
		want int
		ok   bool
	}{
		{"# HELP go_goroutines Number of goroutines.\n# TYPE go_goroutines gauge\ngo_goroutines 123\ngo_threads 9\n", 123, true},
		{"go_goroutines_total 4\n", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		n, err := parseGoroutines(strings.NewReader(tt.text))
		if n != tt.want || (err == nil) != tt.ok {
			t.Errorf("%q: %d, %v", tt.text, n, err)
		}
	}
}

func TestFirstAttempt(t *testing.T) {
	tests := []struct {
		signed string
		want   bool
	}{
		{"1795694400", true}, // t0
		{"1795694402", true},
		{"1795694403", false},
		{"1795694475", false}, // recovered a minute later
		{"", false},
	}
	for _, tt := range tests {
		if got := firstAttempt(t0, tt.signed); got != tt.want {
			t.Errorf("signed %q: %v", tt.signed, got)
		}
	}
}

func TestForceRetryFraction(t *testing.T) {
	n := 0
	for range 20_000 {
		if forceRetry(uuid.New(), 0.02) {
			n++
		}
	}
	if n < 300 || n > 500 { // 400 expected; far outside is a broken selection
		t.Fatalf("%d of 20,000 forced", n)
	}
	if forceRetry(uuid.New(), 0) {
		t.Fatal("fraction 0 forced a retry")
	}
}

func TestDefects(t *testing.T) {
	clean := func() *report {
		return &report{Campaign: &campaignResult{}, Nodes: []nodeReport{{URL: "a"}, {URL: "b"}}}
	}
	tests := []struct {
		name   string
		change func(*report)
		want   string
	}{
		{"clean", func(*report) {}, ""},
		{"lost", func(r *report) { r.Inbound.Lost = 2 }, "2 acked messages lost"},
		{"outbound missing", func(r *report) { r.Outbound.Missing = 1 }, "1 outbound deliveries never received"},
		{"campaign twice", func(r *report) { r.Campaign.SentTwice = 3 }, "3 campaign recipients sent twice"},
		{"campaign never sent", func(r *report) { r.Campaign.Never = 2 }, "2 campaign recipients never sent"},
		{"cancelled campaign", func(r *report) { r.Campaign.Never, r.Campaign.Cancelled = 2, true }, ""},
		{"changed event id", func(r *report) { r.Outbound.UnknownIDs = 1 },
			"1 outbound event ids received that no delivery row has (an id changed between attempts)"},
		{"silent ws", func(r *report) { r.Nodes[1].WS.Silent = 5 }, "5 /ws events missed silently on b"},
		{"covered ws is fine", func(r *report) { r.Nodes[0].WS.CoveredResync = 5 }, ""},
		{"rss", func(r *report) { r.RSSLimitPct = 10; r.Nodes[0].RSSGrowthPct = 12.5 }, "RSS of a grew 12.5% (limit 10%)"},
		{"goroutines", func(r *report) {
			r.GoroutineMax = 20
			r.Nodes[0].GoroutinesBefore, r.Nodes[0].GoroutinesAfter = 100, 121
		}, "goroutines of a grew from 100 to 121"},
		{"goroutines within slack", func(r *report) {
			r.GoroutineMax = 20
			r.Nodes[0].GoroutinesBefore, r.Nodes[0].GoroutinesAfter = 100, 120
		}, ""},
	}
	for _, tt := range tests {
		r := clean()
		tt.change(r)
		if got := strings.Join(r.defects(), "; "); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestDrainWatch(t *testing.T) {
	sec := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }
	type step struct {
		at, stored int
		want       bool
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"waits to the deadline without growth", []step{{10, 0, true}, {119, 0, true}, {120, 0, false}}},
		{"goes on past the deadline while the count grows", []step{{100, 5, true}, {125, 9, true}, {139, 9, true}, {140, 9, false}}},
		{"stops at the limit however it grows", []step{{350, 10, true}, {359, 11, true}, {360, 12, false}}},
		{"an unread count is no growth", []step{{110, 5, true}, {121, -1, true}, {125, -1, false}}},
	}
	for _, tt := range tests {
		w := drainWatch{deadline: sec(120), limit: sec(360), stall: 15 * time.Second, grewAt: t0}
		for _, s := range tt.steps {
			if got := w.keepWaiting(sec(s.at), s.stored); got != s.want {
				t.Errorf("%s: at %d s with %d stored: got %v, want %v", tt.name, s.at, s.stored, got, s.want)
			}
		}
	}
}
