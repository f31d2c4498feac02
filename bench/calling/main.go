// Command calling measures the media engine under bridged-call load: 50
// calls (100 legs bridged pairwise) by default, each side sending 20 ms
// Opus packets in real time. The engine runs in a child process, so its
// CPU is measured alone; the peers (mediatest) run in this process and
// timestamp every packet, so forwarding latency is arrival minus send on
// one clock. A direct peer-to-peer phase first gives the baseline latency
// of the peers and loopback themselves.
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"

	"switchboard/calling/media"
	"switchboard/calling/media/mediatest"
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

// request and response are the JSON lines between the load and the engine.
type request struct {
	Cmd    string   `json:"cmd"` // "call", "start", "stop"
	Offers []string `json:"offers,omitempty"`
}

type response struct {
	Answers    []string `json:"answers,omitempty"`
	CPUSeconds float64  `json:"cpu_seconds,omitempty"`
	WallSecs   float64  `json:"wall_seconds,omitempty"`
	Legs       int      `json:"legs,omitempty"`
	Error      string   `json:"error,omitempty"`
}

// serveEngine answers each call's two offers with two bridged legs and
// reports its own CPU time between start and stop.
func serveEngine(in io.Reader, out io.Writer) error {
	srv, err := newEngineServer()
	if err != nil {
		return err
	}
	defer srv.engine.Close()
	dec, enc := json.NewDecoder(bufio.NewReader(in)), json.NewEncoder(out)
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			return nil // the load closed the pipe: done
		}
		if err := enc.Encode(srv.handle(req)); err != nil {
			return err
		}
	}
}

// engineServer is the engine side of the protocol.
type engineServer struct {
	engine    *media.Engine
	startCPU  time.Duration
	startWall time.Time
}

func newEngineServer() (*engineServer, error) {
	engine, err := media.NewEngine(media.Config{LoopbackOnly: true})
	if err != nil {
		return nil, err
	}
	return &engineServer{engine: engine}, nil
}

func (s *engineServer) handle(req request) response {
	var resp response
	switch req.Cmd {
	case "call":
		resp = bridgeCall(s.engine, req.Offers)
	case "start":
		s.startCPU, s.startWall = processCPU(), time.Now()
	case "stop":
		resp.CPUSeconds = (processCPU() - s.startCPU).Seconds()
		resp.WallSecs = time.Since(s.startWall).Seconds()
		resp.Legs = s.engine.Legs()
	default:
		resp.Error = "unknown command " + req.Cmd
	}
	return resp
}

// engineClient sends protocol requests to the engine under test.
type engineClient interface {
	do(request) (response, error)
	stop() error
}

// inProcessEngine serves requests in this process.
type inProcessEngine struct{ srv *engineServer }

func (p inProcessEngine) do(req request) (response, error) {
	resp := p.srv.handle(req)
	if resp.Error != "" {
		return resp, fmt.Errorf("engine: %s", resp.Error)
	}
	return resp, nil
}

func (p inProcessEngine) stop() error { return p.srv.engine.Close() }

