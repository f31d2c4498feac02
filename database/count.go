package database

import (
	"context"
	"database/sql"
	"errors"
	"sort"
	"sync"
	"sync/atomic"

	"entgo.io/ent/dialect"
)

// Statements counts the SQL statements that the work of a context sends
// through the ent client: tests show with it that a list costs a fixed
// number of statements whatever its page size. It also keeps their
// distinct texts (whether a bulk write is one prepared statement
// whatever its size).
type Statements struct {
	n     atomic.Int64
	mu    sync.Mutex
	texts map[string]bool
	// Capture keeps every statement with its arguments (Captured): plan
	// tests EXPLAIN what an operation sent.
	Capture  bool
	captured []Statement
}

// Statement is a captured statement and its arguments.
type Statement struct {
	Query string
	Args  []any
	// Tx tells the statements of one transaction from others' (0: sent
	// outside any): plan tests apply a transaction's SET LOCAL to its own
	// statements only.
	Tx int64
}

// Captured are the statements counted so far with their arguments, in
// order (Capture only).
func (s *Statements) Captured() []Statement {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Statement(nil), s.captured...)
}

// N is the number of statements counted so far.
func (s *Statements) N() int64 { return s.n.Load() }

// Texts are the distinct statement texts counted so far, sorted.
func (s *Statements) Texts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.texts))
	for t := range s.texts {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

type statementsKey struct{}

// CountStatements returns a context whose ent statements are counted in s.
func CountStatements(ctx context.Context, s *Statements) context.Context {
	return context.WithValue(ctx, statementsKey{}, s)
}

func countStatement(ctx context.Context, tx int64, query string, args ...any) {
	if s, ok := ctx.Value(statementsKey{}).(*Statements); ok {
		s.n.Add(1)
		s.mu.Lock()
		if s.texts == nil {
			s.texts = map[string]bool{}
		}
		s.texts[query] = true
		if s.Capture {
			s.captured = append(s.captured, Statement{Query: query, Args: args, Tx: tx})
		}
		s.mu.Unlock()
	}
}

// argList is a driver call's args (ent passes []any) as a list.
func argList(args any) []any {
	a, _ := args.([]any)
	return a
}

// countingDriver counts the statements of contexts made by
// CountStatements; other contexts cost one context lookup.
type countingDriver struct{ dialect.Driver }

func (d countingDriver) Exec(ctx context.Context, query string, args, v any) error {
	countStatement(ctx, 0, query, argList(args)...)
	return d.Driver.Exec(ctx, query, args, v)
}

func (d countingDriver) Query(ctx context.Context, query string, args, v any) error {
	countStatement(ctx, 0, query, argList(args)...)
	return d.Driver.Query(ctx, query, args, v)
}

func (d countingDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	tx, err := d.Driver.Tx(ctx)
	return countingTx{tx, txIDs.Add(1)}, err
}

// BeginTx keeps the transaction options of the driver (ent's Tx with
// options, used for isolation levels).
func (d countingDriver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	b, ok := d.Driver.(interface {
		BeginTx(context.Context, *sql.TxOptions) (dialect.Tx, error)
	})
	if !ok {
		return d.Tx(ctx)
	}
	tx, err := b.BeginTx(ctx, opts)
	return countingTx{tx, txIDs.Add(1)}, err
}

// countingTx is a transaction's statements, numbered from txIDs.
type countingTx struct {
	dialect.Tx
	id int64
}

var txIDs atomic.Int64

func (t countingTx) Exec(ctx context.Context, query string, args, v any) error {
	countStatement(ctx, t.id, query, argList(args)...)
	return t.Tx.Exec(ctx, query, args, v)
}

func (t countingTx) Query(ctx context.Context, query string, args, v any) error {
	countStatement(ctx, t.id, query, argList(args)...)
	return t.Tx.Query(ctx, query, args, v)
}

// execQuerier is the raw access of ent's SQL driver and transactions
// (Client.ExecContext and QueryContext use it).
type execQuerier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

var errNoRawSQL = errors.New("database: the driver offers no raw SQL access")

func execContext(d any, ctx context.Context, tx int64, query string, args []any) (sql.Result, error) {
	countStatement(ctx, tx, query, args...)
	if eq, ok := d.(execQuerier); ok {
		return eq.ExecContext(ctx, query, args...)
	}
	return nil, errNoRawSQL
}

func queryContext(d any, ctx context.Context, tx int64, query string, args []any) (*sql.Rows, error) {
	countStatement(ctx, tx, query, args...)
	if eq, ok := d.(execQuerier); ok {
		return eq.QueryContext(ctx, query, args...)
	}
	return nil, errNoRawSQL
}

// ExecContext runs a raw statement (ent's Client.ExecContext).
func (d countingDriver) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return execContext(d.Driver, ctx, 0, query, args)
}

// QueryContext runs a raw query (ent's Client.QueryContext).
func (d countingDriver) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return queryContext(d.Driver, ctx, 0, query, args)
}

// ExecContext runs a raw statement in the transaction.
func (t countingTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return execContext(t.Tx, ctx, t.id, query, args)
}

// QueryContext runs a raw query in the transaction.
func (t countingTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return queryContext(t.Tx, ctx, t.id, query, args)
}
