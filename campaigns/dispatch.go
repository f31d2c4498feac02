package campaigns

import (
	"context"
	"math"
	"net/http"
	"switchboard/internal/sleep"
	"sync"
	"time"

	"switchboard/ent"
	"switchboard/messaging"
)

// This file is the sender's pipeline: a dispatcher claims recipients in
// batches (as many as the pool has room for, at most claimBatch), takes
// their send slots from the limiter (in one call when it can), and starts
// each platform call at its slot; the calls run concurrently, bounded by
// the pool; a recorder stores the accepted sends in batches (one
// transaction each). A recipient is claimed before its call, and a
// claimed recipient whose call does not start (pause, cancel, a fatal
// error, a 130429 hold, the limiter failing) is put back to pending.

// Sizes of the pipeline.
const (
	// claimWindow is the share of a second of sending that one claim
	// takes (at most maxClaim): at 1,000/s, 200 recipients.
	claimWindow = 200 * time.Millisecond
	maxClaim    = 200
	// poolWindow sizes the pool of concurrent calls: the calls of half a
	// second at the rate (at most maxPool), so that a slow platform
	// answer does not slow the pace.
	poolWindow = 500 * time.Millisecond
	maxPool    = 500
	// recordEvery and recordBatch bound how long and how many accepted
	// sends wait for their transaction.
	recordEvery = 20 * time.Millisecond
	recordBatch = 250
)

// batchLimiter is a Limiter that reserves several send slots in one call
// (pacing.Redis).
type batchLimiter interface {
	TakeN(ctx context.Context, phoneID string, perSecond float64, n int) ([]time.Time, error)
}

// pool is the number of concurrent platform calls of a run at rate: the
// service's Workers when set, else half a second of calls (8 to maxPool).
func (s *Service) pool(rate float64) int {
	if s.Workers > 0 {
		return s.Workers
	}
	return min(max(int(math.Ceil(rate*poolWindow.Seconds())), 8), maxPool)
}

// claimSize is the most recipients one claim takes at rate.
func claimSize(rate float64) int {
	return min(max(int(rate*claimWindow.Seconds()), 1), maxClaim)
}

// pipeline is the concurrent part of one run.
type pipeline struct {
	snd      *sender
	sem      chan struct{} // one token per call in flight or claimed
	inflight sync.WaitGroup
	rec      *recorder
	slots    []time.Time // slots taken and not used yet
}

func (snd *sender) newPipeline(octx context.Context) *pipeline {
	p := &pipeline{snd: snd, sem: make(chan struct{}, snd.s.pool(snd.rate))}
	p.rec = snd.newRecorder(octx)
	return p
}

// room waits for one free place in the pool and takes up to n-1 more
// that are free; it returns how many it took (0 when ctx ended).
func (p *pipeline) room(ctx context.Context, n int) int {
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return 0
	}
	got := 1
	for got < n {
		select {
		case p.sem <- struct{}{}:
			got++
		default:
			return got
		}
	}
	return got
}

func (p *pipeline) free(n int) {
	for range n {
		<-p.sem
	}
}

// quiesce waits for the calls in flight and stores what they sent.
func (p *pipeline) quiesce() {
	p.inflight.Wait()
	p.rec.flush()
}

// close ends the recorder after the calls in flight.
func (p *pipeline) close() {
	p.inflight.Wait()
	p.rec.close()
}

// dispatch starts the calls of claimed recipients at their send slots.
// When runCtx ends, the run fails, the number is held (130429) or the
// limiter fails, the recipients not started are put back to pending.
// Each recipient holds one place of the pool, taken by the caller.
func (p *pipeline) dispatch(runCtx, octx context.Context, claimed []*ent.CampaignRecipient) {
	snd := p.snd
	for i, r := range claimed {
		at, err := p.slot(runCtx, len(claimed)-i)
		if err == nil {
			err = sleep.Until(runCtx, at)
		}
		if err == nil && snd.fatal.Load() != nil {
			err = context.Canceled
		}
		if err != nil {
			if runCtx.Err() == nil && snd.fatal.Load() == nil {
				// The limiter cannot answer (its store is down): wait
				// rather than spin, and send nothing unpaced.
				snd.s.log().Warn("campaign pacing unavailable", "phone_id", snd.acc.PhoneID, "err", err)
				defer func() { _ = sleep.For(runCtx, time.Second) }()
			}
			p.putBack(octx, claimed[i:])
			return
		}
		if held := snd.heldUntil.Load(); held != nil && held.After(time.Now()) {
			// A 130429 of this run came after the slot was taken.
			p.putBack(octx, claimed[i:i+1])
			continue
		}
		p.inflight.Add(1)
		go func() {
			defer p.inflight.Done()
			defer p.free(1)
			snd.call(octx, r, p.rec)
		}()
	}
}

