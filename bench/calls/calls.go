package main

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"switchboard/bench/internal/benchkit"
	"switchboard/calling/media/mediatest"
	"switchboard/internal/apiclient"
)

// call is one incoming call of the benchmark: the caller's peer (the
// platform's side) and the agent's browser peer, bridged by the server.
type call struct {
	id, from, transferID string
	caller, agent        *mediatest.Peer
	// rang is when the connect webhook was posted; preAccepted and
	// accepted when those actions reached the platform; connected when
	// the caller's peer had ICE and DTLS up.
	rang, preAccepted, accepted, connected time.Time
}

// loopbackOnly peers reach the server at loopback addresses only.
var loopbackOnly = mediatest.Options{Reachable: func(ip net.IP) bool { return ip.IsLoopback() }}

// stepLimit bounds each step of a call's setup.
const stepLimit = 60 * time.Second

// placeCalls rings n calls at once and brings each to a bridge with the
// agent; it returns the bridged calls and what went wrong with the others.
// profile (nil: none) starts just before the calls ring.
func placeCalls(ctx context.Context, e *env, n int, profile func()) ([]*call, []string) {
	run := benchkit.RandomHex(3)
	calls := make([]*call, n)
	for i := range calls {
		c := &call{id: fmt.Sprintf("wacid.bench-%s-%03d", run, i), from: fmt.Sprintf("1555%07d", i)}
		var err error
		if c.caller, err = mediatest.New(loopbackOnly); err != nil {
			return nil, []string{err.Error()}
		}
		calls[i] = c
	}
	transfers := dispatchTransfers(ctx, e, calls)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		bridged []*call
		errs    []string
		ring    = make(chan struct{})
	)
	for _, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			offer, err := c.caller.CreateOffer()
			if err == nil {
				<-ring // every call rings at the same moment
				err = c.setUp(ctx, e, offer, transfers[c.id])
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", c.id, err))
				c.close()
				return
			}
			bridged = append(bridged, c)
		}()
	}
	time.Sleep(100 * time.Millisecond) // the offers are gathered
	if profile != nil {
		profile()
	}
	close(ring)
	wg.Wait()
	return bridged, errs
}

// setUp rings the call, plays the platform's side of the answer, and has
// the agent take the call's transfer once it waits.
func (c *call) setUp(ctx context.Context, e *env, offer string, transfer <-chan string) error {
	ctx, cancel := context.WithTimeout(ctx, stepLimit)
	defer cancel()
	c.rang = time.Now()
	if err := e.plat.Ring(ctx, c.id, c.from, offer); err != nil {
		return err
	}
	pre, err := e.plat.WaitAction(ctx, c.id, "pre_accept")
	if err != nil {
		return err
	}
	c.preAccepted = pre.At
	if err := c.caller.ApplyAnswer(pre.SDP); err != nil {
		return err
	}
	acc, err := e.plat.WaitAction(ctx, c.id, "accept")
	if err != nil {
		return err
	}
	c.accepted = acc.At
	if err := c.caller.WaitConnected(ctx); err != nil {
		return err
	}
	c.connected = time.Now()
	select {
	case c.transferID = <-transfer:
	case <-ctx.Done():
		return fmt.Errorf("no waiting transfer: %w", ctx.Err())
	}
	if c.agent, err = mediatest.New(loopbackOnly); err != nil {
		return err
	}
	if err := e.cc.Take(ctx, c.transferID, c.agent); err != nil {
		return err
	}
	return c.agent.WaitConnected(ctx)
}

// dispatchTransfers polls the agent's waiting transfers every 100 ms and
// hands each call its transfer id, until every call has one or the setup
// time is over.
func dispatchTransfers(ctx context.Context, e *env, calls []*call) map[string]chan string {
	out := make(map[string]chan string, len(calls))
	for _, c := range calls {
		out[c.id] = make(chan string, 1)
	}
	go func() {
		ctx, cancel := context.WithTimeout(ctx, 2*stepLimit)
		defer cancel()
		given := map[string]bool{}
		for len(given) < len(calls) {
			select {
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			waiting, err := e.cc.WaitingTransfers(ctx)
			if err != nil {
				log.Printf("waiting transfers: %v", err)
				continue
			}
			for callID, id := range waiting {
				if ch, ok := out[callID]; ok && !given[callID] {
					given[callID] = true
					ch <- id
				}
			}
		}
	}()
	return out
}

// hangUps is what the hangups gave: how long each request took to be
// answered, the failures, and how many calls got how many terminate
// requests at the platform.
type hangUps struct {
	took       []time.Duration
	failures   []string
	terminates map[int]int
}

// hangUp has the agent hang up every call at once and the platform
// confirm each with its terminate webhook. The server answers a hangup
// before it mixes the call's recording (in the background); a request
// still gets hangupLimit, as an older server waited for the mix.
func hangUp(ctx context.Context, e *env, calls []*call) hangUps {
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		out = hangUps{terminates: map[int]int{}}
	)
	agent := *e.cc.Agent
	agent.HTTP = &http.Client{Timeout: hangupLimit}
	for _, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.close()
			took, err := c.hangUp(ctx, e, &agent)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				out.failures = append(out.failures, fmt.Sprintf("%s: %v", c.id, err))
				return
			}
			out.took = append(out.took, took)
		}()
	}
	wg.Wait()
	time.Sleep(2 * time.Second) // a duplicate terminate would follow within milliseconds
	for _, c := range calls {
		out.terminates[e.plat.Count(c.id, "terminate")]++
	}
	return out
}

// hangupLimit bounds a hangup request and the terminate it sends.
const hangupLimit = 3 * time.Minute

func (c *call) hangUp(ctx context.Context, e *env, agent *apiclient.Client) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, hangupLimit)
	defer cancel()
	start := time.Now()
	if err := agent.Call(ctx, http.MethodPost, "/api/call-transfers/"+c.transferID+"/hangup", nil, http.StatusOK, nil); err != nil {
		return 0, err
	}
	took := time.Since(start)
	if _, err := e.plat.WaitAction(ctx, c.id, "terminate"); err != nil {
		return took, err
	}
	return took, e.plat.Terminate(ctx, c.id, c.from, 60)
}

func (c *call) close() {
	c.caller.Close()
	if c.agent != nil {
		c.agent.Close()
	}
}
