package rest

import (
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/apperr"
)

// Context keys of what run binds from the route's declared query.
const (
	ctxQuery = "switchboard.query"
	ctxPage  = "switchboard.page"
)

// bindQuery reads the query parameters a route declares (Route.Query)
// before its handler runs, with the tags the OpenAPI document publishes
// (query, default, required, format, enum, minimum, maximum, maxLength):
// the document and the handler read one declaration, so they cannot
// drift apart. An empty value counts as absent.
func bindQuery(c *gin.Context, declared any) error {
	values := c.Request.URL.Query()
	if p, ok := declared.(pagedQuery); ok {
		pg, err := bindPage(values, p.limit)
		if err != nil {
			return err
		}
		c.Set(ctxPage, pg)
		declared = p.extra
	}
	if declared == nil {
		return nil
	}
	v := reflect.New(reflect.TypeOf(declared)).Elem()
	if err := decodeQuery(values, v); err != nil {
		return err
	}
	c.Set(ctxQuery, v.Interface())
	return nil
}

// queryOf returns the request's bound query parameters. T must be the
// route's declared type: reading another is a programming error.
func queryOf[T any](c *gin.Context) T {
	v, _ := c.Get(ctxQuery)
	q, ok := v.(T)
	if !ok {
		panic(fmt.Sprintf("rest: the handler of %s %s reads query %T; its route declares %T",
			c.Request.Method, c.FullPath(), q, v))
	}
	return q
}

// pageOf returns the page and limit of a route declared paged(...).
func pageOf(c *gin.Context) page {
	v, _ := c.Get(ctxPage)
	p, ok := v.(page)
	if !ok {
		panic(fmt.Sprintf("rest: the handler of %s %s reads a page; its route is not declared paged", c.Request.Method, c.FullPath()))
	}
	return p
}

// decodeQuery sets v's tagged fields (string, int, bool or *uuid.UUID)
// from values.
func decodeQuery(values url.Values, v reflect.Value) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name := f.Tag.Get("query")
		if name == "" {
			continue
		}
		s := values.Get(name)
		if s == "" {
			s = f.Tag.Get("default")
		}
		if s == "" {
			if f.Tag.Get("required") == "true" {
				return apperr.Invalidf("%s is required", name)
			}
			continue
		}
		if err := checkQueryText(name, s, f.Tag); err != nil {
			return err
		}
		if err := setQueryField(v.Field(i), name, s, f.Tag); err != nil {
			return err
		}
	}
	return nil
}

// checkQueryText applies the tags that constrain a parameter's text.
func checkQueryText(name, s string, tag reflect.StructTag) error {
	if !utf8.ValidString(s) {
		return apperr.Invalidf("%s must be valid UTF-8", name)
	}
	if m, ok := tag.Lookup("maxLength"); ok {
		if n, _ := strconv.Atoi(m); utf8.RuneCountInString(s) > n {
			return apperr.Invalidf("%s must be at most %d characters", name, n)
		}
	}
	if e, ok := tag.Lookup("enum"); ok {
		allowed := strings.Split(e, ",")
		if !slices.Contains(allowed, s) {
			return apperr.Invalidf("%s must be one of %s", name, strings.Join(allowed, ", "))
		}
	}
	return nil
}

var uuidPointer = reflect.TypeFor[*uuid.UUID]()

func setQueryField(field reflect.Value, name, s string, tag reflect.StructTag) error {
	if field.Type() == uuidPointer {
		id, err := uuid.Parse(s)
		if err != nil {
			return apperr.Invalidf("%s must be a valid UUID", name)
		}
		field.Set(reflect.ValueOf(&id))
		return nil
	}
	switch field.Kind() {
	case reflect.String:
		field.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return apperr.Invalidf("%s must be true or false", name)
		}
		field.SetBool(b)
	case reflect.Int:
		n, err := strconv.Atoi(s)
		if err != nil {
			return apperr.Invalidf("%s must be an integer", name)
		}
		if m, ok := tag.Lookup("minimum"); ok {
			if lo, _ := strconv.Atoi(m); n < lo {
				return apperr.Invalidf("%s must be at least %d", name, lo)
			}
		}
		if m, ok := tag.Lookup("maximum"); ok {
			if hi, _ := strconv.Atoi(m); n > hi {
				return apperr.Invalidf("%s must be at most %d", name, hi)
			}
		}
		field.SetInt(int64(n))
	default:
		panic(fmt.Sprintf("rest: query parameter %s has unsupported type %s", name, field.Type()))
	}
	return nil
}
