package database

import (
	"container/list"
	"context"
	"database/sql/driver"
	"errors"

	"github.com/lib/pq"

	"switchboard/ent"
)

// The bounds of each connection's statement cache. A statement's weight
// is its text and its parameters' types (what lib/pq keeps of it, with
// the result's columns, and what the cache's map keys), so the memory of
// all connections' caches is bounded whatever texts the program builds:
// ent's bulk INSERTs and IN lists make a new text for every number of
// rows, and without a bound in bytes those texts, kilobytes each, filled
// up to 128 entries on every connection over the minutes of a soak, the
// heap's only growth.
const (
	stmtCacheSize  = 128       // statements per connection
	stmtCacheBytes = 256 << 10 // their weight per connection
	// maxCachedQuery: a longer text (a statement built for its number of
	// rows) is not cached: lib/pq prepares it unnamed for the one call.
	maxCachedQuery = 8 << 10
)

// cachingConnector gives every PostgreSQL connection a cache of prepared
// statements by SQL text, used for every statement with parameters, in
// transactions or not. lib/pq caches none: it sends a parameterised
// statement as a Parse round trip and then an Execute round trip, and
// PostgreSQL parses and plans it each time, which cost more than many of
// the executions (a fifth of the database's CPU under webhook load). A
// cached statement takes one round trip and no parsing. Statements without
// parameters keep lib/pq's simple protocol (several statements at once).
//
// Each connection plans every execution with its parameters
// (connectionSQL): after five executions of a prepared statement
// PostgreSQL may switch to a generic plan, one for any value, costed for
// an average organization. Organizations are not alike (one of a million
// contacts beside a hundred of a hundred), and a generic plan was seconds
// where the statement's own plan is milliseconds: under 20 readers at a
// million contacts a name search ANDed the organization's whole index
// into its trigram bitmap (1.2 s p50, 17 ms alone), and the message
// search's text index was walked (5 s). Planning with the values costs
// tens of microseconds; the cache still saves the parse and a round trip.
type cachingConnector struct{ driver.Connector }

// connectionSQL is run on every new connection: custom plans (above);
// synchronized scans off: a bounded count (SELECT 1 ... LIMIT bound+1)
// the planner reads as a sequential scan stops at its bound, and it must
// start at the table's start, where the planner's estimate assumes it;
// a synchronized scan starts where another scan of the table was, and
// from a campaign's contacts without the tag a count of tags @> read
// half the table (0.3 to 1.1 s where from the start it took 5 ms,
// bench/scale); and JIT compilation off: every statement of this server
// reads an index for a page, a batch or a sweep, and one the planner
// overestimates past jit_above_cost compiled for a few rows, loading
// LLVM into the backend first (the chatbot's sweep of waiting messages,
// each minute at 10,000,000 messages: an estimate of 47,000 rows where
// none wait, 92 ms of a core for a 0.03 ms read); and the prefetch of a
// bitmap heap scan (ioConcurrencySQL).
const connectionSQL = "SET plan_cache_mode = force_custom_plan; SET synchronize_seqscans = off; SET jit = off; " +
	ioConcurrencySQL

// ioConcurrencySQL raises effective_io_concurrency to minIOConcurrency
// unless the server's is higher: a bitmap heap scan (a contact search's
// matches from the trigram bitmaps, a message search's from the text
// index) then asks the kernel for the next pages while it reads one.
// PostgreSQL's default, 1, is a spinning disk's: on this machine's SSD
// the thousand matches of a first name among 1,400,000 contacts, none in
// memory, took 68-74 ms at 1 and 23-29 ms at 32 (three cold runs each,
// bench/scale's database, caches dropped and PostgreSQL restarted). A
// server built without posix_fadvise refuses any value but 0: the block
// then leaves the setting as it is.
const ioConcurrencySQL = `DO $$BEGIN
	IF current_setting('effective_io_concurrency')::int < ` + minIOConcurrency + ` THEN
		SET effective_io_concurrency = ` + minIOConcurrency + `;
	END IF;
EXCEPTION WHEN OTHERS THEN NULL;
END$$`

const minIOConcurrency = "32"

func (c cachingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	inner, ok := conn.(pqConn)
	if !ok {
		return conn, nil
	}
	if _, err := inner.ExecContext(ctx, connectionSQL, nil); err != nil {
		_ = inner.Close()
		return nil, err
	}
	return &cachingConn{pqConn: inner, order: list.New(), byQuery: map[string]*list.Element{}}, nil
}

// pqConn is what database/sql uses of a lib/pq connection.
type pqConn interface {
	driver.Conn
	driver.ConnPrepareContext
	driver.ConnBeginTx
	driver.QueryerContext
	driver.ExecerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
	driver.NamedValueChecker
}

