// Package sso owns single sign-on: the authorization code flow with PKCE
// against an organization's configured identity provider (Google,
// Microsoft, GitHub, Facebook or a custom OAuth2 provider), the state and
// OIDC nonce kept in Redis for one use, and the rules of who may sign in
// (verified email, allowed domains, auto-creation). OAuth2 is
// golang.org/x/oauth2 and OIDC is github.com/coreos/go-oidc/v3; nothing of
// the protocol is written by hand.
//
// It decides who signs in; access.Service issues the session and rest/
// sets the cookies. It must not know about HTTP transports.
package sso

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
	"golang.org/x/oauth2"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/auth"
	"switchboard/ent"
	"switchboard/ent/rule"
	"switchboard/ent/ssoconfig"
	"switchboard/ent/viewer"
	"switchboard/secrets"
)

// Bounds of the flow.
const (
	// StateTTL is how long a started sign-in can be completed.
	StateTTL = 10 * time.Minute
	// IdPTimeout bounds the calls to the identity provider of a callback.
	IdPTimeout  = 15 * time.Second
	maxStateLen = 128
	maxCodeLen  = 4096
)

// Endpoints of an identity provider. With Issuer, the provider is OpenID
// Connect: its endpoints come from discovery and the person from the
// signed ID token. Without, it is plain OAuth2 and the person comes from
// UserInfoURL.
type Endpoints struct {
	Issuer string
	// SkipIssuerCheck accepts ID tokens whose issuer differs from Issuer:
	// Microsoft's multi-tenant "common" endpoint signs with the issuer of
	// each person's own tenant.
	SkipIssuerCheck bool
	AuthURL         string
	TokenURL        string
	UserInfoURL     string
	Scopes          []string
}

// WellKnown are the endpoints of the four public providers; tests point
// them at a fake.
func WellKnown() map[ssoconfig.Provider]Endpoints {
	return map[ssoconfig.Provider]Endpoints{
		ssoconfig.ProviderGoogle: {Issuer: "https://accounts.google.com", Scopes: []string{oidc.ScopeOpenID, "email", "profile"}},
		ssoconfig.ProviderMicrosoft: {Issuer: "https://login.microsoftonline.com/common/v2.0", SkipIssuerCheck: true,
			Scopes: []string{oidc.ScopeOpenID, "email", "profile"}},
		ssoconfig.ProviderGithub: {AuthURL: "https://github.com/login/oauth/authorize",
			TokenURL: "https://github.com/login/oauth/access_token", UserInfoURL: "https://api.github.com/user",
			Scopes: []string{"read:user", "user:email"}},
		ssoconfig.ProviderFacebook: {AuthURL: "https://www.facebook.com/v21.0/dialog/oauth",
			TokenURL: "https://graph.facebook.com/v21.0/oauth/access_token", UserInfoURL: "https://graph.facebook.com/v21.0/me?fields=id,name,email",
			Scopes: []string{"email", "public_profile"}},
	}
}

// Service runs sign-ins.
type Service struct {
	Client  *ent.Client
	Secrets *secrets.Box
	Access  *access.Service
	Redis   *redis.Client
	// Prefix namespaces the Redis keys.
	Prefix string
	// PublicURL is the externally visible base URL: the callback is
	// PublicURL/api/auth/sso/{provider}/callback.
	PublicURL string
	// HTTP calls the identity providers (a netguard client: a custom
	// provider's URLs are configured by organization admins).
	HTTP *http.Client
	// Providers are the well-known providers' endpoints (WellKnown when
	// nil).
	Providers map[ssoconfig.Provider]Endpoints
}

// pending is a started sign-in, kept in Redis under its state.
type pending struct {
	OrgID    uuid.UUID          `json:"org"`
	Provider ssoconfig.Provider `json:"provider"`
	Verifier string             `json:"verifier"`
	Nonce    string             `json:"nonce"`
	// LinkUser and LinkSession are set when a person started linking the
	// provider from their own session (StartLink): the callback then
	// links the subject to that account instead of signing in.
	LinkUser    uuid.UUID `json:"link_user,omitempty"`
	LinkSession uuid.UUID `json:"link_session,omitempty"`
}

func (s *Service) stateKey(state string) string { return s.Prefix + "sso:state:" + state }

