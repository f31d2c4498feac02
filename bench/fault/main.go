// Command fault runs the fault-injection and soak scenarios of issue 15
// against two server processes sharing one PostgreSQL and one Redis: a
// signed webhook load round-robin over both nodes (every unacknowledged
// POST re-sent to the other node until acknowledged), an outbound webhook
// subscription to a receiver it serves, a campaign against the Graph API
// fake it serves, and /ws clients on both nodes. With -fault it runs shell
// commands at given times (kill -9 a node, restart Redis, restart
// PostgreSQL); with -soak it watches RSS, goroutines and the ack p99 per
// minute. It reports lost and duplicated messages, outbound deliveries,
// campaign sends and /ws coverage, and exits 3 on a defect. See README.md.
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
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"switchboard/bench/internal/benchkit"
	"switchboard/events"
	"switchboard/outbound"
	"switchboard/webhooks"
)

// faultSpec is a -fault: a shell command run at a time into the load.
type faultSpec struct {
	at        time.Duration
	name, cmd string
}

// startCPUProfile profiles this process into path (none when empty) until
// the returned function is called.
func startCPUProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

type config struct {
	nodes, pidFiles         []string
	db, email, password     string
	rate, dup, fail503      float64
	duration, warmup        time.Duration
	drainTimeout, outWait   time.Duration
	outbound                bool
	campaignWait            time.Duration
	concurrency, recipients int
	wsPerNode, campaignNode int
	tier, fakeAddr, rcvAddr string
	faults                  []faultSpec
	soak, jsonOut           bool
	rssLimit                float64
	goroutineSlack          int
	cpuProfile              string
}

