package rest_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/campaign"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
	"switchboard/provider/providertest"
)

// BenchmarkCampaignSend10k sends campaigns of 10,000 recipients through
// the whole stack (REST start, the asynq run task, claims, the platform
// calls to the loopback fake of the Graph API, the messages and
// recipients stored, events) on PostgreSQL and Redis, and reports
// messages a second from the start request until the campaign is
// completed (every send stored), and the peak RSS of the test process
// during the run (the server, the fake and the benchmark together) with
// the peak Go heap.
//
//   - Paced: the account at TIER_UNLIMITED with the real pacing limiter
//     (1,000/s, shared in Redis): what a campaign gets.
//   - Unpaced: an open limiter, to show what the sender itself sustains.
//
// Run: TEST_REQUIRE_SERVICES=1 go test -tags nomsgpack -run '^$' -bench CampaignSend10k -benchtime 1x ./rest/
// (BENCH_CAMPAIGN_N changes the recipients, BENCH_CAMPAIGN_WORKERS the pool.)
func BenchmarkCampaignSend10k(b *testing.B) {
	n := 10_000
	if v, err := strconv.Atoi(os.Getenv("BENCH_CAMPAIGN_N")); err == nil && v > 0 {
		n = v
	}
	fake := providertest.New(b)
	fake.SetAccessToken(acctToken)
	fake.SetRecording(false)
	fake.SetPhoneNumber(map[string]any{"messaging_limit_tier": "TIER_UNLIMITED", "whatsapp_business_manager_messaging_limit": "TIER_UNLIMITED"})
	env := apitest.New(b, apitest.Setting{Name: "PROVIDER_BASE_URL", Value: fake.URL})
	mustCreateAccount(b, env.Admin, acctBody("Main", nil))
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	if err := env.Client().Account.Update().Where(account.Name("Main")).SetMessagingLimitTier("TIER_UNLIMITED").Exec(ctx); err != nil {
		b.Fatal(err)
	}
	if w := os.Getenv("BENCH_CAMPAIGN_WORKERS"); w != "" {
		env.App.Campaigns.Workers, _ = strconv.Atoi(w)
	}
	e := &campaignEnv{sendEnv: &sendEnv{Env: env, fake: fake, ctx: ctx}}
	tpl, err := env.Client().Template.Create().SetChatAccount("Main").SetName("promo").SetLanguage("en_US").
		SetCategory("MARKETING").SetStatus("APPROVED").SetBodyContent("Hi {{1}}, {{2}} off today").Save(ctx)
	if err != nil {
		b.Fatal(err)
	}
	round := 0
	for _, mode := range []string{"Paced", "Unpaced"} {
		b.Run(mode, func(b *testing.B) {
			if mode == "Unpaced" {
				env.App.Campaigns.Tune(&openLimiter{}, 0, 0)
			}
			var total time.Duration
			var peakRSS, peakHeap int64
			for b.Loop() {
				b.StopTimer()
				round++
				id := campaignFor(b, env, tpl, round)
				rows := make([]map[string]any, n)
				for j := range rows {
					rows[j] = map[string]any{"phone_number": fmt.Sprintf("+1556%07d", round*n+j), "template_params": map[string]any{"1": "A", "2": "B"}}
				}
				env.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/recipients/import", map[string]any{"recipients": rows}).ExpectStatus(b, http.StatusOK)
				stopSampling := sampleMemory(&peakRSS, &peakHeap)
				b.StartTimer()
				start := time.Now()
				env.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/start", nil).ExpectStatus(b, http.StatusOK)
				var c *ent.Campaign
				for {
					c = e.campaignB(b, id)
					if c.Status == campaign.StatusCompleted {
						break
					}
					time.Sleep(10 * time.Millisecond) // the resolution of the time measured
				}
				total += time.Since(start)
				b.StopTimer()
				stopSampling()
				if c.SentCount != n {
					b.Fatalf("sent %d of %d", c.SentCount, n)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(n*b.N)/total.Seconds(), "msgs/s")
			b.ReportMetric(float64(peakRSS)/(1<<20), "peak-RSS-MiB")
			b.ReportMetric(float64(peakHeap)/(1<<20), "peak-heap-MiB")
		})
	}
}

// sampleMemory records the peak RSS of the process (/proc/self/status
// VmRSS) and of the Go heap every 20 ms until the returned stop is called.
func sampleMemory(peakRSS, peakHeap *int64) (stop func()) {
	var done atomic.Bool
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for !done.Load() {
			if rss := readRSS(); rss > *peakRSS {
				*peakRSS = rss
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if h := int64(ms.HeapAlloc); h > *peakHeap {
				*peakHeap = h
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	return func() { done.Store(true); <-finished }
}

// readRSS is the process's resident set size in bytes (0 where
// /proc is missing).
func readRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
