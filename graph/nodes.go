package graph

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/migrate"
)

// Node resolves a Relay node by UUID. UUIDs carry no type, so one probe
// query finds the table holding the id, then the typed load runs under the
// viewer's privacy rules: another tenant's id is simply not found.
func (r *Resolver) Node(ctx context.Context, id uuid.UUID) (ent.Noder, error) {
	n, err := r.db(ctx).Noder(ctx, id, ent.WithNodeType(r.nodeTable))
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

var (
	probeOnce  sync.Once
	probeQuery string
)

// nodeProbe builds a UNION over every entity table with a uuid id.
func nodeProbe() string {
	probeOnce.Do(func() {
		var parts []string
		for _, t := range migrate.Tables {
			if len(t.PrimaryKey) != 1 || t.PrimaryKey[0].Name != "id" {
				continue
			}
			parts = append(parts, fmt.Sprintf("SELECT '%s' AS t FROM %s WHERE id = $1", t.Name, t.Name))
		}
		probeQuery = strings.Join(parts, " UNION ALL ") + " LIMIT 1"
	})
	return probeQuery
}

func (r *Resolver) nodeTable(ctx context.Context, id uuid.UUID) (string, error) {
	rows, err := r.db(ctx).QueryContext(ctx, nodeProbe(), id)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	if !rows.Next() {
		return "", &ent.NotFoundError{}
	}
	var table string
	if err := rows.Scan(&table); err != nil {
		return "", err
	}
	return table, rows.Close()
}