func bridgeCall(engine *media.Engine, offers []string) response {
	if len(offers) != 2 {
		return response{Error: "a call needs two offers"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var legs []*media.Leg
	var answers []string
	for _, offer := range offers {
		leg, answer, err := engine.Answer(ctx, offer, media.LegOptions{})
		if err != nil {
			return response{Error: err.Error()}
		}
		legs, answers = append(legs, leg), append(answers, answer)
	}
	media.Bridge(legs[0], legs[1])
	return response{Answers: answers}
}

// processCPU is the user plus system CPU time of this process.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// engineProcess is the child running serveEngine.
type engineProcess struct {
	cmd *exec.Cmd
	enc *json.Encoder
	dec *json.Decoder
	in  interface{ Close() error }
}

func startEngine() (*engineProcess, error) {
	cmd := exec.Command(os.Args[0], "-role", "engine")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &engineProcess{cmd: cmd, enc: json.NewEncoder(stdin), dec: json.NewDecoder(stdout), in: stdin}, nil
}

func (p *engineProcess) do(req request) (response, error) {
	if err := p.enc.Encode(req); err != nil {
		return response{}, err
	}
	var resp response
	if err := p.dec.Decode(&resp); err != nil {
		return response{}, err
	}
	if resp.Error != "" {
		return resp, fmt.Errorf("engine: %s", resp.Error)
	}
	return resp, nil
}

func (p *engineProcess) stop() error {
	_ = p.in.Close()
	return p.cmd.Wait()
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

type pair [2]*mediatest.Peer

// directPairs connects peers to each other without the engine.
func directPairs(calls int) ([]pair, error) {
	pairs := make([]pair, 0, calls)
	for range calls {
		a, b, err := newPeers()
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, pair{a, b})
		offer, err := a.CreateOffer()
		if err != nil {
			return nil, err
		}
		answer, err := b.CreateAnswer(offer)
		if err != nil {
			return nil, err
		}
		if err := a.ApplyAnswer(answer); err != nil {
			return nil, err
		}
	}
	return pairs, waitConnected(pairs)
}

// bridgedPairs connects each pair through two bridged engine legs.
func bridgedPairs(engine engineClient, calls int) ([]pair, error) {
	pairs := make([]pair, 0, calls)
	for range calls {
		a, b, err := newPeers()
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, pair{a, b})
		var offers []string
		for _, p := range []*mediatest.Peer{a, b} {
			offer, err := p.CreateOffer()
			if err != nil {
				return nil, err
			}
			offers = append(offers, offer)
		}
		resp, err := engine.do(request{Cmd: "call", Offers: offers})
		if err != nil {
			return nil, err
		}
		for i, p := range []*mediatest.Peer{a, b} {
			if err := p.ApplyAnswer(resp.Answers[i]); err != nil {
				return nil, err
			}
		}
	}
	return pairs, waitConnected(pairs)
}

func newPeers() (*mediatest.Peer, *mediatest.Peer, error) {
	a, err := mediatest.New(mediatest.Options{})
	if err != nil {
		return nil, nil, err
	}
	b, err := mediatest.New(mediatest.Options{})
	if err != nil {
		a.Close()
		return nil, nil, err
	}
	return a, b, nil
}

func waitConnected(pairs []pair) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, pr := range pairs {
		for _, p := range pr {
			if err := p.WaitConnected(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

func closeAll(pairs []pair) {
	for _, pr := range pairs {
		pr[0].Close()
		pr[1].Close()
	}
}

// result is what the receivers saw.
type result struct {
	sent, received int
	latencies      []time.Duration // after the warm-up
	warmup         []time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("sent %d, received %d; latency %s; warm-up %s",
		r.sent, r.received, quantiles(r.latencies), quantiles(r.warmup))
}

func quantiles(l []time.Duration) string {
	if len(l) == 0 {
		return "none"
	}
	slices.Sort(l)
	q := func(f float64) time.Duration { return l[int(f*float64(len(l)-1))].Round(time.Microsecond) }
	return fmt.Sprintf("p50 %v, p99 %v, max %v", q(0.50), q(0.99), q(1))
}

// load makes every peer send stamped 20 ms packets for d, then reads the
// send stamps back out of what each peer received.
func load(pairs []pair, d, warmup time.Duration) result {
	for _, pr := range pairs {
		pr[0].Reset()
		pr[1].Reset()
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var res result
	start := time.Now()
	for i, pr := range pairs {
		for _, p := range pr {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n := sendStamped(ctx, p, start.Add(time.Duration(i)*20*time.Millisecond/time.Duration(len(pairs))))
				mu.Lock()
				res.sent += n
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	time.Sleep(200 * time.Millisecond) // the last packets in flight
	for _, pr := range pairs {
		for _, p := range pr {
			for _, pkt := range p.Received() {
				if len(pkt.Payload) < 9 || pkt.Payload[0] != stampTOC {
					continue
				}
				sentAt := time.Unix(0, int64(binary.BigEndian.Uint64(pkt.Payload[1:9])))
				res.received++
				latency := pkt.At.Sub(sentAt)
				if sentAt.Sub(start) < warmup {
					// First packets: pion sets up each receiving track.
					res.warmup = append(res.warmup, latency)
					continue
				}
				res.latencies = append(res.latencies, latency)
			}
		}
	}
	return res
}

// stampTOC is an Opus TOC byte (CELT fullband 20 ms, one frame): the
// payload is Opus-shaped, and the engine does not decode it anyway.
const stampTOC = 0xf8

// sendStamped sends 80-byte packets (32 kb/s) every 20 ms from first until
// ctx ends, each carrying its send time; it returns how many it sent.
func sendStamped(ctx context.Context, p *mediatest.Peer, first time.Time) int {
	payload := make([]byte, 80)
	payload[0] = stampTOC
	timer := time.NewTimer(time.Until(first))
	defer timer.Stop()
	sent := 0
	for next := first; ; next = next.Add(20 * time.Millisecond) {
		timer.Reset(time.Until(next))
		select {
		case <-timer.C:
		case <-ctx.Done():
			return sent
		}
		binary.BigEndian.PutUint64(payload[1:9], uint64(time.Now().UnixNano()))
		if p.SendPayload(payload, 960) == nil {
			sent++
		}
	}
}
