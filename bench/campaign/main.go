// Command campaign measures campaign sending on a running Switchboard
// server against the Graph API fake it serves itself (package
// bench/internal/fakeplatform over provider/providertest): it logs in as
// the admin, creates an account on the fake at a chosen messaging limit
// tier, syncs an APPROVED template from the fake, creates campaigns,
// imports recipients, starts them and reports the send rate as the fake
// received it, the server's peak RSS, recipients sent twice and
// recipients left pending or sending. Optionally it kills and restarts the
// server at chosen points of progress (-kill-at, -kill-cmd), echoes the
// platform's status webhooks (-echo), or runs a command while the
// campaigns send (-during-cmd, the ingest load). See README.md and run.sh.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"switchboard/bench/internal/benchkit"
	"switchboard/bench/internal/fakeplatform"
	"switchboard/provider/providertest"
)

type config struct {
	url, email, password, db string
	fakeAddr, tier           string
	recipients, campaigns    int
	window, warmup           time.Duration
	timeout, settle          time.Duration
	killAt                   []float64
	killCmd, duringCmd       string
	echo, spread             bool
	echoDelay                time.Duration
	pidFiles, urls           []string
	jsonOut                  bool
}

func parseFlags() (config, error) {
	var c config
	var killAt, pidFiles, urls string
	flag.StringVar(&c.url, "url", "http://127.0.0.1:18080", "server base URL (the status webhooks go to its /api/webhook)")
	flag.StringVar(&c.email, "email", os.Getenv("ADMIN_EMAIL"), "admin e-mail (default $ADMIN_EMAIL)")
	flag.StringVar(&c.password, "password", os.Getenv("ADMIN_PASSWORD"), "admin password (default $ADMIN_PASSWORD)")
	flag.StringVar(&c.db, "db", os.Getenv("DATABASE_URL"), "the server's PostgreSQL URL, to count recipients by status (default $DATABASE_URL)")
	flag.StringVar(&c.fakeAddr, "fake-addr", "127.0.0.1:18091", "where to serve the Graph API fake (the server's PROVIDER_BASE_URL)")
	flag.StringVar(&c.tier, "tier", "TIER_UNLIMITED", "the phone number's messaging limit tier the fake reports")
	flag.IntVar(&c.recipients, "recipients", 10_000, "recipients in all")
	flag.IntVar(&c.campaigns, "campaigns", 1, "campaigns of the same account the recipients are split into, started together")
	flag.DurationVar(&c.window, "window", 0, "measure sends over this window after -warmup, then cancel the campaigns (0: wait until every recipient is final)")
	flag.DurationVar(&c.warmup, "warmup", 5*time.Second, "with -window: time from the start before the window opens")
	flag.DurationVar(&c.timeout, "timeout", 20*time.Minute, "give up after this long")
	flag.DurationVar(&c.settle, "settle", 30*time.Second, "without -window: once nothing is pending, how long rows left sending may stay unchanged before the run ends (they wait for the server's 10-minute outcome-unknown bound)")
	flag.StringVar(&killAt, "kill-at", "", "comma-separated fractions: run -kill-cmd when the sends accepted reach this fraction of the recipients not yet accepted at the previous kill (0.3,0.3: at 30%, then at 30% of the rest)")
	flag.StringVar(&c.killCmd, "kill-cmd", "", "shell command that kills the sending server with SIGKILL and restarts it")
	flag.StringVar(&c.duringCmd, "during-cmd", "", "shell command run once the campaigns send (the ingest load); the window is its run, then the campaigns are cancelled")
	flag.BoolVar(&c.echo, "echo", false, "post the platform's status webhook (sent, with biz_opaque_callback_data) for every accepted send, signed with the app secret")
	flag.DurationVar(&c.echoDelay, "echo-delay", 200*time.Millisecond, "with -echo: delay of each status after its send")
	flag.StringVar(&pidFiles, "pid-files", "", "comma-separated files holding server PIDs, for RSS (re-read on every sample)")
	flag.BoolVar(&c.spread, "spread", false, "with several -pid-files: start campaign i while only server process i (mod their number) runs, the others stopped (SIGSTOP) until its first send, so that each process sends a campaign; the start goes to that process's address in -urls")
	flag.StringVar(&urls, "urls", "", "with -spread: comma-separated base URLs of the server processes, in the order of -pid-files")
	flag.BoolVar(&c.jsonOut, "json", false, "print the report as JSON too")
	flag.Parse()
	for _, s := range strings.Split(killAt, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f <= 0 || f >= 1 {
			return c, fmt.Errorf("-kill-at: %q is not a fraction in (0, 1)", s)
		}
		c.killAt = append(c.killAt, f)
	}
	for _, s := range strings.Split(pidFiles, ",") {
		if s = strings.TrimSpace(s); s != "" {
			c.pidFiles = append(c.pidFiles, s)
		}
	}
	for _, s := range strings.Split(urls, ",") {
		if s = strings.TrimSpace(s); s != "" {
			c.urls = append(c.urls, strings.TrimRight(s, "/"))
		}
	}
	switch {
	case c.spread && (len(c.pidFiles) < 2 || len(c.urls) != len(c.pidFiles)):
		return c, errors.New("-spread needs two or more -pid-files and as many -urls")
	case c.email == "" || c.password == "":
		return c, errors.New("-email and -password (an admin of the server) are required")
	case c.db == "":
		return c, errors.New("-db (the server's DATABASE_URL) is required")
	case c.recipients <= 0 || c.campaigns <= 0 || c.campaigns > c.recipients:
		return c, errors.New("-recipients and -campaigns must be positive, campaigns at most recipients")
	case (len(c.killAt) > 0) != (c.killCmd != ""):
		return c, errors.New("-kill-at and -kill-cmd go together")
	case c.window > 0 && c.duringCmd != "":
		return c, errors.New("-window and -during-cmd exclude each other (the command's run is the window)")
	}
	return c, nil
}

