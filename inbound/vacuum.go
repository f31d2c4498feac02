package inbound

import (
	"context"
	"time"
)

// DefaultVacuumEvery is how often a node vacuums the deliveries table.
const DefaultVacuumEvery = 10 * time.Second

// vacuumLoop keeps the deliveries table compact while it works as a
// queue: every delivery is inserted once and deleted once, so at 2,000
// deliveries a second it gathers dead rows far faster than autovacuum
// (which visits a database once a minute) removes them, and both the
// INSERTs of the ack path and the drainers' scans slow down over dead
// rows and index entries. SKIP_LOCKED: a node finding another vacuuming
// skips its turn. PARALLEL 0: PostgreSQL otherwise starts a worker process
// for the indexes' cleanup each time, a few megabytes of them, which cost
// more than the vacuum (an empty table: 8-44 ms against 1-2 ms without
// it, every 10 s, each a stall of the reads beside it; bench/scale).
func (s *Service) vacuumLoop(ctx context.Context) {
	every := s.VacuumEvery
	if every <= 0 {
		every = DefaultVacuumEvery
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if _, err := s.Client.ExecContext(ctx, "VACUUM (SKIP_LOCKED, PARALLEL 0) inbound_events"); err != nil && ctx.Err() == nil {
				s.Log.Warn("inbound: vacuuming the deliveries table", "err", err)
			}
		}
	}
}
