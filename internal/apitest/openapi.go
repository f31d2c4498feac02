package apitest

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/paths"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"switchboard/rest"
)

// wildcards are the path prefixes of routes ending in a *param, which
// takes the rest of the path, slashes included; the document's {param}
// is one segment.
var wildcards = func() []string {
	var out []string
	for _, r := range (&rest.API{}).Routes() {
		if i := strings.IndexByte(r.Path, '*'); i >= 0 {
			out = append(out, r.Path[:i])
		}
	}
	return out
}()

// documentedPath is the path as the document names it: the rest of a
// wildcard route's path escaped into one segment.
func documentedPath(p string) (path, rawPath string) {
	for _, prefix := range wildcards {
		if rest, ok := strings.CutPrefix(p, prefix); ok && strings.Contains(rest, "/") {
			return p, prefix + url.PathEscape(rest)
		}
	}
	return p, ""
}

var (
	docOnce      sync.Once
	docValidator validator.Validator
	docModel     *v3.Document
	docErr       error
)

// OpenAPIValidator is the validator of the generated OpenAPI document,
// built once per test binary.
func OpenAPIValidator(tb testing.TB) validator.Validator {
	tb.Helper()
	docOnce.Do(func() {
		j, _, err := rest.BuildOpenAPI((&rest.API{}).Routes())
		if err != nil {
			docErr = err
			return
		}
		doc, err := libopenapi.NewDocument(j)
		if err != nil {
			docErr = err
			return
		}
		model, err := doc.BuildV3Model()
		if err != nil {
			docErr = err
			return
		}
		docModel = &model.Model
		docValidator = validator.NewValidatorFromV3Model(docModel, config.WithFormatAssertions())
		docValidator.SetDocument(doc) // for ValidateDocument
	})
	if docErr != nil {
		tb.Fatalf("OpenAPI document: %v", docErr)
	}
	return docValidator
}

// checkOpenAPI validates an exchange with the API against the OpenAPI
// document: every answer, and the request of every success (a refused
// request may be refused because it does not match).
func (e *Env) checkOpenAPI(req *http.Request, reqBody []byte, resp *http.Response, respBody []byte) {
	e.T.Helper()
	if _, bench := e.T.(*testing.B); bench || !strings.HasPrefix(req.URL.Path, "/api/") || e.SkipOpenAPI {
		// A benchmark measures the server, not the validator.
		return
	}
	v := OpenAPIValidator(e.T)
	clone := req.Clone(req.Context())
	clone.URL.Path, clone.URL.RawPath = documentedPath(req.URL.Path)
	clone.Body = io.NopCloser(bytes.NewReader(reqBody))
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	success := resp.StatusCode < 400
	var problems []*verrors.ValidationError
	if success {
		if ok, errs := v.ValidateHttpRequest(clone); !ok {
			problems = append(problems, errs...)
		}
		problems = append(problems, undeclaredQuery(clone)...)
	}
	problems = append(problems, undeclaredStatus(clone, resp.StatusCode)...)
	if ok, errs := v.ValidateHttpResponse(clone, resp); !ok {
		for _, err := range errs {
			// A path no route serves (gin's own 404 or 405) is no route's answer.
			if !success && (err.IsPathMissingError() || err.IsOperationMissingError()) {
				continue
			}
			problems = append(problems, err)
		}
	}
	for _, p := range problems {
		msg := p.Message
		if p.Reason != "" {
			msg += ": " + p.Reason
		}
		for _, se := range p.SchemaValidationErrors {
			msg += "; " + se.FieldPath + ": " + se.Reason
		}
		e.T.Errorf("OpenAPI: %s %s → %d: %s (body %.300s)", req.Method, req.URL.RequestURI(), resp.StatusCode, msg, respBody)
	}
}

// undeclaredStatus reports an answer whose status its operation does
// not declare: the default response would let it through, but it stands
// only for the server's own faults (rest.UndeclaredStatuses). A path no
// route serves (gin's 404 or 405) is no operation's answer.
func undeclaredStatus(req *http.Request, status int) []*verrors.ValidationError {
	item, errs, _ := paths.FindPath(req, docModel, nil)
	if item == nil || len(errs) > 0 || slices.Contains(rest.UndeclaredStatuses, status) {
		return nil
	}
	op := item.GetOperations().GetOrZero(strings.ToLower(req.Method))
	if op == nil {
		return nil
	}
	if _, ok := op.Responses.Codes.Get(strconv.Itoa(status)); ok {
		return nil
	}
	return []*verrors.ValidationError{{Message: "status " + strconv.Itoa(status) + " is not declared by the operation " + op.OperationId}}
}

// undeclaredQuery reports the query parameters of req its operation does
// not declare: the validator lets any extra one through, and a parameter
// the document does not name is one the handler ignores (a client's typo
// or a test's wrong assumption).
func undeclaredQuery(req *http.Request) []*verrors.ValidationError {
	item, errs, _ := paths.FindPath(req, docModel, nil)
	if item == nil || len(errs) > 0 {
		return nil
	}
	declared := map[string]bool{}
	for _, p := range helpers.ExtractParamsForOperation(req, item) {
		if p.In == "query" {
			declared[p.Name] = true
		}
	}
	var out []*verrors.ValidationError
	for name := range req.URL.Query() {
		if !declared[name] {
			out = append(out, &verrors.ValidationError{Message: "query parameter " + name + " is not declared by the operation"})
		}
	}
	return out
}
