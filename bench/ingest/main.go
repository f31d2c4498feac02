// Command ingest loads a running Switchboard server with signed platform
// webhooks in Meta's shape and reports what PostgreSQL stored: sustained
// messages stored per second (counted in the database, not acks), ack
// latency, the time for the backlog to drain after the load stops, the
// latency from POST to the /ws message:new event, the server's RSS, and
// lost and duplicated counts. With -kill-after and -kill-cmd it runs a
// fault (kill -9 and restart of the server, a Redis restart) mid-load and
// keeps re-sending every unacknowledged payload until acknowledged, as the
// platform does. See README.md.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"switchboard/bench/internal/benchkit"
	"switchboard/bench/internal/fakeplatform"
)

type config struct {
	url, email, password, db string
	duration, drainTimeout   time.Duration
	poll, killAfter          time.Duration
	rate, dup, bursts        float64
	concurrency, senders     int
	pid                      int
	pidFile, killCmd         string
	jsonOut                  bool
	botProbes                float64
	fakeAddr, botOrg         string
}

func parseFlags() (config, error) {
	var c config
	flag.StringVar(&c.url, "url", "http://localhost:8080", "server base URL")
	flag.StringVar(&c.email, "email", os.Getenv("ADMIN_EMAIL"), "admin e-mail (default $ADMIN_EMAIL)")
	flag.StringVar(&c.password, "password", os.Getenv("ADMIN_PASSWORD"), "admin password (default $ADMIN_PASSWORD)")
	flag.StringVar(&c.db, "db", os.Getenv("DATABASE_URL"), "the server's PostgreSQL URL, for counting what is stored (default $DATABASE_URL)")
	flag.DurationVar(&c.duration, "duration", 60*time.Second, "how long to post")
	flag.Float64Var(&c.rate, "rate", 2400, "target webhook POSTs per second (open loop)")
	flag.IntVar(&c.concurrency, "concurrency", 256, "maximum POSTs in flight")
	flag.IntVar(&c.senders, "senders", 1_000_000, "distinct sender numbers messages are drawn from (large: most senders are new)")
	flag.Float64Var(&c.bursts, "bursts", 0.05, "fraction of sends that are a burst of 2-3 concurrent messages of a brand-new sender")
	flag.Float64Var(&c.dup, "dup", 0.10, "fraction of POSTs that are byte-identical redeliveries of earlier payloads")
	flag.IntVar(&c.pid, "pid", 0, "server PID, for RSS sampling")
	flag.StringVar(&c.pidFile, "pid-file", "", "file holding the server PID, re-read on every sample (for runs that restart it)")
	flag.DurationVar(&c.drainTimeout, "drain-timeout", 60*time.Second, "how long to wait, after the load, for every acked message to be stored")
	flag.DurationVar(&c.poll, "poll", time.Second, "database polling interval during the load (drain polls every 50 ms)")
	flag.DurationVar(&c.killAfter, "kill-after", 0, "run -kill-cmd this long after the load starts")
	flag.StringVar(&c.killCmd, "kill-cmd", "", "shell command run mid-load (kill -9 and restart the server, restart Redis)")
	flag.BoolVar(&c.jsonOut, "json", false, "print the report as JSON too")
	flag.Float64Var(&c.botProbes, "bot-probes", 0, "keyword messages a second posted beside the load, each answered by the chatbot (0: none; needs -fake-addr and the server's PROVIDER_BASE_URL at it)")
	flag.StringVar(&c.fakeAddr, "fake-addr", "", "address to serve the Graph API fake on, for -bot-probes")
	flag.StringVar(&c.botOrg, "bot-org", "same", "where the probes go: same (the load's organization, its chatbot on: every load message goes through the bot) or separate (an organization of their own; the load's chatbot stays off)")
	flag.Parse()
	switch {
	case c.email == "" || c.password == "":
		return c, errors.New("-email and -password (an admin of the server) are required")
	case c.db == "":
		return c, errors.New("-db (the server's DATABASE_URL) is required")
	case c.rate <= 0 || c.concurrency <= 0 || c.duration <= 0:
		return c, errors.New("-rate, -concurrency and -duration must be positive")
	case c.senders <= 0 || c.senders > 50_000_000:
		return c, errors.New("-senders must be between 1 and 50,000,000")
	case c.dup < 0 || c.dup >= 1 || c.bursts < 0 || c.bursts > 1:
		return c, errors.New("-dup must be in [0, 1), -bursts in [0, 1]")
	case (c.killAfter > 0) != (c.killCmd != ""):
		return c, errors.New("-kill-after and -kill-cmd go together")
	case c.botProbes < 0 || c.botProbes > 100 || (c.botProbes > 0) != (c.fakeAddr != ""):
		return c, errors.New("-bot-probes (at most 100 a second) and -fake-addr go together")
	case c.botOrg != "same" && c.botOrg != "separate":
		return c, errors.New("-bot-org is same or separate")
	}
	return c, nil
}

