// Package providertest is an in-process fake of the WhatsApp Cloud API
// (Graph API) for tests of package provider and of everything built on it.
//
// The fake records every request and answers like the platform documents:
// message sends, read receipts, media upload, media info and download, phone
// number status, subscribed apps, the business profile and the Resumable
// Upload API. It keeps the state those answers need (uploaded media,
// subscriptions, the profile, upload sessions). Tests override any endpoint
// with Handle, or queue answers with Script (for example 429 then the
// default 200).
//
// Point the code under test at Fake.URL (PROVIDER_BASE_URL) and give it
// Fake.Account's credentials.
package providertest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/provider"
)

// Identifiers of the fake's default account.
const (
	PhoneID     = "106540352242922"
	BusinessID  = "102290129340398"
	AppID       = "1357924680135792"
	AccessToken = "EAAFakeAccessToken"
	APIVersion  = "v21.0"
)

// Request is one request the fake received.
type Request struct {
	Method string
	// Path is the path as received, such as /v21.0/106540352242922/messages.
	Path string
	// Version is the Graph API version segment ("v21.0"); empty for media
	// downloads, which are not versioned.
	Version string
	// Endpoint is Path without the version: /106540352242922/messages.
	Endpoint string
	Query    url.Values
	Header   http.Header
	Body     []byte
	// Form and Files hold the fields and files of a multipart body.
	Form  map[string]string
	Files []File
}

// File is one file part of a multipart request.
type File struct {
	Field       string
	Filename    string
	ContentType string
	Data        []byte
}

// JSON decodes the body into a generic value (map[string]any for objects),
// failing the test when it is not JSON.
func (r Request) JSON(tb testing.TB) any {
	tb.Helper()
	var v any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		tb.Fatalf("providertest: %s %s body is not JSON: %v\n%s", r.Method, r.Path, err, r.Body)
	}
	return v
}

// Fake is a running fake Graph API. Its methods are safe for concurrent use.
type Fake struct {
	// URL is the base URL to configure as PROVIDER_BASE_URL.
	URL    string
	Server *httptest.Server

	defaults *http.ServeMux

	mu         sync.Mutex
	requests   []Request
	routes     map[string]*route
	routeOrder []string
	overrides  *http.ServeMux
	token      string
	nextID     int
	media      map[string]*mediaObject
	phone      map[string]any
	profile    map[string]any
	subscribed map[string]bool
	sessions   map[string]*uploadSession
	handles    map[string]string
	sent       []any
	// templates holds the message templates (templates.go).
	templates templateStore
	// commerce holds the catalogs and products (catalogs.go).
	commerce catalogStore
	// flows holds the WhatsApp Flows (flows.go).
	flows flowStore
	// calls holds the Calling API's actions (calls.go).
	calls callStore

	// sends holds fault injection and send counting (faults.go).
	sends sendState
}

type route struct {
	handler http.HandlerFunc
	script  []Response
}

type mediaObject struct {
	mimeType string
	data     []byte
}

type uploadSession struct {
	length   int
	fileType string
	name     string
}

// New starts a fake that stops when the test ends.
func New(tb testing.TB) *Fake {
	tb.Helper()
	f := newFake()
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	f.URL = f.Server.URL
	tb.Cleanup(f.Server.Close)
	return f
}

// newFake returns a fake with its default state and no server.
func newFake() *Fake {
	f := &Fake{
		routes:     map[string]*route{},
		media:      map[string]*mediaObject{},
		subscribed: map[string]bool{},
		sessions:   map[string]*uploadSession{},
		handles:    map[string]string{},
		phone:      defaultPhone(),
		profile:    defaultProfile(),
	}
	f.defaults = f.defaultRoutes()
	return f
}

// Account returns credentials for the fake's default phone number, business
// account and token.
func (f *Fake) Account() provider.Account {
	return provider.Account{PhoneID: PhoneID, BusinessID: BusinessID, AccessToken: AccessToken, APIVersion: APIVersion}
}

// Client returns a provider client for the fake that retries without
// waiting. opts may adjust it; BaseURL and HTTPClient are always the fake's.
func (f *Fake) Client(opts ...provider.Options) *provider.Client {
	var o provider.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	o.BaseURL, o.HTTPClient = f.URL, f.Server.Client()
	if o.Backoff == nil {
		o.Backoff = func(int) time.Duration { return 0 }
	}
	if o.Sleep == nil {
		o.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	}
	return provider.New(o)
}

// Requests returns every request received so far, in order.
func (f *Fake) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Request, len(f.requests))
	copy(out, f.requests)
	return out
}

// Find returns the requests with method and Endpoint (path without version),
// such as Find("POST", "/"+PhoneID+"/messages").
func (f *Fake) Find(method, endpoint string) []Request {
	var out []Request
	for _, r := range f.Requests() {
		if r.Method == method && r.Endpoint == endpoint {
			out = append(out, r)
		}
	}
	return out
}

// Sent returns the JSON bodies of the messages the fake accepted by default
// (not those answered by Script or Handle), read receipts excluded.
func (f *Fake) Sent() []any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]any(nil), f.sent...)
}

