package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"switchboard/bench/internal/benchkit"
)

// server is the Switchboard instance under load, as seen through its REST
// API: an admin session and the account the run's webhooks address.
type server struct {
	base   string
	http   *http.Client
	token  string // the admin's access token (Bearer)
	orgID  string
	runID  string
	phone  string // the account's phone_id (metadata.phone_number_id)
	bizID  string // the account's business_id (entry[].id)
	secret string // the account's app_secret (X-Hub-Signature-256 key)
	// orgHeader, when set, is sent as X-Organization-ID: the admin acts
	// in that organization instead of its own.
	orgHeader string
}

// envelope is the API's {status, message, data}.
type envelope struct {
	Status  string          `json:"status"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// call sends a JSON request with the admin's token and decodes data into
// out (when not nil). A status other than want is an error.
func (s *server) call(ctx context.Context, method, path string, body any, want int, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, rd)
	if err != nil {
		return err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	if s.orgHeader != "" {
		req.Header.Set("X-Organization-ID", s.orgHeader)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var env envelope
	_ = json.Unmarshal(raw, &env)
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, firstNonEmpty(env.Message, string(raw)))
	}
	if out != nil {
		return json.Unmarshal(env.Data, out)
	}
	return nil
}

// connect logs in as the admin and creates an account with a phone id and
// an app secret unique to the run.
func connect(ctx context.Context, base, email, password, runID string) (*server, error) {
	s := &server{
		base:  strings.TrimRight(base, "/"),
		http:  &http.Client{Timeout: 30 * time.Second},
		runID: runID,
	}
	var session struct {
		AccessToken string `json:"access_token"`
		User        struct {
			OrganizationID string `json:"organization_id"`
		} `json:"user"`
	}
	if err := s.call(ctx, http.MethodPost, "/api/auth/login",
		map[string]string{"email": email, "password": password}, http.StatusOK, &session); err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	s.token, s.orgID = session.AccessToken, session.User.OrganizationID
	if err := s.addAccount(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// addAccount creates an account with a phone id and an app secret unique
// to the run.
func (s *server) addAccount(ctx context.Context) error {
	s.phone, s.bizID = benchkit.RandomDigits(15), benchkit.RandomDigits(15)
	s.secret = "bench-secret-" + s.runID + "-" + benchkit.RandomHex(8)
	err := s.call(ctx, http.MethodPost, "/api/accounts", map[string]any{
		"name": "bench-" + s.runID, "phone_id": s.phone, "business_id": s.bizID,
		"access_token": "bench-token-" + s.runID, "app_secret": s.secret,
	}, http.StatusCreated, nil)
	if err != nil {
		return fmt.Errorf("creating the run's account: %w", err)
	}
	return nil
}

// newOrganization creates an organization (its creator, the admin, is
// its admin) with an account of its own, and returns the server as seen
// from it.
func (s *server) newOrganization(ctx context.Context, name string) (*server, error) {
	var org struct {
		ID string `json:"id"`
	}
	if err := s.call(ctx, http.MethodPost, "/api/organizations", map[string]any{"name": name}, http.StatusCreated, &org); err != nil {
		return nil, fmt.Errorf("creating an organization: %w", err)
	}
	o := &server{base: s.base, http: s.http, token: s.token, runID: s.runID, orgID: org.ID, orgHeader: org.ID}
	if err := o.addAccount(ctx); err != nil {
		return nil, err
	}
	return o, nil
}

// wsToken asks for a single-use /ws token.
func (s *server) wsToken(ctx context.Context) (string, error) {
	var t struct {
		Token string `json:"token"`
	}
	if err := s.call(ctx, http.MethodGet, "/api/auth/ws-token", nil, http.StatusOK, &t); err != nil {
		return "", err
	}
	return t.Token, nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
