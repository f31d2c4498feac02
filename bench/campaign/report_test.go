package main

import (
	"testing"
	"time"

	"switchboard/bench/internal/fakeplatform"
)

func TestRates(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	var sends []fakeplatform.Send
	// 10 a second for 10 s, then 30 in the 11th second.
	for i := range 100 {
		sends = append(sends, fakeplatform.Send{At: t0.Add(time.Duration(i) * 100 * time.Millisecond)})
	}
	for i := range 30 {
		sends = append(sends, fakeplatform.Send{At: t0.Add(10*time.Second + time.Duration(i)*33*time.Millisecond)})
	}
	w := windowRate(sends, t0, t0.Add(10*time.Second))
	if w.Sends != 100 || w.PerSec != 10 || w.MinSecond != 10 || w.MaxSecond != 10 {
		t.Fatalf("window %+v", w)
	}
	w = windowRate(sends, t0.Add(5*time.Second), t0.Add(11*time.Second))
	if w.Sends != 80 || w.MinSecond != 10 || w.MaxSecond != 30 {
		t.Fatalf("window with the burst %+v", w)
	}
	overall, sustained := overallRate(sends)
	if overall.Sends != 130 || sustained.Sends == 0 || sustained.Sends >= 130 {
		t.Fatalf("overall %+v, sustained %+v", overall, sustained)
	}
	if o, s := overallRate(nil); o.Sends != 0 || s.Sends != 0 {
		t.Fatalf("no sends: %+v %+v", o, s)
	}
}

func TestReportFailed(t *testing.T) {
	r := &report{ByStatus: map[string]int64{"pending": 0}}
	if r.Failed() != "" {
		t.Fatalf("clean run failed: %s", r.Failed())
	}
	r.RecipientsSentTwice, r.SendingButAccepted = 1, 2
	if got := r.Failed(); got != "1 recipients sent twice; 2 recipients the platform accepted are still sending (not reconciled)" {
		t.Fatalf("got %q", got)
	}
	r = &report{ByStatus: map[string]int64{"pending": 3}, Window: &rate{}}
	if r.Failed() != "" {
		t.Fatalf("a window run leaves recipients pending by design: %s", r.Failed())
	}
}