// putBack releases claimed recipients whose call did not start.
func (p *pipeline) putBack(ctx context.Context, rs []*ent.CampaignRecipient) {
	for _, r := range rs {
		p.snd.release(ctx, r, nil)
	}
	p.free(len(rs))
}

// slot returns the time of the next send: from the slots already taken,
// else from the limiter (up to want slots at once when it can).
func (p *pipeline) slot(ctx context.Context, want int) (time.Time, error) {
	snd := p.snd
	for len(p.slots) > 0 {
		at := p.slots[0]
		p.slots = p.slots[1:]
		// A slot long past is not saved up for a burst.
		if time.Since(at) < claimWindow {
			return at, nil
		}
	}
	lim := snd.s.limiter()
	if bl, ok := lim.(batchLimiter); ok {
		slots, err := bl.TakeN(ctx, snd.acc.PhoneID, snd.rate, want)
		if err != nil {
			return time.Time{}, err
		}
		p.slots = slots[1:]
		return slots[0], nil
	}
	if err := lim.Wait(ctx, snd.acc.PhoneID, snd.rate); err != nil {
		return time.Time{}, err
	}
	return time.Now(), nil
}

// acceptedSend is a send the platform accepted, waiting to be stored.
type acceptedSend struct {
	r     *ent.CampaignRecipient
	p     *messaging.PreparedTemplate
	wamid string
}

// recorder stores accepted sends in batches, under octx (a pause does
// not lose what was sent).
type recorder struct {
	snd   *sender
	in    chan acceptedSend
	flush func()
	close func()
}

func (snd *sender) newRecorder(octx context.Context) *recorder {
	in := make(chan acceptedSend, recordBatch)
	flushReq := make(chan chan struct{})
	done := make(chan struct{})
	stop := make(chan struct{})
	rec := &recorder{snd: snd, in: in}
	go func() {
		defer close(done)
		var batch []acceptedSend
		timer := time.NewTimer(time.Hour)
		timer.Stop()
		write := func() {
			timer.Stop()
			if len(batch) > 0 {
				snd.record(octx, batch)
				batch = nil
			}
		}
		drain := func() {
			for {
				select {
				case a := <-in:
					batch = append(batch, a)
				default:
					return
				}
			}
		}
		for {
			select {
			case a := <-in:
				batch = append(batch, a)
				if len(batch) == 1 {
					timer.Reset(recordEvery)
				}
				if len(batch) >= recordBatch {
					write()
				}
			case <-timer.C:
				write()
			case ack := <-flushReq:
				drain()
				write()
				close(ack)
			case <-stop:
				drain()
				write()
				return
			}
		}
	}()
	rec.flush = func() {
		ack := make(chan struct{})
		select {
		case flushReq <- ack:
			<-ack
		case <-done:
		}
	}
	var once sync.Once
	rec.close = func() {
		once.Do(func() { close(stop) })
		<-done
	}
	return rec
}

// add hands an accepted send to the recorder.
func (rec *recorder) add(a acceptedSend) { rec.in <- a }

// NewHTTPClient is the HTTP client of the sender's platform calls: the
// default transport with room for a full pool of connections to the
// platform's host kept open (net/http keeps 2 per host by default, so
// concurrent calls would open and close connections all the time).
func NewHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = maxPool
	t.MaxIdleConnsPerHost = maxPool
	t.IdleConnTimeout = 90 * time.Second
	return &http.Client{Transport: t}
}
