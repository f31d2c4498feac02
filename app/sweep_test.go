package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"switchboard/internal/testkit"
)

// sweepLog records which sweeps ran on each tick.
type sweepLog struct {
	mu    sync.Mutex
	ticks map[string]int
}

func (l *sweepLog) sweep(name string, err error) func(context.Context) (int, error) {
	return func(context.Context) (int, error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.ticks[name]++
		return 1, err
	}
}

func (l *sweepLog) count(name string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ticks[name]
}

// The regular sweeps run on every tick (a failing one does not stop the
// others); the sweeps after a Redis loss run once when its run_id changes,
// not when it cannot be read; the loop ends with its context.
func TestSweepEvery(t *testing.T) {
	a := &App{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	log := &sweepLog{ticks: map[string]int{}}
	var mu sync.Mutex
	runID, runErr := "first", error(nil)
	setRun := func(id string, err error) { mu.Lock(); runID, runErr = id, err; mu.Unlock() }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		a.sweepEvery(ctx, 5*time.Millisecond,
			func(context.Context) (string, error) { mu.Lock(); defer mu.Unlock(); return runID, runErr },
			sweeps{"ok": log.sweep("ok", nil), "failing": log.sweep("failing", errors.New("down"))},
			sweeps{"lost": log.sweep("lost", nil)})
		close(done)
	}()
	testkit.Eventually(t, "three regular ticks", func() bool { return log.count("ok") >= 3 && log.count("failing") >= 3 })
	setRun("", errors.New("unreadable"))
	testkit.Eventually(t, "ticks with run_id unknown", func() bool { return log.count("ok") >= 6 })
	if n := log.count("lost"); n != 0 {
		t.Fatalf("sweeps after a loss ran %d times while Redis stayed the same or was unreadable", n)
	}
	setRun("second", nil)
	testkit.Eventually(t, "the sweep after a loss", func() bool { return log.count("lost") == 1 })
	ok := log.count("ok")
	testkit.Eventually(t, "three more ticks", func() bool { return log.count("ok") >= ok+3 })
	cancel()
	<-done
	if n := log.count("lost"); n != 1 {
		t.Fatalf("sweeps after a loss ran %d times, want 1", n)
	}
}
