package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/internal/valid"
)

// MaxJSONBody bounds JSON request bodies (GraphQL POST bodies too).
const MaxJSONBody = 1 << 20

// bindJSON decodes the request body into dst, answering malformed JSON,
// wrong types and trailing data with a clear invalid error. An empty body
// decodes as {} when optional is true.
func bindJSON(c *gin.Context, dst any, optional bool) error {
	body, err := io.ReadAll(io.LimitReader(c.Request.Body, MaxJSONBody+1))
	if err != nil {
		return apperr.Invalidf("could not read request body")
	}
	if len(body) > MaxJSONBody {
		return apperr.Invalidf("request body too large (max %d bytes)", MaxJSONBody)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if optional {
			return nil
		}
		return apperr.Invalidf("request body is required")
	}
	return decodeJSON(body, dst)
}

// decodeJSON is the one JSON decoder of the REST layer. Text with a NUL
// character is refused: PostgreSQL cannot store it.
func decodeJSON(body []byte, dst any) error {
	if bytes.Contains(body, []byte(`\u0000`)) || bytes.IndexByte(body, 0) >= 0 {
		return valid.NUL("text")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	if dec.More() {
		return apperr.Invalidf("invalid JSON body: unexpected data after the JSON value")
	}
	return nil
}

func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		if te.Field != "" {
			return apperr.Invalidf("field %s must be of type %s", te.Field, jsonTypeName(te.Type.String()))
		}
		return apperr.Invalidf("request body must be a JSON object")
	case errors.As(err, &se):
		return apperr.Invalidf("invalid JSON body: %s (at byte %d)", se.Error(), se.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return apperr.Invalidf("invalid JSON body: unexpected end of input")
	}
	var ae *apperr.Error
	if errors.As(err, &ae) {
		return ae
	}
	return apperr.Invalidf("invalid JSON body: %s", err.Error())
}

func jsonTypeName(goType string) string {
	switch {
	case strings.Contains(goType, "int"), strings.Contains(goType, "float"), goType == "json.Number":
		return "number"
	case strings.Contains(goType, "bool"):
		return "boolean"
	case strings.Contains(goType, "string"), strings.Contains(goType, "UUID"), strings.Contains(goType, "Time"):
		return "string"
	case strings.HasPrefix(goType, "[]"):
		return "array"
	}
	return "object"
}

// pathUUID parses the path parameter name as a UUID.
func pathUUID(c *gin.Context, name string) (uuid.UUID, error) {
	id, err := uuid.Parse(c.Param(name))
	if err != nil {
		return uuid.Nil, apperr.Invalidf("%s must be a valid UUID", name)
	}
	return id, nil
}

// page is the spec's page/limit pagination.
type page struct {
	Page  int
	Limit int
}

// Offset is the number of rows to skip.
func (p page) Offset() int { return (p.Page - 1) * p.Limit }

// maxPageSize caps every list's limit; maxPage bounds page, so that the
// offset stays far from overflowing (a larger page is refused, not
// clamped: its answer would name another page).
const (
	maxPageSize = 100
	maxPage     = 1_000_000
)

// bindPage reads page (default 1, at most maxPage) and limit (default def,
// capped at maxPageSize); non-numeric or non-positive values are invalid.
func bindPage(values url.Values, def int) (page, error) {
	p := page{Page: 1, Limit: def}
	var err error
	if p.Page, err = queryInt(values, "page", 1); err != nil {
		return p, err
	}
	if p.Page > maxPage {
		return p, apperr.Invalidf("page must be at most %d", maxPage)
	}
	if p.Limit, err = queryInt(values, "limit", def); err != nil {
		return p, err
	}
	if p.Limit > maxPageSize {
		p.Limit = maxPageSize
	}
	return p, nil
}

func queryInt(values url.Values, name string, def int) (int, error) {
	s := values.Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, apperr.Invalidf("%s must be a positive integer", name)
	}
	return n, nil
}

// optionalUUID parses s when it is not empty.
func optionalUUID(name, s string) (*uuid.UUID, error) {
	if s == "" {
		return nil, nil
	}
	id, err := uuid.Parse(s)
	if err != nil {
		return nil, apperr.Invalidf("%s must be a valid UUID", name)
	}
	return &id, nil
}

// listPayload is the spec's paginated list: the items under a named key.
func listPayload(key string, items any, total int, p page) gin.H {
	return gin.H{key: items, "total": total, "page": p.Page, "limit": p.Limit,
		"total_pages": (total + p.Limit - 1) / p.Limit}
}

// presentAll presents each row; none is an empty list (JSON []), not
// null.
func presentAll[T, J any](rows []T, present func(T) J) []J {
	out := make([]J, len(rows))
	for i, r := range rows {
		out[i] = present(r)
	}
	return out
}

// idAction adapts an operation on the path's :id that answers a fixed
// payload (deletes and similar actions).
func idAction(op func(context.Context, uuid.UUID) error, data any) handlerFunc {
	return func(c *gin.Context) (int, any, error) {
		id, err := pathUUID(c, "id")
		if err != nil {
			return 0, nil, err
		}
		if err := op(ctx(c), id); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, data, nil
	}
}

// The CRUD handlers of one resource share a shape: read the path's :id
// and/or a JSON body B, convert the body with input, call the operation,
// present the row it answers. byID, created and updated are that shape;
// the handler names the operation and the presenter, so that a route
// table built without services (the OpenAPI document's) reads no field
// of a.R.

// byID answers the row get returns for the path's :id.
func byID[T, J any](c *gin.Context, get func(context.Context, uuid.UUID) (T, error), present func(T) J) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	v, err := get(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, present(v), nil
}

// created answers 201 with the row create makes from the JSON body.
func created[B, I, T, J any](c *gin.Context, create func(context.Context, I) (T, error), input func(B) I, present func(T) J) (int, any, error) {
	var b B
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	v, err := create(ctx(c), input(b))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, present(v), nil
}

// updated answers the row update makes of the path's :id and the JSON
// body.
func updated[B, I, T, J any](c *gin.Context, update func(context.Context, uuid.UUID, I) (T, error), input func(B) I, present func(T) J) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b B
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	v, err := update(ctx(c), id, input(b))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, present(v), nil
}