func parseFlags() (config, error) {
	var c config
	var nodes, pidFiles string
	flag.StringVar(&nodes, "nodes", "", "comma-separated base URLs of the server processes (node A, node B, ...)")
	flag.StringVar(&pidFiles, "pid-files", "", "comma-separated files holding each node's PID, in the order of -nodes (re-read on every sample)")
	flag.StringVar(&c.db, "db", os.Getenv("DATABASE_URL"), "the servers' PostgreSQL URL (default $DATABASE_URL)")
	flag.StringVar(&c.email, "email", os.Getenv("ADMIN_EMAIL"), "admin e-mail (default $ADMIN_EMAIL)")
	flag.StringVar(&c.password, "password", os.Getenv("ADMIN_PASSWORD"), "admin password (default $ADMIN_PASSWORD)")
	flag.Float64Var(&c.rate, "rate", 2000, "webhook POSTs per second (open loop)")
	flag.DurationVar(&c.duration, "duration", 60*time.Second, "how long to post")
	flag.Float64Var(&c.dup, "dup", 0.10, "fraction of POSTs that are byte-identical redeliveries")
	flag.IntVar(&c.concurrency, "concurrency", 256, "maximum POSTs in flight")
	flag.Float64Var(&c.fail503, "fail503", 0.02, "fraction of outbound events whose first delivery the receiver answers 503 (Retry-After: 1)")
	flag.IntVar(&c.recipients, "recipients", 5000, "campaign recipients (0: no campaign)")
	flag.StringVar(&c.tier, "tier", "TIER_100K", "the campaign phone number's messaging limit tier (TIER_100K: 80/s)")
	flag.IntVar(&c.campaignNode, "campaign-node", 1, "index in -nodes of the node that runs the campaign (the others are stopped while it starts)")
	flag.StringVar(&c.fakeAddr, "fake-addr", "127.0.0.1:18290", "where to serve the Graph API fake (the servers' PROVIDER_BASE_URL)")
	flag.StringVar(&c.rcvAddr, "receiver-addr", "127.0.0.1:18291", "where to serve the outbound webhook receiver")
	flag.IntVar(&c.wsPerNode, "ws", 3, "/ws clients per node")
	flag.Func("fault", "`at=name=command`: run command through sh at this time into the load (repeatable)", func(s string) error {
		parts := strings.SplitN(s, "=", 3)
		if len(parts) != 3 {
			return errors.New("want at=name=command")
		}
		at, err := time.ParseDuration(parts[0])
		if err != nil {
			return err
		}
		c.faults = append(c.faults, faultSpec{at: at, name: parts[1], cmd: parts[2]})
		return nil
	})
	flag.BoolVar(&c.soak, "soak", false, "soak: RSS growth, goroutines and ack p99 per minute (no faults)")
	flag.DurationVar(&c.warmup, "warmup", 30*time.Second, "with -soak: time into the load before the first minute of RSS and the goroutine count")
	flag.Float64Var(&c.rssLimit, "rss-limit", 10, "with -soak: largest RSS growth in percent, first minute to last")
	flag.IntVar(&c.goroutineSlack, "goroutine-slack", 20, "with -soak: most goroutines a node may gain, idle before to idle after")
	flag.DurationVar(&c.drainTimeout, "drain-timeout", 2*time.Minute, "after the load: how long to re-send unacknowledged POSTs and wait for every acked message to be stored")
	flag.BoolVar(&c.outbound, "outbound", true, "subscribe the receiver to every message event (false: no outbound webhook load, for a soak of the rest)")
	flag.DurationVar(&c.outWait, "outbound-wait", 7*time.Minute, "after the load: how long to wait for every outbound delivery (the servers re-queue a delivery lost with Redis after a minute; a second failed attempt waits 5 minutes)")
	flag.DurationVar(&c.campaignWait, "campaign-wait", 5*time.Minute, "after the load: how long to wait for the campaign to finish")
	flag.BoolVar(&c.jsonOut, "json", false, "print the report as JSON too")
	flag.StringVar(&c.cpuProfile, "cpuprofile", "", "write this tool's CPU profile of the whole run to this file (what the load itself costs the machine)")
	flag.Parse()
	c.nodes, c.pidFiles = splitList(nodes), splitList(pidFiles)
	for i := range c.nodes {
		c.nodes[i] = strings.TrimRight(c.nodes[i], "/")
	}
	switch {
	case len(c.nodes) < 2 || len(c.pidFiles) != len(c.nodes):
		return c, errors.New("-nodes (two or more) and as many -pid-files are required")
	case c.email == "" || c.password == "" || c.db == "":
		return c, errors.New("-email, -password and -db are required")
	case c.rate <= 0 || c.rate > 20_000 || c.duration <= 0 || c.concurrency <= 0:
		return c, errors.New("-rate (at most 20,000), -duration and -concurrency must be positive")
	case c.dup < 0 || c.dup >= 1 || c.fail503 < 0 || c.fail503 >= 1:
		return c, errors.New("-dup and -fail503 must be in [0, 1)")
	case c.recipients < 0 || c.recipients > 50_000:
		return c, errors.New("-recipients must be between 0 and 50,000")
	case c.campaignNode < 0 || c.campaignNode >= len(c.nodes):
		return c, errors.New("-campaign-node must index -nodes")
	case c.wsPerNode < 0 || c.wsPerNode > 50:
		return c, errors.New("-ws must be between 0 and 50")
	case c.soak && len(c.faults) > 0:
		return c, errors.New("-soak runs without -fault")
	}
	return c, nil
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func main() {
	cfg, err := parseFlags()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fault:", err)
		os.Exit(2)
	}
	// Fewer collections of the tool's tables leave more CPU to the servers.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stopProfile, err := startCPUProfile(cfg.cpuProfile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fault:", err)
		os.Exit(2)
	}
	r, err := run(ctx, cfg)
	stopProfile()
	if r != nil {
		r.print(os.Stdout)
		if cfg.jsonOut {
			enc := json.NewEncoder(os.Stdout)
			enc.SetIndent("", "  ")
			_ = enc.Encode(r)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fault:", err)
		os.Exit(1)
	}
	if bad := r.defects(); len(bad) > 0 {
		fmt.Fprintln(os.Stderr, "fault: FAILED:", strings.Join(bad, "; "))
		os.Exit(3)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fault: "+time.Now().UTC().Format("15:04:05.000")+" "+format+"\n", args...)
}

// run is one run: setup, load with faults, drains, checks.
func run(ctx context.Context, cfg config) (*report, error) {
	runID := benchkit.RandomHex(4)
	mode := "fault"
	if cfg.soak {
		mode = "soak"
	}
	r := &report{RunID: runID, Mode: mode, Rate: cfg.rate, Duration: cfg.duration.Seconds()}
	survivor := len(cfg.nodes) - 1 // the last node is never killed: the run's API calls go there
	a, err := login(ctx, cfg.nodes[survivor], cfg.email, cfg.password)
	if err != nil {
		return nil, err
	}
	acc, err := a.createAccount(ctx, "fault-load-"+runID)
	if err != nil {
		return nil, err
	}
	p := &payloads{acc: acc, wamidPrefix: "wamid.fault-" + runID + "-", phonePrefix: benchkit.RandomDigits(5)}
	st, err := openStore(ctx, cfg.db, p)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	defer st.db.Close()

	bg, stopBackground := context.WithCancel(context.Background())
	defer stopBackground()
	secret := outbound.NewSecret()
	rcv := newReceiver(secret, p, cfg.fail503)
	subID := ""
	if cfg.outbound {
		if err := rcv.serve(bg, cfg.rcvAddr); err != nil {
			return nil, err
		}
		if subID, err = a.subscribe(ctx, "fault-"+runID, "http://"+cfg.rcvAddr+"/hook", secret, []string{events.HookMessageIncoming}); err != nil {
			return nil, err
		}
	}
	subscribed := time.Now()

	var camp *campaignRun
	if cfg.recipients > 0 {
		echoURL := cfg.nodes[cfg.campaignNode] + "/api/webhook"
		if camp, err = setupCampaign(ctx, bg, a, runID, cfg.fakeAddr, echoURL, cfg.tier, cfg.recipients); err != nil {
			return nil, err
		}
		logf("campaign %s: %d recipients at %s", camp.id, cfg.recipients, cfg.tier)
	}

	wctx, stopClients := context.WithCancel(ctx)
	defer stopClients()
	clients, err := startClients(wctx, cfg, a, p)
	if err != nil {
		return nil, err
	}
	idleBefore := readGoroutines(ctx, cfg.nodes)

	// Every node's subscription cache must see the new subscription.
	time.Sleep(time.Until(subscribed.Add(webhooks.DefaultCacheTTL + time.Second)))
	sampleEvery := time.Second
	if cfg.soak {
		sampleEvery = 5 * time.Second
	}
	sampler := newNodeSampler(cfg.pidFiles, sampleEvery)
	go sampler.run(bg)
	if camp != nil {
		var others []int
		for i, f := range cfg.pidFiles {
			if i != cfg.campaignNode {
				pid, err := readPID(f)
				if err != nil {
					return nil, err
				}
				others = append(others, pid)
			}
		}
		if err := camp.start(ctx, a.at(cfg.nodes[cfg.campaignNode]), others); err != nil {
			return nil, err
		}
		logf("campaign sending through node %c", 'A'+cfg.campaignNode)
	}

	window := 5 * time.Second
	if cfg.soak {
		window = time.Minute
	}
	start := time.Now()
	r.AckWindow = window.Seconds()
	t := newTracker(start, window, len(cfg.nodes), int(cfg.rate*cfg.duration.Seconds()))
	logf("run %s: posting %.0f/s for %s to %s", runID, cfg.rate, cfg.duration, strings.Join(cfg.nodes, ", "))
	faultsDone := runFaults(ctx, cfg.faults, start)
	var underLoad []int
	var warmDone sync.WaitGroup
	if cfg.soak {
		warmDone.Add(1)
		go func() {
			defer warmDone.Done()
			time.Sleep(time.Until(start.Add(cfg.warmup)))
			underLoad = readGoroutines(ctx, cfg.nodes)
		}()
	}
	l := newLoader(cfg, p, t)
	l.run(ctx, start)
	loadEnd := time.Now()
	r.LoadSeconds = loadEnd.Sub(start).Seconds()
	l.retryUntil.Store(loadEnd.Add(cfg.drainTimeout).UnixNano())
	logf("load stopped after %.1f s; draining", r.LoadSeconds)
	if cfg.soak && camp != nil {
		if err := camp.cancel(ctx, a); err != nil {
			r.Errors = append(r.Errors, "cancelling the campaign: "+err.Error())
		}
	}

	r.Drained, r.InboundDrain = waitInbound(ctx, st, t, loadEnd, cfg.drainTimeout)
	l.wg.Wait()
	stored, err := retry(ctx, func() (map[int]storedMsg, error) { return st.storedRows(ctx) })
	if err != nil {
		return nil, err
	}
	acks := t.acks()
	r.Inbound = compareInbound(acks, stored)
	if cfg.outbound {
		logf("inbound: %d acked, %d stored; waiting for the outbound deliveries", r.Inbound.Acked, r.Inbound.Stored)
		outDrained, outAt := waitOutbound(ctx, st, rcv, subID, loadEnd.Add(cfg.outWait))
		// What the receiver got before the rows are read: a delivery row is
		// written before its first attempt, so every id received has its
		// row even while a late backlog is still being processed.
		got := rcv.snapshot()
		rows, err := retry(ctx, func() ([]deliveryRow, error) { return st.deliveries(ctx, subID) })
		if err != nil {
			return nil, err
		}
		r.Outbound = compareDeliveries(stored, rows, got)
		r.Outbound.Drained = outDrained
		if outDrained {
			r.Outbound.DrainedSeconds = outAt.Sub(loadEnd).Seconds()
		}
	} else {
		r.OutboundOff = true
	}
	if camp != nil {
		logf("waiting for the campaign")
		byStatus := camp.wait(ctx, st, time.Now().Add(cfg.campaignWait))
		cr := camp.result(ctx, a, st, byStatus)
		r.Campaign = &cr
	}
	time.Sleep(2 * time.Second) // the last /ws events
	var idleAfter []int
	if cfg.soak {
		warmDone.Wait()
		l.client.CloseIdleConnections()
		rcv.closeIdle()
		if camp != nil {
			camp.fake.CloseIdle()
		}
		time.Sleep(5 * time.Second)
		idleAfter = readGoroutines(ctx, cfg.nodes)
	}
	stopClients()
	r.Faults = <-faultsDone

	t.mu.Lock()
	r.PostsSent, r.PostsAcked, r.PostsFailed, r.PostsRefused = t.posts, t.acked, t.failed, t.refused
	r.Retries, r.DupPosts, r.GaveUp, r.Failures = t.retries, t.dupPosts, t.gaveUp, t.statuses
	r.AckLatency, r.AckP99ByWin = t.ackLatency.All(), t.ackLatency.P99s()
	byNode := append([]nodePosts(nil), t.byNode...)
	t.mu.Unlock()
	r.OfferedRate = float64(r.PostsSent-r.Retries) / r.LoadSeconds
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		r.ClientCPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}

	samples, cpu := sampler.result()
	for i, base := range cfg.nodes {
		n := nodeReport{URL: base, CPUSeconds: cpu[i].Seconds(), Posts: byNode[i]}
		for _, s := range samples[i] {
			n.MaxRSSMiB = max(n.MaxRSSMiB, float64(s.RSSKiB)/1024)
		}
		if cfg.soak {
			r.RSSLimitPct, r.GoroutineMax = cfg.rssLimit, cfg.goroutineSlack
			n.RSSFirstMinute, n.RSSLastMinute, n.RSSGrowthPct = rssGrowth(samples[i], start.Add(cfg.warmup), loadEnd)
			n.RSSByMinute = rssByMinute(samples[i], start.Add(cfg.warmup), loadEnd, rssTotal)
			n.AnonByMinute = rssByMinute(samples[i], start.Add(cfg.warmup), loadEnd, rssAnon)
			n.FileByMinute = rssByMinute(samples[i], start.Add(cfg.warmup), loadEnd, rssFile)
			n.GoroutinesBefore, n.GoroutinesAfter = idleBefore[i], idleAfter[i]
			n.GoroutinesLoad = underLoad[i]
		}
		for _, c := range clients {
			if c.node == i {
				got, opens, closes, evs, reconnects := c.state()
				n.WS.add(start, acks, stored, got, opens, closes)
				n.WS.Events += evs
				n.WS.Reconnects += reconnects
			}
		}
		r.Nodes = append(r.Nodes, n)
	}
	return r, nil
}

