package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"switchboard/bench/internal/benchkit"
	"switchboard/internal/apiclient"
)

// api is a node's REST API as the admin sees it (apiclient.Client).
type api struct{ *apiclient.Client }

// login signs in as the admin on the node at base.
func login(ctx context.Context, base, email, password string) (*api, error) {
	a, err := apiclient.Login(ctx, base, email, password)
	if err != nil {
		return nil, err
	}
	return &api{a}, nil
}

// at is the same session against another node (tokens are valid on every
// node: they share JWT_SECRET).
func (a *api) at(base string) *api {
	c := *a.Client
	c.Base = strings.TrimRight(base, "/")
	return &api{&c}
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
	err := a.Call(ctx, http.MethodPost, "/api/accounts", map[string]any{
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
	err := a.Call(ctx, http.MethodPost, "/api/webhooks", map[string]any{
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
	if err := a.Call(ctx, http.MethodGet, "/api/auth/ws-token", nil, http.StatusOK, &t); err != nil {
		return "", err
	}
	return t.Token, nil
}
