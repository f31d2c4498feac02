package apitest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"switchboard/database"
)

// Statements serves one request as c in-process (through the
// application's handler rather than the test server, so that the request's
// context carries the counter) and returns the answer and the SQL
// statements it ran. The exchange is not checked against the OpenAPI
// document.
func (c *Client) Statements(tb testing.TB, method, path string, body any) (*Response, *database.Statements) {
	tb.Helper()
	rd := encodeBody(tb, body)
	req := httptest.NewRequest(method, path, rd)
	c.setHeaders(req, rd != nil)
	var n database.Statements
	req = req.WithContext(database.CountStatements(req.Context(), &n))
	rec := httptest.NewRecorder()
	c.env.App.Handler.ServeHTTP(rec, req)
	r := &Response{Status: rec.Code, Header: rec.Header(), Raw: rec.Body.Bytes()}
	_ = json.Unmarshal(r.Raw, &r.Body)
	return r, &n
}

// CountStatements is the number of SQL statements one request as c runs;
// the request must succeed (200, and no GraphQL errors).
func (c *Client) CountStatements(tb testing.TB, method, path string, body any) int64 {
	tb.Helper()
	r, n := c.Statements(tb, method, path, body)
	if r.Status != http.StatusOK || strings.Contains(string(r.Raw), `"errors"`) {
		tb.Fatalf("%s %s: %d %s", method, path, r.Status, r.Raw)
	}
	return n.N()
}

// FewestStatements is the fewest statements of three runs of a request
// (CountStatements): a loader's batch can split in two when the machine is
// slow to schedule the rows' resolvers, which is noise; a query per row is
// not.
func (c *Client) FewestStatements(tb testing.TB, method, path string, body any) int64 {
	tb.Helper()
	least := c.CountStatements(tb, method, path, body)
	for range 2 {
		least = min(least, c.CountStatements(tb, method, path, body))
	}
	return least
}
