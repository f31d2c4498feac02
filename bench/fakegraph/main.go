// Command fakegraph serves the Graph API fake of package
// provider/providertest on a loopback port, for benchmarks that run the
// application as separate processes (and kill them): point the server's
// PROVIDER_BASE_URL at it. It answers message sends like the platform,
// keeps no request (memory is the per-recipient and per-callback send
// counts only), and is steered over HTTP under /_fake/ (see
// providertest.Fake.Handler): send counts with the recipients accepted
// twice, fault injection (130429, 131056, 500, 503, slow answers), and the
// phone number's fields (messaging_limit_tier). With -webhook-url it posts
// the platform's status webhook for every accepted send, echoing its
// biz_opaque_callback_data, signed with -app-secret.
//
//	go run ./bench/fakegraph -addr 127.0.0.1:18090 -tier TIER_1K
//	curl -s localhost:18090/_fake/sends
//	curl -s -XPOST localhost:18090/_fake/faults -d '{"code":130429,"fraction":0.01}'
package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"switchboard/bench/internal/fakeplatform"
	"switchboard/provider/providertest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18090", "listen address")
	tier := flag.String("tier", "", "the phone number's messaging_limit_tier (default the fake's TIER_10K)")
	latency := flag.Duration("latency", 0, "delay every message send's answer by this much (the platform answers in ~100-300 ms)")
	record := flag.Bool("record", false, "keep every request in memory (for debugging; memory grows per request)")
	hookURL := flag.String("webhook-url", "", "post a status webhook (sent, echoing biz_opaque_callback_data) for every accepted send to this URL, such as http://127.0.0.1:8080/api/webhook")
	hookSecret := flag.String("app-secret", "", "with -webhook-url: the account's app secret, to sign the webhooks")
	hookBiz := flag.String("business-id", providertest.BusinessID, "with -webhook-url: the account's business id (the webhook's entry id)")
	hookDelay := flag.Duration("webhook-delay", 200*time.Millisecond, "with -webhook-url: delay of each status after its send")
	flag.Parse()
	if (*hookURL == "") != (*hookSecret == "") {
		log.Fatal("-webhook-url and -app-secret go together")
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	f := providertest.NewStandalone("http://" + ln.Addr().String())
	f.SetRecording(*record)
	var echo *fakeplatform.Echo
	if *hookURL != "" {
		echo = &fakeplatform.Echo{URL: *hookURL, AppSecret: *hookSecret, BusinessID: *hookBiz, Delay: *hookDelay}
	}
	p := fakeplatform.New(f, echo)
	if *tier != "" {
		p.SetTier(*tier)
	}
	if *latency > 0 {
		f.SlowSends(*latency)
	}
	srv := &http.Server{Handler: p.Handler(), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	p.Start(ctx)
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	log.Printf("fakegraph: serving the Graph API fake on %s (phone number id %s)", f.URL, providertest.PhoneID)
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}
