package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"math"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"switchboard/bench/internal/benchkit"
)

// watchEvents listens on /ws and records when each message:new event of
// the run arrives. It reconnects (with a new ws token) when the connection
// drops, for example while the server restarts; events published while it
// is disconnected are missed, and counted so. ready is closed once the
// first connection is authenticated.
func watchEvents(ctx context.Context, srv *server, prefix string, t *tracker, ready chan<- struct{}) {
	first := true
	for ctx.Err() == nil {
		conn, err := dialEvents(ctx, srv)
		if err != nil {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		if first {
			close(ready)
			first = false
		}
		readEvents(ctx, conn, prefix, t)
		_ = conn.Close()
		if ctx.Err() == nil {
			t.disconnected()
		}
	}
}

// dialEvents connects to /ws with ?token= and waits for "connected".
func dialEvents(ctx context.Context, srv *server) (*websocket.Conn, error) {
	token, err := srv.wsToken(ctx)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(srv.api.Base)
	if err != nil {
		return nil, err
	}
	if u.Scheme == "https" {
		u.Scheme = "wss"
	} else {
		u.Scheme = "ws"
	}
	u.Path = "/ws"
	u.RawQuery = url.Values{"token": {token}}.Encode()
	d := websocket.Dialer{HandshakeTimeout: 5 * time.Second, ReadBufferSize: 64 << 10}
	conn, _, err := d.DialContext(ctx, u.String(), nil)
	if err != nil {
		return nil, err
	}
	var hello struct {
		Type string `json:"type"`
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if err := conn.ReadJSON(&hello); err != nil || hello.Type != "connected" {
		_ = conn.Close()
		return nil, fmt.Errorf("ws: no connected message (%v, %q)", err, hello.Type)
	}
	_ = conn.SetReadDeadline(time.Time{})
	return conn, nil
}

// readEvents reads until the connection fails or ctx ends.
func readEvents(ctx context.Context, conn *websocket.Conn, prefix string, t *tracker) {
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	var ev struct {
		Type    string `json:"type"`
		Payload struct {
			ChatMessageID string `json:"chat_message_id"`
		} `json:"payload"`
	}
	for {
		_, raw, err := conn.ReadMessage()
		if err != nil {
			return
		}
		at := time.Now()
		ev.Type, ev.Payload.ChatMessageID = "", ""
		if json.Unmarshal(raw, &ev) != nil {
			continue
		}
		if ev.Type == "message:new" && strings.HasPrefix(ev.Payload.ChatMessageID, prefix) {
			t.event(ev.Payload.ChatMessageID, at)
		}
	}
}

// serverSampler reads the server process's VmRSS and CPU time every
// 200 ms and keeps the maximum RSS and the CPU used. The pid comes from
// -pid, or from -pid-file on every sample (the server's pid changes when a
// fault run restarts it).
type serverSampler struct {
	pid     int
	pidFile string

	mu      sync.Mutex
	maxKiB  int64
	samples int
	cpu     map[int]time.Duration // CPU time used, by pid, at the last sample
}

func (r *serverSampler) run(ctx context.Context) {
	if r.pid == 0 && r.pidFile == "" {
		return
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		r.sample()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (r *serverSampler) sample() {
	pid, err := r.currentPID()
	if err != nil {
		return
	}
	kib, rerr := benchkit.ProcStatusKB(pid, "VmRSS:")
	cpu, cerr := benchkit.CPUTime(pid)
	r.mu.Lock()
	defer r.mu.Unlock()
	if rerr == nil {
		r.maxKiB = max(r.maxKiB, kib)
		r.samples++
	}
	if cerr == nil {
		if r.cpu == nil {
			r.cpu = map[int]time.Duration{}
		}
		r.cpu[pid] = cpu
	}
}

func (r *serverSampler) currentPID() (int, error) {
	if r.pidFile == "" {
		return r.pid, nil
	}
	b, err := os.ReadFile(r.pidFile)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// result is the largest RSS seen in MiB, the number of samples, and the
// CPU time the server processes used.
func (r *serverSampler) result() (float64, int, time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var cpu time.Duration
	for _, c := range r.cpu {
		cpu += c
	}
	return float64(r.maxKiB) / 1024, r.samples, cpu
}

// logf writes a progress line to stderr.
func logf(format string, args ...any) {
	log.Printf(format, args...)
}

// machineCPU is the "cpu" line of /proc/stat: jiffies by state, summed
// over the cores.
type machineCPU struct {
	user, system, idle, iowait, total int64
	cores                             int
}

// machineLoad is the machine's CPU use between two readings.
type machineLoad struct {
	Cores     int     `json:"cores"`
	BusyCores float64 `json:"busy_cores"`
	UserPct   float64 `json:"user_pct"`
	SystemPct float64 `json:"system_pct"`
	IOWaitPct float64 `json:"iowait_pct"`
}

func readMachineCPU() (machineCPU, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return machineCPU{}, err
	}
	return parseProcStat(string(b))
}

// parseProcStat reads the aggregate line (user nice system idle iowait irq
// softirq steal ...) and counts the per-core lines.
func parseProcStat(text string) (machineCPU, error) {
	var m machineCPU
	found := false
	for _, line := range strings.Split(text, "\n") {
		fields := strings.Fields(line)
		switch {
		case len(fields) > 0 && fields[0] == "cpu":
			if len(fields) < 9 {
				return m, fmt.Errorf("unexpected /proc/stat line %q", line)
			}
			var v [8]int64
			for i := range v {
				n, err := strconv.ParseInt(fields[i+1], 10, 64)
				if err != nil {
					return m, fmt.Errorf("unexpected /proc/stat line %q", line)
				}
				v[i] = n
				m.total += n
			}
			m.user, m.system, m.idle, m.iowait = v[0]+v[1], v[2]+v[5]+v[6], v[3], v[4]
			found = true
		case len(fields) > 0 && strings.HasPrefix(fields[0], "cpu"):
			m.cores++
		}
	}
	if !found || m.cores == 0 {
		return m, fmt.Errorf("no cpu lines in /proc/stat")
	}
	return m, nil
}

func (m machineCPU) since(old machineCPU) machineLoad {
	total := float64(m.total - old.total)
	if total <= 0 {
		return machineLoad{Cores: m.cores}
	}
	pct := func(v int64) float64 { return math.Round(1000*float64(v)/total) / 10 }
	busy := total - float64(m.idle-old.idle) - float64(m.iowait-old.iowait)
	return machineLoad{
		Cores:     m.cores,
		BusyCores: math.Round(100*busy/total*float64(m.cores)) / 100,
		UserPct:   pct(m.user - old.user),
		SystemPct: pct(m.system - old.system),
		IOWaitPct: pct(m.iowait - old.iowait),
	}
}