// Handle answers requests matching pattern with h instead of the default.
// pattern is an http.ServeMux pattern over the path without its version,
// such as "POST /{phone}/messages" or "GET /{id}" (for media downloads,
// which are unversioned, the whole path: "GET "+DownloadPath); r.PathValue
// and Version(r) work in h. Handling the same pattern again replaces h.
// Patterns follow ServeMux rules: two that differ only in wildcard names
// conflict and panic.
func (f *Fake) Handle(pattern string, h http.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.route(pattern).handler = h
}

// Script queues answers for requests matching pattern (as for Handle): each
// matching request takes the next one; once they are used up, requests get
// the Handle handler or the default answer again.
func (f *Fake) Script(pattern string, rs ...Response) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rt := f.route(pattern)
	rt.script = append(rt.script, rs...)
}

// route returns pattern's route, registering it. f.mu is held.
func (f *Fake) route(pattern string) *route {
	if rt, ok := f.routes[pattern]; ok {
		return rt
	}
	rt := &route{}
	f.routes[pattern] = rt
	f.routeOrder = append(f.routeOrder, pattern)
	mux := http.NewServeMux()
	for _, p := range f.routeOrder {
		mux.HandleFunc(p, f.overrideHandler(p))
	}
	f.overrides = mux
	return rt
}

func (f *Fake) overrideHandler(pattern string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		rt := f.routes[pattern]
		var next *Response
		if len(rt.script) > 0 {
			next = &rt.script[0]
			rt.script = rt.script[1:]
		}
		h := rt.handler
		f.mu.Unlock()
		switch {
		case next != nil:
			next.write(w)
		case h != nil:
			h(w, r)
		default:
			f.serveDefault(w, r)
		}
	}
}

// SetAccessToken makes the fake accept only token; by default any
// non-empty token is accepted.
func (f *Fake) SetAccessToken(token string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.token = token
}

// AddMedia stores a media object as if uploaded or received, so that
// GET /{id} describes it and its URL downloads data.
func (f *Fake) AddMedia(id, mimeType string, data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.media[id] = &mediaObject{mimeType: mimeType, data: append([]byte(nil), data...)}
}

// Media returns the MIME type and content of a stored media object.
func (f *Fake) Media(id string) (mimeType string, data []byte, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, ok := f.media[id]
	if !ok {
		return "", nil, false
	}
	return m.mimeType, append([]byte(nil), m.data...), true
}

// SetPhoneNumber changes fields of the phone number status answer, such as
// {"quality_rating": "YELLOW", "account_mode": "SANDBOX"}. A nil value
// removes the field, as on API versions that lack it: requesting it then
// answers (#100) "Tried accessing nonexisting field".
func (f *Fake) SetPhoneNumber(fields map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, v := range fields {
		if v == nil {
			delete(f.phone, k)
		} else {
			f.phone[k] = v
		}
	}
}

// BusinessProfile returns the stored business profile.
func (f *Fake) BusinessProfile() map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return cloneMap(f.profile)
}

// Subscribed reports whether an app subscribed to business account waba.
func (f *Fake) Subscribed(waba string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.subscribed[waba]
}

var versionRE = regexp.MustCompile(`^v[0-9]+\.[0-9]+$`)

// versionKey carries the request's Graph API version ("" when unversioned)
// to the handlers, which see the path without it.
type versionKey struct{}

// Version returns the Graph API version of a request passed to a Handle
// handler, or "" for an unversioned path (media downloads).
func Version(r *http.Request) string {
	v, _ := r.Context().Value(versionKey{}).(string)
	return v
}

// serve records the request, then answers it from a script, a Handle
// handler or the default routes.
func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := Request{
		Method: r.Method,
		Path:   r.URL.Path,
		Query:  r.URL.Query(),
		Header: r.Header.Clone(),
		Body:   body,
	}
	rec.Endpoint = r.URL.Path
	if seg, rest, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/"); ok && versionRE.MatchString(seg) {
		rec.Version, rec.Endpoint = seg, "/"+rest
	}
	rec.Form, rec.Files = parseMultipart(r.Header.Get("Content-Type"), body)

	f.mu.Lock()
	if !f.sends.unrecorded.Load() {
		f.requests = append(f.requests, rec)
	}
	overrides := f.overrides
	f.mu.Unlock()

	r2 := r.Clone(context.WithValue(r.Context(), versionKey{}, rec.Version))
	r2.URL.Path, r2.URL.RawPath = rec.Endpoint, ""
	r2.Body = io.NopCloser(bytes.NewReader(body))
	if f.interceptSend(w, r2, rec) {
		return
	}
	if overrides != nil {
		if _, pattern := overrides.Handler(r2); pattern != "" {
			overrides.ServeHTTP(w, r2)
			return
		}
	}
	f.serveDefault(w, r2)
}

func parseMultipart(contentType string, body []byte) (map[string]string, []File) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "multipart/form-data" {
		return nil, nil
	}
	form := map[string]string{}
	var files []File
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			break
		}
		data, _ := io.ReadAll(p)
		if p.FileName() != "" {
			files = append(files, File{Field: p.FormName(), Filename: p.FileName(), ContentType: p.Header.Get("Content-Type"), Data: data})
		} else {
			form[p.FormName()] = string(data)
		}
	}
	return form, files
}

func cloneMap(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}
