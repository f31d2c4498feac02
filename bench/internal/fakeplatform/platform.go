// Package fakeplatform adds to providertest's Graph API fake what the
// benchmarks that run the application as separate processes need: the
// time of every accepted message send (to measure a send rate as the
// platform sees it), and, as an option, the platform's status webhooks
// echoing each accepted send's biz_opaque_callback_data back to the
// server, signed with the app secret, so that a server killed between a
// send and its bookkeeping can reconcile it.
package fakeplatform

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"switchboard/provider/providertest"
)

// Echo configures the status webhooks.
type Echo struct {
	// URL is the server's webhook endpoint (http://host:port/api/webhook).
	URL string
	// AppSecret signs each body (X-Hub-Signature-256).
	AppSecret string
	// BusinessID is entry[].id; PhoneID metadata.phone_number_id (empty:
	// the phone number id of the send's path).
	BusinessID string
	// Delay holds each status this long after the send was accepted (the
	// platform reports "sent" a moment after answering).
	Delay time.Duration
	// Batch is the most statuses one webhook carries (default 50).
	Batch int
	// GiveUp stops re-posting a webhook the server did not acknowledge
	// (it is down) after this long (default 10 minutes).
	GiveUp time.Duration
}

// Send is one accepted message send.
type Send struct {
	At       time.Time
	To       string
	Callback string
	// From is the client's address (host:port), to tell which process
	// sent it.
	From string
}

// Platform serves a fake and watches its message sends.
type Platform struct {
	Fake *providertest.Fake
	echo *Echo

	mu    sync.Mutex
	sends []Send

	queue chan status
	// Echoed counts the statuses the server acknowledged; EchoFailures the
	// webhook POSTs that failed (re-posted); EchoDropped the statuses given
	// up on.
	Echoed, EchoFailures, EchoDropped atomic.Int64
	wg                                sync.WaitGroup

	srv *http.Server // Serve's, nil under New
}

type status struct {
	wamid, to, callback, phone string
	due                        time.Time
}

// New wraps f. With echo not nil, Start must run to post the webhooks.
func New(f *providertest.Fake, echo *Echo) *Platform {
	p := &Platform{Fake: f, echo: echo}
	if echo != nil {
		if echo.Batch <= 0 {
			echo.Batch = 50
		}
		if echo.GiveUp <= 0 {
			echo.GiveUp = 10 * time.Minute
		}
		p.queue = make(chan status, 1<<16)
	}
	return p
}

// Serve starts a standalone fake on addr (its own HTTP server, stopped
// when ctx ends), watched like New's, recording nothing but the sends.
func Serve(ctx context.Context, addr string, echo *Echo) (*Platform, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("serving the fake: %w", err)
	}
	f := providertest.NewStandalone("http://" + ln.Addr().String())
	f.SetRecording(false)
	p := New(f, echo)
	p.srv = &http.Server{Handler: p.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	context.AfterFunc(ctx, func() { _ = p.srv.Close() })
	return p, nil
}

// CloseIdle closes the keep-alive connections the servers hold to Serve's
// fake (and keeps new ones from being kept), so that a node's idle
// goroutine count does not include its pooled connections' readers.
func (p *Platform) CloseIdle() {
	if p.srv != nil {
		p.srv.SetKeepAlivesEnabled(false)
	}
}

// SetTier sets the phone number's messaging limit tier in both fields the
// provider client reads (whatsapp_business_manager_messaging_limit comes
// first, then messaging_limit_tier).
func (p *Platform) SetTier(tier string) {
	p.Fake.SetPhoneNumber(map[string]any{"messaging_limit_tier": tier, "whatsapp_business_manager_messaging_limit": tier})
}

var sendPath = regexp.MustCompile(`^/v[0-9]+\.[0-9]+/([^/]+)/messages$`)

// Handler serves the fake's handler (with its /_fake/ control endpoints),
// noting the accepted sends.
func (p *Platform) Handler() http.Handler {
	inner := p.Fake.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := sendPath.FindStringSubmatch(r.URL.Path)
		if r.Method != http.MethodPost || m == nil {
			inner.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := &recorder{ResponseWriter: w}
		inner.ServeHTTP(rec, r)
		if rec.code != http.StatusOK {
			return
		}
		var req struct {
			To       string `json:"to"`
			Status   string `json:"status"`
			Callback string `json:"biz_opaque_callback_data"`
		}
		var res struct {
			Messages []struct {
				ID string `json:"id"`
			} `json:"messages"`
		}
		if json.Unmarshal(body, &req) != nil || req.Status != "" || req.To == "" ||
			json.Unmarshal(rec.body.Bytes(), &res) != nil || len(res.Messages) == 0 {
			return
		}
		now := time.Now()
		p.mu.Lock()
		p.sends = append(p.sends, Send{At: now, To: req.To, Callback: req.Callback, From: r.RemoteAddr})
		p.mu.Unlock()
		if p.queue != nil {
			st := status{wamid: res.Messages[0].ID, to: req.To, callback: req.Callback, phone: m[1], due: now.Add(p.echo.Delay)}
			select {
			case p.queue <- st:
			default:
				p.EchoDropped.Add(1)
			}
		}
	})
}

