package transfers_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/ent/transfertimer"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
	"switchboard/internal/testenv"
	"switchboard/transfers"
	"switchboard/worker"
)

// benchTimers is how many SLA timers one run fires, due over benchSpread.
const (
	benchTimers = 10_000
	benchLead   = 10 * time.Second
	benchSpread = 50 * time.Second
)

// BenchmarkSLATimersTwoNodes fires 10,000 SLA resolution timers, due
// within 50 s, on two nodes: two worker.Worker instances with their own
// transfers.Service on one PostgreSQL database and one Redis (in one
// process). It reports the time from the first due time until every timer
// fired, the lateness (fired_at - due_at) p50/p99/max, and timers fired
// more than once (must be 0). Run it alone, once:
//
//	TEST_REQUIRE_SERVICES=1 go test -run '^$' -bench SLATimersTwoNodes -benchtime 1x ./transfers/
func BenchmarkSLATimersTwoNodes(b *testing.B) {
	for range b.N {
		benchTimersOnce(b)
	}
}

func benchTimersOnce(b *testing.B) {
	env := apitest.New(b)
	// The application's own worker and sweeps stay out: the two nodes
	// below are the only ones.
	env.App.StopWorkers()
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	db := env.Client()
	if _, err := db.ChatbotSettings.Delete().Exec(ctx); err != nil {
		b.Fatal(err)
	}
	if err := db.ChatbotSettings.Create().SetSLAEnabled(true).Exec(ctx); err != nil {
		b.Fatal(err)
	}

	// 10,000 contacts with an active transfer each, and one resolution
	// timer per transfer.
	t0 := time.Now().Add(benchLead).UTC()
	var timerIDs []uuid.UUID
	for start := 0; start < benchTimers; start += 1000 {
		n := min(1000, benchTimers-start)
		cs := make([]*ent.ContactCreate, n)
		for i := range cs {
			cs[i] = db.Contact.Create().SetPhoneNumber(fmt.Sprint(15551000000 + start + i))
		}
		contacts, err := db.Contact.CreateBulk(cs...).Save(ctx)
		if err != nil {
			b.Fatal(err)
		}
		ts := make([]*ent.AgentTransferCreate, n)
		for i, c := range contacts {
			ts[i] = db.AgentTransfer.Create().SetContactID(c.ID).SetSource("manual")
		}
		trs, err := db.AgentTransfer.CreateBulk(ts...).Save(ctx)
		if err != nil {
			b.Fatal(err)
		}
		tms := make([]*ent.TransferTimerCreate, n)
		for i, tr := range trs {
			due := t0.Add(time.Duration(start+i) * benchSpread / benchTimers)
			tms[i] = db.TransferTimer.Create().SetTransferID(tr.ID).SetKind(transfertimer.KindSLAResolution).SetDueAt(due)
		}
		timers, err := db.TransferTimer.CreateBulk(tms...).Save(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for _, tm := range timers {
			timerIDs = append(timerIDs, tm.ID)
		}
	}

	prefix := testenv.Namespace() + uuid.NewString()[:8] + ":timers"
	var mu sync.Mutex
	fires := map[uuid.UUID]int{}
	perNode := [2]int{}
	done := make(chan struct{})
	nodes := make([]*transfers.Service, 2)
	for i := range nodes {
		q := worker.NewClient(env.App.KV.ConnOpt(), prefix)
		b.Cleanup(func() { q.Close() })
		nodes[i] = &transfers.Service{Client: db, Events: env.App.Events, Queue: q, AfterFire: func(f transfers.Fired) {
			mu.Lock()
			defer mu.Unlock()
			fires[f.TimerID]++
			perNode[i]++
			if len(fires) == benchTimers && perNode[0]+perNode[1] == benchTimers {
				close(done)
			}
		}}
		w := worker.New(env.App.KV.ConnOpt(), worker.Options{Concurrency: 10, QueuePrefix: prefix})
		nodes[i].Register(w)
		if err := w.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(w.Shutdown)
	}
	// Both nodes run their start-up sweep: each queues every pending
	// timer; the task ids keep one task per timer.
	b.ResetTimer()
	enqStart := time.Now()
	var wg sync.WaitGroup
	for _, n := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := n.Recover(context.Background()); err != nil {
				b.Error(err)
			}
		}()
	}
	wg.Wait()
	enqueued := time.Since(enqStart)
	if time.Now().After(t0) {
		b.Logf("queueing took %s, past the first due time", enqueued)
	}
	select {
	case <-done:
	case <-time.After(benchLead + benchSpread + 3*time.Minute):
		b.Fatalf("only %d of %d timers fired", len(fires), benchTimers)
	}
	b.StopTimer()

	all, err := db.TransferTimer.Query().Where(transfertimer.IDIn(timerIDs...)).All(ctx)
	if err != nil {
		b.Fatal(err)
	}
	late := make([]time.Duration, 0, len(all))
	var last time.Time
	for _, tm := range all {
		if tm.Status != transfertimer.StatusFired || tm.FiredAt == nil {
			b.Fatalf("timer %s is %s", tm.ID, tm.Status)
		}
		late = append(late, tm.FiredAt.Sub(tm.DueAt))
		if tm.FiredAt.After(last) {
			last = *tm.FiredAt
		}
	}
	slices.Sort(late)
	twice := 0
	for _, n := range fires {
		if n > 1 {
			twice++
		}
	}
	pct := func(p float64) time.Duration { return late[int(p*float64(len(late)-1))] }
	b.ReportMetric(last.Sub(t0).Seconds(), "s_first_due_to_last_fire")
	b.ReportMetric(float64(pct(0.50).Milliseconds()), "ms_late_p50")
	b.ReportMetric(float64(pct(0.99).Milliseconds()), "ms_late_p99")
	b.ReportMetric(float64(late[len(late)-1].Milliseconds()), "ms_late_max")
	b.ReportMetric(float64(twice), "fired_twice")
	b.ReportMetric(enqueued.Seconds(), "s_queueing")
	b.Logf("%d timers due over %s fired by node A %d, node B %d; queueing both sweeps %s; last fire %s after the first due time; lateness p50 %s p99 %s max %s; fired twice %d",
		benchTimers, benchSpread, perNode[0], perNode[1], enqueued.Round(time.Millisecond), last.Sub(t0).Round(time.Millisecond),
		pct(0.5).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), late[len(late)-1].Round(time.Millisecond), twice)
}
