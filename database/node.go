package database

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/ent/migrate"
)

// Node loads the entity id names, under ctx's privacy rules (another
// tenant's id is not found). UUIDs carry no type, so one probe query
// finds the table holding id first.
func Node(ctx context.Context, root *ent.Client, id uuid.UUID) (ent.Noder, error) {
	db := ClientFor(ctx, root)
	return db.Noder(ctx, id, ent.WithNodeType(func(ctx context.Context, id uuid.UUID) (string, error) {
		return nodeTable(ctx, db, id)
	}))
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

func nodeTable(ctx context.Context, db *ent.Client, id uuid.UUID) (string, error) {
	rows, err := db.QueryContext(ctx, nodeProbe(), id)
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
