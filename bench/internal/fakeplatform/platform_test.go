package fakeplatform

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/internal/testkit"
	"switchboard/provider/providertest"
)

// TestEchoStatuses: an accepted send is noted and echoed as a signed
// "sent" status with its callback data; a webhook the server refuses is
// posted again until acknowledged; a refused send is neither.
func TestEchoStatuses(t *testing.T) {
	const secret = "s3cret"
	var (
		mu       sync.Mutex
		posts    int
		statuses []map[string]any
	)
	got := make(chan struct{}, 10)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(body)
		if r.Header.Get("X-Hub-Signature-256") != "sha256="+hex.EncodeToString(mac.Sum(nil)) {
			t.Errorf("bad signature on %s", body)
		}
		mu.Lock()
		defer mu.Unlock()
		posts++
		if posts == 1 {
			w.WriteHeader(http.StatusServiceUnavailable) // the server is down: posted again
			return
		}
		var b struct {
			Entry []struct {
				ID      string
				Changes []struct {
					Value struct {
						Metadata struct {
							PhoneNumberID string `json:"phone_number_id"`
						}
						Statuses []map[string]any
					}
				}
			}
		}
		if err := json.Unmarshal(body, &b); err != nil || len(b.Entry) != 1 || b.Entry[0].ID != "biz1" ||
			b.Entry[0].Changes[0].Value.Metadata.PhoneNumberID != providertest.PhoneID {
			t.Errorf("webhook %s (%v)", body, err)
			return
		}
		statuses = append(statuses, b.Entry[0].Changes[0].Value.Statuses...)
		got <- struct{}{}
	}))
	defer hook.Close()

	f := providertest.NewStandalone("")
	f.SetRecording(false)
	p := New(f, &Echo{URL: hook.URL, AppSecret: secret, BusinessID: "biz1", Delay: 10 * time.Millisecond})
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); p.Wait() }()
	p.Start(ctx)

	send := func(to string) int {
		body := `{"messaging_product":"whatsapp","to":"` + to + `","type":"text","text":{"body":"x"},"biz_opaque_callback_data":"cmp:1:` + to + `:1"}`
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v21.0/"+providertest.PhoneID+"/messages", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer t")
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	f.AddFault(providertest.Fault{Response: providertest.ThroughputReached(), To: "15550000002"})
	if code := send("15550000001"); code != http.StatusOK {
		t.Fatalf("send answered %d", code)
	}
	if code := send("15550000002"); code != http.StatusBadRequest {
		t.Fatalf("faulted send answered %d", code)
	}
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("no status webhook acknowledged")
	}
	// The poster reads the answer after the handler returned.
	testkit.Eventually(t, "the status webhook's answer read", func() bool { return p.Echoed.Load() > 0 })
	sends := p.Sends()
	if len(sends) != 1 || sends[0].To != "15550000001" || sends[0].Callback != "cmp:1:15550000001:1" || sends[0].From == "" {
		t.Fatalf("sends %+v", sends)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(statuses) != 1 || statuses[0]["status"] != "sent" || statuses[0]["biz_opaque_callback_data"] != "cmp:1:15550000001:1" ||
		!strings.HasPrefix(statuses[0]["id"].(string), "wamid.") || statuses[0]["recipient_id"] != "15550000001" {
		t.Fatalf("statuses %v", statuses)
	}
	if posts != 2 || p.Echoed.Load() != 1 || p.EchoFailures.Load() != 1 || p.EchoDropped.Load() != 0 {
		t.Fatalf("posts %d, echoed %d, failures %d, dropped %d", posts, p.Echoed.Load(), p.EchoFailures.Load(), p.EchoDropped.Load())
	}
}
