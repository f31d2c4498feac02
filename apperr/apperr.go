// Package apperr is the one error type of the application: a code that
// transports map to a status, and a message that is safe to show.
//
// It is a leaf: it imports only the standard library, so that every
// package may use it. The errors of a dependency are mapped next to the
// code that knows them: the database's (ent, PostgreSQL) by package
// database, which registers a Classifier that Wrap consults; the
// platform's by provider.AppError.
package apperr

import (
	"context"
	"errors"
	"fmt"
	"sync"
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

// A Classifier maps the errors of one dependency to application errors,
// or answers nil for an error it does not know. what names the resource
// for messages ("team").
type Classifier func(err error, what string) *Error

var classifiers struct {
	sync.RWMutex
	list []Classifier
}

// Register adds c to the classifiers Wrap consults, after those
// registered before. Packages call it from init (package database
// registers the mapping of ent's and PostgreSQL's errors).
func Register(c Classifier) {
	classifiers.Lock()
	defer classifiers.Unlock()
	classifiers.list = append(classifiers.list, c)
}

// Wrap classifies err: application errors pass through, a cancelled or
// timed-out context is Unavailable, the registered classifiers map the
// errors they know (the database's: not found, privacy denial,
// constraint, validation, unreachable), anything else is Internal. what
// names the resource for messages ("team").
func Wrap(err error, what string) error {
	if err == nil {
		return nil
	}
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &Error{Code: Unavailable, Message: "request cancelled or timed out", Err: err}
	}
	classifiers.RLock()
	list := classifiers.list
	classifiers.RUnlock()
	for _, c := range list {
		if e := c(err, what); e != nil {
			return e
		}
	}
	return &Error{Code: Internal, Message: "internal error", Err: err}
}

// CodeOf returns the code of err after Wrap.
func CodeOf(err error) Code {
	var ae *Error
	if errors.As(Wrap(err, "resource"), &ae) {
		return ae.Code
	}
	return Internal
}