func main() {
	log := func(err error) { fmt.Fprintln(os.Stderr, "ingest:", err) }
	cfg, err := parseFlags()
	if err != nil {
		log(err)
		os.Exit(2)
	}
	// The tool shares the machine with the server it measures: fewer
	// collections of its growing tables leave more CPU to the server, and
	// fewer of its own pauses in the latencies it records.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r, err := run(ctx, cfg)
	if err != nil {
		log(err)
		os.Exit(1)
	}
	r.print(os.Stdout)
	if cfg.jsonOut {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(r)
	}
}

// run is one load run: setup, load, drain, count, report.
func run(ctx context.Context, cfg config) (*report, error) {
	runID := benchkit.RandomHex(4)
	srv, err := connect(ctx, cfg.url, cfg.email, cfg.password, runID)
	if err != nil {
		return nil, err
	}
	p := &payloads{srv: srv, wamidPrefix: "wamid.bench-" + runID + "-", phonePrefix: benchkit.RandomDigits(7)}
	st, err := openStore(ctx, cfg.db, srv.api.OrgID, p.wamidPrefix, p.phonePrefix)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	defer st.db.Close()
	if c, err := st.count(ctx); err != nil || c.Messages+c.Contacts > 0 {
		return nil, fmt.Errorf("run prefixes not fresh (%+v, %v): try again", c, err)
	}

	var probes *botProbes
	if cfg.botProbes > 0 {
		fctx, stopFake := context.WithCancel(context.Background())
		defer stopFake()
		fake, err := fakeplatform.Serve(fctx, cfg.fakeAddr, nil)
		if err != nil {
			return nil, err
		}
		target, tp := srv, p
		if cfg.botOrg == "separate" {
			if target, err = srv.newOrganization(ctx, "bench-bot-"+runID); err != nil {
				return nil, err
			}
			tp = &payloads{srv: target}
		}
		if err := target.enableKeywordBot(ctx); err != nil {
			return nil, err
		}
		probes = newBotProbes(cfg.botProbes, tp, fake)
	}

	octx, stopObservers := context.WithCancel(ctx)
	defer stopObservers()
	t := newTracker(int(cfg.rate*cfg.duration.Seconds()) + 1024)
	wsReady := make(chan struct{})
	go watchEvents(octx, srv, p.wamidPrefix, t, wsReady)
	select {
	case <-wsReady:
	case <-time.After(10 * time.Second):
		return nil, errors.New("could not connect to /ws")
	}
	sampler := &serverSampler{pid: cfg.pid, pidFile: cfg.pidFile}
	go sampler.run(octx)

	logf("run %s: account phone_id %s, posting %.0f/s for %s", runID, srv.phone, cfg.rate, cfg.duration)
	start := time.Now()
	machineStart, machineErr := readMachineCPU()
	pl := newPoller(st, t, start, cfg.poll)
	go pl.run(octx)
	faultDone := startFault(octx, cfg, start)
	l := newLoader(cfg, p, t)
	before, err := st.count(ctx)
	if err != nil {
		return nil, err
	}
	probesDone := make(chan struct{})
	go func() {
		defer close(probesDone)
		if probes != nil {
			probes.run(ctx, cfg.duration)
		}
	}()
	l.run(ctx)
	loadEnd := time.Now()
	<-probesDone
	var machineBusy *machineLoad
	if machineEnd, err := readMachineCPU(); err == nil && machineErr == nil {
		load := machineEnd.since(machineStart)
		machineBusy = &load
	}
	l.retryUntil.Store(loadEnd.Add(cfg.drainTimeout).UnixNano())
	after, err := st.count(ctx)
	if err != nil {
		return nil, err
	}
	logf("load stopped after %.1f s; draining", loadEnd.Sub(start).Seconds())
	pl.setInterval(50 * time.Millisecond)
	drainedAt, drained := waitDrain(ctx, pl, st, t, loadEnd.Add(cfg.drainTimeout))
	waitEvents(ctx, t, 2*time.Second)
	var bot *botResult
	if probes != nil {
		bot = probes.result(ctx, time.Now().Add(10*time.Second))
	}

	r := &report{RunID: runID, LoadSeconds: loadEnd.Sub(start).Seconds(), Drained: drained, MachineBusy: machineBusy, Bot: bot}
	r.Target.URL, r.Target.Duration, r.Target.Rate = cfg.url, cfg.duration.Seconds(), cfg.rate
	r.Target.Concurrency, r.Target.Senders, r.Target.Bursts, r.Target.Dup = cfg.concurrency, cfg.senders, cfg.bursts, cfg.dup
	window := loadEnd.Sub(start).Seconds()
	r.StoredPerSecLoad = float64(after.DistinctMessages-before.DistinctMessages) / window
	end := time.Now()
	if drained {
		end = drainedAt
		r.DrainSeconds = drainedAt.Sub(loadEnd).Seconds()
	}
	if err := finish(ctx, r, st, t, start, end); err != nil {
		return nil, err
	}
	stopObservers()
	r.Fault = <-faultDone
	var serverCPU time.Duration
	r.MaxRSSMiB, r.RSSSamples, serverCPU = sampler.result()
	wall := time.Since(start)
	r.ServerCPU = serverCPU.Seconds()
	r.ClientCPU = clientCPU().Seconds()
	r.WallSeconds = wall.Seconds()
	r.Series, r.PollErrors = pl.samples()
	return r, nil
}

