package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"switchboard/ent"
	"switchboard/ent/campaign"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
	"switchboard/provider/providertest"
)

// BenchmarkCampaignSend sends a campaign of 2,000 recipients through the
// loopback fake of the Graph API with an open limiter (TIER_UNLIMITED is
// 1,000/s; this measures what the sender itself sustains: claim, platform
// call, message and recipient written, events) and reports messages a
// second. Run: go test -run '^$' -bench CampaignSend -benchtime 1x ./rest/
func BenchmarkCampaignSend(b *testing.B) {
	fake := providertest.New(b)
	fake.SetAccessToken(acctToken)
	env := apitest.New(b, apitest.Setting{Name: "PROVIDER_BASE_URL", Value: fake.URL})
	mustCreateAccount(b, env.Admin, acctBody("Main", nil))
	env.App.Campaigns.Tune(&openLimiter{}, 0, 0)
	if w := os.Getenv("BENCH_CAMPAIGN_WORKERS"); w != "" {
		env.App.Campaigns.Workers, _ = strconv.Atoi(w)
	}
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	e := &campaignEnv{sendEnv: &sendEnv{Env: env, fake: fake, ctx: ctx}}
	tpl, err := env.Client().Template.Create().SetChatAccount("Main").SetName("promo").SetLanguage("en_US").
		SetCategory("MARKETING").SetStatus("APPROVED").SetBodyContent("Hi {{1}}, {{2}} off today").Save(ctx)
	if err != nil {
		b.Fatal(err)
	}
	const n = 2000
	var total time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		id := campaignFor(b, env, tpl, i)
		rows := make([]map[string]any, n)
		for j := range rows {
			rows[j] = map[string]any{"phone_number": fmt.Sprintf("+1556%07d", i*n+j), "template_params": map[string]any{"1": "A", "2": "B"}}
		}
		env.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/recipients/import", map[string]any{"recipients": rows}).ExpectStatus(b, http.StatusOK)
		b.StartTimer()
		start := time.Now()
		env.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/start", nil).ExpectStatus(b, http.StatusOK)
		var c *ent.Campaign
		for {
			c = e.campaignB(b, id)
			if c.Status == campaign.StatusCompleted {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		total += time.Since(start)
		if c.SentCount != n {
			b.Fatalf("sent %d of %d", c.SentCount, n)
		}
	}
	b.ReportMetric(float64(n*b.N)/total.Seconds(), "msgs/s")
}
