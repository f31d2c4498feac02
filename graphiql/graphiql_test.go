package graphiql_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"switchboard/graphiql"
	"switchboard/internal/apitest"
)

const (
	browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
	viewerQuery   = "{ viewer { user { email } } }"
)

// cookies are the session cookies a browser holds after signing in.
func cookies(t *testing.T, env *apitest.Env) []*http.Cookie {
	t.Helper()
	res := env.Anonymous().Do(http.MethodPost, "/api/auth/login",
		map[string]string{"email": "admin@example.com", "password": apitest.AdminPassword}).ExpectStatus(t, http.StatusOK)
	return (&http.Response{Header: res.Header}).Cookies()
}

// request sends one request to /graphql (or another path) as a browser
// or client would.
type request struct {
	method, path, accept, body string
	cookies                    []*http.Cookie
	bearer                     string
}

func (r request) send(t *testing.T, env *apitest.Env) *apitest.Response {
	t.Helper()
	req, err := http.NewRequest(r.method, env.Server.URL+r.path, strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	if r.accept != "" {
		req.Header.Set("Accept", r.accept)
	}
	if r.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, c := range r.cookies {
		req.AddCookie(c)
	}
	if r.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+r.bearer)
	}
	return env.Send(req)
}

func TestPageOrGraphQL(t *testing.T) {
	env := apitest.New(t)
	session := cookies(t, env)
	token := env.Admin.Token
	withQuery := "/graphql?query=" + url.QueryEscape(viewerQuery)
	const (
		page     = "graphiql page"
		login    = "sign-in page"
		data     = "graphql data"
		gqlError = "graphql error"
	)
	cases := []struct {
		name       string
		req        request
		wantStatus int
		want       string
	}{
		{"BrowserWithSession", request{method: http.MethodGet, accept: browserAccept, cookies: session}, 200, page},
		{"BrowserWithBearer", request{method: http.MethodGet, accept: browserAccept, bearer: token}, 200, page},
		{"BrowserWithoutSession", request{method: http.MethodGet, accept: browserAccept}, 401, login},
		{"BrowserWithBadCookie", request{method: http.MethodGet, accept: browserAccept,
			cookies: []*http.Cookie{{Name: "whm_access", Value: "not-a-token"}}}, 401, login},
		{"HeadWithSession", request{method: http.MethodHead, accept: browserAccept, cookies: session}, 200, ""},
		{"BrowserWithQuery", request{method: http.MethodGet, path: withQuery, accept: browserAccept, cookies: session}, 200, data},
		{"JSONWithQuery", request{method: http.MethodGet, path: withQuery, accept: "application/json", bearer: token}, 200, data},
		{"JSONWithoutQuery", request{method: http.MethodGet, accept: "application/json", bearer: token}, 400, gqlError},
		{"AnyTypeWithoutQuery", request{method: http.MethodGet, accept: "*/*", bearer: token}, 400, gqlError},
		{"JSONPreferred", request{method: http.MethodGet, accept: "text/html;q=0.5, application/json", bearer: token}, 400, gqlError},
		{"TieGoesToJSON", request{method: http.MethodGet, accept: "application/json, text/html", bearer: token}, 400, gqlError},
		{"HTMLRefusedByQuality", request{method: http.MethodGet, accept: "text/html;q=0", bearer: token}, 400, gqlError},
		{"JSONWithoutSession", request{method: http.MethodGet, path: withQuery, accept: "application/json"}, 401, ""},
		{"PostFromBrowser", request{method: http.MethodPost, accept: browserAccept, bearer: token,
			body: `{"query":"` + viewerQuery + `"}`}, 200, data},
		{"PostWithCookieNeedsCSRF", request{method: http.MethodPost, accept: browserAccept, cookies: session,
			body: `{"query":"` + viewerQuery + `"}`}, 403, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.req.path == "" {
				tc.req.path = "/graphql"
			}
			res := tc.req.send(t, env)
			if res.Status != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", res.Status, tc.wantStatus, res.Raw)
			}
			html := strings.HasPrefix(res.Header.Get("Content-Type"), "text/html")
			switch tc.want {
			case page, login:
				if !html {
					t.Fatalf("Content-Type %q, want HTML", res.Header.Get("Content-Type"))
				}
				checkPolicy(t, res.Header)
				if got := res.Header.Get("Cache-Control"); got != "no-store" {
					t.Errorf("Cache-Control %q, want no-store", got)
				}
				isPage := strings.Contains(string(res.Raw), `<div id="graphiql">`)
				isLogin := strings.Contains(string(res.Raw), `<form id="login"`)
				if isPage != (tc.want == page) || isLogin != (tc.want == login) {
					t.Fatalf("want the %s, got %s", tc.want, res.Raw)
				}
			case data:
				if got := res.String("data.viewer.user.email"); got != "admin@example.com" {
					t.Fatalf("viewer email %q: %s", got, res.Raw)
				}
			case gqlError:
				if html || res.Len("errors") == 0 {
					t.Fatalf("want a GraphQL error, got %s %s", res.Header.Get("Content-Type"), res.Raw)
				}
			}
			if tc.req.method == http.MethodHead && len(res.Raw) != 0 {
				t.Errorf("HEAD answered a body")
			}
		})
	}
}

