package benchkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// API is a server's REST API as the admin the tools log in as sees it.
type API struct {
	Base  string
	HTTP  *http.Client
	Token string
	OrgID string
	// OrgHeader, when set, is sent as X-Organization-ID: the admin acts
	// in that organization instead of its own (InOrg).
	OrgHeader string
}

// InOrg is the API as the admin sees it acting in the organization id.
func (a *API) InOrg(id string) *API {
	c := *a
	c.OrgID, c.OrgHeader = id, id
	return &c
}

type envelope struct {
	Status  string          `json:"status"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// Call sends a JSON request with the admin's token and decodes data into
// out (when not nil). A status other than want is an error.
func (a *API) Call(ctx context.Context, method, path string, body any, want int, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.Base+path, rd)
	if err != nil {
		return err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.Token != "" {
		req.Header.Set("Authorization", "Bearer "+a.Token)
	}
	if a.OrgHeader != "" {
		req.Header.Set("X-Organization-ID", a.OrgHeader)
	}
	resp, err := a.HTTP.Do(req)
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

// Login signs in as the admin on the server at base.
func Login(ctx context.Context, base, email, password string) (*API, error) {
	a := &API{Base: strings.TrimRight(base, "/"), HTTP: &http.Client{Timeout: 60 * time.Second}}
	var session struct {
		AccessToken string `json:"access_token"`
		User        struct {
			OrganizationID string `json:"organization_id"`
		} `json:"user"`
	}
	if err := a.Call(ctx, http.MethodPost, "/api/auth/login",
		map[string]string{"email": email, "password": password}, http.StatusOK, &session); err != nil {
		return nil, fmt.Errorf("login as %s on %s: %w", email, base, err)
	}
	a.Token, a.OrgID = session.AccessToken, session.User.OrganizationID
	return a, nil
}
