// Command pacing measures the send rate package pacing allows on one phone
// number, in one process or in several processes sharing a Redis: each
// process runs -workers goroutines that loop Wait and "send" (count), and
// the sends of every process are counted over one common window of
// -duration. The rate reported is sends in the window / window. With
// -procs N the command starts N copies of itself (-child) and adds up
// their counts. See README.md.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"switchboard/kv"
	"switchboard/pacing"
)

type config struct {
	redisURL string
	tier     string
	rate     float64
	duration time.Duration
	procs    int
	workers  int
	phone    string
	child    bool
	start    int64 // unix nanoseconds of the window's start (children)
	slowAt   time.Duration
	slowFor  time.Duration
	jsonOut  bool
}

// result is one process's count, printed by children as one JSON line.
type result struct {
	Sends     int64   `json:"sends"`      // sends inside the window
	Outside   int64   `json:"outside"`    // sends after the window (the last waiters)
	Waits     int64   `json:"waits"`      // Wait calls that returned nil
	MaxGapMS  float64 `json:"max_gap_ms"` // longest time between two sends of this process
	Errors    int64   `json:"errors"`
	FirstMS   float64 `json:"first_ms"` // first send, from the window's start
	LastMS    float64 `json:"last_ms"`
	HeldSends int64   `json:"held_sends"`  // sends during the -slow-at hold (want 0 past the reservations ahead)
	Calls     int64   `json:"redis_calls"` // commands sent to Redis (script runs), to show waiting does not poll
}

// counter counts the commands a client sends.
type counter struct{ n atomic.Int64 }

func (c *counter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *counter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { c.n.Add(1); return next(ctx, cmd) }
}
func (c *counter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { c.n.Add(int64(len(cmds))); return next(ctx, cmds) }
}

func main() {
	var c config
	flag.StringVar(&c.redisURL, "redis", os.Getenv("REDIS_URL"), "Redis URL shared by the processes (default $REDIS_URL; empty: start an embedded miniredis on loopback)")
	flag.StringVar(&c.tier, "tier", "TIER_1K", "messaging limit tier, for pacing.TierRate")
	flag.Float64Var(&c.rate, "rate", 0, "sends per second, instead of the tier's rate")
	flag.DurationVar(&c.duration, "duration", 60*time.Second, "measuring window")
	flag.IntVar(&c.procs, "procs", 1, "processes sharing the number")
	flag.IntVar(&c.workers, "workers", 8, "concurrent senders per process")
	flag.StringVar(&c.phone, "phone", "", "phone number id (default: unique per run)")
	flag.BoolVar(&c.child, "child", false, "internal: run as one of -procs")
	flag.Int64Var(&c.start, "start", 0, "internal: the window's start, unix nanoseconds")
	flag.DurationVar(&c.slowAt, "slow-at", 0, "process 0 calls Slow this long into the window (0: never)")
	flag.DurationVar(&c.slowFor, "slow-for", 2*time.Second, "the Slow's pause")
	flag.BoolVar(&c.jsonOut, "json", false, "print the report as JSON too")
	flag.Parse()
	if c.rate == 0 {
		c.rate = pacing.TierRate(c.tier)
	}
	if c.phone == "" {
		c.phone = "bench-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	if c.child {
		r := runProcess(c)
		_ = json.NewEncoder(os.Stdout).Encode(r)
		return
	}
	if err := parent(c); err != nil {
		log.Fatal(err)
	}
}

