package database_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/privacy"
	"switchboard/ent/rule"
	"switchboard/internal/testkit"
)

// TestWrapDatabaseUnavailable: PostgreSQL restarting, shutting down, out
// of connections or unreachable is a dependency down (503), not a fault of
// the server (500); other database errors stay internal.
func TestWrapDatabaseUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want apperr.Code
	}{
		{"CannotConnectNow", &pq.Error{Code: "57P03", Message: "the database system is shutting down"}, apperr.Unavailable},
		{"AdminShutdown", fmt.Errorf("ent: starting a transaction: %w", &pq.Error{Code: "57P01"}), apperr.Unavailable},
		{"ConnectionFailure", &pq.Error{Code: "08006"}, apperr.Unavailable},
		{"TooManyConnections", &pq.Error{Code: "53300"}, apperr.Unavailable},
		{"ConnectionReset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, apperr.Unavailable},
		{"Refused", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), apperr.Unavailable},
		{"BadConn", driver.ErrBadConn, apperr.Unavailable},
		{"CancelledDial", &net.OpError{Op: "dial", Net: "tcp", Err: context.Canceled}, apperr.Unavailable},
		{"SyntaxError", &pq.Error{Code: "42601"}, apperr.Internal},
		{"Other", errors.New("boom"), apperr.Internal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := apperr.CodeOf(apperr.Wrap(tc.err, "thing")); got != tc.want {
				t.Fatalf("code %s, want %s", got, tc.want)
			}
		})
	}
}

// TestWrapEntErrors: the errors ent answers on PostgreSQL map to the
// codes and messages the transports show.
func TestWrapEntErrors(t *testing.T) {
	c := testkit.OpenDB(t).Client
	bypass := rule.Bypass(context.Background(), "test fixture")
	slug := "errors-" + uuid.NewString()[:8]
	if _, err := c.Organization.Create().SetName("Errors").SetSlug(slug).Save(bypass); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		err  func() error
		code apperr.Code
		msg  string
	}{
		{"NotFound", func() error { _, err := c.Organization.Get(bypass, uuid.New()); return err }, apperr.NotFound, "thing not found"},
		{"PrivacyDenied", func() error { _, err := c.Organization.Query().All(context.Background()); return err }, apperr.NotFound, "thing not found"},
		{"Unique", func() error {
			_, err := c.Organization.Create().SetName("Again").SetSlug(slug).Save(bypass)
			return err
		}, apperr.Conflict, "thing already exists"},
		{"Validation", func() error {
			_, err := c.Organization.Create().SetName("").SetSlug(slug + "-v").Save(bypass)
			return err
		}, apperr.Invalid, "invalid value for name"},
		{"Application", func() error { return apperr.Invalidf("kept") }, apperr.Invalid, "kept"},
		{"Cancelled", func() error { return fmt.Errorf("query: %w", context.Canceled) }, apperr.Unavailable, "request cancelled or timed out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err()
			var ae *apperr.Error
			if !errors.As(apperr.Wrap(err, "thing"), &ae) || ae.Code != tc.code || ae.Message != tc.msg {
				t.Fatalf("Wrap(%v) = %v, want %s %q", err, ae, tc.code, tc.msg)
			}
		})
	}
	if !errors.Is(apperr.Wrap(privacy.Deny, "thing"), privacy.Deny) {
		t.Error("the cause is not kept")
	}
	var nf *ent.NotFoundError
	if _, err := c.Organization.Get(bypass, uuid.New()); !errors.As(apperr.Wrap(err, "thing"), &nf) {
		t.Error("the ent error is not kept")
	}
}
