package main

import (
	"context"
	"fmt"
	"net/http"

	"switchboard/bench/internal/benchkit"
	"switchboard/internal/apiclient"
)

// server is the Switchboard instance under load, as seen through its REST
// API: an admin session (acting in one organization) and the account the
// run's webhooks address.
type server struct {
	api    *apiclient.Client
	runID  string
	phone  string // the account's phone_id (metadata.phone_number_id)
	bizID  string // the account's business_id (entry[].id)
	secret string // the account's app_secret (X-Hub-Signature-256 key)
}

// connect logs in as the admin and creates an account with a phone id and
// an app secret unique to the run.
func connect(ctx context.Context, base, email, password, runID string) (*server, error) {
	api, err := apiclient.Login(ctx, base, email, password)
	if err != nil {
		return nil, err
	}
	s := &server{api: api, runID: runID}
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
	err := s.api.Call(ctx, http.MethodPost, "/api/accounts", map[string]any{
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
	if err := s.api.Call(ctx, http.MethodPost, "/api/organizations", map[string]any{"name": name}, http.StatusCreated, &org); err != nil {
		return nil, fmt.Errorf("creating an organization: %w", err)
	}
	o := &server{api: s.api.InOrg(org.ID), runID: s.runID}
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
	if err := s.api.Call(ctx, http.MethodGet, "/api/auth/ws-token", nil, http.StatusOK, &t); err != nil {
		return "", err
	}
	return t.Token, nil
}
