// Package apitest boots the whole application in-process for integration
// tests: a fresh PostgreSQL database and the shared Redis (or the embedded
// engines where those do not answer), an httptest server, and clients that
// speak the REST API as a given user or API key.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/app"
	"switchboard/auth"
	"switchboard/config"
	"switchboard/ent"
	"switchboard/ent/role"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
	"switchboard/internal/testenv"
)

// AdminPassword is the bootstrap admin's password in tests.
const AdminPassword = "admin-password-for-tests"

// Env is a running application under test.
type Env struct {
	T      testing.TB
	App    *app.App
	Server *httptest.Server
	// OrgID is the bootstrap organization.
	OrgID uuid.UUID
	// Admin is a client logged in as the bootstrap super admin.
	Admin *Client

	// SkipOpenAPI turns off checking each exchange against the OpenAPI
	// document, for a test that sends what the document forbids on
	// purpose and is answered with a success.
	SkipOpenAPI bool

	cfg       *config.Config
	namespace string
}

// Setting overrides a configuration variable.
type Setting struct{ Name, Value string }

// New starts the application with a fresh database. Settings override the
// test defaults (for example a low RATE_LIMIT_PER_MINUTE).
func New(tb testing.TB, settings ...Setting) *Env {
	tb.Helper()
	vars := map[string]string{
		"DATABASE_URL":               testenv.PostgresURL(tb),
		"REDIS_URL":                  testenv.RedisURL(tb),
		"DATA_DIR":                   tb.TempDir(),
		"JWT_SECRET":                 "test-jwt-secret",
		"ENCRYPTION_KEY":             "test-encryption-key",
		"ADMIN_EMAIL":                "admin@example.com",
		"ADMIN_PASSWORD":             AdminPassword,
		"COOKIE_SECURE":              "false",
		"RATE_LIMIT_PER_MINUTE":      "100000",
		"RATE_LIMIT_ANON_PER_MINUTE": "100000",
		"OUTBOUND_ALLOW_PRIVATE":     "true",
		"LOG_LEVEL":                  "error",
	}
	for _, s := range settings {
		vars[s.Name] = s.Value
	}
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
	if err != nil {
		tb.Fatalf("config: %v", err)
	}
	e := &Env{T: tb, cfg: cfg, namespace: testenv.Namespace() + uuid.NewString()[:8] + ":"}
	e.App, e.Server = e.start()
	e.Admin = e.Login("admin@example.com", AdminPassword)
	e.OrgID = e.Admin.OrgID
	return e
}

// start boots one application instance on the environment's database,
// Redis and namespace, with its workers and an httptest server.
func (e *Env) start() (*app.App, *httptest.Server) {
	e.T.Helper()
	var out io.Writer = io.Discard
	if os.Getenv("APITEST_LOG") != "" { // the application's log on stderr, for debugging
		out = os.Stderr
	}
	log := slog.New(slog.NewTextHandler(out, nil))
	a, err := app.New(context.Background(), e.cfg, log, app.Options{Namespace: e.namespace, AutoMigrate: true})
	if err != nil {
		e.T.Fatalf("app: %v", err)
	}
	if err := a.StartWorkers(context.Background()); err != nil {
		e.T.Fatalf("workers: %v", err)
	}
	// The application's own server, with its timeouts.
	srv := httptest.NewUnstartedServer(a.Handler)
	srv.Config = a.NewHTTPServer()
	srv.Start()
	e.T.Cleanup(func() {
		srv.Close()
		a.StopWorkers()
		_ = a.Close()
	})
	return a, srv
}

// Peer starts a second server process on the same database and Redis, as a
// second node behind a load balancer would be.
func (e *Env) Peer() (*app.App, *httptest.Server) {
	e.T.Helper()
	return e.start()
}

// Client calls the API with one credential.
type Client struct {
	env    *Env
	Token  string
	APIKey string
	// Org, when set, is sent as X-Organization-ID.
	Org    string
	UserID uuid.UUID
	OrgID  uuid.UUID
}

// Anonymous returns a client without credentials.
func (e *Env) Anonymous() *Client { return &Client{env: e} }

