package analyticsbench_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	analyticsbench "switchboard/bench/analytics"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
)

// BenchmarkAnalyticsEndpoints seeds one organization with
// analyticsbench.DefaultSizes (ANALYTICS_BENCH_SCALE divides them, for a
// quick look), builds its day rollups as the periodic task does
// (rollup_build_ms), and requests every analytics endpoint through the
// HTTP stack (bearer token, gin, the operations, PostgreSQL): a first
// request (_first_ms), four more to warm up, then
// ANALYTICS_BENCH_REQUESTS (default 200), one at a time. It reports p50
// and p99 per endpoint in milliseconds as metrics (the log, which also
// has the max, is cut after ten lines); it asserts nothing about time.
//
//	TEST_REQUIRE_SERVICES=1 go test -run '^$' -bench AnalyticsEndpoints -benchtime 1x -timeout 60m ./bench/analytics/
func BenchmarkAnalyticsEndpoints(b *testing.B) {
	sz := analyticsbench.DefaultSizes
	if s := os.Getenv("ANALYTICS_BENCH_SCALE"); s != "" {
		var k int
		fmt.Sscan(s, &k)
		if k > 1 {
			sz.Contacts, sz.Messages, sz.Transfers, sz.Sessions, sz.Breaks = sz.Contacts/k, sz.Messages/k, sz.Transfers/k, sz.Sessions/k, sz.Breaks/k
		}
	}
	n := 200
	if s := os.Getenv("ANALYTICS_BENCH_REQUESTS"); s != "" {
		fmt.Sscan(s, &n)
	}
	env := apitest.New(b)
	admin := env.Admin
	var agents []uuid.UUID
	for i := 0; i < 20; i++ {
		agents = append(agents, env.NewUser(env.OrgID, access.RoleAgent).UserID)
	}
	now := time.Now().UTC()
	start := time.Now()
	if err := analyticsbench.Seed(context.Background(), env.App.DB.SQL, env.OrgID, agents, sz, now); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d contacts, %d messages, %d transfers, %d sessions, %d breaks in %s",
		sz.Contacts, sz.Messages, sz.Transfers, sz.Sessions, sz.Breaks, time.Since(start).Round(time.Millisecond))
	// What the periodic rollup task does ahead of the reads: build the
	// day rollups of the seeded history.
	start = time.Now()
	if err := env.App.Resolver.Analytics.Refresh(viewer.SystemContext(context.Background(), env.OrgID)); err != nil {
		b.Fatal(err)
	}
	build := float64(time.Since(start).Microseconds()) / 1000
	day := func(d int) string { return now.AddDate(0, 0, d).Format(time.DateOnly) }
	month := "?from=" + day(-29) + "&to=" + day(0)
	quarter := "?from=" + day(-89) + "&to=" + day(0)
	year := "?from=" + day(-365) + "&to=" + day(0)
	endpoints := []struct{ name, path string }{
		{"dashboard_default", "/api/analytics/dashboard"},
		{"dashboard_30d", "/api/analytics/dashboard" + month},
		{"dashboard_90d", "/api/analytics/dashboard" + quarter},
		{"dashboard_366d", "/api/analytics/dashboard" + year},
		{"agents_30d", "/api/analytics/agents" + month},
		{"agents_90d_week", "/api/analytics/agents" + quarter + "&group_by=week"},
		{"agents_filter_30d", "/api/analytics/agents" + month + "&agent_id=" + agents[0].String()},
		{"agent_detail_30d", "/api/analytics/agents/" + agents[1].String() + month},
		{"comparison_30d", "/api/analytics/agents/comparison" + month},
		{"comparison_366d", "/api/analytics/agents/comparison" + year},
		{"provider_accounts", "/api/analytics/provider/accounts"},
		{"messages_501", "/api/analytics/messages"},
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, e := range endpoints {
			// The first request builds any rollup its period lacks.
			t0 := time.Now()
			for w := 0; w < 5; w++ {
				admin.Do(http.MethodGet, e.path, nil)
				if w == 0 {
					b.ReportMetric(float64(time.Since(t0).Microseconds())/1000, e.name+"_first_ms")
				}
			}
			lat := make([]time.Duration, 0, n)
			for r := 0; r < n; r++ {
				t0 := time.Now()
				res := admin.Do(http.MethodGet, e.path, nil)
				lat = append(lat, time.Since(t0))
				if res.Status != http.StatusOK && res.Status != http.StatusNotImplemented {
					b.Fatalf("%s: %d %s", e.path, res.Status, res.Raw)
				}
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			p := func(q float64) time.Duration { return lat[int(q*float64(len(lat)-1))] }
			b.Logf("%-20s p50 %7.2f ms  p99 %7.2f ms  max %7.2f ms", e.name, ms(p(0.5)), ms(p(0.99)), ms(lat[len(lat)-1]))
			b.ReportMetric(ms(p(0.5)), e.name+"_p50_ms")
			b.ReportMetric(ms(p(0.99)), e.name+"_p99_ms")
		}
	}
	b.ReportMetric(build, "rollup_build_ms")
}