// recorder keeps a copy of the answer's status and body.
type recorder struct {
	http.ResponseWriter
	code int
	body bytes.Buffer
}

func (r *recorder) WriteHeader(code int) {
	r.code = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

// Sends returns the accepted sends so far, in order of acceptance.
func (p *Platform) Sends() []Send {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Send, len(p.sends))
	copy(out, p.sends)
	sort.Slice(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}

// Accepted is how many sends were accepted.
func (p *Platform) Accepted() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.sends)
}

// Start posts the status webhooks until ctx ends (then Wait).
func (p *Platform) Start(ctx context.Context) {
	if p.queue == nil {
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		client := &http.Client{Timeout: 10 * time.Second}
		var batch []status
		flush := func() {
			if len(batch) > 0 {
				p.post(ctx, client, batch)
				batch = nil
			}
		}
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case st := <-p.queue:
				if d := time.Until(st.due); d > 0 {
					flush()
					select {
					case <-time.After(d):
					case <-ctx.Done():
						return
					}
				}
				batch = append(batch, st)
				if len(batch) >= p.echo.Batch {
					flush()
				}
			case <-tick.C:
				flush()
			}
		}
	}()
}

// Wait waits for Start's poster to end.
func (p *Platform) Wait() { p.wg.Wait() }

// Pending is how many statuses wait to be posted.
func (p *Platform) Pending() int {
	if p.queue == nil {
		return 0
	}
	return len(p.queue)
}

// post sends one webhook with the batch's "sent" statuses, again and again
// (1 s apart) until the server acknowledges it with 200 or GiveUp passes.
func (p *Platform) post(ctx context.Context, client *http.Client, batch []status) {
	body := p.body(batch)
	mac := hmac.New(sha256.New, []byte(p.echo.AppSecret))
	mac.Write(body)
	sig := "sha256=" + hex.EncodeToString(mac.Sum(nil))
	deadline := time.Now().Add(p.echo.GiveUp)
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.echo.URL, bytes.NewReader(body))
		if err != nil {
			log.Printf("fakeplatform: %v", err)
			p.EchoDropped.Add(int64(len(batch)))
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Hub-Signature-256", sig)
		res, err := client.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				p.Echoed.Add(int64(len(batch)))
				return
			}
			err = fmt.Errorf("HTTP %d", res.StatusCode)
		}
		p.EchoFailures.Add(1)
		if attempt == 0 {
			log.Printf("fakeplatform: status webhook not acknowledged (%v); posting it again every second", err)
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			p.EchoDropped.Add(int64(len(batch)))
			return
		}
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
		}
	}
}

// body is the platform's webhook for the batch's statuses (one entry per
// phone number id).
func (p *Platform) body(batch []status) []byte {
	byPhone := map[string][]map[string]any{}
	var phones []string
	for _, st := range batch {
		if _, ok := byPhone[st.phone]; !ok {
			phones = append(phones, st.phone)
		}
		byPhone[st.phone] = append(byPhone[st.phone], map[string]any{
			"id": st.wamid, "status": "sent", "timestamp": strconv.FormatInt(st.due.Unix(), 10),
			"recipient_id": strings.TrimPrefix(st.to, "+"), "biz_opaque_callback_data": st.callback,
		})
	}
	changes := make([]map[string]any, 0, len(phones))
	for _, ph := range phones {
		changes = append(changes, map[string]any{"field": "messages", "value": map[string]any{
			"messaging_product": "whatsapp",
			"metadata":          map[string]any{"display_phone_number": "15550000000", "phone_number_id": ph},
			"statuses":          byPhone[ph],
		}})
	}
	b, _ := json.Marshal(map[string]any{"object": "whatsapp_business_account",
		"entry": []map[string]any{{"id": p.echo.BusinessID, "changes": changes}}})
	return b
}