// Login logs in and returns a bearer-token client.
func (e *Env) Login(email, password string) *Client {
	e.T.Helper()
	res := e.Anonymous().Do(http.MethodPost, "/api/auth/login", map[string]any{"email": email, "password": password})
	if res.Status != http.StatusOK {
		e.T.Fatalf("login %s: %d %s", email, res.Status, res.Raw)
	}
	return &Client{
		env: e, Token: res.String("data.access_token"),
		UserID: uuid.MustParse(res.String("data.user.id")),
		OrgID:  uuid.MustParse(res.String("data.user.organization_id")),
	}
}

// WithToken returns a client authenticating with an access token (for
// example one taken from a whm_access cookie).
func (e *Env) WithToken(token string) *Client { return &Client{env: e, Token: token} }

// WithAPIKey returns a client authenticating with key.
func (e *Env) WithAPIKey(key string) *Client { return &Client{env: e, APIKey: key} }

// Response is a decoded API response.
type Response struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any
}

// Do sends a JSON request (body may be nil, a string of raw JSON, or any
// value to marshal).
func (c *Client) Do(method, path string, body any) *Response {
	c.env.T.Helper()
	rd := encodeBody(c.env.T, body)
	req, err := http.NewRequest(method, c.env.Server.URL+path, rd)
	if err != nil {
		c.env.T.Fatalf("request: %v", err)
	}
	c.setHeaders(req, rd != nil)
	return c.env.Send(req)
}

// encodeBody is a request body: nil, a string of raw JSON, bytes, or any
// value to marshal.
func encodeBody(tb testing.TB, body any) io.Reader {
	tb.Helper()
	switch b := body.(type) {
	case nil:
		return nil
	case string:
		return strings.NewReader(b)
	case []byte:
		return bytes.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			tb.Fatalf("marshal: %v", err)
		}
		return bytes.NewReader(buf)
	}
}

