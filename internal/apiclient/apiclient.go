// Package apiclient speaks the server's REST API as one signed-in user,
// for what drives a built server from outside: the end-to-end tests of
// calls and the benchmark tools.
package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"time"
)

// Client is the REST API as one signed-in user sees it.
type Client struct {
	Base   string
	HTTP   *http.Client
	Token  string
	UserID string
	// OrgID is the organization the user acts in: its own, or OrgHeader.
	OrgID string
	// OrgHeader, when set, is sent as X-Organization-ID: the user acts in
	// that organization instead of its own (InOrg).
	OrgHeader string
}

// Login signs in on the server at base.
func Login(ctx context.Context, base, email, password string) (*Client, error) {
	c := &Client{Base: strings.TrimRight(base, "/"), HTTP: &http.Client{Timeout: 60 * time.Second}}
	var session struct {
		AccessToken string `json:"access_token"`
		User        struct {
			ID             string `json:"id"`
			OrganizationID string `json:"organization_id"`
		} `json:"user"`
	}
	if err := c.Call(ctx, http.MethodPost, "/api/auth/login",
		map[string]string{"email": email, "password": password}, http.StatusOK, &session); err != nil {
		return nil, fmt.Errorf("login as %s on %s: %w", email, base, err)
	}
	c.Token, c.UserID, c.OrgID = session.AccessToken, session.User.ID, session.User.OrganizationID
	return c, nil
}

// InOrg is the client acting in the organization id.
func (c *Client) InOrg(id string) *Client {
	in := *c
	in.OrgID, in.OrgHeader = id, id
	return &in
}

// Call sends body as JSON (none when nil) and decodes the envelope's data
// into out (when not nil); a status other than want is an error.
func (c *Client) Call(ctx context.Context, method, path string, body any, want int, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, rd)
	if err != nil {
		return err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return c.do(req, want, out)
}

// Upload posts data as the multipart file field "file".
func (c *Client) Upload(ctx context.Context, path, filename string, data []byte, out any) error {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	part, err := w.CreateFormFile("file", filename)
	if err != nil {
		return err
	}
	if _, err := part.Write(data); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Base+path, &buf)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	return c.do(req, http.StatusOK, out)
}

// Get fetches a URL of the server (a path, or an absolute URL as a signed
// link is) without credentials and returns the body.
func (c *Client) Get(ctx context.Context, url string) ([]byte, error) {
	if strings.HasPrefix(url, "/") {
		url = c.Base + url
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	return b, err
}

func (c *Client) do(req *http.Request, want int, out any) error {
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if c.OrgHeader != "" {
		req.Header.Set("X-Organization-ID", c.OrgHeader)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	var env struct {
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	_ = json.Unmarshal(raw, &env)
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: HTTP %d (want %d): %s", req.Method, req.URL.Path, resp.StatusCode, want, raw)
	}
	if out != nil {
		return json.Unmarshal(env.Data, out)
	}
	return nil
}
