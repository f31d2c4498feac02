// Command calling measures the media engine under bridged-call load: 50
// calls (100 legs bridged pairwise) by default, each side sending 20 ms
// Opus packets in real time. The engine runs in a child process, so its
// CPU is measured alone; the peers (mediatest) run in this process and
// timestamp every packet, so forwarding latency is arrival minus send on
// one clock. A direct peer-to-peer phase first gives the baseline latency
// of the peers and loopback themselves.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"time"
)

func main() {
	role := flag.String("role", "peers", "peers (the load, default) or engine (the child process under test)")
	calls := flag.Int("calls", 50, "concurrent bridged calls")
	duration := flag.Duration("duration", 20*time.Second, "how long every peer sends audio")
	baseline := flag.Duration("baseline", 5*time.Second, "duration of the direct peer-to-peer phase (0: skip)")
	warmup := flag.Duration("warmup", time.Second, "packets sent in the first part of each phase count as delivered but not in the latency figures")
	inProcess := flag.Bool("inprocess", false, "run the engine in this process (diagnostic: shows what the second process's scheduling costs; CPU is then the whole process's)")
	flag.Parse()
	log.SetFlags(0)
	if *role == "engine" {
		if err := serveEngine(os.Stdin, os.Stdout); err != nil {
			log.Fatalf("engine: %v", err)
		}
		return
	}
	if err := run(*calls, *duration, *baseline, *warmup, *inProcess); err != nil {
		log.Fatal(err)
	}
}

func run(calls int, duration, baseline, warmup time.Duration, inProcess bool) error {
	fmt.Printf("calling bench: %d bridged calls (%d legs), %v of 20 ms Opus each way\n", calls, 2*calls, duration)
	if baseline > 0 {
		pairs, err := directPairs(calls)
		if err != nil {
			return err
		}
		res := load(pairs, baseline, warmup)
		closeAll(pairs)
		fmt.Printf("baseline (peers direct, %v): %s\n", baseline, res)
	}
	var engine engineClient
	if inProcess {
		srv, err := newEngineServer()
		if err != nil {
			return err
		}
		engine = inProcessEngine{srv}
	} else {
		child, err := startEngine()
		if err != nil {
			return err
		}
		engine = child
	}
	pairs, err := bridgedPairs(engine, calls)
	if err != nil {
		return err
	}
	if _, err := engine.do(request{Cmd: "start"}); err != nil {
		return err
	}
	res := load(pairs, duration, warmup)
	usage, err := engine.do(request{Cmd: "stop"})
	if err != nil {
		return err
	}
	closeAll(pairs)
	if err := engine.stop(); err != nil {
		return fmt.Errorf("engine exit: %w", err)
	}
	fmt.Printf("through the engine: %s\n", res)
	what := "engine process"
	if inProcess {
		what = "whole process (engine and peers)"
	}
	fmt.Printf("%s: %.2f CPU s over %.2f s wall = %.3f cores for %d legs\n",
		what, usage.CPUSeconds, usage.WallSecs, usage.CPUSeconds/usage.WallSecs, usage.Legs)
	return nil
}
