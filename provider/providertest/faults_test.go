package providertest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"switchboard/provider"
	"switchboard/provider/providertest"
)

const msgsPath = "/v21.0/" + providertest.PhoneID + "/messages"

// sendBody is a text send to `to`, with callback data when cb is not empty.
func sendBody(to, cb string) string {
	extra := ""
	if cb != "" {
		extra = fmt.Sprintf(`,"biz_opaque_callback_data":%q`, cb)
	}
	return fmt.Sprintf(`{"messaging_product":"whatsapp","to":%q,"type":"text","text":{"body":"x"}%s}`, to, extra)
}

func send(t *testing.T, f *providertest.Fake, to, cb string) (int, map[string]any) {
	t.Helper()
	return do(t, f, "POST", msgsPath, "Bearer "+providertest.AccessToken, sendBody(to, cb))
}

// TestFaultShapes: the injected errors carry the platform's documented
// error object, and package provider reads them as the platform's.
func TestFaultShapes(t *testing.T) {
	tests := []struct {
		name       string
		answer     providertest.Response
		wantStatus int
		wantCode   int
		wantMsg    string
		temporary  bool
	}{
		{"Throughput130429", providertest.ThroughputReached(), 400, 130429, "(#130429) Rate limit hit", true},
		{"PairRate131056", providertest.PairRateLimited(), 400, 131056, "(#131056) (Business Account, Consumer Account) pair rate limit hit", true},
		{"ServerError131000", providertest.ServerError(), 500, 131000, "(#131000) Something went wrong", true},
		{"Unavailable503", providertest.Unavailable(), 503, 2, "(#2) Service temporarily unavailable", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := providertest.New(t)
			f.FailNext(1, tt.answer)
			status, body := send(t, f, "15551230001", "")
			e, _ := body["error"].(map[string]any)
			data, _ := e["error_data"].(map[string]any)
			if status != tt.wantStatus || errorCode(body) != float64(tt.wantCode) || e["message"] != tt.wantMsg ||
				e["type"] != "OAuthException" || data["messaging_product"] != "whatsapp" || data["details"] == "" || e["fbtrace_id"] == "" {
				t.Fatalf("answer %d %v", status, body)
			}

			// Through the client, without its in-process retries.
			f.FailNext(1, tt.answer)
			c := f.Client(provider.Options{MaxRetries: -1})
			_, err := c.SendMessage(context.Background(), f.Account(), provider.OutgoingMessage{To: "15551230001", Text: &provider.Text{Body: "x"}})
			var pe *provider.Error
			if !errors.As(err, &pe) || pe.Status != tt.wantStatus || pe.Code != tt.wantCode || pe.Details == "" || pe.Temporary() != tt.temporary {
				t.Fatalf("SendMessage error = %#v", err)
			}
		})
	}
}

func TestFaultSelection(t *testing.T) {
	t.Run("NextN", func(t *testing.T) {
		f := providertest.New(t)
		f.FailNext(2, providertest.ThroughputReached())
		var got []int
		for range 4 {
			status, _ := send(t, f, "1", "")
			got = append(got, status)
		}
		if want := []int{400, 400, 200, 200}; !reflect.DeepEqual(got, want) {
			t.Errorf("statuses %v, want %v", got, want)
		}
	})
	t.Run("FractionEvenlySpread", func(t *testing.T) {
		f := providertest.New(t)
		f.FailFraction(0.25, providertest.ServerError())
		failed := 0
		for i := range 100 {
			status, _ := send(t, f, fmt.Sprint(i), "")
			if status == 500 {
				failed++
				if i%4 != 3 {
					t.Errorf("send %d failed; want every fourth", i)
				}
			}
		}
		if failed != 25 {
			t.Errorf("%d of 100 failed, want 25", failed)
		}
	})
	t.Run("Recipient", func(t *testing.T) {
		f := providertest.New(t)
		f.FailRecipient("15550000002", providertest.PairRateLimited())
		for range 2 {
			if status, body := send(t, f, "15550000002", ""); status != 400 || errorCode(body) != 131056 {
				t.Errorf("blocked recipient: %d %v", status, body)
			}
			if status, _ := send(t, f, "15550000003", ""); status != 200 {
				t.Errorf("other recipient: %d", status)
			}
		}
	})
	t.Run("RecipientNextN", func(t *testing.T) {
		f := providertest.New(t)
		f.AddFault(providertest.Fault{Response: providertest.PairRateLimited(), To: "7", Times: 1})
		got := []int{}
		for _, to := range []string{"8", "7", "7"} {
			status, _ := send(t, f, to, "")
			got = append(got, status)
		}
		if want := []int{200, 400, 200}; !reflect.DeepEqual(got, want) {
			t.Errorf("statuses %v, want %v", got, want)
		}
	})
	t.Run("ReadReceiptsUntouched", func(t *testing.T) {
		f := providertest.New(t)
		f.FailFraction(1, providertest.ServerError())
		status, _ := do(t, f, "POST", msgsPath, "Bearer t", `{"messaging_product":"whatsapp","status":"read","message_id":"wamid.X"}`)
		if status != 200 {
			t.Errorf("read receipt: %d", status)
		}
		if st := f.SendStats(); st.Received != 0 {
			t.Errorf("read receipt counted as a send: %+v", st)
		}
	})
	t.Run("Clear", func(t *testing.T) {
		f := providertest.New(t)
		f.FailFraction(1, providertest.ServerError())
		f.ClearFaults()
		if status, _ := send(t, f, "1", ""); status != 200 {
			t.Errorf("after ClearFaults: %d", status)
		}
	})
}

