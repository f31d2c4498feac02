package provider

import (
	"context"
	"errors"
	"strings"

	"switchboard/apperr"
)

// AppError maps a failed platform (Graph API) call to the application's
// error, the one mapping of every capability that calls the platform while
// answering a request:
//
//   - a refusal the caller can fix (a 4xx answer that is not throttling,
//     arguments the client would not send) is Invalid with the platform's
//     message (its error_user_msg when it gave one);
//   - a 5xx, a throttled call, a malformed answer or an unreachable
//     platform is Unavailable (503, the conventions' code for a
//     dependency that is down; the spec names no status for it). The
//     platform's own text is shown; a network failure's is not (it names
//     internal addresses), it is kept in Err for the log.
//
// A cancelled or timed-out context is mapped by apperr.Wrap.
func AppError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return apperr.Wrap(err, "platform call")
	}
	var pe *Error
	switch {
	case errors.As(err, &pe) && pe.Status >= 400 && pe.Status < 500 && !pe.Temporary():
		return &apperr.Error{Code: apperr.Invalid, Message: "the platform refused: " + platformText(pe), Err: err}
	case errors.As(err, &pe):
		return &apperr.Error{Code: apperr.Unavailable, Message: "the platform failed: " + platformText(pe), Err: err}
	case errors.Is(err, ErrInvalid):
		return &apperr.Error{Code: apperr.Invalid, Message: err.Error(), Err: err}
	case errors.Is(err, ErrUnexpectedResponse):
		return &apperr.Error{Code: apperr.Unavailable, Message: "unexpected answer from the platform", Err: err}
	}
	return &apperr.Error{Code: apperr.Unavailable, Message: "the platform could not be reached", Err: err}
}

func platformText(pe *Error) string {
	return strings.TrimPrefix(pe.Error(), "provider: ")
}