// clientCPU is the CPU time this process used (user + system).
func clientCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// startFault runs cfg.killCmd cfg.killAfter into the load; the channel
// yields its outcome (nil when there is none).
func startFault(ctx context.Context, cfg config, start time.Time) <-chan *faultResult {
	done := make(chan *faultResult, 1)
	if cfg.killCmd == "" {
		done <- nil
		return done
	}
	go func() {
		select {
		case <-ctx.Done():
			done <- nil
			return
		case <-time.After(time.Until(start.Add(cfg.killAfter))):
		}
		f := &faultResult{Cmd: cfg.killCmd, At: time.Since(start).Seconds()}
		logf("fault at %.1f s: %s", f.At, cfg.killCmd)
		cmd := exec.CommandContext(ctx, "sh", "-c", cfg.killCmd)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		began := time.Now()
		if err := cmd.Run(); err != nil {
			f.Error = err.Error()
		}
		f.Took = time.Since(began).Seconds()
		logf("fault command finished after %.1f s", f.Took)
		done <- f
	}()
	return done
}

// waitDrain waits until no delivery is outstanding and every acknowledged
// message id is stored, or until deadline. It returns when that was seen.
func waitDrain(ctx context.Context, pl *poller, st *store, t *tracker, deadline time.Time) (time.Time, bool) {
	for time.Now().Before(deadline) && ctx.Err() == nil {
		select {
		case <-pl.wake:
		case <-time.After(time.Second):
		case <-ctx.Done():
			return time.Time{}, false
		}
		if t.pending() > 0 || pl.latest().Messages < int64(t.ackedCount()) {
			continue
		}
		checked := time.Now()
		stored, err := st.storedIDs(ctx)
		if err != nil {
			continue
		}
		if missing(t.ackedIDs(), stored) == 0 {
			return checked, true
		}
	}
	return time.Time{}, false
}

// waitEvents gives the last message:new events up to grace to arrive.
func waitEvents(ctx context.Context, t *tracker, grace time.Duration) {
	until := time.Now().Add(grace)
	want := t.ackedCount()
	for time.Now().Before(until) && ctx.Err() == nil && len(t.eventTimes()) < want {
		time.Sleep(50 * time.Millisecond)
	}
}

func missing(acked map[string]*msgState, stored map[string]bool) int {
	n := 0
	for id := range acked {
		if !stored[id] {
			n++
		}
	}
	return n
}

// finish fills in the counts of r from the tracker and the database.
func finish(ctx context.Context, r *report, st *store, t *tracker, start, end time.Time) error {
	final, err := st.count(ctx)
	if err != nil {
		return err
	}
	stored, err := st.storedIDs(ctx)
	if err != nil {
		return err
	}
	acked := t.ackedIDs()
	events := t.eventTimes()

	t.mu.Lock()
	r.PostsSent, r.PostsAcked, r.PostsFailed, r.PostsRefused = t.posts, t.acked, t.failed, t.rejected
	r.Retries, r.DupPosts, r.GaveUp = t.retries, t.dupPosts, t.gaveUp
	r.Failures = t.statuses
	r.AckLatency, r.ServiceLatency = summarize(t.ackLatency), summarize(t.serviceLatency)
	ackWindows := newWindows(start, tailWindow)
	for i, d := range t.ackLatency {
		ackWindows.Add(t.ackDue[i], d)
	}
	for id := range stored {
		if m := t.msgs[id]; m != nil && !m.acked {
			r.StoredUnacked++
		}
	}
	t.mu.Unlock()
	t.evMu.Lock()
	r.WSDisconnects = t.disconnects
	t.evMu.Unlock()
	r.OfferedRate = float64(r.PostsSent-r.Retries) / r.LoadSeconds

	phones := map[string]bool{}
	var wsLat []time.Duration
	wsWindows := newWindows(start, tailWindow)
	for id, m := range acked {
		phones[m.phone] = true
		if !stored[id] {
			r.Lost++
			continue
		}
		at, ok := events[id]
		if !ok {
			r.WSEventsMissed++
			continue
		}
		wsLat = append(wsLat, max(at.Sub(m.ackSent), 0))
		wsWindows.Add(m.ackSent, wsLat[len(wsLat)-1])
	}
	r.UniqueAcked = len(acked)
	r.UniqueStored = final.DistinctMessages
	r.StoredPerSecAll = float64(final.DistinctMessages) / end.Sub(start).Seconds()
	r.WSLatency = summarize(wsLat)
	r.AckP99ByWindow, r.WSP99ByWindow = ackWindows.P99s(), wsWindows.P99s()
	r.DuplicatedMessages = final.Messages - final.DistinctMessages
	r.ContactsExpected = len(phones)
	r.ContactsStored = final.DistinctPhones
	r.DuplicatedContacts = final.Contacts - final.DistinctPhones
	return nil
}