func parent(c config) error {
	ctx := context.Background()
	if c.redisURL == "" {
		s, err := kv.Open(ctx, "", nil) // what the application runs on without REDIS_URL
		if err != nil {
			return err
		}
		defer s.Close()
		c.redisURL = "redis://" + s.Addr()
	}
	c.start = time.Now().Add(2 * time.Second).UnixNano() // time for the children to connect
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	results := make([]result, c.procs)
	errs := make([]error, c.procs)
	var wg sync.WaitGroup
	for i := range c.procs {
		args := []string{"-child", "-redis", c.redisURL, "-rate", fmt.Sprint(c.rate), "-duration", c.duration.String(),
			"-workers", strconv.Itoa(c.workers), "-phone", c.phone, "-start", strconv.FormatInt(c.start, 10),
			"-slow-for", c.slowFor.String()}
		if i == 0 {
			args = append(args, "-slow-at", c.slowAt.String())
		}
		cmd := exec.Command(exe, args...)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return err
		}
		wg.Go(func() {
			sc := bufio.NewScanner(out)
			if sc.Scan() {
				errs[i] = json.Unmarshal(sc.Bytes(), &results[i])
			}
			if err := cmd.Wait(); err != nil && errs[i] == nil {
				errs[i] = fmt.Errorf("process %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	var total result
	for _, r := range results {
		total.Sends += r.Sends
		total.Outside += r.Outside
		total.Errors += r.Errors
		total.HeldSends += r.HeldSends
		total.Calls += r.Calls
	}
	measured := float64(total.Sends) / c.duration.Seconds()
	report := map[string]any{
		"redis": redact(c.redisURL), "rate_target": c.rate, "tier": c.tier, "procs": c.procs, "workers": c.workers,
		"duration_s": c.duration.Seconds(), "sends": total.Sends, "rate_measured": math.Round(measured*1000) / 1000,
		"per_process": results, "errors": total.Errors, "redis_calls": total.Calls,
	}
	if c.slowAt > 0 {
		report["slow_at_s"], report["slow_for_s"], report["sends_during_hold"] = c.slowAt.Seconds(), c.slowFor.Seconds(), total.HeldSends
	}
	fmt.Printf("pacing: %s, %d process(es) x %d workers, target %.3f/s: %d sends in %s = %.3f sends/s (errors %d, %.2f Redis calls per send)\n",
		redact(c.redisURL), c.procs, c.workers, c.rate, total.Sends, c.duration, measured, total.Errors,
		float64(total.Calls)/float64(max(1, total.Sends+total.Outside)))
	for i, r := range results {
		fmt.Printf("  process %d: %d sends, first at +%.1f ms, last at +%.1f ms, longest gap %.1f ms\n", i, r.Sends, r.FirstMS, r.LastMS, r.MaxGapMS)
	}
	if c.slowAt > 0 {
		fmt.Printf("  Slow(%s) at +%s by process 0: %d sends during the hold\n", c.slowFor, c.slowAt, total.HeldSends)
	}
	if c.jsonOut {
		b, _ := json.Marshal(report)
		fmt.Println(string(b))
	}
	return nil
}

// runProcess is one sending process: workers loop Wait until the window
// ends, counting sends inside it.
func runProcess(c config) result {
	opts, err := redis.ParseURL(c.redisURL)
	if err != nil {
		log.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	calls := &counter{}
	rdb.AddHook(calls)
	l := pacing.New(rdb, pacing.Options{Prefix: "bench:"})

	start := time.Unix(0, c.start)
	end := start.Add(c.duration)
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	ctx, cancelAt := context.WithDeadline(ctx, end)
	defer cancelAt()
	time.Sleep(time.Until(start))

	var (
		r     result
		mu    sync.Mutex
		times []time.Time
		held  atomic.Int64
	)
	holdFrom, holdTo := time.Time{}, time.Time{}
	if c.slowAt > 0 {
		holdFrom = start.Add(c.slowAt)
		holdTo = holdFrom.Add(c.slowFor)
		go func() {
			time.Sleep(time.Until(holdFrom))
			if err := l.Slow(ctx, c.phone, c.slowFor); err != nil {
				log.Print(err)
			}
		}()
	}
	var wg sync.WaitGroup
	for range c.workers {
		wg.Go(func() {
			for {
				err := l.Wait(ctx, c.phone, c.rate)
				now := time.Now()
				if err != nil {
					if ctx.Err() == nil {
						atomic.AddInt64(&r.Errors, 1)
						log.Print(err)
					}
					return
				}
				// Reservations made before the Slow may still go out in
				// the first MaxAhead of the hold; count the rest.
				if !holdFrom.IsZero() && now.After(holdFrom.Add(pacing.DefaultMaxAhead+50*time.Millisecond)) && now.Before(holdTo) {
					held.Add(1)
				}
				mu.Lock()
				times = append(times, now)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	r.HeldSends = held.Load()
	r.Calls = calls.n.Load()
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	for i, t := range times {
		r.Waits++
		if t.Before(start) || !t.Before(end) {
			r.Outside++
			continue
		}
		r.Sends++
		if i > 0 {
			r.MaxGapMS = max(r.MaxGapMS, float64(t.Sub(times[i-1]).Microseconds())/1000)
		}
	}
	if len(times) > 0 {
		r.FirstMS = float64(times[0].Sub(start).Microseconds()) / 1000
		r.LastMS = float64(times[len(times)-1].Sub(start).Microseconds()) / 1000
	}
	return r
}

func redact(u string) string {
	o, err := redis.ParseURL(u)
	if err != nil {
		return "redis"
	}
	return "redis://" + o.Addr + "/" + strconv.Itoa(o.DB)
}
