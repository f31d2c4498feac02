package database

import (
	"container/list"
	"context"
	"database/sql"
	"sync"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
)

// stmtCacheSize bounds the prepared statements kept per pool.
const stmtCacheSize = 512

// preparingDriver runs ent's queries outside transactions as prepared
// statements, cached by SQL text. lib/pq does not cache statements, and
// on the hot read paths PostgreSQL's parse and plan cost more than the
// execution. Transactions and writes use ent's driver unchanged.
type preparingDriver struct {
	*entsql.Driver
	db *sql.DB

	mu    sync.Mutex
	order *list.List // of *cachedStmt, most recent first
	bySQL map[string]*list.Element
}

type cachedStmt struct {
	query string
	stmt  *sql.Stmt
}

func newPreparingDriver(drv *entsql.Driver) *preparingDriver {
	return &preparingDriver{Driver: drv, db: drv.DB(), order: list.New(), bySQL: map[string]*list.Element{}}
}

// Query implements dialect.Driver.
func (d *preparingDriver) Query(ctx context.Context, query string, args, v any) error {
	rows, ok := v.(*entsql.Rows)
	argv, okArgs := args.([]any)
	if !ok || !okArgs {
		return d.Driver.Query(ctx, query, args, v)
	}
	stmt, err := d.prepare(ctx, query)
	if err != nil {
		return err
	}
	r, err := stmt.QueryContext(ctx, argv...)
	if err != nil {
		return err
	}
	*rows = entsql.Rows{ColumnScanner: r}
	return nil
}

func (d *preparingDriver) prepare(ctx context.Context, query string) (*sql.Stmt, error) {
	d.mu.Lock()
	if el, ok := d.bySQL[query]; ok {
		d.order.MoveToFront(el)
		d.mu.Unlock()
		return el.Value.(*cachedStmt).stmt, nil
	}
	d.mu.Unlock()
	stmt, err := d.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if el, ok := d.bySQL[query]; ok {
		// Prepared concurrently by another request: keep the first.
		_ = stmt.Close()
		return el.Value.(*cachedStmt).stmt, nil
	}
	d.bySQL[query] = d.order.PushFront(&cachedStmt{query: query, stmt: stmt})
	if d.order.Len() > stmtCacheSize {
		oldest := d.order.Remove(d.order.Back()).(*cachedStmt)
		delete(d.bySQL, oldest.query)
		// Close waits for queries in flight on the statement.
		go oldest.stmt.Close()
	}
	return stmt, nil
}

// Close closes the cached statements and the pool.
func (d *preparingDriver) Close() error {
	d.mu.Lock()
	for _, el := range d.bySQL {
		_ = el.Value.(*cachedStmt).stmt.Close()
	}
	d.bySQL = map[string]*list.Element{}
	d.order.Init()
	d.mu.Unlock()
	return d.Driver.Close()
}

var _ dialect.Driver = (*preparingDriver)(nil)
