package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"switchboard/bench/internal/fakeplatform"
)

// startSpread starts campaign i through server process i (mod their
// number) while the other processes are stopped with SIGSTOP, so that
// only process i can take the campaign's run task; they continue once
// the fake has received the campaign's first send.
func startSpread(ctx context.Context, cfg config, a *api, p *fakeplatform.Platform, ids []string) error {
	pids := make([]int, len(cfg.pidFiles))
	for i, f := range cfg.pidFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("-spread: %w", err)
		}
		if pids[i], err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
			return fmt.Errorf("-spread: %s: %w", f, err)
		}
	}
	for n, id := range ids {
		i := n % len(pids)
		var stopped []int
		for j, pid := range pids {
			if j != i {
				if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
					resume(stopped)
					return fmt.Errorf("-spread: SIGSTOP %d: %w", pid, err)
				}
				stopped = append(stopped, pid)
			}
		}
		err := func() error {
			defer resume(stopped)
			sa := *a
			sa.Base = cfg.urls[i]
			if err := sa.campaignAction(ctx, id, "start"); err != nil {
				return fmt.Errorf("starting campaign %s on %s: %w", id, sa.Base, err)
			}
			prefix := "cmp:" + id + ":"
			deadline := time.Now().Add(30 * time.Second)
			for time.Now().Before(deadline) {
				for _, s := range p.Sends() {
					if strings.HasPrefix(s.Callback, prefix) {
						logf("campaign %s started on server process %d (pid %d)", id, i+1, pids[i])
						return nil
					}
				}
				time.Sleep(50 * time.Millisecond)
			}
			return fmt.Errorf("campaign %s: no send within 30 s of its start on server process %d", id, i+1)
		}()
		if err != nil {
			return err
		}
	}
	return nil
}

func resume(pids []int) {
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGCONT)
	}
}
