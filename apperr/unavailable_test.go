package apperr

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"

	"github.com/lib/pq"
)

// TestWrapDatabaseUnavailable: PostgreSQL restarting, shutting down, out
// of connections or unreachable is a dependency down (503), not a fault of
// the server (500); other database errors stay internal.
func TestWrapDatabaseUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want Code
	}{
		{"CannotConnectNow", &pq.Error{Code: "57P03", Message: "the database system is shutting down"}, Unavailable},
		{"AdminShutdown", fmt.Errorf("ent: starting a transaction: %w", &pq.Error{Code: "57P01"}), Unavailable},
		{"ConnectionFailure", &pq.Error{Code: "08006"}, Unavailable},
		{"TooManyConnections", &pq.Error{Code: "53300"}, Unavailable},
		{"ConnectionReset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, Unavailable},
		{"Refused", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), Unavailable},
		{"BadConn", driver.ErrBadConn, Unavailable},
		{"SyntaxError", &pq.Error{Code: "42601"}, Internal},
		{"Other", errors.New("boom"), Internal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CodeOf(Wrap(tc.err, "thing")); got != tc.want {
				t.Fatalf("code %s, want %s", got, tc.want)
			}
		})
	}
}
