package graph

import (
	"context"
	"errors"
	"log/slog"
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"switchboard/apperr"
)

// ErrorPresenter puts the application error code in extensions.code and
// hides internal errors behind "internal error".
func ErrorPresenter(log *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gqlErr := graphql.DefaultErrorPresenter(ctx, err)
		var ae *apperr.Error
		if !errors.As(err, &ae) {
			var existing *gqlerror.Error
			if errors.As(err, &existing) && existing.Err == nil {
				// Parse, validation and input coercion errors are
				// already meant for the client.
				return gqlErr
			}
			if existing != nil && argumentError(ctx, existing) {
				ae = &apperr.Error{Code: apperr.Invalid, Message: gqlErr.Message, Err: err}
			} else {
				ae, _ = apperr.Wrap(err, "resource").(*apperr.Error)
			}
		}
		if ae == nil {
			return gqlErr
		}
		if ae.Code == apperr.Internal {
			log.ErrorContext(ctx, "graphql operation failed", "err", err)
		}
		gqlErr.Message = ae.Message
		if gqlErr.Extensions == nil {
			gqlErr.Extensions = map[string]any{}
		}
		gqlErr.Extensions["code"] = string(ae.Code)
		return gqlErr
	}
}

// argumentError reports whether e arose while reading the arguments of the
// field in ctx (a scalar such as an ID, Map, Time or Cursor that does not
// parse): its path goes on below the field into the argument, while the
// errors of the field's resolver sit on the field's own path.
func argumentError(ctx context.Context, e *gqlerror.Error) bool {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return false
	}
	own := fc.Path()
	return len(e.Path) > len(own) && slices.Equal(e.Path[:len(own)], own)
}