func (s *Service) ctx(ctx context.Context) context.Context {
	if s.HTTP != nil {
		ctx = context.WithValue(ctx, oauth2.HTTPClient, s.HTTP)
	}
	return ctx
}

// Start begins a sign-in with provider for the organization orgID (nil:
// the one organization that has the provider enabled) and returns the
// provider's authorization URL and the sign-in's state, which the
// transport binds to the browser (Callback.BrowserState). The state
// (anti-CSRF), PKCE verifier and OIDC nonce are kept in Redis for
// StateTTL. Errors: invalid (unknown provider; no organization given and
// several have it enabled), not_found (the provider is not configured or
// not enabled for the organization), unavailable (discovery or Redis
// failed).
func (s *Service) Start(ctx context.Context, provider string, orgID *uuid.UUID) (authURL, state string, err error) {
	return s.start(ctx, provider, orgID, pending{})
}

// StartLink begins linking provider, as configured in the viewer's
// organization, to the viewer's own account: the person signs in at the
// provider, and the callback links the subject it vouches for
// (access.LinkSSOIdentity). It answers like Start. Errors: those of Start,
// and forbidden (an API key, or a super admin: access.CheckSSOLinker).
func (s *Service) StartLink(ctx context.Context, v *viewer.Viewer, provider string) (authURL, state string, err error) {
	if err := s.Access.CheckSSOLinker(ctx, v); err != nil {
		return "", "", err
	}
	return s.start(ctx, provider, &v.OrgID, pending{LinkUser: v.UserID, LinkSession: v.SessionID})
}

func (s *Service) start(ctx context.Context, provider string, orgID *uuid.UUID, pd pending) (authURL, state string, err error) {
	p := ssoconfig.Provider(provider)
	if ssoconfig.ProviderValidator(p) != nil {
		return "", "", apperr.Invalidf("provider must be one of google, microsoft, github, facebook, custom")
	}
	cfg, err := s.config(ctx, p, orgID)
	if err != nil {
		return "", "", err
	}
	oc, _, err := s.oauth(ctx, cfg)
	if err != nil {
		return "", "", err
	}
	st := auth.RandomToken(32)
	pd.OrgID, pd.Provider, pd.Verifier, pd.Nonce = cfg.OrganizationID, p, oauth2.GenerateVerifier(), auth.RandomToken(32)
	raw, _ := json.Marshal(pd)
	if err := s.Redis.Set(ctx, s.stateKey(st), raw, StateTTL).Err(); err != nil {
		return "", "", apperr.New(apperr.Unavailable, "the sign-in could not be started; try again")
	}
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(pd.Verifier)}
	if s.endpoints(cfg).Issuer != "" {
		opts = append(opts, oidc.Nonce(pd.Nonce))
	}
	return oc.AuthCodeURL(st, opts...), st, nil
}

// config finds the enabled configuration of provider.
func (s *Service) config(ctx context.Context, p ssoconfig.Provider, orgID *uuid.UUID) (*ent.SSOConfig, error) {
	q := s.Client.SSOConfig.Query().Where(ssoconfig.ProviderEQ(p), ssoconfig.IsEnabled(true))
	var qctx context.Context
	if orgID != nil {
		qctx = viewer.SystemContext(ctx, *orgID)
	} else {
		qctx = rule.Bypass(ctx, "SSO init without an organization: the one organization that enabled the provider")
	}
	cs, err := q.Limit(2).All(qctx)
	if err != nil {
		return nil, apperr.Wrap(err, "SSO configuration")
	}
	switch {
	case len(cs) == 0:
		return nil, apperr.NotFoundf("single sign-on with %s is not enabled for this organization", p)
	case len(cs) > 1:
		return nil, apperr.Invalidf("several organizations use %s; give organization_id", p)
	}
	return cs[0], nil
}

func (s *Service) endpoints(cfg *ent.SSOConfig) Endpoints {
	if cfg.Provider == ssoconfig.ProviderCustom {
		return Endpoints{AuthURL: cfg.AuthURL, TokenURL: cfg.TokenURL, UserInfoURL: cfg.UserInfoURL,
			Scopes: []string{"openid", "email", "profile"}}
	}
	ps := s.Providers
	if ps == nil {
		ps = WellKnown()
	}
	return ps[cfg.Provider]
}

