// Package aitest is an in-process fake of the three AI vendors' HTTP APIs
// (OpenAI Chat Completions, Anthropic Messages, Gemini generateContent) for
// tests of package ai and of the bot runtime. It answers with the bodies
// the vendors document, records every request, and plays scripted answers
// (errors, blocked replies, hangs) in order, per vendor.
package aitest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"switchboard/chatbot/ai"
)

// Recorded is one request the fake received.
type Recorded struct {
	// Vendor is ai.OpenAI, ai.Anthropic or ai.Google ("" for an unknown path).
	Vendor string
	Method string
	// Path is the escaped path, the base URL's prefix included
	// ("/openai/v1/chat/completions").
	Path   string
	Header http.Header
	Body   []byte
}

// Decode unmarshals the request body into v, failing tb on error.
func (r Recorded) Decode(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		tb.Fatalf("request body %s: %v", r.Body, err)
	}
}

// Server is the fake. Its zero value is not usable: call New.
type Server struct {
	srv *httptest.Server

	mu     sync.Mutex
	reply  string
	script map[string][]Answer
	reqs   []Recorded
}

// Path prefixes of each vendor's base URL on the fake.
const (
	openAIPrefix    = "/openai/v1"
	anthropicPrefix = "/anthropic"
	googlePrefix    = "/google"
)

// New starts a fake that tb closes. Unscripted calls succeed with the reply
// set by SetReply (default "Hello from the fake.").
func New(tb testing.TB) *Server {
	s := &Server{reply: "Hello from the fake.", script: map[string][]Answer{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(s.srv.Close)
	return s
}

// URL is the fake's root URL.
func (s *Server) URL() string { return s.srv.URL }

// OpenAIBaseURL, AnthropicBaseURL and GoogleBaseURL are the values for
// AI_OPENAI_BASE_URL, AI_ANTHROPIC_BASE_URL and AI_GOOGLE_BASE_URL.
func (s *Server) OpenAIBaseURL() string    { return s.srv.URL + openAIPrefix }
func (s *Server) AnthropicBaseURL() string { return s.srv.URL + anthropicPrefix }
func (s *Server) GoogleBaseURL() string    { return s.srv.URL + googlePrefix }

// Config is an ai.Config aimed at the fake.
func (s *Server) Config() ai.Config {
	return ai.Config{
		OpenAIBaseURL: s.OpenAIBaseURL(), AnthropicBaseURL: s.AnthropicBaseURL(), GoogleBaseURL: s.GoogleBaseURL(),
	}
}

// SetReply sets the text of unscripted successful answers.
func (s *Server) SetReply(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reply = text
}

// Script queues answers for vendor's next calls, played once each in order;
// calls past the script get the default success.
func (s *Server) Script(vendor string, answers ...Answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script[vendor] = append(s.script[vendor], answers...)
}

// Requests returns the requests received so far, oldest first.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Recorded, len(s.reqs))
	copy(out, s.reqs)
	return out
}

// vendorOf tells the vendor from the documented path on the fake.
func vendorOf(r *http.Request) string {
	p := r.URL.EscapedPath()
	switch {
	case p == openAIPrefix+"/chat/completions":
		return ai.OpenAI
	case p == anthropicPrefix+"/v1/messages":
		return ai.Anthropic
	case strings.HasPrefix(p, googlePrefix+"/v1beta/models/") && strings.HasSuffix(p, ":generateContent"):
		return ai.Google
	}
	return ""
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 10<<20))
	vendor := vendorOf(r)
	s.mu.Lock()
	s.reqs = append(s.reqs, Recorded{
		Vendor: vendor, Method: r.Method, Path: r.URL.EscapedPath(), Header: r.Header.Clone(), Body: body,
	})
	var a *Answer
	if q := s.script[vendor]; len(q) > 0 {
		a, s.script[vendor] = &q[0], q[1:]
	}
	reply := s.reply
	s.mu.Unlock()

	if vendor == "" || r.Method != http.MethodPost {
		writeJSON(w, http.StatusNotFound, nil, `{"error":{"message":"not found","type":"invalid_request_error"}}`)
		return
	}
	if a == nil {
		if bad := checkAuth(vendor, r); bad != nil {
			bad.write(w, r)
			return
		}
		Success(vendor, reply).write(w, r)
		return
	}
	a.write(w, r)
}

// checkAuth answers like the vendor when its key header is missing.
func checkAuth(vendor string, r *http.Request) *Answer {
	switch vendor {
	case ai.OpenAI:
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") || len(r.Header.Get("Authorization")) == len("Bearer ") {
			a := Error(vendor, http.StatusUnauthorized)
			return &a
		}
	case ai.Anthropic:
		if r.Header.Get("X-Api-Key") == "" {
			a := Error(vendor, http.StatusUnauthorized)
			return &a
		}
		if r.Header.Get("Anthropic-Version") == "" {
			a := Error(vendor, http.StatusBadRequest)
			return &a
		}
	case ai.Google:
		if r.Header.Get("X-Goog-Api-Key") == "" {
			a := Error(vendor, http.StatusForbidden)
			return &a
		}
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, header http.Header, body string) {
	for k, v := range header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.Copy(w, bytes.NewReader([]byte(body)))
}