// TestSlowSends: a delayed answer outlasts a client's timeout; once the
// fault is gone sends are answered again.
func TestSlowSends(t *testing.T) {
	f := providertest.New(t)
	f.SlowSends(time.Minute)
	c := f.Client(provider.Options{MaxRetries: -1, Timeout: 50 * time.Millisecond})
	msg := provider.OutgoingMessage{To: "15551230001", Text: &provider.Text{Body: "x"}}
	if _, err := c.SendMessage(context.Background(), f.Account(), msg); err == nil {
		t.Fatal("a send answered after a minute did not time out")
	}
	f.ClearFaults()
	f.AddFault(providertest.Fault{Delay: time.Millisecond, Response: providertest.Unavailable(), Times: 1})
	if _, err := c.SendMessage(context.Background(), f.Account(), msg); !provider.IsRetryable(err) {
		t.Errorf("slow 503 = %v", err)
	}
	if _, err := c.SendMessage(context.Background(), f.Account(), msg); err != nil {
		t.Errorf("after the faults: %v", err)
	}
	if st := f.SendStats(); st.Received != 3 || st.Faulted != 2 || st.Accepted != 1 {
		t.Errorf("stats %+v, want 3 received, 2 faulted, 1 accepted", st)
	}
}

func TestSendCounts(t *testing.T) {
	f := providertest.New(t)
	f.FailNext(1, providertest.ThroughputReached())
	send(t, f, "A", "c1") // refused: received, not accepted
	send(t, f, "A", "c1")
	send(t, f, "A", "c1")
	send(t, f, "B", "c2")
	send(t, f, "C", "")
	st := f.SendStats()
	want := providertest.SendStats{
		Received: 5, Accepted: 4, Faulted: 1,
		ByRecipient: map[string]providertest.SendCount{"A": {3, 2}, "B": {1, 1}, "C": {1, 1}},
		ByCallback:  map[string]providertest.SendCount{"c1": {3, 2}, "c2": {1, 1}},
	}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("stats\n got %+v\nwant %+v", st, want)
	}
	if got := providertest.AcceptedTwice(st.ByRecipient); !reflect.DeepEqual(got, []string{"A"}) {
		t.Errorf("AcceptedTwice = %v", got)
	}
	f.ResetSends()
	if st := f.SendStats(); st.Received != 0 || len(st.ByRecipient) != 0 {
		t.Errorf("after ResetSends: %+v", st)
	}
}

func TestSetRecording(t *testing.T) {
	f := providertest.New(t)
	f.SetRecording(false)
	send(t, f, "A", "")
	if n := len(f.Requests()) + len(f.Sent()); n != 0 {
		t.Errorf("recorded %d requests with recording off", n)
	}
	if st := f.SendStats(); st.Accepted != 1 {
		t.Errorf("counts with recording off: %+v", st)
	}
	f.SetRecording(true)
	send(t, f, "A", "")
	if len(f.Requests()) != 1 || len(f.Sent()) != 1 {
		t.Errorf("recording back on: %d requests, %d sent", len(f.Requests()), len(f.Sent()))
	}
}

