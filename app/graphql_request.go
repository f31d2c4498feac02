package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"switchboard/apperr"
	"switchboard/rest"
)

// graphqlRequests checks a GraphQL POST body before gqlgen reads it: at
// most rest.MaxJSONBody bytes, one JSON object (batches are not served)
// whose fields have their types. Each refusal is a 400 with a GraphQL
// error. It also answers 400 where gqlgen answers 422 (a query that does
// not parse, validate or fit graph.Limits, NUL characters included), so
// every bad request gets one status whatever the Accept header.
func graphqlRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(io.LimitReader(r.Body, rest.MaxJSONBody+1))
			if err != nil {
				graphqlRefuse(w, "could not read request body")
				return
			}
			if msg := checkGraphQLBody(body); msg != "" {
				graphqlRefuse(w, msg)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		r = r.WithContext(context.WithValue(r.Context(), plainHTTPKey{}, true))
		next.ServeHTTP(&badRequestWriter{ResponseWriter: w}, r)
	})
}

// checkGraphQLBody says what is wrong with a POST body, or "".
func checkGraphQLBody(body []byte) string {
	if len(body) > rest.MaxJSONBody {
		return fmt.Sprintf("request body too large (max %d bytes)", rest.MaxJSONBody)
	}
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
		return "request body is required: {\"query\": \"...\", \"variables\": {...}}"
	case trimmed[0] == '[':
		return "batched requests are not supported: send one operation per request"
	case trimmed[0] != '{':
		return "request body must be a JSON object: {\"query\": \"...\", \"variables\": {...}}"
	}
	var params struct {
		Query         *string        `json:"query"`
		OperationName *string        `json:"operationName"`
		Variables     map[string]any `json:"variables"`
		Extensions    map[string]any `json:"extensions"`
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	if err := dec.Decode(&params); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return "field " + te.Field + " has the wrong type"
		}
		return "invalid JSON body"
	}
	if dec.More() {
		return "invalid JSON body: unexpected data after the JSON value"
	}
	return ""
}

// graphqlRefuse answers 400 with one GraphQL error of code invalid.
func graphqlRefuse(w http.ResponseWriter, msg string) {
	b, _ := json.Marshal(graphql.Response{Errors: gqlerror.List{{
		Message: msg, Extensions: map[string]any{"code": "invalid"},
	}}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(b)
}

// plainHTTPKey marks the context of a GraphQL request that is not a
// WebSocket.
type plainHTTPKey struct{}

// subscriptionsOverWebSocket refuses a subscription sent as a plain HTTP
// request: gqlgen would hold the request open until the first event.
type subscriptionsOverWebSocket struct{}

func (subscriptionsOverWebSocket) ExtensionName() string { return "SubscriptionsOverWebSocket" }

func (subscriptionsOverWebSocket) Validate(graphql.ExecutableSchema) error { return nil }

func (subscriptionsOverWebSocket) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation.Operation != ast.Subscription || ctx.Value(plainHTTPKey{}) == nil {
		return nil
	}
	err := gqlerror.Errorf("subscriptions are served over the WebSocket (graphql-transport-ws) at this path only")
	// graph registers "invalid" as an operation-level (HTTP 4xx) error.
	errcode.Set(err, string(apperr.Invalid))
	return err
}

// badRequestWriter turns gqlgen's 422 into 400.
type badRequestWriter struct{ http.ResponseWriter }

func (w *badRequestWriter) WriteHeader(code int) {
	if code == http.StatusUnprocessableEntity {
		code = http.StatusBadRequest
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *badRequestWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
