package database

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"

	"github.com/lib/pq"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/privacy"
)

// The mapping of ent's and PostgreSQL's errors to application errors
// lives here, beside the client that produces them, and is registered
// with apperr.Wrap at init: every program and test that opens an ent
// client imports this package (Open, ClientFor, InTx), so Wrap knows
// these errors wherever they can occur.
func init() { apperr.Register(classify) }

// classify maps an ent or database error; nil for any other.
func classify(err error, what string) *apperr.Error {
	switch {
	case ent.IsNotFound(err):
		return &apperr.Error{Code: apperr.NotFound, Message: what + " not found", Err: err}
	case errors.Is(err, privacy.Deny):
		// Another tenant's row, or one the viewer may not touch, is
		// simply not found.
		return &apperr.Error{Code: apperr.NotFound, Message: what + " not found", Err: err}
	case ent.IsConstraintError(err):
		return &apperr.Error{Code: apperr.Conflict, Message: constraintMessage(err, what), Err: err}
	case ent.IsValidationError(err):
		var ve *ent.ValidationError
		errors.As(err, &ve)
		return &apperr.Error{Code: apperr.Invalid, Message: fmt.Sprintf("invalid value for %s", ve.Name), Err: err}
	case unavailable(err):
		return &apperr.Error{Code: apperr.Unavailable, Message: "the database is unavailable; try again", Err: err}
	}
	return nil
}

// unavailable reports a failure to reach PostgreSQL (restarting, shutting
// down, out of connections, the connection lost): a dependency that is
// down answers 503, which the platform and clients retry, not a 500.
func unavailable(err error) bool {
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

// IsQueryCanceled reports a statement PostgreSQL canceled (57014): its
// statement_timeout passed, or the caller's context was canceled.
func IsQueryCanceled(err error) bool {
	var pe *pq.Error
	return errors.As(err, &pe) && pe.Code == "57014"
}
