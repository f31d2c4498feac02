package testkit

import (
	"errors"
	"strings"
	"testing"

	"switchboard/apperr"
)

// ExpectError fails the test unless err is an application error (apperr)
// of code whose message holds msg ("" for any message). A nil code
// expects no error.
func ExpectError(tb testing.TB, err error, code apperr.Code, msg string) {
	tb.Helper()
	if code == "" {
		if err != nil {
			tb.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var ae *apperr.Error
	if !errors.As(err, &ae) {
		tb.Fatalf("error %v, want %s %q", err, code, msg)
	}
	if ae.Code != code || !strings.Contains(ae.Message, msg) {
		tb.Fatalf("error %s %q, want %s %q", ae.Code, ae.Message, code, msg)
	}
}
