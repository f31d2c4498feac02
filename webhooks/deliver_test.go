package webhooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/webhookdelivery"
	"switchboard/events"
	"switchboard/internal/testkit"
	"switchboard/outbound"
	"switchboard/webhooks"
)

func TestDeliverySignedWithCustomHeaders(t *testing.T) {
	e := newHookEnv(t, nil)
	org, ctx := e.newOrg(t)
	rcv := newReceiver(t)
	sub, secret := e.subscribe(t, ctx, rcv.URL+"/hooks", []string{events.HookContactCreated},
		func(c *ent.WebhookSubscriptionCreate) {
			c.SetHeaders(map[string]string{"Authorization": "Bearer receiver-token", "X-Tenant": "acme"})
		})

	data := map[string]any{"id": "c1", "phone_number": "15550001111", "profile_name": "Ada <&>"}
	if err := emit(e.d, ctx, org, events.HookContactCreated, data); err != nil {
		t.Fatal(err)
	}
	del := e.waitDelivery(t, ctx, e.onlyDelivery(t, ctx, sub.ID).ID, "succeeded", isStatus(webhookdelivery.StatusSucceeded))

	reqs := rcv.requests()
	if len(reqs) != 1 {
		t.Fatalf("receiver got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	verifySignatures(t, secret, r)
	if err := outbound.Verify(outbound.SecretBytes(secret), r.header, r.body, 0); err != nil {
		t.Errorf("Standard Webhooks verification: %v", err)
	}
	wantHeaders := map[string]string{
		"webhook-id":      del.EventID.String(),
		"X-Webhook-Event": events.HookContactCreated,
		"Content-Type":    "application/json",
		"Authorization":   "Bearer receiver-token",
		"X-Tenant":        "acme",
	}
	for name, want := range wantHeaders {
		if got := r.header.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if ts, err := strconv.ParseInt(r.header.Get("webhook-timestamp"), 10, 64); err != nil || time.Since(time.Unix(ts, 0)).Abs() > time.Minute {
		t.Errorf("webhook-timestamp = %q, want the unix time of the attempt", r.header.Get("webhook-timestamp"))
	}
	if string(r.body) != string(del.Payload) {
		t.Errorf("body %s differs from the stored payload %s", r.body, del.Payload)
	}
	var env struct {
		ID             string         `json:"id"`
		Event          string         `json:"event"`
		Timestamp      string         `json:"timestamp"`
		OrganizationID string         `json:"organization_id"`
		Data           map[string]any `json:"data"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil {
		t.Fatal(err)
	}
	if env.ID != del.EventID.String() || env.Event != events.HookContactCreated || env.OrganizationID != org.String() ||
		env.Data["profile_name"] != "Ada <&>" {
		t.Errorf("envelope = %s", r.body)
	}
	if _, err := time.Parse(time.RFC3339, env.Timestamp); err != nil {
		t.Errorf("timestamp %q is not RFC 3339", env.Timestamp)
	}

	as := e.attemptsOf(t, ctx, del.ID)
	if len(as) != 1 || as[0].Attempt != 1 || as[0].StatusCode != http.StatusOK || as[0].Error != "" {
		t.Errorf("attempts = %+v, want one 200", as)
	}
	if del.Attempts != 1 || del.CompletedAt == nil || del.NextAttemptAt != nil || del.LastStatusCode == nil || *del.LastStatusCode != 200 {
		t.Errorf("delivery = %+v", del)
	}
}

func TestDeliveryRetriesWithSameEventID(t *testing.T) {
	e := newHookEnv(t, nil)
	org, ctx := e.newOrg(t)
	rcv := newReceiver(t, reply{status: http.StatusInternalServerError}, reply{status: http.StatusBadGateway}, reply{status: http.StatusNoContent})
	sub, secret := e.subscribe(t, ctx, rcv.URL, []string{events.HookMessageIncoming}, nil)

	if err := emit(e.d, ctx, org, events.HookMessageIncoming, map[string]any{"text": "hi"}); err != nil {
		t.Fatal(err)
	}
	del := e.waitDelivery(t, ctx, e.onlyDelivery(t, ctx, sub.ID).ID, "succeeded", isStatus(webhookdelivery.StatusSucceeded))

	reqs := rcv.requests()
	if len(reqs) != 3 {
		t.Fatalf("receiver got %d requests, want 3", len(reqs))
	}
	for i, r := range reqs {
		if r.header.Get("webhook-id") != del.EventID.String() || string(r.body) != string(del.Payload) {
			t.Errorf("attempt %d: webhook-id %q or body changed", i+1, r.header.Get("webhook-id"))
		}
		verifySignatures(t, secret, r)
	}
	as := e.attemptsOf(t, ctx, del.ID)
	want := []struct {
		code int
		err  string
	}{{500, "HTTP 500 Internal Server Error"}, {502, "HTTP 502 Bad Gateway"}, {204, ""}}
	if len(as) != len(want) {
		t.Fatalf("%d attempts recorded, want %d", len(as), len(want))
	}
	for i, w := range want {
		if as[i].Attempt != i+1 || as[i].StatusCode != w.code || as[i].Error != w.err {
			t.Errorf("attempt %d = {%d %d %q}, want {%d %d %q}", i+1, as[i].Attempt, as[i].StatusCode, as[i].Error, i+1, w.code, w.err)
		}
	}
	if del.Attempts != 3 || del.LastError != "" {
		t.Errorf("delivery attempts %d, last error %q", del.Attempts, del.LastError)
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	tests := []struct {
		name   string
		status int
	}{
		{name: "TooManyRequests", status: http.StatusTooManyRequests},
		{name: "ServiceUnavailable", status: http.StatusServiceUnavailable},
	}
	e := newHookEnv(t, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			org, ctx := e.newOrg(t)
			rcv := newReceiver(t, reply{status: tc.status, header: map[string]string{"Retry-After": "120"}})
			sub, _ := e.subscribe(t, ctx, rcv.URL, []string{events.HookMessageSent}, nil)

			before := time.Now()
			if err := emit(e.d, ctx, org, events.HookMessageSent, nil); err != nil {
				t.Fatal(err)
			}
			del := e.waitDelivery(t, ctx, e.onlyDelivery(t, ctx, sub.ID).ID, "retrying", isStatus(webhookdelivery.StatusRetrying))
			after := time.Now()

			if del.NextAttemptAt == nil {
				t.Fatal("no next attempt scheduled")
			}
			// The schedule says 5 s; the receiver asked for 120.
			next := *del.NextAttemptAt
			if next.Before(before.Add(120*time.Second)) || next.After(after.Add(120*time.Second)) {
				t.Errorf("next attempt at %v, want 120 s after the attempt (between %v and %v)",
					next, before.Add(120*time.Second), after.Add(120*time.Second))
			}
			if n := len(rcv.requests()); n != 1 || del.Attempts != 1 || *del.LastStatusCode != tc.status {
				t.Errorf("requests %d, attempts %d, last status %d", n, del.Attempts, *del.LastStatusCode)
			}
		})
	}
}

func TestGoneDisablesSubscription(t *testing.T) {
	e := newHookEnv(t, nil)
	org, ctx := e.newOrg(t)
	rcv := newReceiver(t, reply{status: http.StatusGone})
	sub, _ := e.subscribe(t, ctx, rcv.URL, []string{events.HookContactCreated}, nil)

	if err := emit(e.d, ctx, org, events.HookContactCreated, nil); err != nil {
		t.Fatal(err)
	}
	del := e.waitDelivery(t, ctx, e.onlyDelivery(t, ctx, sub.ID).ID, "failed", isStatus(webhookdelivery.StatusFailed))
	got, err := e.Client().WebhookSubscription.Get(ctx, sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.IsActive || !strings.Contains(got.DisabledReason, "410") {
		t.Errorf("subscription active %v, disabled reason %q", got.IsActive, got.DisabledReason)
	}
	if del.Attempts != 1 || !strings.Contains(del.LastError, "410") || del.NextAttemptAt != nil {
		t.Errorf("delivery attempts %d, last error %q, next %v", del.Attempts, del.LastError, del.NextAttemptAt)
	}

	// The disabled subscription gets no more events.
	if err := emit(e.d, ctx, org, events.HookContactCreated, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(e.deliveries(t, ctx, sub.ID)); n != 1 {
		t.Errorf("%d deliveries after disabling, want 1", n)
	}
}

func TestEmitOnlyToActiveSubscribers(t *testing.T) {
	e := newHookEnv(t, nil)
	org, ctx := e.newOrg(t)
	_, otherCtx := e.newOrg(t)
	rcv := newReceiver(t)
	first, _ := e.subscribe(t, ctx, rcv.URL+"/first", []string{events.HookMessageSent, events.HookContactCreated}, nil)
	second, _ := e.subscribe(t, ctx, rcv.URL+"/second", []string{events.HookContactCreated}, nil)
	inactive, _ := e.subscribe(t, ctx, rcv.URL+"/inactive", []string{events.HookContactCreated},
		func(c *ent.WebhookSubscriptionCreate) { c.SetIsActive(false) })
	otherEvent, _ := e.subscribe(t, ctx, rcv.URL+"/other-event", []string{events.HookMessageIncoming}, nil)
	otherOrg, _ := e.subscribe(t, otherCtx, rcv.URL+"/other-org", []string{events.HookContactCreated}, nil)

	if err := emit(e.d, ctx, org, events.HookContactCreated, map[string]any{"id": "c9"}); err != nil {
		t.Fatal(err)
	}
	a := e.waitDelivery(t, ctx, e.onlyDelivery(t, ctx, first.ID).ID, "succeeded", isStatus(webhookdelivery.StatusSucceeded))
	b := e.waitDelivery(t, ctx, e.onlyDelivery(t, ctx, second.ID).ID, "succeeded", isStatus(webhookdelivery.StatusSucceeded))
	if a.EventID != b.EventID || string(a.Payload) != string(b.Payload) {
		t.Errorf("subscriptions got different events: %s / %s", a.Payload, b.Payload)
	}
	for name, s := range map[string]*ent.WebhookSubscription{"inactive": inactive, "other event": otherEvent} {
		if n := len(e.deliveries(t, ctx, s.ID)); n != 0 {
			t.Errorf("%s subscription got %d deliveries", name, n)
		}
	}
	if n := len(e.deliveries(t, otherCtx, otherOrg.ID)); n != 0 {
		t.Errorf("other organization's subscription got %d deliveries", n)
	}
	eventKeys := map[string]bool{}
	for _, r := range rcv.requests() {
		eventKeys[r.header.Get("X-Webhook-Event")+" "+r.header.Get("webhook-id")] = true
	}
	if len(rcv.requests()) != 2 || len(eventKeys) != 1 {
		t.Errorf("receiver got %d requests for %d events, want 2 requests of one event", len(rcv.requests()), len(eventKeys))
	}
}

func TestEmitFollowsTransaction(t *testing.T) {
	e := newHookEnv(t, nil)
	org, ctx := e.newOrg(t)
	rcv := newReceiver(t)
	sub, _ := e.subscribe(t, ctx, rcv.URL, []string{events.HookContactCreated}, nil)

	emitIn := func(t *testing.T) *ent.Tx {
		tx, err := e.Client().Tx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := emit(e.d, ent.NewTxContext(ctx, tx), org, events.HookContactCreated, nil); err != nil {
			t.Fatal(err)
		}
		return tx
	}
	t.Run("RolledBack", func(t *testing.T) {
		if err := emitIn(t).Rollback(); err != nil {
			t.Fatal(err)
		}
		if n := len(e.deliveries(t, ctx, sub.ID)); n != 0 {
			t.Errorf("%d deliveries after a rollback", n)
		}
	})
	t.Run("Committed", func(t *testing.T) {
		if err := emitIn(t).Commit(); err != nil {
			t.Fatal(err)
		}
		e.waitDelivery(t, ctx, e.onlyDelivery(t, ctx, sub.ID).ID, "succeeded", isStatus(webhookdelivery.StatusSucceeded))
		if n := len(rcv.requests()); n != 1 {
			t.Errorf("receiver got %d requests, want 1", n)
		}
	})
}

// storeDelivery writes a waiting delivery without queueing it, as a crash
// between the commit and the enqueue would leave it.
func (e *hookEnv) storeDelivery(t *testing.T, ctx context.Context, org uuid.UUID, sub *ent.WebhookSubscription) *ent.WebhookDelivery {
	t.Helper()
	return e.storeDeliveryDue(t, ctx, org, sub, time.Now())
}

// storeDeliveryDue stores a waiting delivery due at due, without a kick.
func (e *hookEnv) storeDeliveryDue(t *testing.T, ctx context.Context, org uuid.UUID, sub *ent.WebhookSubscription, due time.Time) *ent.WebhookDelivery {
	t.Helper()
	eventID := uuid.New()
	body, err := outbound.Envelope(eventID.String(), events.HookContactCreated, time.Now(), org.String(), map[string]any{"id": "c1"})
	if err != nil {
		t.Fatal(err)
	}
	del, err := e.Client().WebhookDelivery.Create().SetSubscriptionID(sub.ID).SetEventID(eventID).
		SetEvent(events.HookContactCreated).SetPayload(body).SetNextAttemptAt(due).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return del
}

func TestRecover(t *testing.T) {
	e := newHookEnv(t, nil)
	org, ctx := e.newOrg(t)
	rcv := newReceiver(t)
	sub, secret := e.subscribe(t, ctx, rcv.URL, []string{events.HookContactCreated}, nil)
	stored := e.storeDelivery(t, ctx, org, sub)

	// Twice, as a sweep running while the first task waits would: the
	// delivery is still made once.
	for range 2 {
		if _, err := e.d.Recover(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	del := e.waitDelivery(t, ctx, stored.ID, "succeeded", isStatus(webhookdelivery.StatusSucceeded))
	reqs := rcv.requests()
	if len(reqs) != 1 || del.Attempts != 1 {
		t.Fatalf("receiver got %d requests, delivery has %d attempts; want 1 and 1", len(reqs), del.Attempts)
	}
	verifySignatures(t, secret, reqs[0])
	if reqs[0].header.Get("webhook-id") != stored.EventID.String() {
		t.Errorf("webhook-id %q, want the stored event id", reqs[0].header.Get("webhook-id"))
	}
}

// The running server's sweep finds only deliveries more than a minute
// overdue (their task was lost) and drains their subscription; a delivery
// not yet due waits for its time.
func TestRequeueOverdue(t *testing.T) {
	e := newHookEnv(t, nil)
	org, ctx := e.newOrg(t)
	rcv := newReceiver(t)
	sub, _ := e.subscribe(t, ctx, rcv.URL, []string{events.HookContactCreated}, nil)
	later := e.storeDelivery(t, ctx, org, sub)
	overdue := e.storeDelivery(t, ctx, org, sub)
	if err := e.Client().WebhookDelivery.UpdateOneID(later.ID).SetNextAttemptAt(time.Now().Add(time.Hour)).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Client().WebhookDelivery.UpdateOneID(overdue.ID).SetNextAttemptAt(time.Now().Add(-2 * time.Minute)).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	n, err := e.d.RequeueOverdue(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("requeued %d (%v), want 1", n, err)
	}
	e.waitDelivery(t, ctx, overdue.ID, "succeeded", isStatus(webhookdelivery.StatusSucceeded))
	if d, err := e.Client().WebhookDelivery.Get(ctx, later.ID); err != nil || d.Attempts != 0 {
		t.Fatalf("the delivery due in an hour was attempted: %v %v", d, err)
	}
}

// A burst of events to one subscription is drained in batches: every
// delivery is posted exactly once, each with its own event id, and each
// has its one attempt recorded.
func TestBurstDeliveredOnceEach(t *testing.T) {
	e := newHookEnv(t, nil)
	org, ctx := e.newOrg(t)
	rcv := newReceiver(t)
	sub, secret := e.subscribe(t, ctx, rcv.URL, []string{events.HookMessageIncoming}, nil)

	const n = 150 // several batches
	evs := make([]events.HookEvent, n)
	for i := range evs {
		evs[i] = events.HookEvent{OrgID: org, Name: events.HookMessageIncoming, Data: json.RawMessage(`{"n":` + strconv.Itoa(i) + `}`)}
	}
	// In a few transactions, as several inbound batches would write them.
	for part := range slices.Chunk(evs, 40) {
		if err := e.d.WriteDeliveries(ctx, part); err != nil {
			t.Fatal(err)
		}
	}
	e.waitSucceeded(t, ctx, sub.ID, n)
	seen := map[string]int{}
	for _, r := range rcv.requests() {
		seen[r.header.Get("webhook-id")]++
		verifySignatures(t, secret, r)
	}
	for _, d := range e.deliveries(t, ctx, sub.ID) {
		if seen[d.EventID.String()] != 1 || d.Attempts != 1 {
			t.Errorf("delivery %s posted %d times, %d attempts; want once", d.ID, seen[d.EventID.String()], d.Attempts)
		}
		if as := e.attemptsOf(t, ctx, d.ID); len(as) != 1 || as[0].Attempt != 1 || as[0].StatusCode != http.StatusOK {
			t.Errorf("delivery %s attempts %+v", d.ID, as)
		}
	}
	if len(seen) != n {
		t.Errorf("receiver got %d distinct event ids, want %d", len(seen), n)
	}
}

// In one batch, attempts that end differently move on differently: those
// answered 200 succeed, those answered 500 are retried (and then succeed),
// each with its own attempts recorded.
func TestBatchWithMixedOutcomes(t *testing.T) {
	e := newHookEnv(t, nil)
	org, ctx := e.newOrg(t)
	var mu sync.Mutex
	failedOnce := map[string]bool{}
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Data struct{ N int } `json:"data"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		id := r.Header.Get("webhook-id")
		mu.Lock()
		fail := body.Data.N%3 == 0 && !failedOnce[id]
		failedOnce[id] = failedOnce[id] || fail
		mu.Unlock()
		if fail {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(rcv.Close)
	sub, _ := e.subscribe(t, ctx, rcv.URL, []string{events.HookMessageIncoming}, nil)

	const n = 12
	evs := make([]events.HookEvent, n)
	for i := range evs {
		evs[i] = events.HookEvent{OrgID: org, Name: events.HookMessageIncoming, Data: json.RawMessage(`{"n":` + strconv.Itoa(i) + `}`)}
	}
	if err := e.d.WriteDeliveries(ctx, evs); err != nil {
		t.Fatal(err)
	}
	e.waitSucceeded(t, ctx, sub.ID, n)
	for _, d := range e.deliveries(t, ctx, sub.ID) {
		var env struct {
			Data struct{ N int } `json:"data"`
		}
		if err := json.Unmarshal(d.Payload, &env); err != nil {
			t.Fatal(err)
		}
		as := e.attemptsOf(t, ctx, d.ID)
		want := []int{http.StatusOK}
		if env.Data.N%3 == 0 {
			want = []int{http.StatusInternalServerError, http.StatusOK}
		}
		got := make([]int, len(as))
		for i, a := range as {
			got[i] = a.StatusCode
			if a.Attempt != i+1 {
				t.Errorf("event %d: attempt %d numbered %d", env.Data.N, i+1, a.Attempt)
			}
		}
		if !slices.Equal(got, want) || d.Attempts != len(want) || d.LastError != "" {
			t.Errorf("event %d: attempts %v (delivery says %d, last error %q), want %v", env.Data.N, got, d.Attempts, d.LastError, want)
		}
	}
}

// Drains of one subscription running at the same time (on several
// workers or nodes) never post the same attempt twice: each claims
// different deliveries.
func TestConcurrentDrainsClaimDifferentDeliveries(t *testing.T) {
	e := newHookEnv(t, nil)
	org, ctx := e.newOrg(t)
	rcv := newReceiver(t)
	sub, _ := e.subscribe(t, ctx, rcv.URL, []string{events.HookContactCreated}, nil)
	const n = 200
	for range n {
		e.storeDelivery(t, ctx, org, sub)
	}
	// Six drains at once, beside the worker's (a sweep kicks it).
	if _, err := e.d.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			if err := e.d.Drain(ctx, sub.ID); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	e.waitSucceeded(t, ctx, sub.ID, n)
	seen := map[string]int{}
	for _, r := range rcv.requests() {
		seen[r.header.Get("webhook-id")]++
	}
	for id, c := range seen {
		if c != 1 {
			t.Errorf("event %s posted %d times", id, c)
		}
	}
	if len(seen) != n {
		t.Errorf("%d distinct events posted, want %d", len(seen), n)
	}
}

// A delivery whose attempt is in flight (leased by a drain) is left alone
// until its lease ends; then, its worker presumed dead, the attempt is
// made again with the next number.
func TestLeasedDeliveryTakenAgainAfterLease(t *testing.T) {
	e := newHookEnv(t, nil)
	org, ctx := e.newOrg(t)
	rcv := newReceiver(t)
	sub, _ := e.subscribe(t, ctx, rcv.URL, []string{events.HookContactCreated}, nil)
	del := e.storeDelivery(t, ctx, org, sub)
	lease := func(until time.Time) {
		t.Helper()
		if err := e.Client().WebhookDelivery.UpdateOneID(del.ID).SetAttempts(1).SetLeasedUntil(until).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}

	lease(time.Now().Add(time.Hour))
	if err := e.d.Drain(ctx, sub.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.Client().WebhookDelivery.Get(ctx, del.ID); got.Attempts != 1 || len(rcv.requests()) != 0 {
		t.Fatalf("a leased delivery was attempted: attempts %d, %d requests", got.Attempts, len(rcv.requests()))
	}

	lease(time.Now().Add(-time.Second))
	if err := e.d.Drain(ctx, sub.ID); err != nil {
		t.Fatal(err)
	}
	got := e.waitDelivery(t, ctx, del.ID, "succeeded", isStatus(webhookdelivery.StatusSucceeded))
	if got.Attempts != 2 || got.LeasedUntil != nil || len(rcv.requests()) != 1 {
		t.Errorf("attempts %d, leased until %v, %d requests; want 2, none, 1", got.Attempts, got.LeasedUntil, len(rcv.requests()))
	}
	if as := e.attemptsOf(t, ctx, del.ID); len(as) != 1 || as[0].Attempt != 2 {
		t.Errorf("recorded attempts %+v, want attempt 2 only", as)
	}
}

// waitAll polls cond until it holds; what says where it stands.
func waitAll(t *testing.T, cond func() (bool, string)) {
	t.Helper()
	var where string
	if !testkit.Poll(30*time.Second, func() bool { ok, w := cond(); where = w; return ok }) {
		t.Fatal(where)
	}
}

func TestInactiveSubscriptionStopsDelivery(t *testing.T) {
	e := newHookEnv(t, nil)
	org, ctx := e.newOrg(t)
	rcv := newReceiver(t)
	sub, _ := e.subscribe(t, ctx, rcv.URL, []string{events.HookContactCreated}, nil)
	stored := e.storeDelivery(t, ctx, org, sub)
	if err := e.Client().WebhookSubscription.UpdateOneID(sub.ID).SetIsActive(false).Exec(ctx); err != nil {
		t.Fatal(err)
	}

	if _, err := e.d.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	del := e.waitDelivery(t, ctx, stored.ID, "failed", isStatus(webhookdelivery.StatusFailed))
	if !strings.Contains(del.LastError, "inactive") || del.Attempts != 0 {
		t.Errorf("delivery last error %q, attempts %d", del.LastError, del.Attempts)
	}
	if n := len(rcv.requests()); n != 0 {
		t.Errorf("receiver got %d requests", n)
	}
}

func TestGiveUpThenReplay(t *testing.T) {
	e := newHookEnv(t, nil)
	org, ctx := e.newOrg(t)
	rcv := newReceiver(t, reply{status: http.StatusInternalServerError})
	sub, secret := e.subscribe(t, ctx, rcv.URL, []string{events.HookMessageSent}, nil)
	if err := emit(e.d, ctx, org, events.HookMessageSent, map[string]any{"id": "m1"}); err != nil {
		t.Fatal(err)
	}
	failed := e.waitDelivery(t, ctx, e.onlyDelivery(t, ctx, sub.ID).ID, "failed", isStatus(webhookdelivery.StatusFailed))
	if failed.Attempts != outbound.MaxAttempts || len(e.attemptsOf(t, ctx, failed.ID)) != outbound.MaxAttempts {
		t.Fatalf("gave up after %d attempts, want %d", failed.Attempts, outbound.MaxAttempts)
	}

	t.Run("ErrWaiting", func(t *testing.T) {
		// Due in an hour: a drain still running for the emit's second
		// (its tail task) must not post it before it is deleted.
		waiting := e.storeDeliveryDue(t, ctx, org, sub, time.Now().Add(time.Hour))
		_, err := e.d.Replay(ctx, waiting.ID)
		if apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("Replay of a waiting delivery = %v, want invalid", err)
		}
		if err := e.Client().WebhookDelivery.DeleteOneID(waiting.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, otherCtx := e.newOrg(t)
		if _, err := e.d.Replay(otherCtx, failed.ID); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("Replay from another organization = %v, want not_found", err)
		}
	})
	t.Run("OK", func(t *testing.T) {
		rcv.answer(reply{status: http.StatusOK})
		queued, err := e.d.Replay(ctx, failed.ID)
		if err != nil {
			t.Fatal(err)
		}
		if queued.Status != webhookdelivery.StatusPending || queued.CompletedAt != nil {
			t.Errorf("replayed delivery status %s, completed %v", queued.Status, queued.CompletedAt)
		}
		del := e.waitDelivery(t, ctx, failed.ID, "succeeded", isStatus(webhookdelivery.StatusSucceeded))
		as := e.attemptsOf(t, ctx, del.ID)
		last := as[len(as)-1]
		if len(as) != outbound.MaxAttempts+1 || last.Attempt != outbound.MaxAttempts+1 || last.StatusCode != http.StatusOK {
			t.Errorf("%d attempts, last %+v; want %d, the last one 200", len(as), last, outbound.MaxAttempts+1)
		}
		reqs := rcv.requests()
		for _, r := range reqs {
			if r.header.Get("webhook-id") != failed.EventID.String() || string(r.body) != string(failed.Payload) {
				t.Fatalf("a request carried another event id or body: %s", r.body)
			}
		}
		verifySignatures(t, secret, reqs[len(reqs)-1])
	})
	t.Run("ErrInactive", func(t *testing.T) {
		if err := e.Client().WebhookSubscription.UpdateOneID(sub.ID).SetIsActive(false).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := e.d.Replay(ctx, failed.ID); apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("Replay on an inactive subscription = %v, want invalid", err)
		}
	})
}

func TestDeliveryRefusesPrivateAddress(t *testing.T) {
	e := newHookEnv(t, func(o *webhooks.Options) { o.AllowPrivate = false })
	org, ctx := e.newOrg(t)
	rcv := newReceiver(t)
	sub, _ := e.subscribe(t, ctx, rcv.URL, []string{events.HookContactCreated}, nil)

	if err := emit(e.d, ctx, org, events.HookContactCreated, nil); err != nil {
		t.Fatal(err)
	}
	del := e.waitDelivery(t, ctx, e.onlyDelivery(t, ctx, sub.ID).ID, "retried", func(d *ent.WebhookDelivery) bool {
		return d.Attempts >= 1 && d.Status != webhookdelivery.StatusPending
	})
	if !strings.Contains(del.LastError, "not allowed") || del.LastStatusCode != nil {
		t.Errorf("last error %q, status %v; want the SSRF guard's refusal", del.LastError, del.LastStatusCode)
	}
	if n := len(rcv.requests()); n != 0 {
		t.Errorf("receiver on a loopback address got %d requests", n)
	}
	if err := e.d.ValidateURL(rcv.URL); err == nil {
		t.Error("ValidateURL accepted a loopback URL")
	}
}

// TestEmitWithStaleCache changes subscriptions behind the dispatcher's
// back, as another node would: the cached list is stale, yet an event for
// a deleted subscription must not fail the caller's transaction, and a
// deactivated one gets nothing.
func TestEmitWithStaleCache(t *testing.T) {
	e := newHookEnv(t, nil)
	org, ctx := e.newOrg(t)
	rcv := newReceiver(t)
	deleted, _ := e.subscribe(t, ctx, rcv.URL+"/deleted", []string{events.HookContactCreated}, nil)
	deactivated, _ := e.subscribe(t, ctx, rcv.URL+"/deactivated", []string{events.HookContactCreated}, nil)
	kept, _ := e.subscribe(t, ctx, rcv.URL+"/kept", []string{events.HookContactCreated}, nil)
	if err := emit(e.d, ctx, org, events.HookMessageSent, nil); err != nil { // fills the cache
		t.Fatal(err)
	}
	if err := e.Client().WebhookSubscription.DeleteOneID(deleted.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Client().WebhookSubscription.UpdateOneID(deactivated.ID).SetIsActive(false).Exec(ctx); err != nil {
		t.Fatal(err)
	}

	tx, err := e.Client().Tx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := emit(e.d, ent.NewTxContext(ctx, tx), org, events.HookContactCreated, nil); err != nil {
		_ = tx.Rollback()
		t.Fatalf("Emit with a stale cache = %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	e.waitDelivery(t, ctx, e.onlyDelivery(t, ctx, kept.ID).ID, "succeeded", isStatus(webhookdelivery.StatusSucceeded))
	if n := len(e.deliveries(t, ctx, deactivated.ID)); n != 0 {
		t.Errorf("deactivated subscription got %d deliveries", n)
	}
}

// A node runs at most two drains of a subscription at once: a drain task
// that finds two running returns without claiming, and the running drains
// cover its deliveries: here one stored after their last look, with no
// kick of its own, is delivered by the look they queue for the skipped
// task's second.
func TestDrainsOfASubscriptionPerNodeBounded(t *testing.T) {
	e := newHookEnv(t, nil)
	org, ctx := e.newOrg(t)
	release := make(chan struct{})
	var posts atomic.Int32
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		<-release
	}))
	t.Cleanup(rcv.Close)
	var unblock sync.Once
	t.Cleanup(func() { unblock.Do(func() { close(release) }) }) // before rcv.Close
	sub, _ := e.subscribe(t, ctx, rcv.URL, []string{events.HookContactCreated}, nil)
	// Two batches and one more: the two drains' batches wait on their
	// posts; a third drain beside them would claim the last delivery.
	const batch, n = 32, 2*32 + 1
	for range n {
		e.storeDelivery(t, ctx, org, sub)
	}

	running := make(chan error, 2)
	for range 2 {
		go func() { running <- e.d.HandleDrainTask(context.Background(), org, sub.ID, 0) }()
		waitAll(t, func() (bool, string) {
			return posts.Load()%batch == 0 && posts.Load() > 0, fmt.Sprintf("%d posts", posts.Load())
		})
	}
	waitAll(t, func() (bool, string) { return posts.Load() == 2*batch, fmt.Sprintf("%d posts", posts.Load()) })

	until := time.Now().Unix() + 1
	if err := e.d.HandleDrainTask(context.Background(), org, sub.ID, until); err != nil {
		t.Fatal(err)
	}
	if got := posts.Load(); got != 2*batch {
		t.Fatalf("%d posts while two drains run, want %d: the third task drained beside them", got, 2*batch)
	}
	unblock.Do(func() { close(release) })
	for range 2 {
		if err := <-running; err != nil {
			t.Fatal(err)
		}
	}
	e.waitSucceeded(t, ctx, sub.ID, n)

	late := e.storeDelivery(t, ctx, org, sub)
	e.waitDelivery(t, ctx, late.ID, "succeeded", func(d *ent.WebhookDelivery) bool { return d.Status == webhookdelivery.StatusSucceeded })
	if got := posts.Load(); got != n+1 {
		t.Errorf("%d posts, want %d", got, n+1)
	}
}
