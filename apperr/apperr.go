// Package apperr is the one error type of the application: a code that
// transports map to a status, and a message that is safe to show.
package apperr

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"

	"github.com/lib/pq"

	"switchboard/ent"
	"switchboard/ent/privacy"
)

// Code classifies an error.
type Code string

// The error codes. Transports map each to one status.
const (
	Invalid         Code = "invalid"
	Unauthenticated Code = "unauthenticated"
	Forbidden       Code = "forbidden"
	NotFound        Code = "not_found"
	// Gone is something that existed and is no more (a used or expired
	// custom action redirect token).
	Gone           Code = "gone"
	Conflict       Code = "conflict"
	TooMany        Code = "rate_limited"
	Unavailable    Code = "unavailable"
	NotImplemented Code = "not_implemented"
	Internal       Code = "internal"
)

// Error is an application error with a code and a safe message.
type Error struct {
	Code    Code
	Message string
	// Err is the underlying cause, logged but never shown.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an error with a code and a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalidf is a shortcut for an Invalid error.
func Invalidf(format string, args ...any) *Error { return New(Invalid, format, args...) }

// NotFoundf is a shortcut for a NotFound error.
func NotFoundf(format string, args ...any) *Error { return New(NotFound, format, args...) }

// Forbiddenf is a shortcut for a Forbidden error.
func Forbiddenf(format string, args ...any) *Error { return New(Forbidden, format, args...) }

// Wrap classifies err: application errors pass through, ent errors are
// mapped (not found, constraint, validation, privacy), anything else is
// Internal. what names the resource for messages ("team").
func Wrap(err error, what string) error {
	if err == nil {
		return nil
	}
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	switch {
	case ent.IsNotFound(err):
		return &Error{Code: NotFound, Message: what + " not found", Err: err}
	case errors.Is(err, privacy.Deny):
		// Another tenant's row, or one the viewer may not touch, is
		// simply not found.
		return &Error{Code: NotFound, Message: what + " not found", Err: err}
	case ent.IsConstraintError(err):
		return &Error{Code: Conflict, Message: constraintMessage(err, what), Err: err}
	case ent.IsValidationError(err):
		var ve *ent.ValidationError
		errors.As(err, &ve)
		return &Error{Code: Invalid, Message: fmt.Sprintf("invalid value for %s", ve.Name), Err: err}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: Unavailable, Message: "request cancelled or timed out", Err: err}
	case databaseUnavailable(err):
		return &Error{Code: Unavailable, Message: "the database is unavailable; try again", Err: err}
	}
	return &Error{Code: Internal, Message: "internal error", Err: err}
}

// databaseUnavailable reports a failure to reach PostgreSQL (restarting,
// shutting down, out of connections, the connection lost): a dependency
// that is down answers 503, which the platform and clients retry, not a
// 500.
func databaseUnavailable(err error) bool {
	var pe *pq.Error
	if errors.As(err, &pe) {
		class := string(pe.Code.Class())
		return class == "08" || class == "57" || pe.Code == "53300"
	}
	var op *net.OpError
	return errors.As(err, &op) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
}

func constraintMessage(err error, what string) string {
	msg := strings.ToLower(err.Error())
	if strings.Contains(msg, "unique") || strings.Contains(msg, "duplicate") {
		return what + " already exists"
	}
	return what + " conflicts with existing data"
}

// CodeOf returns the code of err after Wrap.
func CodeOf(err error) Code {
	var ae *Error
	if errors.As(Wrap(err, "resource"), &ae) {
		return ae.Code
	}
	return Internal
}