// oauth builds the OAuth2 configuration (and, for OIDC, the provider
// found by discovery).
func (s *Service) oauth(ctx context.Context, cfg *ent.SSOConfig) (*oauth2.Config, *oidc.Provider, error) {
	ep := s.endpoints(cfg)
	secret := ""
	if len(cfg.ClientSecretEncrypted) > 0 {
		// Faults of this server: logged, not shown to whoever signs in.
		if s.Secrets == nil {
			return nil, nil, &apperr.Error{Code: apperr.Internal, Message: "internal error", Err: errors.New("sso: encryption is not configured")}
		}
		b, err := s.Secrets.Open(cfg.ClientSecretEncrypted)
		if err != nil {
			return nil, nil, &apperr.Error{Code: apperr.Internal, Message: "internal error", Err: fmt.Errorf("sso: decrypting the client secret: %w", err)}
		}
		secret = string(b)
	}
	oc := &oauth2.Config{
		ClientID: cfg.ClientID, ClientSecret: secret, Scopes: ep.Scopes,
		RedirectURL: strings.TrimRight(s.PublicURL, "/") + "/api/auth/sso/" + string(cfg.Provider) + "/callback",
		Endpoint:    oauth2.Endpoint{AuthURL: ep.AuthURL, TokenURL: ep.TokenURL},
	}
	if ep.Issuer == "" {
		return oc, nil, nil
	}
	dctx, cancel := context.WithTimeout(s.ctx(ctx), IdPTimeout)
	defer cancel()
	if ep.SkipIssuerCheck {
		dctx = oidc.InsecureIssuerURLContext(dctx, ep.Issuer)
	}
	op, err := oidc.NewProvider(dctx, ep.Issuer)
	if err != nil {
		return nil, nil, apperr.New(apperr.Unavailable, "the identity provider's configuration could not be read; try again")
	}
	oc.Endpoint = op.Endpoint()
	return oc, op, nil
}

// Outcome is what a completed callback did: signed a person in (Session),
// or linked the provider to the account of the session that asked
// (Linked).
type Outcome struct {
	Session  *access.Session
	Linked   bool
	Provider ssoconfig.Provider
}

// Callback is what the provider sends back, and BrowserState the state
// of the sign-in the browser started (kept by the transport, a cookie).
type Callback struct {
	Provider         string
	State            string
	Code             string
	Error            string
	ErrorDescription string
	BrowserState     string
}

// Finish completes a sign-in: it spends the state (once, even when
// replayed concurrently), exchanges the code with the PKCE verifier,
// reads the person (ID token with its nonce, or the user-info endpoint:
// the issuer and subject, and a verified email of an allowed domain), and
// either starts the session of the account linked to that subject
// (access.SingleSignOn) or, for a sign-in begun by StartLink, links the
// subject to the account that asked (access.LinkSSOIdentity). The state must be the one the browser started
// (BrowserState): a callback link made elsewhere cannot sign this browser
// in to another person's account (login CSRF, RFC 6749 section 10.12).
// Errors: invalid (missing, unknown, used or expired state, or not this
// browser's; another provider's state; no code), unauthenticated (the
// provider refused, the code exchange or the ID token failed), forbidden
// (unverified email, a domain not allowed, no linked account and no
// auto-creation, a super admin), not_found (the provider was disabled
// meanwhile), conflict (a link to a subject linked to another account).
func (s *Service) Finish(ctx context.Context, cb Callback) (*Outcome, error) {
	if cb.State == "" || len(cb.State) > maxStateLen {
		return nil, apperr.Invalidf("state is required")
	}
	if subtle.ConstantTimeCompare([]byte(cb.State), []byte(cb.BrowserState)) != 1 {
		return nil, apperr.Invalidf("the sign-in was not started in this browser; start again")
	}
	raw, err := s.Redis.GetDel(ctx, s.stateKey(cb.State)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, apperr.Invalidf("the sign-in state is unknown, expired or already used; start again")
	}
	if err != nil {
		return nil, apperr.New(apperr.Unavailable, "the sign-in could not be completed; try again")
	}
	var pd pending
	if err := json.Unmarshal(raw, &pd); err != nil || string(pd.Provider) != cb.Provider {
		return nil, apperr.Invalidf("the sign-in state belongs to another provider; start again")
	}
	if cb.Error != "" {
		return nil, apperr.New(apperr.Unauthenticated, "the identity provider refused the sign-in: %s", clip(cb.Error, 100))
	}
	if cb.Code == "" || len(cb.Code) > maxCodeLen {
		return nil, apperr.Invalidf("code is required")
	}
	cfg, err := s.config(ctx, pd.Provider, &pd.OrgID)
	if err != nil {
		return nil, err
	}
	oc, op, err := s.oauth(ctx, cfg)
	if err != nil {
		return nil, err
	}
	xctx, cancel := context.WithTimeout(s.ctx(ctx), IdPTimeout)
	defer cancel()
	tok, err := oc.Exchange(xctx, cb.Code, oauth2.VerifierOption(pd.Verifier))
	if err != nil {
		return nil, apperr.New(apperr.Unauthenticated, "the identity provider did not accept the sign-in code")
	}
	var who person
	if op != nil {
		who, err = s.fromIDToken(xctx, op, cfg, tok, pd.Nonce)
	} else {
		who, err = s.fromUserInfo(xctx, oc, cfg, tok)
	}
	if err != nil {
		return nil, err
	}
	if !who.Verified {
		return nil, apperr.Forbiddenf("the identity provider did not verify this email address")
	}
	if !domainAllowed(who.Email, cfg.AllowedDomains) {
		return nil, apperr.Forbiddenf("sign-in with this email domain is not allowed")
	}
	id := access.SSOIdentity{
		OrgID: pd.OrgID, ConfigID: cfg.ID, Provider: cfg.Provider, Issuer: who.Issuer, Subject: who.Subject,
		Email: who.Email, FullName: who.Name, AllowAutoCreate: cfg.AllowAutoCreate, DefaultRole: cfg.DefaultRole,
	}
	if pd.LinkUser != uuid.Nil {
		err := s.Access.LinkSSOIdentity(ctx, access.SSOLink{UserID: pd.LinkUser, OrgID: pd.OrgID, SessionID: pd.LinkSession, Identity: id})
		if err != nil {
			return nil, err
		}
		return &Outcome{Linked: true, Provider: cfg.Provider}, nil
	}
	sess, err := s.Access.SingleSignOn(ctx, id)
	if err != nil {
		return nil, err
	}
	return &Outcome{Session: sess, Provider: cfg.Provider}, nil
}

