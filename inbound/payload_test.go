package inbound

import (
	"encoding/json"
	"testing"
)

func TestReplaceNULEscapes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`"plain"`, "plain"},
		{`"a\u0000b"`, "a\ufffdb"},
		{`"\u0000\u0000"`, "\ufffd\ufffd"},
		{`"a\\u0000b"`, `a\u0000b`}, // an escaped backslash, then text
		{`"\\\u0000"`, "\\\ufffd"},
	} {
		var got string
		if err := json.Unmarshal(replaceNULEscapes([]byte(tc.in)), &got); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestLaneFollowsTheSender(t *testing.T) {
	delivery := func(body string) *envelope {
		p, err := parseEnvelope([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	msg := func(from string) *envelope {
		return delivery(`{"entry":[{"changes":[{"field":"messages","value":{"messages":[{"from":"` + from + `","id":"x"}]}}]}]}`)
	}
	status := func(to string) *envelope {
		return delivery(`{"entry":[{"changes":[{"field":"messages","value":{"statuses":[{"id":"s","recipient_id":"` + to + `"}]}}]}]}`)
	}
	first, again := msg("15550001"), msg("15550001")
	if first.lane() != again.lane() || first.lane() != status("15550001").lane() {
		t.Fatal("one sender's deliveries must share a lane")
	}
	seen := map[int]bool{}
	for i := range 1000 {
		l := msg(string(rune('0'+i%10)) + "555" + string(rune('0'+i/10%10)) + string(rune('0'+i/100))).lane()
		if l < 0 || l >= Lanes {
			t.Fatalf("lane %d out of range", l)
		}
		seen[l] = true
	}
	if len(seen) < Lanes/2 {
		t.Fatalf("senders spread over %d lanes only", len(seen))
	}
}