func checkPolicy(t *testing.T, h http.Header) {
	t.Helper()
	if got := h.Get("Content-Security-Policy"); got != graphiql.CSP {
		t.Errorf("Content-Security-Policy %q, want %q", got, graphiql.CSP)
	}
	if got := h.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options %q", got)
	}
}

var assetURL = regexp.MustCompile(`(?:src|href)="(/graphql/assets/[^"]+)"`)

func TestAssets(t *testing.T) {
	env := apitest.New(t)
	pageHTML := request{method: http.MethodGet, path: "/graphql", accept: browserAccept, bearer: env.Admin.Token}.send(t, env).Raw
	loginHTML := request{method: http.MethodGet, path: "/graphql", accept: browserAccept}.send(t, env).Raw
	urls := map[string]bool{}
	for _, html := range [][]byte{pageHTML, loginHTML} {
		for _, m := range assetURL.FindAllSubmatch(html, -1) {
			urls[strings.ReplaceAll(string(m[1]), "&amp;", "&")] = true
		}
	}
	if len(urls) != 9 {
		t.Fatalf("the pages name %d assets, want 9: %v", len(urls), urls)
	}
	for u := range urls {
		t.Run(u, func(t *testing.T) {
			res := request{method: http.MethodGet, path: u}.send(t, env).ExpectStatus(t, http.StatusOK)
			want := "text/javascript; charset=utf-8"
			if strings.Contains(u, ".css?") {
				want = "text/css; charset=utf-8"
			}
			if got := res.Header.Get("Content-Type"); got != want {
				t.Errorf("Content-Type %q, want %q", got, want)
			}
			checkPolicy(t, res.Header)
			if got := res.Header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
				t.Errorf("Cache-Control %q", got)
			}
			etag := res.Header.Get("ETag")
			if etag == "" || len(res.Raw) == 0 {
				t.Fatalf("ETag %q, %d bytes", etag, len(res.Raw))
			}
			// Another version's URL is not cached for good; the ETag
			// revalidates it.
			unversioned, _, _ := strings.Cut(u, "?")
			res = request{method: http.MethodGet, path: unversioned}.send(t, env).ExpectStatus(t, http.StatusOK)
			if got := res.Header.Get("Cache-Control"); got != "no-cache" {
				t.Errorf("unversioned Cache-Control %q, want no-cache", got)
			}
			req, _ := http.NewRequest(http.MethodGet, env.Server.URL+unversioned, nil)
			req.Header.Set("If-None-Match", etag)
			if res := env.Send(req); res.Status != http.StatusNotModified {
				t.Errorf("If-None-Match: status %d, want 304", res.Status)
			}
		})
	}
	for _, path := range []string{"/graphql/assets/README.md", "/graphql/assets/LICENSE.react", "/graphql/assets/../graphiql.go", "/graphql/assets/nope.js"} {
		if res := (request{method: http.MethodGet, path: path}).send(t, env); res.Status != http.StatusNotFound {
			t.Errorf("%s: status %d, want 404", path, res.Status)
		}
	}
}

// TestAssetsGzipped: a client that takes gzip gets GraphiQL's large files
// compressed (with their own ETag), one that does not gets them as they
// are, and both decode to the same bytes.
func TestAssetsGzipped(t *testing.T) {
	env := apitest.New(t)
	html := request{method: http.MethodGet, path: "/graphql", accept: browserAccept, bearer: env.Admin.Token}.send(t, env).Raw
	var bundle string
	for _, m := range assetURL.FindAllSubmatch(html, -1) {
		if u := strings.ReplaceAll(string(m[1]), "&amp;", "&"); strings.Contains(u, "graphiql.min.js") {
			bundle = u
		}
	}
	if bundle == "" {
		t.Fatal("the page names no graphiql.min.js")
	}
	get := func(encoding string) *apitest.Response {
		req, _ := http.NewRequest(http.MethodGet, env.Server.URL+bundle, nil)
		req.Header.Set("Accept-Encoding", encoding) // set by hand: the client does not decode it
		return env.Send(req).ExpectStatus(t, http.StatusOK)
	}
	plain, zipped := get("identity"), get("br, gzip;q=0.8")
	if plain.Header.Get("Content-Encoding") != "" || zipped.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q and %q", plain.Header.Get("Content-Encoding"), zipped.Header.Get("Content-Encoding"))
	}
	if plain.Header.Get("ETag") == zipped.Header.Get("ETag") || zipped.Header.Get("Vary") != "Accept-Encoding" {
		t.Fatalf("ETags %q and %q, Vary %q", plain.Header.Get("ETag"), zipped.Header.Get("ETag"), zipped.Header.Get("Vary"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped.Raw))
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(decoded, plain.Raw) {
		t.Fatalf("gzip body decodes to %d bytes (err %v), want the %d plain ones", len(decoded), err, len(plain.Raw))
	}
	if len(zipped.Raw)*3 > len(plain.Raw) {
		t.Errorf("gzip body %d bytes for %d plain", len(zipped.Raw), len(plain.Raw))
	}
	if res := get("gzip;q=0"); res.Header.Get("Content-Encoding") != "" {
		t.Error("gzip;q=0 still got gzip")
	}
}