// cachingConn is one connection with its statements, most recently used
// first. database/sql never uses a connection from two goroutines at once.
type cachingConn struct {
	pqConn
	order   *list.List // of *cachedStmt
	byQuery map[string]*list.Element
	weight  int // of the statements in order
}

type cachedStmt struct {
	query  string
	stmt   driver.Stmt
	weight int
}

// statementExecutor is what lib/pq's statements implement.
type statementExecutor interface {
	driver.StmtQueryContext
	driver.StmtExecContext
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if len(args) == 0 || len(query) > maxCachedQuery {
		return c.pqConn.QueryContext(ctx, query, args)
	}
	st, err := c.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, args)
	c.forgetIfInvalid(query, err)
	return rows, err
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if len(args) == 0 || len(query) > maxCachedQuery {
		return c.pqConn.ExecContext(ctx, query, args)
	}
	st, err := c.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	res, err := st.ExecContext(ctx, args)
	c.forgetIfInvalid(query, err)
	return res, err
}

// prepared returns the connection's statement for query, preparing it
// the first time; the least recently used ones beyond stmtCacheSize or
// stmtCacheBytes are closed.
func (c *cachingConn) prepared(ctx context.Context, query string) (statementExecutor, error) {
	if el, ok := c.byQuery[query]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*cachedStmt).stmt.(statementExecutor), nil
	}
	st, err := c.pqConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	exec, ok := st.(statementExecutor)
	if !ok {
		_ = st.Close()
		return nil, errors.New("database: the driver's statements lack context methods")
	}
	cs := &cachedStmt{query: query, stmt: st, weight: len(query) + 4*st.NumInput()}
	c.byQuery[query] = c.order.PushFront(cs)
	c.weight += cs.weight
	for c.order.Len() > 1 && (c.order.Len() > stmtCacheSize || c.weight > stmtCacheBytes) {
		c.drop(c.order.Back())
	}
	return exec, nil
}

// forgetIfInvalid drops a statement PostgreSQL no longer accepts: its
// plan's result type changed (a table altered since it was prepared) or
// the server lost it. The next use prepares it again.
func (c *cachingConn) forgetIfInvalid(query string, err error) {
	var pqErr *pq.Error
	if err == nil || !errors.As(err, &pqErr) {
		return
	}
	if pqErr.Code == "0A000" || pqErr.Code == "26000" {
		if el, ok := c.byQuery[query]; ok {
			c.drop(el)
		}
	}
}

func (c *cachingConn) drop(el *list.Element) {
	cs := c.order.Remove(el).(*cachedStmt)
	delete(c.byQuery, cs.query)
	c.weight -= cs.weight
	// A failed close leaves the statement on the server until the
	// connection ends; lib/pq marks a broken connection bad itself.
	_ = cs.stmt.Close()
}

// Close closes the connection, and with it every statement on the server.
func (c *cachingConn) Close() error {
	c.order.Init()
	c.byQuery = nil
	c.weight = 0
	return c.pqConn.Close()
}

// planCacheModeSQL sets plan_cache_mode for the rest of the transaction.
const planCacheModeSQL = "SELECT set_config('plan_cache_mode', $1, true)"

// WithCheckPlansKept runs write, a bulk write in the transaction ctx
// carries, under PostgreSQL's default plan_cache_mode (auto), and then
// restores the connection's force_custom_plan (connectionSQL). Every
// row a write inserts fires its foreign keys' checks and the counters'
// triggers, each a statement PostgreSQL keeps planned per connection; a
// key check's plan is the same for every value, but under
// force_custom_plan it was planned anew for every row: 15 µs a check,
// three times the check itself (BenchmarkKeyChecks), and at the ingest
// rate (three checks for each message with a new contact) half of the
// database's time in the checks and a seventh of all of it
// (bench/scale's ingest, perf). Under auto a check is planned generically
// after its first five. write's own statements are planned under auto
// too, so they must be ones whose plan does not depend on their values:
// the bulk INSERT ... SELECT FROM unnest(...) statements, which scan no
// table. A failed write is returned as it is: its transaction is rolled
// back, and the setting with it.
func WithCheckPlansKept(ctx context.Context, db *ent.Client, write func() error) error {
	if ent.TxFromContext(ctx) == nil {
		// Outside a transaction the setting would hold for its own
		// statement only.
		return errors.New("database: a bulk write keeps its checks' plans in a transaction only")
	}
	if _, err := db.ExecContext(ctx, planCacheModeSQL, "auto"); err != nil {
		return err
	}
	if err := write(); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, planCacheModeSQL, "force_custom_plan")
	return err
}