// person is who the provider vouched for: Issuer and Subject name them
// for good; the e-mail is what they say today.
type person struct {
	Issuer   string
	Subject  string
	Email    string
	Name     string
	Verified bool
}

// maxSubject bounds a subject (OpenID Connect: at most 255 ASCII
// characters).
const maxSubject = 255

// identified refuses a person without a usable subject.
func (p person) identified() error {
	if p.Issuer == "" || p.Subject == "" || len(p.Subject) > maxSubject || len(p.Issuer) > 1000 {
		return apperr.New(apperr.Unauthenticated, "the identity provider did not identify the person (no subject)")
	}
	return nil
}

func (s *Service) fromIDToken(ctx context.Context, op *oidc.Provider, cfg *ent.SSOConfig, tok *oauth2.Token, nonce string) (person, error) {
	rawID, _ := tok.Extra("id_token").(string)
	if rawID == "" {
		return person{}, apperr.New(apperr.Unauthenticated, "the identity provider sent no ID token")
	}
	ep := s.endpoints(cfg)
	idt, err := op.Verifier(&oidc.Config{ClientID: cfg.ClientID, SkipIssuerCheck: ep.SkipIssuerCheck}).Verify(ctx, rawID)
	if err != nil {
		return person{}, apperr.New(apperr.Unauthenticated, "the identity provider's ID token is not valid")
	}
	if idt.Nonce != nonce {
		return person{}, apperr.New(apperr.Unauthenticated, "the ID token's nonce does not match the sign-in")
	}
	var c struct {
		Email         string `json:"email"`
		EmailVerified any    `json:"email_verified"`
		Name          string `json:"name"`
		// Microsoft marks a verified domain owner's email this way.
		XMSEdov any `json:"xms_edov"`
	}
	if err := idt.Claims(&c); err != nil {
		return person{}, apperr.New(apperr.Unauthenticated, "the identity provider's ID token is not valid")
	}
	p := person{Issuer: idt.Issuer, Subject: idt.Subject, Email: c.Email, Name: c.Name,
		Verified: truthy(c.EmailVerified) || truthy(c.XMSEdov)}
	return p, p.identified()
}