// TestStandalone drives the fake through Handler's control endpoints, as a
// benchmark in another process does.
func TestStandalone(t *testing.T) {
	var f *providertest.Fake
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { f.Handler().ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	f = providertest.NewStandalone(srv.URL)
	call := func(method, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer t")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := call("POST", "/_fake/faults", `{"code":130429,"times":1}`); status != 200 {
		t.Fatalf("add fault: %d %s", status, body)
	}
	if status, body := call("POST", msgsPath, sendBody("A", "c1")); status != 400 || !strings.Contains(body, "130429") {
		t.Errorf("faulted send: %d %s", status, body)
	}
	call("POST", msgsPath, sendBody("A", "c1"))
	call("POST", msgsPath, sendBody("A", "c1"))
	if status, body := call("GET", "/_fake/sends", ""); status != 200 ||
		!strings.Contains(body, `"accepted":2`) || !strings.Contains(body, `"recipients_accepted_twice":1`) ||
		!strings.Contains(body, `"recipients_accepted_twice_sample":["A"]`) || !strings.Contains(body, `"callbacks_accepted_twice_sample":["c1"]`) {
		t.Errorf("sends: %d %s", status, body)
	}
	if _, body := call("GET", "/_fake/sends?full=1", ""); !strings.Contains(body, `"by_recipient":{"A":{"received":3,"accepted":2}}`) {
		t.Errorf("full sends: %s", body)
	}
	if status, _ := call("POST", "/_fake/phone", `{"messaging_limit_tier":"TIER_1K"}`); status != 200 {
		t.Error("set phone")
	}
	if _, body := call("GET", "/v21.0/"+providertest.PhoneID+"?fields=messaging_limit_tier", ""); !strings.Contains(body, "TIER_1K") {
		t.Errorf("phone after /_fake/phone: %s", body)
	}
	call("DELETE", "/_fake/sends", "")
	if _, body := call("GET", "/_fake/sends", ""); !strings.Contains(body, `"received":0`) {
		t.Errorf("after reset: %s", body)
	}
	for _, bad := range []string{``, `{"code":418}`, `{"code":0}`, `{"code":500,"fraction":2}`, `{"code":500,"times":-1}`,
		`{"delay":"forever"}`, `{"delay":"2h"}`, `{"code":500,"colour":1}`} {
		if status, body := call("POST", "/_fake/faults", bad); status != 400 {
			t.Errorf("fault %s: %d %s", bad, status, body)
		}
	}
	call("POST", "/_fake/faults", `{"code":500}`)
	call("DELETE", "/_fake/faults", "")
	if status, _ := call("POST", msgsPath, sendBody("B", "")); status != 200 {
		t.Errorf("after DELETE faults: %d", status)
	}
}

// FuzzFaultRequest: no body makes the control endpoint fail other than
// with 200 or 400.
func FuzzFaultRequest(f *testing.F) {
	for _, seed := range []string{``, `{}`, `{"code":130429,"times":1}`, `{"code":131056,"to":"1","fraction":0.5}`,
		`{"delay":"1ms"}`, `{"code":500,"fraction":1e400}`, `{"code":-1}`, `[]`, `{"delay":"-1s"}`, "{\"to\":\"\xff\"}"} {
		f.Add([]byte(seed))
	}
	fake := providertest.NewStandalone("http://127.0.0.1:1")
	h := fake.Handler()
	f.Fuzz(func(t *testing.T, body []byte) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("POST", "/_fake/faults", strings.NewReader(string(body))))
		if w.Code != 200 && w.Code != 400 {
			t.Fatalf("status %d for %q", w.Code, body)
		}
		fake.ClearFaults()
	})
}

// BenchmarkStandaloneSend measures the message sends a standalone fake
// answers, with recording off (as bench/fakegraph runs), over loopback.
func BenchmarkStandaloneSend(b *testing.B) {
	var f *providertest.Fake
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { f.Handler().ServeHTTP(w, r) }))
	b.Cleanup(srv.Close)
	f = providertest.NewStandalone(srv.URL)
	f.SetRecording(false)
	client := srv.Client()
	client.Transport.(*http.Transport).MaxIdleConnsPerHost = 256
	var n atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			req, _ := http.NewRequest("POST", srv.URL+msgsPath, strings.NewReader(sendBody(fmt.Sprint(i%10000), fmt.Sprint(i))))
			req.Header.Set("Authorization", "Bearer t")
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "sends/s")
	if st := f.SendStats(); st.Accepted != b.N {
		b.Fatalf("accepted %d of %d", st.Accepted, b.N)
	}
}
