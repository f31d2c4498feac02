package testkit

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"switchboard/database"
)

// PlanNode is one node of a PostgreSQL plan: its type ("Index Scan",
// "Bitmap Index Scan", "Seq Scan", ...), the table and the index it reads.
type PlanNode struct {
	Type, Relation, Index string
	// IndexCond is the node's index condition as EXPLAIN prints it (an
	// index or bitmap index scan's).
	IndexCond string
}

func (n PlanNode) String() string {
	return strings.TrimSpace(fmt.Sprintf("%s %s %s", n.Type, n.Relation, n.Index))
}

// Plans runs op with its statements captured and returns the plan of each
// SELECT it sent, EXPLAINed (FORMAT JSON) on db with the same arguments:
// plan tests assert that a list's queries read their index, so that a
// later query change cannot fall back to a scan unnoticed.
func Plans(tb testing.TB, ctx context.Context, db *sql.DB, op func(context.Context) error) map[string][]PlanNode {
	tb.Helper()
	return plansOf(tb, ctx, db, op, "SELECT", "WITH")
}

// WritePlans is Plans for the UPDATE and DELETE statements op sent (the
// sweeps that change rows in every organization): EXPLAIN without
// ANALYZE plans a write without running it again.
func WritePlans(tb testing.TB, ctx context.Context, db *sql.DB, op func(context.Context) error) map[string][]PlanNode {
	tb.Helper()
	return plansOf(tb, ctx, db, op, "UPDATE", "DELETE")
}

// plansOf explains the statements of op that begin with one of verbs.
func plansOf(tb testing.TB, ctx context.Context, db *sql.DB, op func(context.Context) error, verbs ...string) map[string][]PlanNode {
	tb.Helper()
	st := &database.Statements{Capture: true}
	if err := op(database.CountStatements(ctx, st)); err != nil {
		tb.Fatal(err)
	}
	out := map[string][]PlanNode{}
	settings := map[int64][]string{} // by transaction
	for _, s := range st.Captured() {
		q := strings.TrimSpace(s.Query)
		if strings.HasPrefix(q, "SET LOCAL") && s.Tx != 0 {
			settings[s.Tx] = append(settings[s.Tx], q)
			continue
		}
		if !hasPrefix(q, verbs) {
			continue // a WITH that writes is not one of the reads plan tests send
		}
		var set []string
		if s.Tx != 0 {
			set = settings[s.Tx]
		}
		out[s.Query] = explainIn(tb, db, set, s.Query, s.Args...)
	}
	return out
}

func hasPrefix(q string, verbs []string) bool {
	for _, v := range verbs {
		if strings.HasPrefix(q, v) {
			return true
		}
	}
	return false
}

// explainIn explains query in a transaction that first applies settings,
// the SET LOCAL statements the operation sent before it in the same
// transaction.
func explainIn(tb testing.TB, db *sql.DB, settings []string, query string, args ...any) []PlanNode {
	tb.Helper()
	if len(settings) == 0 {
		return Explain(tb, db, query, args...)
	}
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	for _, s := range settings {
		if _, err := tx.Exec(s); err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
	}
	return explainOn(tb, tx, query, args...)
}

// Explain returns the nodes of query's plan, depth first.
func Explain(tb testing.TB, db *sql.DB, query string, args ...any) []PlanNode {
	tb.Helper()
	return explainOn(tb, db, query, args...)
}

func explainOn(tb testing.TB, db interface {
	QueryRow(string, ...any) *sql.Row
}, query string, args ...any) []PlanNode {
	tb.Helper()
	var raw []byte
	if err := db.QueryRow("EXPLAIN (FORMAT JSON) "+query, args...).Scan(&raw); err != nil {
		tb.Fatalf("explain %s: %v", query, err)
	}
	var plans []struct {
		Plan planJSON `json:"Plan"`
	}
	if err := json.Unmarshal(raw, &plans); err != nil || len(plans) != 1 {
		tb.Fatalf("explain %s: %v (%s)", query, err, raw)
	}
	var nodes []PlanNode
	var walk func(p planJSON)
	walk = func(p planJSON) {
		nodes = append(nodes, PlanNode{Type: p.NodeType, Relation: p.RelationName, Index: p.IndexName, IndexCond: p.IndexCond})
		for _, c := range p.Plans {
			walk(c)
		}
	}
	walk(plans[0].Plan)
	return nodes
}

type planJSON struct {
	NodeType     string     `json:"Node Type"`
	RelationName string     `json:"Relation Name"`
	IndexName    string     `json:"Index Name"`
	IndexCond    string     `json:"Index Cond"`
	Plans        []planJSON `json:"Plans"`
}

// UsesIndex reports whether nodes read index, and that no node scans
// table sequentially.
func UsesIndex(nodes []PlanNode, table, index string) bool {
	found := false
	for _, n := range nodes {
		if n.Type == "Seq Scan" && n.Relation == table {
			return false
		}
		if n.Index == index {
			found = true
		}
	}
	return found
}

// AssertReadsIndex fails unless some statement of plans reads table
// through index and none scans table sequentially: for a statement
// without a page (a sweep) that must find its few rows in a partial
// index instead of reading the table.
func AssertReadsIndex(tb testing.TB, plans map[string][]PlanNode, table, index string) {
	tb.Helper()
	read := false
	for q, nodes := range plans {
		for _, n := range nodes {
			if n.Type == "Seq Scan" && n.Relation == table {
				tb.Errorf("%s\nscans %s: %v", q, table, nodes)
			}
		}
		read = read || UsesIndex(nodes, table, index)
	}
	if !read {
		tb.Errorf("no statement reads %s: %v", index, plans)
	}
}
