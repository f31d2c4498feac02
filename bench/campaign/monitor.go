package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"switchboard/bench/internal/fakeplatform"
)

// monitor follows a run: kills, the command run during it, the window,
// the end.
type monitor struct {
	cfg   config
	a     *api
	st    *store
	p     *fakeplatform.Platform
	ids   []string
	start time.Time
	r     *report
	// owners maps the fake's client ports to the server processes.
	owners *portOwners

	winFrom, winTo time.Time
}

// watch returns when the run is over: the window closed (campaigns
// cancelled), or every recipient final, or nothing pending and the rows
// left sending unchanged for -settle.
func (m *monitor) watch(ctx context.Context) error {
	cfg := m.cfg
	var during chan error
	if cfg.duringCmd != "" {
		during = make(chan error, 1)
		m.winFrom = time.Now()
		logf("running %s", cfg.duringCmd)
		go func() { during <- shell(ctx, cfg.duringCmd, os.Stdout) }()
	}
	if cfg.window > 0 {
		m.winFrom = m.start.Add(cfg.warmup)
		m.winTo = m.winFrom.Add(cfg.window)
	}
	killBase, nextKill := 0, 0
	var stuckSince time.Time
	var stuckCount int64 = -1
	lastLog := time.Now()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			if !m.winTo.IsZero() && m.winTo.After(time.Now()) || during != nil {
				m.winTo = time.Now() // interrupted: the window ends here
			}
			return ctx.Err()
		case err := <-during:
			m.winTo = time.Now()
			if err != nil {
				return fmt.Errorf("-during-cmd: %w", err)
			}
			logf("-during-cmd finished after %.1f s; cancelling the campaigns", m.winTo.Sub(m.winFrom).Seconds())
			return m.cancel(ctx)
		case <-tick.C:
		}
		now := time.Now()
		if m.owners != nil {
			m.owners.sample()
		}
		accepted := m.p.Accepted()
		if cfg.window > 0 && now.After(m.winTo) {
			logf("window closed (%d sends accepted); cancelling the campaigns", accepted)
			return m.cancel(ctx)
		}
		if nextKill < len(cfg.killAt) && accepted >= killBase+int(cfg.killAt[nextKill]*float64(cfg.recipients-killBase)) {
			k := kill{AtAccepted: accepted, AtSeconds: now.Sub(m.start).Seconds()}
			logf("kill %d at %d sends accepted (%.1f s): %s", nextKill+1, accepted, k.AtSeconds, cfg.killCmd)
			began := time.Now()
			if err := shell(ctx, cfg.killCmd, os.Stderr); err != nil {
				return fmt.Errorf("-kill-cmd: %w", err)
			}
			k.TookSeconds = time.Since(began).Seconds()
			k.AcceptedAfterRestart = m.p.Accepted()
			m.r.Kills = append(m.r.Kills, k)
			killBase = accepted
			nextKill++
			continue
		}
		if cfg.window > 0 || during != nil {
			continue
		}
		c, err := m.st.count(ctx, m.ids)
		if err != nil {
			logf("counting recipients: %v", err)
			continue
		}
		if time.Since(lastLog) > 10*time.Second {
			lastLog = time.Now()
			logf("+%.0f s: %d accepted by the fake; recipients %v", now.Sub(m.start).Seconds(), accepted, c)
		}
		if c["pending"] > 0 {
			stuckSince, stuckCount = time.Time{}, -1
			continue
		}
		if c["sending"] == 0 {
			if done, err := m.allEnded(ctx); err != nil || done {
				return err
			}
			continue
		}
		if c["sending"] != stuckCount {
			stuckSince, stuckCount = now, c["sending"]
			continue
		}
		if now.Sub(stuckSince) > cfg.settle {
			logf("nothing pending; %d recipients left sending for %s: ending the run", stuckCount, cfg.settle)
			return nil
		}
	}
}