func main() {
	cfg, err := parseFlags()
	if err != nil {
		fmt.Fprintln(os.Stderr, "campaign:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	r, err := run(ctx, cfg)
	if r != nil {
		r.print(os.Stdout)
		if cfg.jsonOut {
			enc := json.NewEncoder(os.Stdout)
			enc.SetIndent("", "  ")
			_ = enc.Encode(r)
		}
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w (-timeout %s)", err, cfg.timeout)
		}
		fmt.Fprintln(os.Stderr, "campaign:", err)
		os.Exit(1)
	}
	if r.Failed() != "" {
		fmt.Fprintln(os.Stderr, "campaign: FAILED:", r.Failed())
		os.Exit(3)
	}
}

// templateName is the APPROVED template the fake holds for the run.
const templateName = "bench_promo"

// run is one measured run.
func run(ctx context.Context, cfg config) (*report, error) {
	runID := benchkit.RandomHex(4)
	r := &report{RunID: runID, Tier: cfg.tier, Recipients: cfg.recipients, Campaigns: cfg.campaigns, LoadBefore: loadAvg()}
	var echo *fakeplatform.Echo
	if cfg.echo {
		echo = &fakeplatform.Echo{URL: strings.TrimRight(cfg.url, "/") + "/api/webhook", Delay: cfg.echoDelay}
	}
	fctx, stopFake := context.WithCancel(context.Background())
	defer stopFake()
	p, err := fakeplatform.Serve(fctx, cfg.fakeAddr, echo)
	if err != nil {
		return nil, err
	}
	p.SetTier(cfg.tier)

	a, err := login(ctx, cfg.url, cfg.email, cfg.password)
	if err != nil {
		return nil, err
	}
	acc, err := a.createAccount(ctx, runID)
	if err != nil {
		return nil, err
	}
	if echo != nil {
		echo.AppSecret, echo.BusinessID = acc.Secret, acc.BusinessID
		p.Start(fctx)
	}
	p.Fake.AddTemplate(providertest.Template{WABA: acc.BusinessID, Name: templateName, Language: "en_US",
		Status: "APPROVED", Category: "MARKETING",
		Components: []map[string]any{{"type": "BODY", "text": "Hi {{1}}, {{2}} off today",
			"example": map[string]any{"body_text": [][]string{{"Ann", "10%"}}}}}})
	tplID, err := a.syncTemplate(ctx, acc, templateName)
	if err != nil {
		return nil, err
	}
	st, err := openStore(ctx, cfg.db)
	if err != nil {
		return nil, err
	}
	defer st.close()

	prefix := "1" + benchkit.RandomDigits(4)
	var ids []string
	for i := range cfg.campaigns {
		first, n := i*cfg.recipients/cfg.campaigns, (i+1)*cfg.recipients/cfg.campaigns-i*cfg.recipients/cfg.campaigns
		began := time.Now()
		id, err := a.createCampaign(ctx, acc, tplID, fmt.Sprintf("bench %s #%d", runID, i+1), prefix, first, n)
		if err != nil {
			return nil, err
		}
		logf("campaign %s: %d recipients imported in %.1f s", id, n, time.Since(began).Seconds())
		ids = append(ids, id)
	}
	r.CampaignIDs = ids

	sampler := &rssSampler{files: cfg.pidFiles}
	sctx, stopSampler := context.WithCancel(ctx)
	defer stopSampler()
	go sampler.run(sctx)

	start := time.Now()
	if cfg.spread {
		if err := startSpread(ctx, cfg, a, p, ids); err != nil {
			return nil, err
		}
	} else {
		for _, id := range ids {
			if err := a.campaignAction(ctx, id, "start"); err != nil {
				return nil, fmt.Errorf("starting campaign %s: %w", id, err)
			}
		}
	}
	logf("run %s: %d campaign(s) started at %s, %d recipients, %s", runID, len(ids), cfg.tier, cfg.recipients, start.Format("15:04:05"))
	m := &monitor{cfg: cfg, a: a, st: st, p: p, ids: ids, start: start, r: r}
	if _, port, err := net.SplitHostPort(cfg.fakeAddr); err == nil && len(cfg.pidFiles) > 1 {
		n, _ := strconv.Atoi(port)
		m.owners = &portOwners{files: cfg.pidFiles, fakePort: n}
	}
	err = m.watch(ctx)
	stopSampler()
	r.PeakRSSMiB = sampler.peak()
	m.finish(context.WithoutCancel(ctx))
	r.LoadAfter = loadAvg()
	if echo != nil {
		// Give the last statuses a moment to be acknowledged.
		for i := 0; i < 20 && p.Pending() > 0; i++ {
			time.Sleep(100 * time.Millisecond)
		}
		r.EchoAcked, r.EchoFailedPosts, r.EchoDropped = p.Echoed.Load(), p.EchoFailures.Load(), p.EchoDropped.Load()
	}
	return r, err
}
