package webhooks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/ent/viewer"
	"switchboard/ent/webhookdelivery"
	"switchboard/ent/webhookdeliveryattempt"
	"switchboard/events"
	"switchboard/internal/apitest"
	"switchboard/internal/testkit"
	"switchboard/outbound"
	"switchboard/webhooks"
	"switchboard/worker"
)

// hookEnv is the application's database and Redis with a Dispatcher of the
// test's own: its own queues and worker, a fast retry schedule.
type hookEnv struct {
	*apitest.Env
	d *webhooks.Dispatcher
}

// fastSchedule is the contract's schedule with the plain waits cut to
// nothing, so retries happen at once; a wait lengthened by a receiver's
// Retry-After is kept.
func fastSchedule(n int, o outbound.Outcome, now time.Time) outbound.Decision {
	d := outbound.NextAttempt(n, o, now)
	if d.Action == outbound.ActionRetry && d.Delay == outbound.Delay(n+1) {
		d.Delay = 0
	}
	return d
}

// newHookEnv boots the application and starts a Dispatcher with options
// edited by edit.
func newHookEnv(t testing.TB, edit func(*webhooks.Options)) *hookEnv {
	t.Helper()
	env := apitest.New(t)
	prefix := "wh" + uuid.NewString()[:8]
	queue := worker.NewClient(env.App.KV.ConnOpt(), prefix)
	w := worker.New(env.App.KV.ConnOpt(), worker.Options{QueuePrefix: prefix, Concurrency: 4, ShutdownTimeout: time.Second})
	o := webhooks.Options{
		Client: env.Client(), Secrets: env.App.Resolver.Secrets, Queue: queue,
		AllowPrivate: true, Schedule: fastSchedule, Postgres: env.App.DB.Postgres(),
	}
	if edit != nil {
		edit(&o)
	}
	d := webhooks.New(o)
	d.Register(w)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		w.Shutdown()
		_ = queue.Close()
	})
	return &hookEnv{Env: env, d: d}
}

// newOrg creates an organization and returns its id and a system context
// acting in it.
func (e *hookEnv) newOrg(t testing.TB) (uuid.UUID, context.Context) {
	t.Helper()
	org := e.NewOrg("Org " + uuid.NewString()[:6]).OrgID
	return org, viewer.SystemContext(context.Background(), org)
}

// subscribe stores a subscription with a generated secret and returns it
// with the secret in clear.
func (e *hookEnv) subscribe(t testing.TB, ctx context.Context, url string, events []string, edit func(*ent.WebhookSubscriptionCreate)) (*ent.WebhookSubscription, string) {
	t.Helper()
	secret := outbound.NewSecret()
	c := e.Client().WebhookSubscription.Create().SetName("Receiver").SetURL(url).SetEvents(events).
		SetSecretEncrypted(e.App.Resolver.Secrets.Seal([]byte(secret)))
	if edit != nil {
		edit(c)
	}
	sub, err := c.Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e.d.Invalidate(sub.OrganizationID)
	return sub, secret
}

