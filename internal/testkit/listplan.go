package testkit

import (
	"strings"
	"testing"
)

// ListPlan is what a plan test asserts of the statements one list
// operation sent (Plans): its page query (the statement with a LIMIT
// that reads Table) reads one of Indexes and never scans Table
// sequentially, and no statement but the list's total scans Table
// sequentially (the names a page loads, the queue counts).
type ListPlan struct {
	Table   string
	Indexes []string
	// SortOK accepts a Sort node in the page query: a case whose filter
	// selects a bounded working set (say, the open transfers) may sort
	// what the index found; a first page of the whole history may not.
	// An Incremental Sort is always accepted: its input is already in
	// the index's order (its presorted key), and under the LIMIT it
	// reads only the groups of the page.
	SortOK bool
	// IndexOnly requires the page query to read the index alone (Index
	// Only Scan): a deep page's ids (database.PageAt), whose offset skips
	// index entries and not rows.
	IndexOnly bool
}

// Check asserts p of plans and logs the plans of the page queries and of
// the totals: a bounded total (database.CountUpTo, SELECT 1 ... LIMIT)
// reads at most the bound, in any order; an unbounded one (SELECT
// COUNT(...), ent's Count) may still read every row of the filter, and is
// logged, not asserted.
func (p ListPlan) Check(tb testing.TB, plans map[string][]PlanNode) {
	tb.Helper()
	read, page := false, false
	for q, nodes := range plans {
		if !reads(nodes, p.Table) {
			continue
		}
		if strings.HasPrefix(q, "SELECT COUNT(") {
			tb.Logf("total: %v", nodes)
			continue
		}
		if strings.HasPrefix(q, "SELECT 1 FROM") && nodes[0].Type == "Limit" {
			// A bounded total (database.CountUpTo): whatever it reads,
			// it stops at the bound.
			tb.Logf("bounded total: %v", nodes)
			continue
		}
		for _, n := range nodes {
			if n.Type == "Seq Scan" && n.Relation == p.Table {
				tb.Errorf("%s\nscans %s: %v", q, p.Table, nodes)
			}
		}
		if !strings.Contains(q, " LIMIT ") {
			continue
		}
		page = true
		tb.Logf("page: %v", nodes)
		for _, n := range nodes {
			if n.Type == "Sort" && !p.SortOK {
				tb.Errorf("%s\nsorts the rows it found: %v", q, nodes)
			}
		}
		for _, ix := range p.Indexes {
			read = read || UsesIndex(nodes, p.Table, ix) && (!p.IndexOnly || readsOnly(nodes, ix))
		}
	}
	if !page {
		tb.Errorf("no page query reads %s", p.Table)
	} else if !read {
		tb.Errorf("no page query reads %v", p.Indexes)
	}
}

// readsOnly reports whether nodes read index with an index-only scan.
func readsOnly(nodes []PlanNode, index string) bool {
	for _, n := range nodes {
		if n.Index == index && n.Type == "Index Only Scan" {
			return true
		}
	}
	return false
}

func reads(nodes []PlanNode, table string) bool {
	for _, n := range nodes {
		if n.Relation == table {
			return true
		}
	}
	return false
}
