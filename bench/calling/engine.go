package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"switchboard/calling/media"
)

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
	engine, err := media.NewEngine(media.Config{ListenAddrs: []string{"127.0.0.1"}})
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
