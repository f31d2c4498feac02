package calling

import (
	"context"

	"switchboard/ent/calllog"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
)

// sweepEvery is how often a node looks for calls no node holds.
const sweepEvery = ownerTTL

// sweepOrphans ends the open calls whose node died: their claim in Redis
// expired and no node serves them, so their logs would stay "answered"
// forever and their transfers "waiting". Every node sweeps (every
// sweepEvery); ending a call is idempotent.
func (m *Manager) sweepOrphans(ctx context.Context) {
	if n, err := m.SweepOrphans(ctx); err != nil && ctx.Err() == nil {
		m.Log.Warn("sweeping orphaned calls failed", "error", err)
	} else if n > 0 {
		m.Log.Info("ended calls whose node is gone", "count", n)
	}
}

// SweepOrphans ends the open calls that no node claims (their node died),
// leaving calls younger than a claim's lifetime alone (their node may be
// answering them). It returns how many it ended.
func (m *Manager) SweepOrphans(ctx context.Context) (int, error) {
	bctx := rule.Bypass(ctx, "finding calls whose node died, in every organization")
	open, err := m.Client.CallLog.Query().Where(calllog.EndedAtIsNil(),
		calllog.StatusIn(calllog.StatusRinging, calllog.StatusAnswered),
		calllog.CreatedAtLT(m.now().Add(-ownerTTL))).
		Select(calllog.FieldID, calllog.FieldOrganizationID, calllog.FieldAnsweredAt).All(bctx)
	if err != nil {
		return 0, err
	}
	ended := 0
	for _, l := range open {
		if m.local(l.ID) != nil {
			continue
		}
		n, err := m.Redis.Exists(ctx, m.ownerKey(l.ID)).Result()
		if err != nil {
			return ended, err
		}
		if n > 0 {
			continue
		}
		status := calllog.StatusFailed
		if l.AnsweredAt != nil {
			status = calllog.StatusCompleted
		}
		m.finish(viewer.SystemContext(ctx, l.OrganizationID), l.ID, status, BySystem)
		ended++
	}
	return ended, nil
}
