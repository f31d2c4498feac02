package graph

import (
	"context"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
)

// Node resolves a Relay node by UUID under the viewer's privacy rules:
// another tenant's id is simply not found.
func (r *Resolver) Node(ctx context.Context, id uuid.UUID) (ent.Noder, error) {
	n, err := database.Node(ctx, r.Client, id)
	if err != nil {
		return nil, apperr.Wrap(err, "node")
	}
	return n, r.nodeVisible(ctx, n)
}

// nodeVisible applies the row rules that are not tenancy: call logs and
// call transfers a member without call_logs:read may not see are not
// found (package calling decides, as for its lists).
func (r *Resolver) nodeVisible(ctx context.Context, n ent.Noder) error {
	switch n := n.(type) {
	case *ent.CallLog:
		return r.Calling.CheckCallLog(ctx, n.ID)
	case *ent.CallTransfer:
		if _, err := r.Calling.CallTransfer(ctx, n.ID); err != nil {
			return err
		}
	}
	return nil
}

// Nodes resolves several nodes; unknown ids give null entries.
func (r *Resolver) Nodes(ctx context.Context, ids []uuid.UUID) ([]ent.Noder, error) {
	out := make([]ent.Noder, len(ids))
	for i, id := range ids {
		n, err := r.Node(ctx, id)
		if err != nil && apperr.CodeOf(err) != apperr.NotFound {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}