// setHeaders sets c's credentials on req, and the JSON content type when
// it has a body.
func (c *Client) setHeaders(req *http.Request, hasBody bool) {
	if hasBody {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if c.APIKey != "" {
		req.Header.Set("X-API-Key", c.APIKey)
	}
	if c.Org != "" {
		req.Header.Set("X-Organization-ID", c.Org)
	}
}

// rawClient shows every answer as the server gave it: a redirect is the
// answer under test, not a hop to follow.
var rawClient = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// Send performs a prepared request and decodes the answer.
func (e *Env) Send(req *http.Request) *Response {
	e.T.Helper()
	var reqBody []byte
	if req.Body != nil {
		reqBody, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	resp, err := rawClient.Do(req)
	if err != nil {
		e.T.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	e.checkOpenAPI(req, reqBody, resp, raw)
	r := &Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	_ = json.Unmarshal(raw, &r.Body)
	return r
}

// Get reads a dotted path ("data.user.id", "data.teams.0.name") from the
// body; nil when absent.
func (r *Response) Get(path string) any {
	var cur any = r.Body
	for _, part := range strings.Split(path, ".") {
		switch v := cur.(type) {
		case map[string]any:
			cur = v[part]
		case []any:
			var i int
			if _, err := fmt.Sscanf(part, "%d", &i); err != nil || i < 0 || i >= len(v) {
				return nil
			}
			cur = v[i]
		default:
			return nil
		}
	}
	return cur
}

// String reads a string at path ("" when absent).
func (r *Response) String(path string) string {
	s, _ := r.Get(path).(string)
	return s
}

// Len is the length of the array at path (-1 when it is not an array).
func (r *Response) Len(path string) int {
	a, ok := r.Get(path).([]any)
	if !ok {
		return -1
	}
	return len(a)
}

// Number reads a number at path.
func (r *Response) Number(path string) float64 {
	f, _ := r.Get(path).(float64)
	return f
}

// ExpectStatus fails the test when the status differs, showing the body.
func (r *Response) ExpectStatus(tb testing.TB, want int) *Response {
	tb.Helper()
	if r.Status != want {
		tb.Fatalf("status %d, want %d; body: %s", r.Status, want, r.Raw)
	}
	return r
}

// ExpectError checks an error envelope with the given status.
func (r *Response) ExpectError(tb testing.TB, want int) *Response {
	tb.Helper()
	r.ExpectStatus(tb, want)
	if r.String("status") != "error" || r.String("message") == "" || r.Get("data") != nil {
		tb.Fatalf("not an error envelope: %s", r.Raw)
	}
	if _, ok := r.Body["data"]; !ok {
		tb.Fatalf("error envelope without data: null: %s", r.Raw)
	}
	return r
}

// Client returns the ent client.
func (e *Env) Client() *ent.Client { return e.App.DB.Client }

// UserPassword is the password of users made by NewUser.
const UserPassword = "user-password-for-tests"

// NewUser creates an active user who is a member of orgID with the system
// role roleName (Admin, Manager, Agent), and returns a client logged in as
// that user in that organization.
func (e *Env) NewUser(orgID uuid.UUID, roleName string) *Client {
	e.T.Helper()
	ctx := context.Background()
	email := strings.ToLower(roleName) + "-" + uuid.NewString()[:8] + "@example.com"
	hash, err := auth.HashPassword(UserPassword)
	if err != nil {
		e.T.Fatal(err)
	}
	c := e.Client()
	u, err := c.User.Create().SetEmail(email).SetPasswordHash(hash).SetFullName(roleName + " User").
		Save(rule.Bypass(ctx, "test fixture"))
	if err != nil {
		e.T.Fatalf("user: %v", err)
	}
	sctx := viewer.SystemContext(ctx, orgID)
	r, err := c.Role.Query().Where(role.Name(roleName)).Only(sctx)
	if err != nil {
		e.T.Fatalf("role %s: %v", roleName, err)
	}
	if err := c.OrganizationMember.Create().SetUserID(u.ID).SetRoleID(r.ID).SetIsDefault(true).Exec(sctx); err != nil {
		e.T.Fatalf("member: %v", err)
	}
	return e.Login(email, UserPassword)
}

// NewOrg creates another organization with its own Admin and returns that
// Admin's client.
func (e *Env) NewOrg(name string) *Client {
	e.T.Helper()
	ctx := context.Background()
	email := "owner-" + uuid.NewString()[:8] + "@example.com"
	hash, _ := auth.HashPassword(UserPassword)
	c := e.Client()
	u, err := c.User.Create().SetEmail(email).SetPasswordHash(hash).SetFullName(name + " Owner").
		Save(rule.Bypass(ctx, "test fixture"))
	if err != nil {
		e.T.Fatalf("user: %v", err)
	}
	if _, err := access.CreateOrganization(ctx, c, name, u.ID, true); err != nil {
		e.T.Fatalf("org: %v", err)
	}
	return e.Login(email, UserPassword)
}

// GraphQL posts a query with variables to /graphql.
func (c *Client) GraphQL(query string, vars map[string]any) *Response {
	c.env.T.Helper()
	return c.Do(http.MethodPost, "/graphql", map[string]any{"query": query, "variables": vars})
}

// ExpectGraphQLError checks a GraphQL answer refused before any resolver
// ran: the status, {"errors": [{"message", "extensions": {"code"}}]} with
// code, no data (absent or null) and no REST envelope.
func (r *Response) ExpectGraphQLError(tb testing.TB, status int, code string) *Response {
	tb.Helper()
	r.ExpectStatus(tb, status)
	if r.String("errors.0.message") == "" || r.GraphQLErrorCode() != code {
		tb.Fatalf("want a GraphQL error of code %q: %s", code, r.Raw)
	}
	if r.Get("data") != nil {
		tb.Fatalf("GraphQL error answer with data: %s", r.Raw)
	}
	for _, key := range []string{"status", "message"} {
		if _, ok := r.Body[key]; ok {
			tb.Fatalf("GraphQL error answer with the envelope's %q: %s", key, r.Raw)
		}
	}
	return r
}

// GraphQLErrorCode is extensions.code of the first GraphQL error ("" when
// there is none).
func (r *Response) GraphQLErrorCode() string {
	return r.String("errors.0.extensions.code")
}
