package benchkit

import (
	"math"
	"slices"
	"time"
)

// Latency is a distribution summary in milliseconds.
type Latency struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_ms"`
	P95 float64 `json:"p95_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

// Summarize gives the nearest-rank percentiles of d.
func Summarize(d []time.Duration) Latency {
	if len(d) == 0 {
		return Latency{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	at := func(q float64) float64 { return Ms(s[max(int(math.Ceil(q*float64(len(s))))-1, 0)]) }
	return Latency{N: len(s), P50: at(0.50), P95: at(0.95), P99: at(0.99), Max: Ms(s[len(s)-1])}
}

// Ms is d in milliseconds, rounded to hundredths.
func Ms(d time.Duration) float64 { return math.Round(float64(d)/1e4) / 100 }

// Windows groups latency samples by the window of the run they fall in.
type Windows struct {
	start time.Time
	width time.Duration
	by    [][]time.Duration
}

// NewWindows starts windows of width at start.
func NewWindows(start time.Time, width time.Duration) *Windows {
	return &Windows{start: start, width: width}
}

// Add records d, due at at.
func (w *Windows) Add(at time.Time, d time.Duration) {
	i := max(int(at.Sub(w.start)/w.width), 0)
	for len(w.by) <= i {
		w.by = append(w.by, nil)
	}
	w.by[i] = append(w.by[i], d)
}

// P99s is the p99 of each window in milliseconds (0 for an empty one).
func (w *Windows) P99s() []float64 {
	out := make([]float64, len(w.by))
	for i, d := range w.by {
		out[i] = Summarize(d).P99
	}
	return out
}

// All summarizes every sample of every window.
func (w *Windows) All() Latency {
	var all []time.Duration
	for _, d := range w.by {
		all = append(all, d...)
	}
	return Summarize(all)
}
