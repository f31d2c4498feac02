package inbound

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"switchboard/ent"
	"switchboard/ent/inboundevent"
	"switchboard/ent/rule"
	"switchboard/kv"
)

// drainers is how many goroutines of a worker node drain the lanes; lane
// v belongs to drainer v % drainers on every node, and a drainer's batch
// holds a PostgreSQL advisory lock, so across nodes one lane is still
// processed by one drainer at a time.
const drainers = 2

// drainBatch caps the deliveries processed in one transaction.
const drainBatch = 512

// maxAttempts is how often a delivery that makes its batch fail is tried
// on its own before it is set aside as failed, so one poison delivery does
// not stop its lane.
const maxAttempts = 5

// pollInterval is how often an idle drainer looks for work it was not
// woken for (a wake lost with Redis, a delivery stored by a node that
// died before waking anyone).
const pollInterval = time.Second

// drainGather is the least time between the starts of a drainer's
// batches (unless the last one was full): under load a batch then carries
// the deliveries of drainGather, and the fixed cost of its transaction
// and statements is shared by all of them, at a latency of at most
// drainGather.
const drainGather = 40 * time.Millisecond

// busyRetry is the pause before a drainer retries a lane another node is
// draining.
const busyRetry = 25 * time.Millisecond

// lockClass is the first key of the drainers' advisory locks.
const lockClass = 0x53424958

type wakeMessage struct {
	Node     string `json:"node"`
	Drainers []int  `json:"drainers"`
}

// Run drains the lanes until ctx is done: stored deliveries are processed
// in order within a lane, lanes in parallel. A node that runs workers runs
// it once.
func (s *Service) Run(ctx context.Context) {
	signals := make([]chan struct{}, drainers)
	for i := range signals {
		signals[i] = make(chan struct{}, 1)
	}
	s.recv.mu.Lock()
	s.recv.signals = signals
	s.recv.mu.Unlock()
	defer func() {
		s.recv.mu.Lock()
		s.recv.signals = nil
		s.recv.mu.Unlock()
	}()
	done := make(chan struct{})
	if s.Redis != nil {
		go func() { s.listenWakes(ctx, signals); close(done) }()
	} else {
		close(done)
	}
	vacuumed := make(chan struct{})
	if s.Postgres {
		go func() { s.vacuumLoop(ctx); close(vacuumed) }()
	} else {
		close(vacuumed)
	}
	finished := make(chan struct{}, drainers)
	for i := range drainers {
		go func() { s.drainLoop(ctx, i, signals[i]); finished <- struct{}{} }()
	}
	for range drainers {
		<-finished
	}
	<-vacuumed
	<-done
}

func (s *Service) drainLoop(ctx context.Context, i int, signal <-chan struct{}) {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	var last time.Time
	for {
		if wait := drainGather - time.Since(last); wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		last = time.Now()
		s.drain(ctx, i)
		select {
		case <-ctx.Done():
			return
		case <-signal:
		case <-tick.C:
		}
	}
}

// drain processes drainer i's lanes until they are empty.
func (s *Service) drain(ctx context.Context, i int) {
	for ctx.Err() == nil {
		n, busy, err := s.drainOnce(ctx, i)
		switch {
		case err != nil:
			if ctx.Err() == nil {
				s.Log.Error("inbound: draining a lane; retrying", "drainer", i, "err", err)
			}
			return
		case busy:
			select {
			case <-ctx.Done():
			case <-time.After(busyRetry):
			}
		case n < drainBatch:
			return
		}
	}
}

// drainOnce processes the oldest pending deliveries of drainer i's lanes
// in one transaction. busy: another node holds the lanes.
func (s *Service) drainOnce(ctx context.Context, i int) (n int, busy bool, err error) {
	start := time.Now()
	bctx := rule.Bypass(ctx, "draining stored webhook deliveries")
	tx, err := s.Client.Tx(bctx)
	if err != nil {
		return 0, false, err
	}
	defer func() {
		if err != nil || busy || n == 0 {
			_ = tx.Rollback()
		}
	}()
	if s.Postgres {
		if locked, err := tryLock(bctx, tx, i); err != nil || !locked {
			return 0, err == nil, err
		}
	}
	var evs []*ent.InboundEvent
	if s.Postgres {
		evs, err = pgPending(bctx, tx, lanesOf(i), drainBatch)
	} else {
		evs, err = tx.InboundEvent.Query().
			Where(inboundevent.StatusEQ(inboundevent.StatusPending), inboundevent.LaneIn(lanesOf(i)...)).
			Order(ent.Asc(inboundevent.FieldCreatedAt), ent.Asc(inboundevent.FieldID)).
			Limit(drainBatch).
			// What processing reads: the payloads only for the deliveries
			// whose parse is not in parsedCache (parsedPayloads).
			Select(inboundevent.FieldID, inboundevent.FieldCreatedAt, inboundevent.FieldAttempts,
				inboundevent.FieldDedupeKey).
			All(bctx)
	}
	if err != nil || len(evs) == 0 {
		return 0, false, err
	}
	if perr := s.processBatch(ctx, tx, evs); perr != nil {
		_ = tx.Rollback()
		return len(evs), false, s.processOneByOne(ctx, evs, perr)
	}
	if err := tx.Commit(); err != nil {
		return 0, false, err
	}
	s.observeDrain(len(evs), start, evs[0].CreatedAt)
	return len(evs), false, nil
}

