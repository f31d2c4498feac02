package rest_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"switchboard/internal/apitest"
)

// fuzzRoute is a route of the table with its parameters filled in.
type fuzzRoute struct{ method, path string }

// fuzzSkipped are routes the fuzzers leave alone: logging out would end
// the session every later input uses.
var fuzzSkipped = []string{"POST /api/auth/logout"}

// routesOf lists the routes of the running application with methods,
// each path parameter filled with an id no row has, sorted so that a
// route's index stays put while the table does not change.
func routesOf(env *apitest.Env, methods ...string) []fuzzRoute {
	var out []fuzzRoute
	for _, r := range env.App.Handler.(*gin.Engine).Routes() {
		if !slices.Contains(methods, r.Method) || !strings.HasPrefix(r.Path, "/api/") ||
			slices.Contains(fuzzSkipped, r.Method+" "+r.Path) {
			continue
		}
		out = append(out, fuzzRoute{r.Method, pathWithParams(r.Path)})
	}
	slices.SortFunc(out, func(a, b fuzzRoute) int { return strings.Compare(a.method+a.path, b.method+b.path) })
	return out
}

// serverFault reports a 5xx other than 501, which the spec's unbuilt
// analytics reports answer on purpose.
func serverFault(status int) bool {
	return status >= 500 && status != http.StatusNotImplemented
}

// serve runs one request through the application's handler as the admin
// and fails on a 5xx or an answer that is not the spec's envelope.
func serve(t *testing.T, env *apitest.Env, req *http.Request) {
	req.Header.Set("Authorization", "Bearer "+env.Admin.Token)
	w := httptest.NewRecorder()
	env.App.Handler.ServeHTTP(w, req)
	if serverFault(w.Code) {
		t.Fatalf("%s %s: %d %s", req.Method, req.URL, w.Code, w.Body)
	}
	if w.Code >= 400 && strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") &&
		!strings.Contains(w.Body.String(), `"status":"error"`) {
		t.Fatalf("%s %s: %d without the error envelope: %s", req.Method, req.URL, w.Code, w.Body)
	}
}