// startClients connects cfg.wsPerNode /ws clients to every node and
// waits until all are connected.
func startClients(ctx context.Context, cfg config, a *api, p *payloads) ([]*wsClient, error) {
	var clients []*wsClient
	var ready sync.WaitGroup
	for i, base := range cfg.nodes {
		for range cfg.wsPerNode {
			c := &wsClient{node: i, api: a.at(base), p: p}
			clients = append(clients, c)
			ready.Add(1)
			go c.run(ctx, ready.Done)
		}
	}
	done := make(chan struct{})
	go func() { ready.Wait(); close(done) }()
	select {
	case <-done:
		return clients, nil
	case <-time.After(20 * time.Second):
		return nil, errors.New("the /ws clients could not all connect within 20 s")
	}
}

// readGoroutines reads every node's goroutine count (0 when unreadable).
func readGoroutines(ctx context.Context, nodes []string) []int {
	out := make([]int, len(nodes))
	for i, base := range nodes {
		n, err := goroutines(ctx, base)
		if err != nil {
			logf("goroutines of %s: %v", base, err)
		}
		out[i] = n
	}
	return out
}

func readPID(file string) (int, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// runFaults runs each fault's command at its time into the load; the
// channel yields them all once every one has run.
func runFaults(ctx context.Context, faults []faultSpec, start time.Time) <-chan []faultRun {
	done := make(chan []faultRun, 1)
	go func() {
		out := make([]faultRun, len(faults))
		var wg sync.WaitGroup
		for i, f := range faults {
			wg.Add(1)
			go func() {
				defer wg.Done()
				select {
				case <-ctx.Done():
					out[i] = faultRun{Name: f.name, Error: "not run"}
					return
				case <-time.After(time.Until(start.Add(f.at))):
				}
				now := time.Now()
				fr := faultRun{Name: f.name, At: now.Sub(start).Seconds(), Clock: now.UTC().Format("15:04:05.000")}
				logf("fault at %.1f s: %s", fr.At, f.name)
				cmd := exec.CommandContext(ctx, "sh", "-c", f.cmd)
				cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
				began := time.Now()
				if err := cmd.Run(); err != nil {
					fr.Error = err.Error()
				}
				fr.Took = time.Since(began).Seconds()
				logf("fault %s done after %.1f s", f.name, fr.Took)
				out[i] = fr
			}()
		}
		wg.Wait()
		done <- out
	}()
	return done
}

// waitInbound waits until no POST is outstanding and as many messages are
// stored as acked (the lost ones are found after), or until timeout; past
// the timeout it goes on while the stored count still grows (a backlog being
// worked off is late, not lost), up to three times the timeout. It counts
// once a second: the count reads every stored message of the run, and more
// often took PostgreSQL time from the drain it waits for.
func waitInbound(ctx context.Context, st *store, t *tracker, loadEnd time.Time, timeout time.Duration) (bool, float64) {
	w := drainWatch{deadline: loadEnd.Add(timeout), limit: loadEnd.Add(3 * timeout), stall: 15 * time.Second, grewAt: loadEnd}
	for ; ctx.Err() == nil; time.Sleep(time.Second) {
		n := -1 // not counted while POSTs are outstanding, nor on an error
		if t.pending() == 0 {
			if c, err := st.countStored(ctx); err == nil {
				n = c
			}
			if n >= t.ackedCount() {
				return true, time.Since(loadEnd).Seconds()
			}
		}
		if !w.keepWaiting(time.Now(), n) {
			logf("inbound: stopped waiting %.1f s after the load, %d stored of %d acked", time.Since(loadEnd).Seconds(), w.last, t.ackedCount())
			break
		}
	}
	return false, 0
}

// drainWatch decides when waitInbound gives up: at deadline, unless the
// stored count grew within the last stall, and never after limit.
type drainWatch struct {
	deadline, limit time.Time
	stall           time.Duration
	last            int
	grewAt          time.Time
}

// keepWaiting records stored (negative: not read) seen at now and reports
// whether to wait on.
func (w *drainWatch) keepWaiting(now time.Time, stored int) bool {
	if stored > w.last {
		w.last, w.grewAt = stored, now
	}
	if now.Before(w.deadline) {
		return true
	}
	return now.Before(w.limit) && now.Sub(w.grewAt) < w.stall
}

// waitOutbound waits until no delivery of the subscription is waiting and
// the receiver has answered 200 to every one, or until deadline.
func waitOutbound(ctx context.Context, st *store, rcv *receiver, subID string, deadline time.Time) (bool, time.Time) {
	for ; time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(2 * time.Second) {
		if n, err := st.waitingDeliveries(ctx, subID); err != nil || n > 0 {
			continue
		}
		rows, err := st.deliveries(ctx, subID)
		if err != nil {
			continue
		}
		got := rcv.snapshot()
		all := true
		for _, d := range rows {
			if got.Events[d.EventID].ok == 0 {
				all = false
				break
			}
		}
		if all {
			return true, time.Now()
		}
	}
	return false, time.Time{}
}

// retry calls f until it succeeds, at most a minute (PostgreSQL may be
// restarting).
func retry[T any](ctx context.Context, f func() (T, error)) (T, error) {
	var v T
	var err error
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Second) {
		if v, err = f(); err == nil || time.Now().After(deadline) || ctx.Err() != nil {
			return v, err
		}
	}
}