// processOneByOne retries a failed batch a delivery at a time, in order,
// so the deliveries before a poison one are stored and the poison one is
// set aside after maxAttempts. It stops at the first delivery that fails
// and may still succeed, to keep the lane's order.
func (s *Service) processOneByOne(ctx context.Context, evs []*ent.InboundEvent, batchErr error) error {
	bctx := rule.Bypass(ctx, "retrying stored webhook deliveries one by one")
	for _, ev := range evs {
		err := s.processAlone(ctx, ev)
		if err == nil {
			continue
		}
		upd := s.Client.InboundEvent.UpdateOneID(ev.ID).AddAttempts(1).SetError(truncate(err.Error(), 1000))
		if ev.Attempts+1 >= maxAttempts {
			upd.SetStatus(inboundevent.StatusFailed)
			s.Log.Error("inbound: webhook delivery set aside after repeated failures", "event_id", ev.ID, "err", err)
		}
		if uerr := upd.Exec(bctx); uerr != nil {
			return errors.Join(batchErr, err, uerr)
		}
		if ev.Attempts+1 < maxAttempts {
			return err
		}
	}
	return nil
}

func (s *Service) processAlone(ctx context.Context, ev *ent.InboundEvent) error {
	tx, err := s.Client.Tx(rule.Bypass(ctx, "processing one stored webhook delivery"))
	if err != nil {
		return err
	}
	if err := s.processBatch(ctx, tx, []*ent.InboundEvent{ev}); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// tryLock takes drainer i's advisory lock for the transaction, and makes
// its commit asynchronous: the batch is derived from deliveries that are
// durable already and removes them in the same transaction, so a
// database crash that loses the commit leaves them pending, to be
// processed again; nothing is lost, and the drainers do not wait for WAL
// flushes the acknowledgements need. The batch's statements are planned
// for their values each time (they are still prepared once per
// connection): a generic plan made while a table was nearly empty (a
// sequential scan) stays cached until the table is analysed, and the
// tables this work fills grow by thousands of rows a second.
func tryLock(ctx context.Context, tx *ent.Tx, i int) (bool, error) {
	rows, err := tx.QueryContext(ctx, "SELECT pg_try_advisory_xact_lock($1, $2), "+
		"set_config('synchronous_commit', 'off', true), set_config('plan_cache_mode', 'force_custom_plan', true)",
		lockClass, i)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	var (
		locked           bool
		commit, planning string
	)
	if rows.Next() {
		err = rows.Scan(&locked, &commit, &planning)
	}
	if err == nil {
		err = rows.Err()
	}
	return locked, err
}

// lanesOf lists the lanes of drainer i.
func lanesOf(i int) []int {
	var out []int
	for v := i; v < Lanes; v += drainers {
		out = append(out, v)
	}
	return out
}

// wake tells the drainers of lanes that work is stored: this node's when
// it runs them, otherwise other nodes' through Redis (a drainer busy
// elsewhere retries on its own, so a node with drainers publishes
// nothing: a round trip saved per group commit). A lost wake only delays
// the work until the next poll.
func (s *Service) wake(ctx context.Context, lanes []int) {
	seen := [drainers]bool{}
	var ids []int
	for _, l := range lanes {
		if i := l % drainers; !seen[i] {
			seen[i] = true
			ids = append(ids, i)
		}
	}
	s.recv.mu.Lock()
	signals := s.recv.signals
	s.recv.mu.Unlock()
	if signals != nil {
		for _, i := range ids {
			select {
			case signals[i] <- struct{}{}:
			default:
			}
		}
		return
	}
	if s.Redis == nil {
		return
	}
	msg, _ := json.Marshal(wakeMessage{Node: s.nodeID(), Drainers: ids})
	if err := s.Redis.Publish(ctx, s.wakeChannel(), msg).Err(); err != nil {
		s.Log.Debug("inbound: publishing a wake", "err", err)
	}
}

// drainsHere reports whether this node runs drainers.
func (s *Service) drainsHere() bool {
	s.recv.mu.Lock()
	defer s.recv.mu.Unlock()
	return s.recv.signals != nil
}

// listenWakes turns other nodes' wakes into local signals.
func (s *Service) listenWakes(ctx context.Context, signals []chan struct{}) {
	for ctx.Err() == nil {
		if ps, err := kv.Subscribe(ctx, s.Redis, s.wakeChannel(), wakeIdle); err == nil {
			_ = kv.Receive(ctx, ps, wakeIdle, func(m *redis.Message) { s.forwardWake(m, signals) })
			_ = ps.Close()
		}
		select {
		case <-ctx.Done():
		case <-time.After(pollInterval):
		}
	}
}

// wakeIdle is how long the wake subscription may be quiet before it is
// pinged, and how long Redis may take to confirm it.
const wakeIdle = 15 * time.Second

// forwardWake signals the local drainers another node's wake names.
func (s *Service) forwardWake(m *redis.Message, signals []chan struct{}) {
	var w wakeMessage
	if json.Unmarshal([]byte(m.Payload), &w) != nil || w.Node == s.nodeID() {
		return
	}
	for _, i := range w.Drainers {
		if i >= 0 && i < len(signals) {
			select {
			case signals[i] <- struct{}{}:
			default:
			}
		}
	}
}

func (s *Service) wakeChannel() string { return s.Prefix + "inbound:wake" }

// nodeID names this process in wakes, so it ignores its own.
func (s *Service) nodeID() string {
	s.recv.nodeOnce.Do(func() { s.recv.node = uuid.NewString() })
	return s.recv.node
}