// allEnded reports whether every campaign left sending.
func (m *monitor) allEnded(ctx context.Context) (bool, error) {
	for _, id := range m.ids {
		c, err := m.a.campaign(ctx, id)
		if err != nil {
			return false, err
		}
		if c.Status == "sending" {
			return false, nil
		}
	}
	return true, nil
}

func (m *monitor) cancel(ctx context.Context) error {
	for _, id := range m.ids {
		if err := m.a.campaignAction(ctx, id, "cancel"); err != nil {
			return fmt.Errorf("cancelling campaign %s: %w", id, err)
		}
	}
	return nil
}

// finish fills in the report from the fake's sends and the database.
func (m *monitor) finish(ctx context.Context) {
	r := m.r
	time.Sleep(500 * time.Millisecond) // the sends in flight at a cancel
	sends := m.p.Sends()
	r.Accepted = len(sends)
	r.WallSeconds = time.Since(m.start).Seconds()
	r.Overall, r.Sustained = overallRate(sends)
	if !m.winFrom.IsZero() && !m.winTo.IsZero() {
		w := windowRate(sends, m.winFrom, m.winTo)
		r.Window = &w
		for _, id := range m.ids {
			prefix := "cmp:" + id + ":"
			var mine []fakeplatform.Send
			for _, s := range sends {
				if strings.HasPrefix(s.Callback, prefix) {
					mine = append(mine, s)
				}
			}
			pw := windowRate(mine, m.winFrom, m.winTo)
			r.WindowByCampaign = append(r.WindowByCampaign, pw)
		}
		if m.owners != nil && len(m.owners.files) > 1 {
			byProc := make([][]fakeplatform.Send, len(m.owners.files))
			for _, s := range sends {
				if i := m.owners.of(s.From); i >= 0 {
					byProc[i] = append(byProc[i], s)
				} else {
					r.UnattributedSends++
				}
			}
			for _, mine := range byProc {
				r.WindowByProcess = append(r.WindowByProcess, windowRate(mine, m.winFrom, m.winTo))
			}
		}
	}
	stats := m.p.Fake.SendStats()
	r.Received = stats.Received
	r.DistinctRecipients = len(stats.ByRecipient)
	for to, c := range stats.ByRecipient {
		if c.Accepted > 1 {
			r.RecipientsSentTwice++
			if len(r.SentTwiceSample) < 20 {
				r.SentTwiceSample = append(r.SentTwiceSample, to)
			}
		}
		if c.Received > 1 {
			r.RecipientsRequestedTwice++
		}
	}
	sort.Strings(r.SentTwiceSample)
	c, err := m.st.count(ctx, m.ids)
	if err != nil {
		r.Errors = append(r.Errors, "counting recipients: "+err.Error())
	}
	r.ByStatus = c
	for _, id := range m.ids {
		if cs, err := m.a.campaign(ctx, id); err == nil {
			r.CampaignStatus = append(r.CampaignStatus, cs.Status)
		} else {
			r.Errors = append(r.Errors, err.Error())
		}
	}
	sending, err := m.st.sending(ctx, m.ids)
	if err != nil {
		r.Errors = append(r.Errors, "reading rows left sending: "+err.Error())
	}
	for _, row := range sending {
		if stats.ByCallback[row.callback()].Accepted > 0 {
			r.SendingButAccepted++
		} else {
			r.SendingNeverReached++
		}
	}
	if reasons, err := m.st.failReasons(ctx, m.ids); err == nil {
		r.FailReasons = reasons
	}
}

// shell runs a command through sh, its output on stdout, its errors on
// stderr.
func shell(ctx context.Context, cmdline string, stdout io.Writer) error {
	cmd := exec.CommandContext(ctx, "sh", "-c", cmdline)
	cmd.Stdout, cmd.Stderr = stdout, os.Stderr
	return cmd.Run()
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "campaign: "+time.Now().Format("15:04:05.000")+" "+format+"\n", args...)
}
