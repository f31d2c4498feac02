// Command calls measures calling through the built server process: CALLS
// concurrent incoming calls over loopback, each rung by the platform (a
// signed webhook with the caller's SDP offer), answered, waiting for an
// agent and taken by the agent's browser, then audio both ways for
// DURATION. It reports the setup time (webhook → accept), RTP loss, the
// jitter the server adds, and the server's CPU (from /proc/<pid>/stat).
// See README.md.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

type flags struct {
	bin, dir, pg, redis string
	calls               int
	duration, warmup    time.Duration
	json                bool
	// profile, when set, is where a CPU profile of the server during the
	// setup (the calls rung at once) is written.
	profile string
}

func parseFlags() flags {
	var f flags
	flag.StringVar(&f.bin, "bin", "", "server binary (default: go build this tree into -dir)")
	flag.StringVar(&f.dir, "dir", "/tmp/switchboard-calls-bench", "work directory: the server's data, its log, the built binary")
	flag.StringVar(&f.pg, "pg", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "PostgreSQL server; a fresh database is created on it and dropped after")
	flag.StringVar(&f.redis, "redis", os.Getenv("REDIS_URL"), "Redis URL for the server (default $REDIS_URL; empty: the server's in-process Redis)")
	flag.IntVar(&f.calls, "calls", 50, "concurrent calls")
	flag.DurationVar(&f.duration, "duration", 60*time.Second, "how long audio flows both ways once every call is bridged")
	flag.DurationVar(&f.warmup, "warmup", time.Second, "packets sent in this first part of the load count for loss but not for latency and jitter")
	flag.BoolVar(&f.json, "json", false, "print the report as JSON")
	flag.StringVar(&f.profile, "profile", "", "write a CPU profile (an execution trace if the name ends in .trace) of the server over the setup (PROFILE_SECONDS, 5) to this file (the server gets PPROF_ADDR)")
	flag.Parse()
	if f.calls < 1 || f.calls > 100 || f.duration <= 0 || f.warmup < 0 {
		fmt.Fprintln(os.Stderr, "calls: -calls must be 1 to 100 (the agent lists 100 waiting transfers), -duration positive, -warmup not negative")
		os.Exit(2)
	}
	return f
}

func main() {
	log.SetFlags(log.Ltime | log.Lmicroseconds)
	f := parseFlags()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := run(ctx, f)
	if err != nil {
		log.Printf("calls: %v", err)
		os.Exit(1)
	}
	if f.json {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		rep.print(os.Stdout)
	}
	if !rep.Met {
		os.Exit(3)
	}
}

// run sets the server up, places the calls, loads them and reports.
func run(ctx context.Context, f flags) (*report, error) {
	if err := os.MkdirAll(f.dir, 0o755); err != nil {
		return nil, err
	}
	env, err := startEnv(ctx, f)
	if err != nil {
		return nil, err
	}
	defer env.close()
	log.Printf("server pid %d at %s (log %s)", env.srv.PID(), env.srv.URL, filepath.Join(f.dir, "server.log"))

	calls, setupErrs := placeCalls(ctx, env, f.calls, env.profiler(f.profile))
	rep := &report{Calls: f.calls, Bridged: len(calls), SetupFailures: setupErrs, Duration: f.duration.String()}
	rep.setupFigures(calls)
	if len(calls) == 0 {
		return rep, fmt.Errorf("no call was bridged: %v", setupErrs)
	}
	log.Printf("%d calls bridged; audio both ways for %s", len(calls), f.duration)
	res, err := loadCalls(ctx, env.srv.PID(), calls, f.duration, f.warmup)
	if err != nil {
		return rep, err
	}
	rep.loadFigures(res)
	rep.hangupFigures(hangUp(ctx, env, calls))
	rep.judge()
	return rep, nil
}
