// Package graphiql serves the GraphiQL IDE at GET /graphql to browsers: a
// vendored static build (no CDN), a bootstrap script instead of inline
// code, and a strict Content-Security-Policy on the page and its assets.
package graphiql

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// AssetsPath is where the page's scripts and styles are served.
const AssetsPath = "/graphql/assets/"

// CSP is the policy of the page and its assets: every script, style and
// request stays on this origin (GraphiQL's fonts and icons are data:
// URIs in its stylesheet), nothing may frame the page, and its forms post
// here only. The one inline style allowed, by its hash, is the scroll
// lock GraphiQL's dialogs add to the document (react-remove-scroll-bar);
// on this page, which never scrolls, its text is fixed. The browser test
// fails if an upgrade changes it.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self' '" + dialogScrollLockHash + "'; connect-src 'self'; " +
	"img-src 'self' data:; font-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

const dialogScrollLockHash = "sha256-Y/huXlwoYkVyQlxwSVcCi1RCDGDCSVBzDt0hYP9qlTc="

//go:embed assets/*.js assets/*.css
var assetFiles embed.FS

//go:embed page.html login.html
var pageFiles embed.FS

// asset is one embedded file with the version its URL carries.
type asset struct {
	body    []byte
	version string
	gz      *gzipped
}

// gzipped is an asset's gzip encoding, made on first request (GraphiQL's
// bundle is 3.4 MB as published, ~0.8 MB gzipped); not at start, which
// every CLI command would pay for.
type gzipped struct {
	once sync.Once
	body []byte
}

func (a asset) gzipBody() []byte {
	a.gz.once.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write(a.body)
		_ = zw.Close()
		a.gz.body = buf.Bytes()
	})
	return a.gz.body
}

// acceptsGzip reports whether the request's Accept-Encoding takes gzip.
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(v, ",") {
			coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if strings.EqualFold(strings.TrimSpace(coding), "gzip") &&
				strings.ReplaceAll(strings.TrimSpace(params), " ", "") != "q=0" {
				return true
			}
		}
	}
	return false
}

var (
	assets = loadAssets()
	pages  = template.Must(template.New("").Funcs(template.FuncMap{"asset": assetURL}).ParseFS(pageFiles, "*.html"))
	// The two pages are rendered once: nothing in them varies per request.
	page  = render("page.html")
	login = render("login.html")
)

func loadAssets() map[string]asset {
	m := map[string]asset{}
	err := fs.WalkDir(assetFiles, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := assetFiles.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		m[path.Base(p)] = asset{body: body, version: hex.EncodeToString(sum[:8]), gz: &gzipped{}}
		return nil
	})
	if err != nil {
		panic(err)
	}
	return m
}

// assetURL is the versioned URL of an asset; a page naming an unknown one
// fails at start.
func assetURL(name string) (string, error) {
	a, ok := assets[name]
	if !ok {
		return "", fs.ErrNotExist
	}
	return AssetsPath + name + "?v=" + a.version, nil
}

func render(name string) []byte {
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, name, nil); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// WantsPage reports whether r is a browser opening the endpoint: a GET
// without GraphQL parameters whose Accept header prefers HTML to JSON.
// Every other request is GraphQL's.
func WantsPage(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		return false
	}
	q := r.URL.Query()
	if q.Has("query") || q.Has("extensions") {
		return false
	}
	return prefersHTML(r.Header.Values("Accept"))
}

// prefersHTML reports whether an Accept header names text/html with a
// higher quality than any JSON type (a tie goes to JSON; */* counts for
// neither).
func prefersHTML(accept []string) bool {
	var html, json float64
	for _, line := range accept {
		for part := range strings.SplitSeq(line, ",") {
			typ, params, err := mime.ParseMediaType(part)
			if err != nil {
				continue
			}
			q := 1.0
			if v, ok := params["q"]; ok {
				if q, err = strconv.ParseFloat(v, 64); err != nil {
					continue
				}
			}
			switch typ {
			case "text/html":
				html = max(html, q)
			case "application/json", "application/graphql-response+json":
				json = max(json, q)
			}
		}
	}
	return html > 0 && html > json
}

// Page serves GraphiQL to an authenticated browser.
var Page http.Handler = htmlPage(page, http.StatusOK)

// Login serves the sign-in page to a browser without a session, with
// status 401: the URL needs a session, and the page gets one.
var Login http.Handler = htmlPage(login, http.StatusUnauthorized)

func htmlPage(body []byte, status int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		setPolicy(h)
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		// The same URL answers JSON to API clients, and the page
		// depends on the session.
		h.Set("Vary", "Accept, Cookie")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			_, _ = w.Write(body)
		}
	}
}

// Assets serves the files under AssetsPath. A request for the current
// version (the URL the pages use) may be cached for good; any other is
// revalidated by its ETag.
var Assets http.Handler = http.HandlerFunc(serveAsset)

func serveAsset(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, AssetsPath)
	a, ok := assets[name]
	h := w.Header()
	setPolicy(h)
	if !ok {
		http.Error(w, "no such asset", http.StatusNotFound)
		return
	}
	if r.URL.Query().Get("v") == a.version {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	// Set here, not from the system's MIME table, which may differ.
	h.Set("Content-Type", assetTypes[path.Ext(name)])
	h.Set("Vary", "Accept-Encoding")
	body := a.body
	if acceptsGzip(r) {
		body = a.gzipBody()
		h.Set("Content-Encoding", "gzip")
		h.Set("ETag", `"`+a.version+`-gz"`)
	} else {
		h.Set("ETag", `"`+a.version+`"`)
	}
	// ServeContent answers conditional and range requests.
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(body))
}

var assetTypes = map[string]string{
	".js":  "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
}

func setPolicy(h http.Header) {
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Content-Type-Options", "nosniff")
}
