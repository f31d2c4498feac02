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

// api is one node's REST API as the admin sees it.
type api struct {
	base  string
	http  *http.Client
	token string
	orgID string
}

type envelope struct {
	Status  string          `json:"status"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// call sends a JSON request with the admin's token and decodes data into
// out (when not nil). A status other than want is an error.
func (a *api) call(ctx context.Context, method, path string, body any, want int, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		return err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	resp, err := a.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	var env envelope
	_ = json.Unmarshal(raw, &env)
	if resp.StatusCode != want {
		msg := env.Message
		if msg == "" {
			msg = string(raw)
		}
		return fmt.Errorf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, msg)
	}
	if out != nil {
		return json.Unmarshal(env.Data, out)
	}
	return nil
}

// login signs in as the admin on the node at base.
func login(ctx context.Context, base, email, password string) (*api, error) {
	a := &api{base: strings.TrimRight(base, "/"), http: &http.Client{Timeout: 60 * time.Second}}
	var session struct {
		AccessToken string `json:"access_token"`
		User        struct {
			OrganizationID string `json:"organization_id"`
		} `json:"user"`
	}
	if err := a.call(ctx, http.MethodPost, "/api/auth/login",
		map[string]string{"email": email, "password": password}, http.StatusOK, &session); err != nil {
		return nil, fmt.Errorf("login as %s on %s: %w", email, base, err)
	}
	a.token, a.orgID = session.AccessToken, session.User.OrganizationID
	return a, nil
}

// at is the same session against another node (tokens are valid on every
// node: they share JWT_SECRET).
func (a *api) at(base string) *api {
	c := *a
	c.base = strings.TrimRight(base, "/")
	return &c
}

// account is an account of the run: the load's (webhooks addressed to its
// phone id, signed with its app secret) or the campaign's.
type account struct {
	ID, Name, PhoneID, BusinessID, Secret string
}

func (a *api) createAccount(ctx context.Context, name string) (*account, error) {
	acc := &account{Name: name, PhoneID: benchkit.RandomDigits(15), BusinessID: benchkit.RandomDigits(15),
		Secret: "fault-secret-" + benchkit.RandomHex(8)}
	var out struct {
		ID string `json:"id"`
	}
	err := a.call(ctx, http.MethodPost, "/api/accounts", map[string]any{
		"name": acc.Name, "phone_id": acc.PhoneID, "business_id": acc.BusinessID,
		"access_token": "fault-token-" + benchkit.RandomHex(4), "app_secret": acc.Secret,
	}, http.StatusCreated, &out)
	if err != nil {
		return nil, fmt.Errorf("creating account %s: %w", name, err)
	}
	acc.ID = out.ID
	return acc, nil
}

// subscribe creates an outbound webhook subscription of events to url
// with secret.
func (a *api) subscribe(ctx context.Context, name, url, secret string, events []string) (string, error) {
	var out struct {
		ID string `json:"id"`
	}
	err := a.call(ctx, http.MethodPost, "/api/webhooks", map[string]any{
		"name": name, "url": url, "events": events, "secret": secret, "is_active": true,
	}, http.StatusCreated, &out)
	if err != nil {
		return "", fmt.Errorf("creating the webhook subscription: %w", err)
	}
	return out.ID, nil
}

// wsToken asks for a single-use /ws token.
func (a *api) wsToken(ctx context.Context) (string, error) {
	var t struct {
		Token string `json:"token"`
	}
	if err := a.call(ctx, http.MethodGet, "/api/auth/ws-token", nil, http.StatusOK, &t); err != nil {
		return "", err
	}
	return t.Token, nil
}