func (s *Service) fromUserInfo(ctx context.Context, oc *oauth2.Config, cfg *ent.SSOConfig, tok *oauth2.Token) (person, error) {
	hc := oc.Client(ctx, tok)
	ep := s.endpoints(cfg)
	var u struct {
		// The subject: OpenID Connect's sub, else the provider's id
		// (GitHub's is a number, Facebook's a string).
		Sub           json.RawMessage `json:"sub"`
		ID            json.RawMessage `json:"id"`
		Email         string          `json:"email"`
		EmailVerified any             `json:"email_verified"`
		Name          string          `json:"name"`
		Login         string          `json:"login"`
	}
	if err := getJSON(ctx, hc, ep.UserInfoURL, &u); err != nil {
		return person{}, err
	}
	p := person{Issuer: userInfoIssuer(cfg, ep), Subject: subjectOf(u.Sub, u.ID),
		Email: u.Email, Name: u.Name, Verified: truthy(u.EmailVerified)}
	if err := p.identified(); err != nil {
		return person{}, err
	}
	switch cfg.Provider {
	case ssoconfig.ProviderFacebook:
		// Facebook returns only a confirmed email address.
		p.Verified = u.Email != ""
	case ssoconfig.ProviderGithub:
		// The profile's public email says nothing of verification: take
		// the primary address of /user/emails when it is verified.
		if p.Name == "" {
			p.Name = u.Login
		}
		var emails []struct {
			Email    string `json:"email"`
			Primary  bool   `json:"primary"`
			Verified bool   `json:"verified"`
		}
		base, _ := url.Parse(ep.UserInfoURL)
		if err := getJSON(ctx, hc, base.JoinPath("emails").String(), &emails); err != nil {
			return person{}, err
		}
		p.Email, p.Verified = "", false
		for _, e := range emails {
			if e.Primary {
				p.Email, p.Verified = e.Email, e.Verified
			}
		}
	}
	return p, nil
}

// userInfoIssuer names the plain OAuth2 provider that vouched for a
// subject: the well-known providers by their user-info host (a version in
// the path may change), a custom provider by its whole user-info URL, so
// that pointing the configuration at another provider links no one to
// the subjects of the first.
func userInfoIssuer(cfg *ent.SSOConfig, ep Endpoints) string {
	u, err := url.Parse(ep.UserInfoURL)
	if err != nil || u.Host == "" {
		return ""
	}
	if cfg.Provider != ssoconfig.ProviderCustom {
		return u.Scheme + "://" + u.Host
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}

// subjectOf reads a subject sent as a JSON string or number; sub wins
// over id.
func subjectOf(fields ...json.RawMessage) string {
	for _, raw := range fields {
		var str string
		if json.Unmarshal(raw, &str) == nil && str != "" {
			return str
		}
		var num json.Number
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if d.Decode(&num) == nil && num != "" {
			return num.String()
		}
	}
	return ""
}

// getJSON reads a bounded JSON answer of the provider.
func getJSON(ctx context.Context, hc *http.Client, u string, dst any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return apperr.New(apperr.Unauthenticated, "the identity provider's user-info URL is not valid")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return apperr.New(apperr.Unauthenticated, "the identity provider's user information could not be read")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return apperr.New(apperr.Unauthenticated, "the identity provider's user information could not be read (HTTP %d)", resp.StatusCode)
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 1<<20)).Decode(dst); err != nil {
		return apperr.New(apperr.Unauthenticated, "the identity provider's user information is not valid JSON")
	}
	return nil
}

// domainAllowed reports whether email is one plain address (no display
// name, comment, quoted local part or second @; the whole text parsed)
// whose domain is in the comma-separated allowed list (stored
// normalized); an empty list allows every domain.
func domainAllowed(email, allowed string) bool {
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || strings.Count(email, "@") != 1 {
		return false
	}
	if strings.TrimSpace(allowed) == "" {
		return true
	}
	domain := strings.ToLower(email[strings.IndexByte(email, '@')+1:])
	for _, d := range strings.Split(allowed, ",") {
		if strings.TrimSpace(d) == domain {
			return true
		}
	}
	return false
}

// truthy reads a boolean claim that some providers send as a string.
func truthy(v any) bool {
	switch b := v.(type) {
	case bool:
		return b
	case string:
		return strings.EqualFold(b, "true")
	}
	return false
}

func clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if len(s) > n {
		s = s[:n]
	}
	return fmt.Sprintf("%q", s)
}
