package inbound

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics observes the two halves of the pipeline: the group commit of
// the ack path and the drainers' batches. Operators read the lag of a
// delivery from its storing to its processed commit; it is what the
// real-time events wait for.
type metrics struct {
	commitSeconds prometheus.Histogram
	commitSize    prometheus.Histogram
	drainSeconds  prometheus.Histogram
	drainSize     prometheus.Histogram
	lagSeconds    prometheus.Histogram
}

var latencyBuckets = []float64{.001, .0025, .005, .01, .02, .05, .1, .25, .5, 1, 2.5, 5, 10}

var sizeBuckets = []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}

func newMetrics() *metrics {
	return &metrics{
		commitSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "switchboard_inbound_commit_duration_seconds", Buckets: latencyBuckets,
			Help: "Duration of one group-commit INSERT of webhook deliveries (the ack waits for it).",
		}),
		commitSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "switchboard_inbound_commit_deliveries", Buckets: sizeBuckets,
			Help: "Webhook deliveries stored by one group-commit INSERT.",
		}),
		drainSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "switchboard_inbound_drain_duration_seconds", Buckets: latencyBuckets,
			Help: "Duration of one drainer transaction processing stored deliveries.",
		}),
		drainSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "switchboard_inbound_drain_deliveries", Buckets: sizeBuckets,
			Help: "Stored deliveries processed by one drainer transaction.",
		}),
		lagSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "switchboard_inbound_lag_seconds", Buckets: latencyBuckets,
			Help: "Time from a delivery's storing to the commit of its processing.",
		}),
	}
}

// Collectors returns the inbound pipeline's metrics for a registry.
func (s *Service) Collectors() []prometheus.Collector {
	m := s.metrics()
	return []prometheus.Collector{m.commitSeconds, m.commitSize, m.drainSeconds, m.drainSize, m.lagSeconds}
}

func (s *Service) metrics() *metrics {
	s.metricsOnce.Do(func() { s.m = newMetrics() })
	return s.m
}

// observeDrain records a committed batch whose oldest delivery was stored
// at oldest.
func (s *Service) observeDrain(n int, start, oldest time.Time) {
	m := s.metrics()
	now := time.Now()
	m.drainSeconds.Observe(now.Sub(start).Seconds())
	m.drainSize.Observe(float64(n))
	m.lagSeconds.Observe(now.Sub(oldest).Seconds())
}

func (s *Service) observeCommit(n int, start time.Time) {
	m := s.metrics()
	m.commitSeconds.Observe(time.Since(start).Seconds())
	m.commitSize.Observe(float64(n))
}