// FuzzRequestBodies checks that no JSON body, however malformed, makes a
// decoder of any mutating route answer 500. Run longer with:
// go test -run '^$' -fuzz FuzzRequestBodies ./rest/
func FuzzRequestBodies(f *testing.F) {
	env := apitest.New(f)
	routes := routesOf(env, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete)
	for _, seed := range []string{
		``, `{`, `}`, `null`, `[]`, `"x"`, `0`, `{"name":null}`, `{"name":5}`, `{"name":"a","x":{}}`,
		`{"email":"a@b.c","password":"p"}`, `{"organization_id":"00000000-0000-0000-0000-000000000000"}`,
		`{"permissions":["teams:read","nope"]}`, `{"expires_at":"yesterday"}`, `{"is_available":"yes"}`,
		`{"name":"` + strings.Repeat("a", 300) + `"}`, "{\"name\":\"\xff\xfe\"}",
		`{"per_agent_timeout_secs":1e40}`, `{"role_id":"` + "\u0000" + `"}`, `{"page":9223372036854775807}`,
		// Campaigns: imports and schedules.
		`{"recipients":[{"phone_number":"+15550001","template_params":{"1":[],"2":1e400}}]}`,
		`{"recipients":[null,{"phone_number":7}]}`, `{"scheduled_at":null,"template_id":""}`,
		`{"scheduled_at":"2999-01-01T00:00:00+14:00","name":"x","chat_account":"x","template_id":"0190f1d2-0000-7000-8000-000000000001"}`,
	} {
		f.Add(0, []byte(seed))
	}
	// Every route once with a plain object and once with one of the seeds
	// above (all of them on every route would take the fuzzing time to
	// measure).
	for i := range routes {
		f.Add(i, []byte(`{"name":"x","email":"x@example.com","id":"0190f1d2-0000-7000-8000-000000000001"}`))
	}
	f.Fuzz(func(t *testing.T, route int, body []byte) {
		r := routes[uint(route)%uint(len(routes))]
		req := httptest.NewRequest(r.method, r.path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		serve(t, env, req)
	})
}

// FuzzQueryParameters sends arbitrary query strings to every GET route.
func FuzzQueryParameters(f *testing.F) {
	env := apitest.New(f)
	routes := routesOf(env, http.MethodGet)
	for _, seed := range []string{
		"", "page=2&limit=10", "page=9223372036854775807", "limit=-1", "page=0x10", "search=%00",
		"search=%ff%fe", "tags=a,,b", "before_id=nope", "account=%E2%80%AE", "active_only=maybe",
		"organization_id=00000000-0000-0000-0000-000000000000", "page=1&page=2", "search=" + strings.Repeat("a", 2000),
		"hub.mode=subscribe&hub.verify_token=x&hub.challenge=y", "token=a.b.c", "%zz", "a=%",
		"offset=1000001&limit=abc", "direction=sideways", "active_only=1", "agent_id=nope&group_by=year",
		"from=2026-02-30&to=x", "contact_id=%00", "expires=&signature=",
	} {
		f.Add(0, seed)
	}
	for i := range routes {
		f.Add(i, "page=2&limit=10&search=a")
	}
	f.Fuzz(func(t *testing.T, route int, query string) {
		r := routes[uint(route)%uint(len(routes))]
		req := httptest.NewRequest(r.method, r.path, nil)
		req.URL.RawQuery = query
		serve(t, env, req)
	})
}

// fuzzBoundary is the multipart boundary of FuzzMultipartBodies.
const fuzzBoundary = "fuzzboundary"

// multipartRoutes are the routes that read multipart/form-data.
var multipartRoutes = []fuzzRoute{
	{http.MethodPost, "/api/messages/media"},
	{http.MethodPost, "/api/messages/template"},
	{http.MethodPost, "/api/accounts/0190f1d2-0000-7000-8000-000000000001/business_profile/photo"},
	{http.MethodPost, "/api/templates/upload-media"},
}

// multipartSeed builds a well-formed form with the given fields and a file.
func multipartSeed(fields map[string]string, file string) []byte {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	_ = w.SetBoundary(fuzzBoundary)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	if file != "" {
		fw, _ := w.CreateFormFile("file", "photo.png")
		_, _ = fw.Write([]byte(file))
	}
	_ = w.Close()
	return b.Bytes()
}

// FuzzMultipartBodies sends arbitrary multipart/form-data bodies to the
// upload routes.
func FuzzMultipartBodies(f *testing.F) {
	env := apitest.New(f)
	contact := "0190f1d2-0000-7000-8000-000000000002"
	for _, seed := range [][]byte{
		nil, []byte("--" + fuzzBoundary + "--\r\n"), []byte("--" + fuzzBoundary + "\r\n\r\n"),
		multipartSeed(map[string]string{"contact_id": contact, "type": "image", "caption": "hi"}, "\x89PNG\r\n\x1a\n"),
		multipartSeed(map[string]string{"contact_id": "nope"}, "x"),
		multipartSeed(map[string]string{"contact_id": contact, "template_name": "t", "template_params": `{"1":"a"}`}, ""),
		multipartSeed(map[string]string{"contact_id": contact, "template_name": "t", "header_params": `[1]`}, ""),
		multipartSeed(map[string]string{"contact_id": contact, "caption": "a\x00b"}, "GIF89a"),
		multipartSeed(nil, strings.Repeat("\x00", 64)),
	} {
		for i := range multipartRoutes {
			f.Add(i, seed)
		}
	}
	f.Fuzz(func(t *testing.T, route int, body []byte) {
		r := multipartRoutes[uint(route)%uint(len(multipartRoutes))]
		req := httptest.NewRequest(r.method, r.path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "multipart/form-data; boundary="+fuzzBoundary)
		serve(t, env, req)
	})
}
