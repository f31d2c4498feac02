package ai_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"switchboard/chatbot/ai"
)

var decoders = map[string]func([]byte) (string, error){
	ai.OpenAI:    ai.DecodeOpenAI,
	ai.Anthropic: ai.DecodeAnthropic,
	ai.Google:    ai.DecodeGoogle,
}

// TestDecode reads the vendors' documented answers under testdata/.
func TestDecode(t *testing.T) {
	tests := []struct {
		vendor, file string
		want         string
		err          error
	}{
		{ai.OpenAI, "ok", "Hello! How can I assist you today?", nil},
		{ai.OpenAI, "length", "Our opening hours are", nil},
		{ai.OpenAI, "refusal", "", ai.ErrBlocked},
		{ai.OpenAI, "content_filter", "", ai.ErrBlocked},
		{ai.OpenAI, "tool_calls", "", ai.ErrNoReply},
		{ai.OpenAI, "no_choices", "", ai.ErrNoReply},
		{ai.Anthropic, "ok", "Hi! My name is Claude.", nil},
		{ai.Anthropic, "thinking", "We open at 9. See you!", nil},
		{ai.Anthropic, "max_tokens", "Our opening hours are", nil},
		{ai.Anthropic, "refusal", "", ai.ErrBlocked},
		{ai.Anthropic, "tool_use", "", ai.ErrNoReply},
		{ai.Anthropic, "error_type", "", ai.ErrUnexpectedResponse},
		{ai.Google, "ok", "Hello! How can I help you today?", nil},
		{ai.Google, "thought", "We open at 9.", nil},
		{ai.Google, "max_tokens_empty", "", ai.ErrNoReply},
		{ai.Google, "safety", "", ai.ErrBlocked},
		{ai.Google, "prompt_blocked", "", ai.ErrBlocked},
		{ai.Google, "recitation", "", ai.ErrBlocked},
		{ai.Google, "no_candidates", "", ai.ErrNoReply},
	}
	for _, tt := range tests {
		t.Run(tt.vendor+"/"+tt.file, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", tt.vendor, tt.file+".json"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := decoders[tt.vendor](body)
			if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if got != tt.want {
				t.Errorf("text = %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("NotJSON", func(t *testing.T) {
		for vendor, decode := range decoders {
			if _, err := decode([]byte("<html>bad gateway</html>")); !errors.Is(err, ai.ErrUnexpectedResponse) {
				t.Errorf("%s: err = %v, want ErrUnexpectedResponse", vendor, err)
			}
		}
	})
}

// fuzzDecoder seeds f with testdata/<vendor>/*.json and checks that
// decoding never panics, and that a decoded reply is trimmed, non-empty
// text and comes with no error.
func fuzzDecoder(f *testing.F, vendor string) {
	seeds, err := filepath.Glob(filepath.Join("testdata", vendor, "*.json"))
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seeds for %s: %v", vendor, err)
	}
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	decode := decoders[vendor]
	f.Fuzz(func(t *testing.T, body []byte) {
		text, err := decode(body)
		if err != nil {
			if text != "" {
				t.Errorf("text %q with error %v", text, err)
			}
			if !errors.Is(err, ai.ErrUnexpectedResponse) && !errors.Is(err, ai.ErrBlocked) && !errors.Is(err, ai.ErrNoReply) {
				t.Errorf("error %v is none of the sentinels", err)
			}
			return
		}
		if text == "" || text != strings.TrimSpace(text) {
			t.Errorf("reply %q is empty or not trimmed", text)
		}
	})
}

// go test -run '^$' -fuzz FuzzDecodeOpenAI ./chatbot/ai/
func FuzzDecodeOpenAI(f *testing.F) { fuzzDecoder(f, ai.OpenAI) }

// go test -run '^$' -fuzz FuzzDecodeAnthropic ./chatbot/ai/
func FuzzDecodeAnthropic(f *testing.F) { fuzzDecoder(f, ai.Anthropic) }

// go test -run '^$' -fuzz FuzzDecodeGoogle ./chatbot/ai/
func FuzzDecodeGoogle(f *testing.F) { fuzzDecoder(f, ai.Google) }
