package provider_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"switchboard/apperr"
	"switchboard/provider"
)

func TestAppError(t *testing.T) {
	network := errors.New("provider: GET /v21.0/1: dial tcp 10.0.0.7:443: connect: connection refused")
	for _, tc := range []struct {
		name string
		err  error
		code apperr.Code
		// shown must be in the message, hidden must not.
		shown, hidden string
	}{
		{"BadParameter", &provider.Error{Status: 400, Code: 100, Message: "(#100) Invalid parameter"}, apperr.Invalid, "Invalid parameter", ""},
		{"InvalidToken", &provider.Error{Status: 401, Code: 190, Message: "Invalid OAuth access token"}, apperr.Invalid, "Invalid OAuth", ""},
		{"Throttled", &provider.Error{Status: 429, Code: 130429, Message: "(#130429) Rate limit hit"}, apperr.Unavailable, "Rate limit hit", ""},
		{"TransientCodeOn400", &provider.Error{Status: 400, Code: 4, Message: "(#4) Application request limit reached"}, apperr.Unavailable, "limit reached", ""},
		{"ServerError", &provider.Error{Status: 500, Code: 1, Message: "(#1) An unknown error occurred"}, apperr.Unavailable, "unknown error", ""},
		{"Wrapped", fmt.Errorf("sync: %w", &provider.Error{Status: 503, Code: 2, Message: "(#2) Service temporarily unavailable"}), apperr.Unavailable, "temporarily unavailable", ""},
		{"NotSent", fmt.Errorf("%w: a template name is required", provider.ErrInvalid), apperr.Invalid, "template name is required", ""},
		{"Malformed", fmt.Errorf("%w: GET /v21.0/1: no id", provider.ErrUnexpectedResponse), apperr.Unavailable, "unexpected answer", "/v21.0"},
		{"Unreachable", network, apperr.Unavailable, "could not be reached", "10.0.0.7"},
		{"Cancelled", fmt.Errorf("provider: %w", context.Canceled), apperr.Unavailable, "cancelled", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := provider.AppError(tc.err)
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Code != tc.code {
				t.Fatalf("AppError(%v) = %v, want code %s", tc.err, err, tc.code)
			}
			if !strings.Contains(ae.Message, tc.shown) || tc.hidden != "" && strings.Contains(ae.Message, tc.hidden) {
				t.Errorf("message %q", ae.Message)
			}
			if !errors.Is(err, tc.err) {
				t.Error("the cause is not kept")
			}
		})
	}
	if provider.AppError(nil) != nil {
		t.Error("AppError(nil) is not nil")
	}
}
