package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	got := summarize(d)
	want := latency{N: 100, P50: 50, P95: 95, P99: 99, Max: 100}
	if got != want {
		t.Fatalf("summarize = %+v, want %+v", got, want)
	}
	if (summarize(nil) != latency{}) {
		t.Fatal("empty input gives a non-zero summary")
	}
}

// TestPayload checks a delivery against the shape the server parses and
// its signature against the app secret.
func TestPayload(t *testing.T) {
	srv := &server{phone: "123456789012345", bizID: "987654321098765", secret: "s3cret"}
	p := &payloads{srv: srv, wamidPrefix: "wamid.bench-x-", phonePrefix: "4915"}
	d := p.text(42, 7, time.Unix(1_700_000_000, 0))

	var body struct {
		Object string `json:"object"`
		Entry  []struct {
			ID      string `json:"id"`
			Changes []struct {
				Field string `json:"field"`
				Value struct {
					Metadata struct {
						PhoneNumberID string `json:"phone_number_id"`
					} `json:"metadata"`
					Contacts []struct {
						WaID string `json:"wa_id"`
					} `json:"contacts"`
					Messages []map[string]any `json:"messages"`
				} `json:"value"`
			} `json:"changes"`
		} `json:"entry"`
	}
	if err := json.Unmarshal(d.body, &body); err != nil {
		t.Fatal(err)
	}
	ch := body.Entry[0].Changes[0]
	msg := ch.Value.Messages[0]
	if body.Object != "whatsapp_business_account" || body.Entry[0].ID != srv.bizID || ch.Field != "messages" ||
		ch.Value.Metadata.PhoneNumberID != srv.phone || ch.Value.Contacts[0].WaID != "491500000007" {
		t.Fatalf("envelope: %s", d.body)
	}
	if msg["id"] != "wamid.bench-x-42" || msg["from"] != "491500000007" || msg["timestamp"] != "1700000000" ||
		msg["type"] != "text" || !strings.Contains(string(d.body), `"text":{"body":"bench message 42"}`) {
		t.Fatalf("message: %s", d.body)
	}
	mac := hmac.New(sha256.New, []byte("s3cret"))
	mac.Write(d.body)
	if d.sig != "sha256="+hex.EncodeToString(mac.Sum(nil)) || d.wamid != "wamid.bench-x-42" || d.phone != "491500000007" {
		t.Fatalf("delivery: sig %q wamid %q phone %q", d.sig, d.wamid, d.phone)
	}
}

func TestWindowsP99(t *testing.T) {
	start := time.Unix(1000, 0)
	w := newWindows(start, 5*time.Second)
	for i := 1; i <= 100; i++ {
		w.Add(start.Add(time.Second), time.Duration(i)*time.Millisecond)
	}
	w.Add(start.Add(11*time.Second), 7*time.Millisecond)
	got := w.P99s()
	want := []float64{99, 0, 7}
	if len(got) != len(want) {
		t.Fatalf("p99s = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("p99s = %v, want %v", got, want)
		}
	}
}

func TestParseProcStat(t *testing.T) {
	before := "cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 50 0 25 400 25 0 0 0 0 0\ncpu1 50 0 25 400 25 0 0 0 0 0\nintr 1\n"
	after := "cpu  250 0 100 850 100 0 0 0 0 0\ncpu0 1 0 0 0 0 0 0 0 0 0\ncpu1 1 0 0 0 0 0 0 0 0 0\n"
	a, err := parseProcStat(before)
	if err != nil {
		t.Fatal(err)
	}
	b, err := parseProcStat(after)
	if err != nil {
		t.Fatal(err)
	}
	got := b.since(a)
	want := machineLoad{Cores: 2, BusyCores: 1.33, UserPct: 50, SystemPct: 16.7, IOWaitPct: 16.7}
	if got != want {
		t.Fatalf("since = %+v, want %+v", got, want)
	}
	if _, err := parseProcStat("intr 1\n"); err == nil {
		t.Fatal("no error for a /proc/stat without cpu lines")
	}
}
