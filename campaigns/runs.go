package campaigns

import (
	"context"
	"errors"
	"fmt"
	"switchboard/internal/sleep"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"switchboard/ratelimit"
)

// A campaign is sent by one run at a time across every node: the run
// holds a lease in Redis (RunLeases) that renews itself while its process
// lives and lapses RunLeaseTTL after the process dies. The lease, not the
// queue's task, tells the recovery sweep whether a campaign has a live
// sender: after a kill -9 the queue keeps the dead run's task active until
// its own recoverer notices (a minute or two), while the lease lapses in
// seconds and the sweep queues a fresh run.

// RunLeaseTTL is how long a dead run's lease outlives it.
const RunLeaseTTL = 6 * time.Second

// leaseWait is how long a run waits for the lease of a run that is
// ending (a pause quickly followed by a resume) before it leaves the
// campaign to the live holder.
const leaseWait = 2 * time.Second

func runSlot(id uuid.UUID) ratelimit.Slot {
	return ratelimit.Slot{Key: "campaign-run:" + id.String(), Limit: 1}
}

// acquireRun takes the campaign's run lease; it returns nil and no error
// when another live run holds it. Without RunLeases (tests of the
// sender alone) every run goes ahead.
func (s *Service) acquireRun(ctx context.Context, id uuid.UUID) (*ratelimit.Lease, bool, error) {
	if s.RunLeases == nil {
		return nil, true, nil
	}
	deadline := time.Now().Add(leaseWait)
	for {
		lease, err := s.RunLeases.Acquire(ctx, runSlot(id))
		if err == nil {
			return lease, true, nil
		}
		if !errors.Is(err, ratelimit.ErrFull) {
			return nil, false, fmt.Errorf("campaigns: run lease: %w", err)
		}
		if time.Now().After(deadline) {
			return nil, false, nil
		}
		if err := sleep.For(ctx, 200*time.Millisecond); err != nil {
			return nil, false, err
		}
	}
}

// releaseRun gives the lease back when the run ends.
func (s *Service) releaseRun(lease *ratelimit.Lease) {
	if lease == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := lease.Release(ctx); err != nil {
		s.log().Warn("releasing a campaign run lease; it lapses by itself", "err", err)
	}
}

// recoverRun makes sure a sending campaign has a sender. Its usual task
// (one id per campaign) is queued when absent; when that task exists but
// no live run holds the lease (its process died while running it, or it
// waits in the queue), a run under a fresh task id is queued at once;
// when a run holds the lease, a fresh one is queued for just after the
// lease would lapse, in case its holder has just died (it leaves at once
// if the holder is alive).
func (s *Service) recoverRun(ctx context.Context, org, id uuid.UUID) {
	tk := task{OrgID: org, CampaignID: id}
	if existed := s.enqueue(ctx, TaskRun, "campaign-run:"+id.String(), tk, runOptions()...); !existed || s.RunLeases == nil {
		return
	}
	held, err := s.RunLeases.Count(ctx, runSlot(id).Key)
	if err != nil {
		s.log().Warn("reading a campaign run lease", "campaign_id", id, "err", err)
		return
	}
	opts := runOptions()
	if held > 0 {
		opts = append(opts, asynq.ProcessIn(RunLeaseTTL+time.Second))
	}
	s.enqueue(ctx, TaskRun, fmt.Sprintf("campaign-run:%s:%d", id, time.Now().UnixNano()), tk, opts...)
}

func runOptions() []asynq.Option {
	return []asynq.Option{asynq.Timeout(runTimeout), asynq.MaxRetry(100)}
}

// localRuns are the runs of this process by campaign, so that a pause or
// cancel made here stops them at once rather than at their next read of
// the status (other nodes' runs see it within watchInterval).
type localRuns struct {
	mu sync.Mutex
	m  map[uuid.UUID]map[*sender]struct{}
}

func (l *localRuns) add(id uuid.UUID, snd *sender) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[uuid.UUID]map[*sender]struct{}{}
	}
	if l.m[id] == nil {
		l.m[id] = map[*sender]struct{}{}
	}
	l.m[id][snd] = struct{}{}
}

func (l *localRuns) remove(id uuid.UUID, snd *sender) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m[id], snd)
	if len(l.m[id]) == 0 {
		delete(l.m, id)
	}
}

// stop ends the claims of the campaign's runs in this process.
func (l *localRuns) stop(id uuid.UUID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for snd := range l.m[id] {
		snd.stop()
	}
}
