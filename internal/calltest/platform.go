package calltest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"switchboard/provider/providertest"
)

// Action is one call action the platform accepted from the server, with
// the time it arrived.
type Action struct {
	CallID, Action, SDP string
	At                  time.Time
}

// Platform is the Graph API fake on a loopback port, noting every call
// action, and the sender of the platform's signed `calls` webhooks.
type Platform struct {
	Fake *providertest.Fake
	// URL is the fake's base URL (PROVIDER_BASE_URL).
	URL string
	// Webhook is the server's /api/webhook URL; AppSecret signs the
	// bodies posted there (the account's app secret).
	Webhook, AppSecret string

	srv  *http.Server
	http *http.Client

	mu      sync.Mutex
	actions []Action
	changed chan struct{} // closed and replaced on every action
}

// StartPlatform serves a fake Graph API on 127.0.0.1.
func StartPlatform(appSecret string) (*Platform, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	url := "http://" + ln.Addr().String()
	p := &Platform{Fake: providertest.NewStandalone(url), URL: url, AppSecret: appSecret,
		http: &http.Client{Timeout: 30 * time.Second}, changed: make(chan struct{})}
	p.srv = &http.Server{Handler: p.handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// Close stops the fake.
func (p *Platform) Close() { _ = p.srv.Close() }

var callsPath = regexp.MustCompile(`^/v[0-9.]+/[^/]+/calls$`)

// handler serves the fake, noting each call action it accepts.
func (p *Platform) handler() http.Handler {
	inner := p.Fake.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !callsPath.MatchString(r.URL.Path) {
			inner.ServeHTTP(w, r)
			return
		}
		at := time.Now()
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := &statusRecorder{ResponseWriter: w}
		inner.ServeHTTP(rec, r)
		var m struct {
			CallID  string `json:"call_id"`
			Action  string `json:"action"`
			Session *struct {
				SDP string `json:"sdp"`
			} `json:"session"`
		}
		if rec.code != http.StatusOK || json.Unmarshal(body, &m) != nil {
			return
		}
		a := Action{CallID: m.CallID, Action: m.Action, At: at}
		if m.Session != nil {
			a.SDP = m.Session.SDP
		}
		p.mu.Lock()
		p.actions = append(p.actions, a)
		close(p.changed)
		p.changed = make(chan struct{})
		p.mu.Unlock()
	})
}

type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.code = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Actions returns the accepted actions of callID, in order.
func (p *Platform) Actions(callID string) []Action {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Action
	for _, a := range p.actions {
		if a.CallID == callID {
			out = append(out, a)
		}
	}
	return out
}

// Count is how many accepted actions of callID are of the kind action.
func (p *Platform) Count(callID, action string) int {
	n := 0
	for _, a := range p.Actions(callID) {
		if a.Action == action {
			n++
		}
	}
	return n
}

// WaitAction waits for the first accepted action of the kind on callID.
func (p *Platform) WaitAction(ctx context.Context, callID, action string) (Action, error) {
	for {
		p.mu.Lock()
		changed := p.changed
		for _, a := range p.actions {
			if a.CallID == callID && a.Action == action {
				p.mu.Unlock()
				return a, nil
			}
		}
		p.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return Action{}, fmt.Errorf("no %s for call %s (actions: %s): %w", action, callID, p.describe(callID), ctx.Err())
		}
	}
}

func (p *Platform) describe(callID string) string {
	var names []string
	for _, a := range p.Actions(callID) {
		names = append(names, a.Action)
	}
	return strings.Join(names, ", ")
}

// Ring posts the platform's connect webhook of a user's call carrying
// offer, and returns when the server has acknowledged it.
func (p *Platform) Ring(ctx context.Context, callID, from, offer string) error {
	return p.post(ctx, fmt.Sprintf(`{"object":"whatsapp_business_account","entry":[{"id":%q,"changes":[{"field":"calls","value":{
"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550001111","phone_number_id":%q},
"contacts":[{"profile":{"name":"Caller"},"wa_id":%q}],
"calls":[{"id":%q,"from":%q,"to":"15550001111","event":"connect","direction":"USER_INITIATED","timestamp":"%d",
"session":{"sdp_type":"offer","sdp":%q}}]}}]}]}`, providertest.BusinessID, providertest.PhoneID, from, callID, from,
		time.Now().Unix(), offer))
}

// Terminate posts the platform's terminate webhook of the call (the user
// hung up, or the platform ended it).
func (p *Platform) Terminate(ctx context.Context, callID, from string, duration int) error {
	return p.post(ctx, fmt.Sprintf(`{"object":"whatsapp_business_account","entry":[{"id":%q,"changes":[{"field":"calls","value":{
"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550001111","phone_number_id":%q},
"calls":[{"id":%q,"from":%q,"to":"15550001111","event":"terminate","direction":"USER_INITIATED","timestamp":"%d","status":"Completed","duration":%d}]}}]}]}`,
		providertest.BusinessID, providertest.PhoneID, callID, from, time.Now().Unix(), duration))
}

// post sends a webhook body signed with the app secret.
func (p *Platform) post(ctx context.Context, body string) error {
	mac := hmac.New(sha256.New, []byte(p.AppSecret))
	mac.Write([]byte(body))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.Webhook, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := p.http.Do(req)
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("webhook: HTTP %d: %s", resp.StatusCode, b)
	}
	return nil
}
