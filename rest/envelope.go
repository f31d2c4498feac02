package rest

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"

	"switchboard/apperr"
)

// envelope is the spec's response body.
type envelope struct {
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
	Data    any    `json:"data"`
}

// statusOf maps every error code to one HTTP status. A conflict with
// existing data (a unique name, a phone number held elsewhere) is 409, as
// the contract asks of a held phone_id.
var statusOf = map[apperr.Code]int{
	apperr.Invalid:         http.StatusBadRequest,
	apperr.Conflict:        http.StatusConflict,
	apperr.Unauthenticated: http.StatusUnauthorized,
	apperr.Forbidden:       http.StatusForbidden,
	apperr.NotFound:        http.StatusNotFound,
	apperr.Gone:            http.StatusGone,
	apperr.TooMany:         http.StatusTooManyRequests,
	apperr.Unavailable:     http.StatusServiceUnavailable,
	apperr.NotImplemented:  http.StatusNotImplemented,
	apperr.Internal:        http.StatusInternalServerError,
}

// writeOK writes a success envelope.
func writeOK(c *gin.Context, status int, data any) {
	if data == nil {
		// The answer of every platform webhook delivery: no encoding.
		c.Data(status, jsonContentType, okWithoutData)
		return
	}
	c.JSON(status, envelope{Status: "success", Data: data})
}

// okWithoutData is the success envelope without data, as c.JSON writes it.
var okWithoutData = []byte(`{"status":"success","data":null}`)

// jsonContentType is the Content-Type gin's c.JSON writes.
const jsonContentType = "application/json; charset=utf-8"

// writeError maps err to its status and writes the error envelope. Server
// failures are logged with the request id and their cause (StatusLogLevel);
// internal errors are shown as "internal error".
func writeError(c *gin.Context, err error) {
	status, message := errorAnswer(c, err)
	writeErrorBody(c, status, apperr.CodeOf(err), message)
}

// writeErrorBody writes an error answer in the shape the request's
// client reads: the spec's envelope, or on /graphql (see GraphQLGuard) a
// GraphQL response with the code in extensions.code, as Apollo and other
// GraphQL clients expect of every answer of that path.
func writeErrorBody(c *gin.Context, status int, code apperr.Code, message string) {
	if c.GetBool(ctxGraphQL) {
		c.AbortWithStatusJSON(status, graphQLErrors{Errors: []graphQLError{{
			Message: message, Extensions: map[string]string{"code": string(code)},
		}}})
		return
	}
	c.AbortWithStatusJSON(status, envelope{Status: "error", Message: message, Data: nil})
}

// graphQLErrors is a GraphQL response that carries errors and no data.
type graphQLErrors struct {
	Errors []graphQLError `json:"errors"`
}

type graphQLError struct {
	Message    string            `json:"message"`
	Extensions map[string]string `json:"extensions"`
}

// errorAnswer is the status and message that answer err, logged as
// writeError says.
func errorAnswer(c *gin.Context, err error) (int, string) {
	var ae *apperr.Error
	if !errors.As(apperr.Wrap(err, "resource"), &ae) {
		ae = &apperr.Error{Code: apperr.Internal, Message: "internal error", Err: err}
	}
	status, ok := statusOf[ae.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	if level := StatusLogLevel(status); level >= slog.LevelWarn {
		slog.Log(c.Request.Context(), level, "request failed",
			"request_id", c.GetString(ctxRequestID), "path", c.FullPath(), "status", status, "err", err)
	}
	return status, ae.Message
}

// StatusLogLevel is the level at which an answer of status is logged: a
// fault of the server (500 and any unexpected 5xx) at error; 503, a
// dependency that is down (the platform, Redis), at warn; everything
// else at debug, the 501 of the spec's unbuilt analytics reports
// included: it is the answer the spec asks for, not a fault.
func StatusLogLevel(status int) slog.Level {
	switch {
	case status == http.StatusNotImplemented || status < 500:
		return slog.LevelDebug
	case status == http.StatusServiceUnavailable:
		return slog.LevelWarn
	}
	return slog.LevelError
}

// abort writes an error envelope with a code and message.
func abort(c *gin.Context, code apperr.Code, msg string) {
	writeError(c, apperr.New(code, "%s", msg))
}