// deliveries returns a subscription's deliveries, oldest first.
func (e *hookEnv) deliveries(t *testing.T, ctx context.Context, subID uuid.UUID) []*ent.WebhookDelivery {
	t.Helper()
	ds, err := e.Client().WebhookDelivery.Query().Where(webhookdelivery.SubscriptionID(subID)).
		Order(webhookdelivery.ByCreatedAt()).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// onlyDelivery returns the one delivery of a subscription.
func (e *hookEnv) onlyDelivery(t *testing.T, ctx context.Context, subID uuid.UUID) *ent.WebhookDelivery {
	t.Helper()
	ds := e.deliveries(t, ctx, subID)
	if len(ds) != 1 {
		t.Fatalf("subscription has %d deliveries, want 1", len(ds))
	}
	return ds[0]
}

// waitDelivery polls a delivery until cond holds, and returns it.
func (e *hookEnv) waitDelivery(t *testing.T, ctx context.Context, id uuid.UUID, what string, cond func(*ent.WebhookDelivery) bool) *ent.WebhookDelivery {
	t.Helper()
	var del *ent.WebhookDelivery
	if !testkit.Poll(20*time.Second, func() bool {
		var err error
		if del, err = e.Client().WebhookDelivery.Get(ctx, id); err != nil {
			t.Fatal(err)
		}
		return cond(del)
	}) {
		t.Fatalf("delivery never became %s: status %s, attempts %d, last error %q", what, del.Status, del.Attempts, del.LastError)
	}
	return del
}

// waitSucceeded polls until n deliveries of the subscription have
// succeeded.
func (e *hookEnv) waitSucceeded(t *testing.T, ctx context.Context, subID uuid.UUID, n int) {
	t.Helper()
	waitAll(t, func() (bool, string) {
		ds := e.deliveries(t, ctx, subID)
		done := 0
		for _, d := range ds {
			if d.Status == webhookdelivery.StatusSucceeded {
				done++
			}
		}
		return done == n, fmt.Sprintf("%d of %d deliveries succeeded (%d stored)", done, n, len(ds))
	})
}

func isStatus(s webhookdelivery.Status) func(*ent.WebhookDelivery) bool {
	return func(d *ent.WebhookDelivery) bool { return d.Status == s }
}

// attemptsOf returns the recorded attempts of a delivery in order.
func (e *hookEnv) attemptsOf(t *testing.T, ctx context.Context, id uuid.UUID) []*ent.WebhookDeliveryAttempt {
	t.Helper()
	as, err := e.Client().WebhookDeliveryAttempt.Query().Where(webhookdeliveryattempt.DeliveryID(id)).
		Order(webhookdeliveryattempt.ByAttempt()).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return as
}

// reply is one answer of a receiver.
type reply struct {
	status int
	header map[string]string
}

// received is one request a receiver got.
type received struct {
	header http.Header
	body   []byte
}

// receiver is an httptest server that records requests and answers them
// with its replies in order, the last one repeating.
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	got     []received
	replies []reply
}

func newReceiver(t testing.TB, replies ...reply) *receiver {
	t.Helper()
	r := &receiver{replies: replies}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.got = append(r.got, received{header: req.Header.Clone(), body: body})
	rep := reply{status: http.StatusOK}
	if len(r.replies) > 0 {
		rep = r.replies[0]
		if len(r.replies) > 1 {
			r.replies = r.replies[1:]
		}
	}
	r.mu.Unlock()
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(rep.status)
}

// answer replaces the receiver's replies.
func (r *receiver) answer(replies ...reply) {
	r.mu.Lock()
	r.replies = replies
	r.mu.Unlock()
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

// verifySignatures checks both signatures of a delivery the way a receiver
// would, recomputing the HMACs here rather than with package outbound.
func verifySignatures(t *testing.T, secret string, r received) {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	id, ts := r.header.Get("webhook-id"), r.header.Get("webhook-timestamp")
	std := hmac.New(sha256.New, key)
	std.Write([]byte(id + "." + ts + "." + string(r.body)))
	if got, want := r.header.Get("webhook-signature"), "v1,"+base64.StdEncoding.EncodeToString(std.Sum(nil)); got != want {
		t.Errorf("webhook-signature = %q, want %q", got, want)
	}
	compat := hmac.New(sha256.New, key)
	compat.Write(r.body)
	if got, want := r.header.Get("X-Webhook-Signature"), "sha256="+hex.EncodeToString(compat.Sum(nil)); got != want {
		t.Errorf("X-Webhook-Signature = %q, want %q", got, want)
	}
}

// emit writes the deliveries of one event as events.Bus.Record does.
func emit(d *webhooks.Dispatcher, ctx context.Context, org uuid.UUID, name string, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	return d.WriteDeliveries(ctx, []events.HookEvent{{OrgID: org, Name: name, Data: raw}})
}
