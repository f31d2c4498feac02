package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"switchboard/bench/internal/benchkit"
)

// rssSample is one reading of a node's resident set: all of it, and its
// anonymous part (heap, stacks: what the process allocated) and its file
// part (the pages of the binary it has touched, which the kernel can drop
// and read again), apart, so that a climb shows where it is.
type rssSample struct {
	At      time.Time
	RSSKiB  int64
	AnonKiB int64
	FileKiB int64
}

// nodeSampler reads each node's VmRSS (RssAnon, RssFile) and CPU time every interval from
// /proc, the pid re-read from the node's pid file on every sample (a
// killed node restarts under another pid).
type nodeSampler struct {
	files    []string
	interval time.Duration

	mu      sync.Mutex
	samples [][]rssSample
	cpu     []map[int]time.Duration // by node, by pid: CPU time at its last sample
}

func newNodeSampler(files []string, interval time.Duration) *nodeSampler {
	s := &nodeSampler{files: files, interval: interval, samples: make([][]rssSample, len(files)),
		cpu: make([]map[int]time.Duration, len(files))}
	for i := range s.cpu {
		s.cpu[i] = map[int]time.Duration{}
	}
	return s
}

func (s *nodeSampler) run(ctx context.Context) {
	tick := time.NewTicker(s.interval)
	defer tick.Stop()
	for {
		for i, f := range s.files {
			s.sample(i, f)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (s *nodeSampler) sample(node int, file string) {
	b, err := os.ReadFile(file)
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return
	}
	kib, rerr := benchkit.ProcStatusKB(pid, "VmRSS:")
	anon, aerr := benchkit.ProcStatusKB(pid, "RssAnon:")
	fileKiB, ferr := benchkit.ProcStatusKB(pid, "RssFile:")
	cpu, cerr := benchkit.CPUTime(pid)
	s.mu.Lock()
	defer s.mu.Unlock()
	if rerr == nil && aerr == nil && ferr == nil {
		s.samples[node] = append(s.samples[node], rssSample{At: time.Now(), RSSKiB: kib, AnonKiB: anon, FileKiB: fileKiB})
	}
	if cerr == nil {
		s.cpu[node][pid] = cpu
	}
}

// result is each node's RSS samples and the CPU its processes used.
func (s *nodeSampler) result() ([][]rssSample, []time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	samples := make([][]rssSample, len(s.samples))
	cpu := make([]time.Duration, len(s.cpu))
	for i := range s.samples {
		samples[i] = append([]rssSample(nil), s.samples[i]...)
		for _, c := range s.cpu[i] {
			cpu[i] += c
		}
	}
	return samples, cpu
}

// goroutines reads go_goroutines from a node's /metrics.
func goroutines(ctx context.Context, base string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return parseGoroutines(io.LimitReader(resp.Body, 16<<20))
}

// parseGoroutines finds the go_goroutines gauge in the Prometheus text
// format.
func parseGoroutines(r io.Reader) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "go_goroutines "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			return int(v), err
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no go_goroutines in /metrics")
}
