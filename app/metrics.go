package app

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"switchboard/rest"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics is the application's Prometheus registry.
type Metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newMetrics(a *App) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "switchboard_http_requests_total", Help: "HTTP requests by route, method and status.",
	}, []string{"route", "method", "status"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "switchboard_http_request_duration_seconds", Help: "HTTP request latency by route and method.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
	}, []string{"route", "method"})
	m.reg.MustRegister(m.requests, m.latency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewDBStatsCollector(a.DB.SQL, "main"),
		&queueCollector{a: a, desc: prometheus.NewDesc("switchboard_queue_depth",
			"Tasks waiting per queue.", []string{"queue"}, nil)},
	)
	m.reg.MustRegister(a.Inbound.Collectors()...)
	return m
}

func (m *Metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// middleware counts requests and observes latency by route template (never
// the raw path, which would explode cardinality).
func (m *Metrics) middleware() gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		route := c.FullPath()
		if route == "" {
			route = "unmatched"
		}
		m.requests.WithLabelValues(route, c.Request.Method, strconv.Itoa(c.Writer.Status())).Inc()
		m.latency.WithLabelValues(route, c.Request.Method).Observe(time.Since(start).Seconds())
	}
}

// queueCollector reads queue depths at scrape time.
type queueCollector struct {
	a    *App
	desc *prometheus.Desc
}

func (q *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- q.desc }

func (q *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	depths, err := q.a.Queue.QueueDepths(ctx)
	if err != nil {
		q.a.Log.Warn("queue depths for metrics", "err", err)
		return
	}
	for name, n := range depths {
		ch <- prometheus.MustNewConstMetric(q.desc, prometheus.GaugeValue, float64(n), name)
	}
}

// accessLog logs each request at rest.StatusLogLevel: debug, server
// faults at error, 503 at warn.
func accessLog(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		status := c.Writer.Status()
		level := rest.StatusLogLevel(status)
		if !log.Enabled(c.Request.Context(), level) {
			// Spares building the record of every request.
			return
		}
		log.Log(c.Request.Context(), level, "http request", "method", c.Request.Method,
			"route", c.FullPath(), "status", status, "duration_ms", time.Since(start).Milliseconds(),
			"request_id", c.GetString("request_id"))
	}
}
